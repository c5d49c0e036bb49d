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
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { Observer, Trace } from '../observability/request-observer.ts';
import { notFoundHandler } from './errors.ts';
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

/**
 * POST routes run outside the router: the route's own Express handlers, in order, on Express's request and
 * response. The server-to-server routes (enrichment, people) are not rewritten on `node:http`: their body
 * parsing, validation and error answers stay Express's. What this saves is the router's walk (every layer
 * of the API router and of the app matched against the path, `next` closures, `finalhandler` set up per
 * request): server CPU per response 235 → 185 µs for `POST /v1/enrichment/company` and 230 → 179 µs for
 * `POST /v2/people/full` (bare Express 128–138 µs; `npm run bench -- enrichment`, bench/RESULTS.md).
 */
export type ExpressRoutes = ReadonlyMap<string, readonly RequestHandler[]>;

interface RouterLayer {
  match(path: string): unknown;
  route?: { path: unknown; stack: { method?: string; handle: RequestHandler }[] };
}

/**
 * The handlers the router runs for `POST path`, read from the router's own table so they can never differ
 * from what is mounted. Refuses (at start-up) a path that more than one layer matches, or whose route
 * serves other methods too: the lane is only equivalent when the route is the router's one answer.
 */
export function postRoutesOf(router: Router, paths: readonly string[]): ExpressRoutes {
  const stack = (router as unknown as { stack: RouterLayer[] }).stack;
  return new Map(
    paths.map((path) => {
      const layers = stack.filter((layer) => layer.match(path));
      const route = layers.length === 1 ? layers[0].route : undefined;
      if (route?.path !== path || route.stack.some((l) => l.method !== 'post')) {
        throw new Error(`fast lane: POST ${path} is not one POST-only route of the router`);
      }
      return [path, route.stack.map((l) => l.handle)] as const;
    }),
  );
}

export function fastLane(
  app: Express,
  routes: FastRoutes,
  onError: ErrorRequestHandler,
  observer: Observer,
  posts: ExpressRoutes = new Map(),
): RequestListener {
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
    const method = req.method;
    if (method === 'GET' || method === 'POST') {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const handler = method === 'GET' ? routes.get(path) : undefined;
      if (handler !== undefined) {
        handler(req, res, observer.begin(req, path), lane);
        return;
      }
      const handlers = method === 'POST' ? posts.get(path) : undefined;
      if (handlers !== undefined) {
        // Observed exactly as the Express path below (X-Request-Id first, `finish` listener); the route
        // label is the path, as Express's `req.route.path` would give.
        observer.watch(req, res, observer.begin(req, path));
        expressLane(app, handlers, onError, req, res);
        return;
      }
    }
    observer.watch(req, res, observer.begin(req));
    app(req, res);
  };
}

/** What app.handle() and the router set up before a route handler runs. */
function asExpress(app: Express, rawReq: IncomingMessage, rawRes: ServerResponse): [Request, Response] {
  const req = Object.setPrototypeOf(rawReq, app.request) as Request;
  const res = Object.setPrototypeOf(rawRes, app.response) as Response;
  req.res = res;
  res.req = req;
  if (!res.locals) res.locals = Object.create(null);
  req.originalUrl = req.url;
  req.baseUrl = '';
  req.params = {};
  return [req, res];
}

/**
 * Runs a route's handlers as the router's `Route#dispatch` and `Layer#handleRequest` would: `next()` to the
 * next handler, a thrown error or a rejected promise (`next(err)`) to the app's error handler — the first
 * error handler the router would reach, since nothing between the API router and it handles errors. The
 * routes' last handler (`apiRoute`) always answers or throws; were it to call `next()`, the router would
 * go on to the app's 404 (`next('route')` too), and so does this.
 */
function expressLane(app: Express, handlers: readonly RequestHandler[], onError: ErrorRequestHandler, rawReq: IncomingMessage, rawRes: ServerResponse): void {
  const [req, res] = asExpress(app, rawReq, rawRes);
  let i = 0;
  const next = (err?: unknown): void => {
    const exit = err === 'route' || err === 'router';
    if (err && !exit) {
      runErrorHandler(onError, req, res, err);
      return;
    }
    const handler = exit ? undefined : handlers[i++];
    if (handler === undefined) {
      notFoundHandler(req, res, next);
      return;
    }
    try {
      const ret = handler(req, res, next) as unknown;
      if (ret instanceof Promise) ret.then(undefined, (error: unknown) => next(error || new Error('Rejected promise')));
    } catch (thrown) {
      next(thrown);
    }
  };
  next();
}

/** What app.handle() and the router set up before a route handler runs, then the app's error handler. */
function handleError(app: Express, onError: ErrorRequestHandler, rawReq: IncomingMessage, rawRes: ServerResponse, err: unknown): void {
  const [req, res] = asExpress(app, rawReq, rawRes);
  runErrorHandler(onError, req, res, err);
}

function runErrorHandler(onError: ErrorRequestHandler, req: Request, res: Response, err: unknown): void {
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
