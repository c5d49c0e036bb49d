/**
 * 405 for a known route asked with a method it does not serve (RFC 9110 §15.5.6: with an `Allow` header
 * listing the methods it does serve), instead of a misleading 404. Express has no such answer of its own;
 * the methods come from the router's own route table (`Route#_methods`, what the router itself uses for
 * its automatic OPTIONS answer), walked through mounted sub-routers, so the list can never disagree with
 * what is mounted. Runs after every router, so it only sees requests nothing answered.
 */
import type { RequestHandler, Router } from 'express';
import { sendError } from './errors.ts';

interface RouteLayer {
  /** The matched part of the path (router 2.x: a result object, no side effects), or false. */
  match(path: string): { path: string } | false;
  route?: { _methods(): string[] };
  handle?: { stack?: RouteLayer[] };
}

/** The methods the routes matching `path` serve (HEAD with GET, as the router answers it), in route order. */
export function allowedMethods(stack: readonly RouteLayer[], path: string, into = new Set<string>()): Set<string> {
  for (const layer of stack) {
    const matched = layer.match(path);
    if (!matched) continue;
    if (layer.route) for (const m of layer.route._methods()) into.add(m);
    else if (layer.handle?.stack) allowedMethods(layer.handle.stack, path.slice(matched.path.length) || '/', into);
  }
  return into;
}

export function methodNotAllowed(router: Router): RequestHandler {
  const stack = (router as unknown as { stack: RouteLayer[] }).stack;
  return (req, res, next) => {
    const allowed = allowedMethods(stack, req.path);
    if (allowed.size === 0 || allowed.has(req.method)) return next();
    const list = [...allowed].join(', ');
    res.set('Allow', list);
    sendError(res, 405, `method ${req.method} is not allowed on ${req.path}; allowed: ${list}`, 'method_not_allowed');
  };
}
