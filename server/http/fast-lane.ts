/**
 * The hot route ahead of Express's router. `GET /v3/company/details` is every page view of every
 * customer's site; on it, Express's own routing (layer matching, `next()` chains, per-request closures)
 * cost more than our whole pipeline (measured by `npm run bench -- identification`). The fast lane hands
 * that exact method and path straight to the route's own handler, with the request and response turned
 * into Express's (`req.query`, `req.ip`, `res.json` … behave exactly as on the router) and errors sent to
 * the app's own error handler. Everything else — other methods (HEAD, OPTIONS preflight), other spellings
 * of the path (case, trailing slash), every other route — goes to the Express app unchanged.
 *
 * It is only equivalent because no app-level middleware runs before the API router (server/app.ts says
 * so where the app is assembled); route.test.ts and pipeline.test.ts run through it, and fast-lane.test.ts
 * compares its answers with the router's for the same requests.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

export type FastRoutes = ReadonlyMap<string, RequestHandler>;

export function fastLane(app: Express, getRoutes: FastRoutes, onError: ErrorRequestHandler): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const handler = getRoutes.get(q < 0 ? url : url.slice(0, q));
      if (handler !== undefined) {
        serve(app, handler, onError, req, res);
        return;
      }
    }
    app(req, res);
  };
}

function serve(app: Express, handler: RequestHandler, onError: ErrorRequestHandler, rawReq: IncomingMessage, rawRes: ServerResponse): void {
  // What app.handle() and the router set up before a route handler runs.
  const req = Object.setPrototypeOf(rawReq, app.request) as Request;
  const res = Object.setPrototypeOf(rawRes, app.response) as Response;
  req.res = res;
  res.req = req;
  if (!res.locals) res.locals = Object.create(null);
  req.originalUrl = req.url;
  req.baseUrl = '';
  req.params = {};

  const last = (err?: unknown) => {
    // As Express's final handler would: the error handler always answers, so this only guards.
    if (res.headersSent) res.destroy(err instanceof Error ? err : undefined);
    else res.status(500).end();
  };
  const next: NextFunction = (err?: unknown) => {
    const e = err ?? new Error('a fast-lane route handler must answer, not call next()');
    try {
      onError(e, req, res, last);
    } catch (thrown) {
      last(thrown);
    }
  };
  try {
    const out = handler(req, res, next) as unknown;
    if (out instanceof Promise) out.catch(next);
  } catch (err) {
    next(err);
  }
}
