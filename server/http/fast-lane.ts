/**
 * The hot route ahead of Express. `GET /v3/company/details` is every page view of every customer's site.
 * First, Express's own routing (layer matching, `next()` chains, per-request closures) cost more than our
 * whole pipeline; then, with the route run outside the router, Express's request/response objects
 * (prototype swap, `req.query` re-parsed on every read, `res.set`/`res.vary`/`res.json`/`res.send`) were
 * still most of what was left (measured by `npm run bench -- identification` and `--cpu-prof`). So a fast
 * route is written on `node:http` itself (server/identification/fast-route.ts): it answers its usual cases
 * with one `writeHead` of a header array and one `end`, and hands everything else back here —
 *   - `lane.express`: the whole request to the Express app (requests the route does not reproduce
 *     Express's answer for, e.g. conditional GETs, which Express may answer 304);
 *   - `lane.fail`: an error to the app's own error handler, on the request and response turned into
 *     Express's (exactly as the router would have: same handler, same JSON error, same headers).
 * Other methods (HEAD, OPTIONS preflight), other spellings of the path (case, trailing slash) and every
 * other route go to the Express app unchanged.
 *
 * It is only equivalent because no app-level middleware runs before the API router (server/app.ts says
 * so where the app is assembled); fast-lane.test.ts compares its answers with the router's for the same
 * requests, and route.test.ts and pipeline.test.ts run through it.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, Response } from 'express';
import type { Observer, Trace } from '../observability/request-observer.ts';
import type { TrustProxy } from './request-id.ts';

export interface Lane {
  /** The app's compiled `trust proxy` setting. */
  readonly trustProxy: TrustProxy | undefined;
  /** The client address exactly as Express's `req.ip` computes it (trust proxy, X-Forwarded-For). */
  ip(req: IncomingMessage): string | undefined;
  /** Hands the request to the Express app, observed like any other. */
  express(req: IncomingMessage, res: ServerResponse, trace: Trace): void;
  /** Answers `err` through the app's error handler, after setting `headers` (flat name/value pairs). */
  fail(req: IncomingMessage, res: ServerResponse, trace: Trace, err: unknown, headers: readonly string[]): void;
  /** The handler has ended the response: its log line and metrics. */
  done(req: IncomingMessage, res: ServerResponse, trace: Trace): void;
}

/** A fast route: answers with `node:http` alone, or hands the request back through `lane`. */
export type FastHandler = (req: IncomingMessage, res: ServerResponse, trace: Trace, lane: Lane) => void;
export type FastRoutes = ReadonlyMap<string, FastHandler>;

export function fastLane(app: Express, routes: FastRoutes, onError: ErrorRequestHandler, observer: Observer): RequestListener {
  const lane: Lane = {
    trustProxy: app.get('trust proxy fn') as TrustProxy | undefined,
    // Express's own getter, run on a stand-in with what it reads (app, headers, socket).
    ip: (req) => Reflect.get(app.request, 'ip', { app, headers: req.headers, socket: req.socket }) as string | undefined,
    express(req, res, trace) {
      observer.watch(req, res, trace);
      app(req, res);
    },
    fail(req, res, trace, err, headers) {
      // As Express's final handler: an answer already under way cannot become an error answer.
      if (res.headersSent) {
        res.destroy(err instanceof Error ? err : undefined);
        return;
      }
      for (let i = 0; i < headers.length; i += 2) {
        try {
          res.setHeader(headers[i], headers[i + 1]);
        } catch {
          // A header Node refuses is left out of the error answer (the error handler answers 500 for it).
        }
      }
      observer.watch(req, res, trace);
      handleError(app, onError, req, res, err);
    },
    done(req, res, trace) {
      observer.done(req, res, trace);
    },
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET') {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const handler = routes.get(path);
      if (handler !== undefined) {
        handler(req, res, observer.begin(req, path), lane);
        return;
      }
    }
    observer.watch(req, res, observer.begin(req));
    app(req, res);
  };
}

/** What app.handle() and the router set up before a route handler runs, then the app's error handler. */
function handleError(app: Express, onError: ErrorRequestHandler, rawReq: IncomingMessage, rawRes: ServerResponse, err: unknown): void {
  const req = Object.setPrototypeOf(rawReq, app.request) as Request;
  const res = Object.setPrototypeOf(rawRes, app.response) as Response;
  req.res = res;
  res.req = req;
  if (!res.locals) res.locals = Object.create(null);
  req.originalUrl = req.url;
  req.baseUrl = '';
  req.params = {};
  const last: NextFunction = (e?: unknown) => {
    // As Express's final handler would: the error handler always answers, so this only guards.
    if (res.headersSent) res.destroy(e instanceof Error ? e : undefined);
    else res.status(500).end();
  };
  try {
    onError(err, req, res, last);
  } catch (thrown) {
    last(thrown);
  }
}
