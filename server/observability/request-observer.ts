/**
 * One observer per request, ahead of everything: request id, then — when the response is written — one
 * log line and the request metrics.
 *
 * Written on pino directly rather than with pino-http: one `finish` listener feeds both the log line and
 * the metrics, the line carries a fixed allow-list of fields (pino-http serializes the request headers by
 * default, and those carry API tokens and the admin token), and it works on the raw `http` objects the
 * router answers without Express. It stays cheap on the hottest route: the line is one template written
 * through the logger's `infoLineWriter` (≈ 2 µs of CPU, `npm run bench -- log-line`; the identification
 * benchmark shows it as server CPU per response with logs on against off).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { boundedMemo } from '../cache/bounded-cache.ts';
import { mask } from './log-mask.ts';
import { infoLineWriter, type Logger } from './logger.ts';
import { httpDuration, httpRequests, rateLimitRefusals } from './metrics.ts';
import { factsOf, type RequestFacts } from './request-facts.ts';

/** A caller's own id is echoed only when it is a plain token: anything else could forge log lines. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
}

/**
 * The route a request matched (`/admin/api/tokens/:id`), a bounded label set for metrics: the route
 * table's path, else `static` (files of the app shell) or `unmatched` (404s, 405s), never the raw path.
 */
export function routeLabel(route: string | undefined, status: number): string {
  if (route) return route;
  return status === 404 || status === 405 ? 'unmatched' : 'static';
}

/** When a request arrived and the id it answers under. */
export interface Trace {
  readonly id: string;
  readonly start: bigint;
  /** The route table's path the request matched (its metrics label), when it matched one. */
  readonly route: string | undefined;
}

export interface Observer {
  /** Notes the arrival and picks the request id (the caller's, or a new one). */
  begin(req: IncomingMessage, route?: string): Trace;
  /** Observes a response its writer has just ended: one log line and the request metrics. */
  done(req: IncomingMessage, res: ServerResponse, trace: Trace): void;
  /** For a response the app shell writes: X-Request-Id now, `done` when it finishes. */
  watch(req: IncomingMessage, res: ServerResponse, trace: Trace): void;
}

/** A string as JSON, remembered for the bounded sets it is used on (methods, route labels, route paths). */
const quotedOnce = boundedMemo((s: string) => JSON.stringify(s), 256);

/**
 * The request line's fields after level, time and pid, as pino writes `log.info({ request_id, …, msg })`:
 * one template, no object walked per request. The fields are an allow-list; the path is the one value
 * the client chose, so it is masked (emails, secrets) — once per route when it is the route's own path.
 */
function requestLineFields(
  id: string,
  method: string,
  route: string,
  path: string,
  status: number,
  durationMs: number,
  facts: RequestFacts | undefined,
): string {
  const customer = facts?.customer;
  return `,"request_id":${JSON.stringify(id)},"method":${quotedOnce(method)},"route":${quotedOnce(route)},"path":${path === route ? maskedRoutePath(path) : JSON.stringify(mask(path))},"status":${status},"duration_ms":${durationMs},"customer":${customer == null ? 'null' : JSON.stringify(customer)},"credits":${facts?.credits ?? 0},"msg":"request"`;
}

/**
 * A path that is its route's pattern (a route without parameters) is one of
 * a fixed set: masked and quoted once each (bounded, as any memo of request data).
 */
const maskedRoutePath = boundedMemo((path: string) => JSON.stringify(mask(path)), 256);

export function createObserver(log: Logger): Observer {
  const logRequests = log.isLevelEnabled('info');
  const writeLine = infoLineWriter(log);

  const done = (req: IncomingMessage, res: ServerResponse, trace: Trace) => {
    const seconds = Number(process.hrtime.bigint() - trace.start) / 1e9;
    const status = res.statusCode;
    const route = routeLabel(trace.route, status);
    const method = req.method ?? '';
    httpRequests.inc({ route, method, status });
    httpDuration.observe({ route, method }, seconds);
    if (status === 429) rateLimitRefusals.inc({ route });
    if (!logRequests) return;
    const facts = factsOf(res);
    // Express rewrites req.url inside mounted routers; originalUrl is what the client asked for.
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
    const q = url.indexOf('?');
    // The path without its query (which can carry addresses).
    const path = q < 0 ? url : url.slice(0, q);
    const durationMs = Math.round(seconds * 1e6) / 1e3;
    if (writeLine) {
      writeLine(requestLineFields(trace.id, method, route, path, status, durationMs, facts));
      return;
    }
    // A logger not made by createLogger: the same line through pino.
    log.info(
      {
        request_id: trace.id,
        method,
        route,
        path: mask(path),
        status,
        duration_ms: durationMs,
        customer: facts?.customer ?? null,
        credits: facts?.credits ?? 0,
      },
      'request',
    );
  };

  return {
    begin: (req, route) => ({ id: requestId(req.headers['x-request-id']), start: process.hrtime.bigint(), route }),
    done,
    watch(req, res, trace) {
      res.setHeader('X-Request-Id', trace.id);
      res.once('finish', () => done(req, res, trace));
    },
  };
}
