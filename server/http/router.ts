/**
 * The transport: every route of the table registered on `find-my-way` (the router Fastify is built on)
 * over `node:http`. API routes run the pipeline (./run-route.ts); app-shell routes and every path the table
 * does not know go to the Express app (static files, console, /docs, the tag bundle, the demo page).
 *
 * From the table alone: GET routes answer HEAD too; a known path asked with a method it does not serve is
 * 405 + `Allow` (OPTIONS on a path without a preflight route: 204 + `Allow`), found by asking the router
 * itself — no framework's private tables. Paths match as Express matched them: case-insensitive, a
 * trailing slash ignored.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { ApiError } from '../../core/error-codes.ts';
import type { Observer } from '../observability/request-observer.ts';
import type { Services } from '../services.ts';
import { parseQuery, type RawQuery } from './api-request.ts';
import { errorAnswer } from './errors.ts';
import type { RouteDef } from './route-def.ts';
import { runRoute, send } from './run-route.ts';

/** Longest path parameter matched (ids are far shorter; longer ones are answered 404 by the shell). */
const MAX_PARAM_LENGTH = 500;

/** The routes that exist with these services (demo routes only in demo mode, webhook routes with an outbox). */
export function enabledRoutes(routes: readonly RouteDef[], services: Services): RouteDef[] {
  return routes.filter((r) => r.enabled?.(services) ?? true);
}

export function createRouter(routes: readonly RouteDef[], services: Services, shell: RequestListener, observer: Observer): RequestListener {
  const methods = new Set<string>();

  /** The request to the Express app shell, observed like every other. */
  const toShell = (req: IncomingMessage, res: ServerResponse, label?: string) => {
    observer.watch(req, res, observer.begin(req, label));
    shell(req, res);
  };

  /** No route for this method and path: 405 when the path is known for other methods, else the shell. */
  const unmatched = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const allowed: string[] = [];
    for (const m of methods) if (router.find(m as HTTPMethod, url) !== null) allowed.push(m);
    if (allowed.length === 0) return toShell(req, res);
    const trace = observer.begin(req);
    const list = allowed.join(', ');
    const headers = ['X-Request-Id', trace.id, 'Allow', list];
    if (req.method === 'OPTIONS') {
      send(res, 204, headers, null, undefined, false);
    } else {
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const a = errorAnswer(new ApiError('method_not_allowed', `method ${req.method} is not allowed on ${path}; allowed: ${list}`), services.log, () => path);
      send(res, 405, headers, null, a.body, req.method === 'HEAD');
    }
    observer.done(req, res, trace);
  };

  const router = FindMyWay({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    maxParamLength: MAX_PARAM_LENGTH,
    querystringParser: parseQuery,
    defaultRoute: unmatched,
    // A path that cannot be percent-decoded names no route: the shell answers it (404, or 400 for what it cannot read).
    onBadUrl: (_path, req, res) => toShell(req, res),
  });

  for (const def of enabledRoutes(routes, services)) {
    const verbs: HTTPMethod[] = def.method === 'GET' && def.head !== false ? ['GET', 'HEAD'] : [def.method];
    for (const verb of verbs) {
      methods.add(verb);
      if (def.shell) router.on(verb, def.path, (req, res) => toShell(req, res, def.path));
      else router.on(verb, def.path, (req, res, params, _store, query) => runRoute(def, services, observer, req, res, params, query as RawQuery));
    }
  }

  return (req, res) => router.lookup(req, res);
}
