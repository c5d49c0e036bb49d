/**
 * One observer per request, ahead of everything (the fast lane included): request id, then — when the
 * response finishes — one log line and the request metrics.
 *
 * Written on pino directly rather than with pino-http: one `finish` listener feeds both the log line and
 * the metrics, the line carries a fixed allow-list of fields (pino-http serializes the request headers by
 * default, and those carry API tokens and the admin token), and it works on the raw `http` objects the fast
 * lane answers without Express. It stays cheap on the hottest route (`npm run bench -- identification`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../http/logger.ts';
import { mask } from '../http/log-mask.ts';
import { httpDuration, httpRequests, rateLimitRefusals } from './metrics.ts';
import { factsOf } from './request-facts.ts';

/** A caller's own id is echoed only when it is a plain token: anything else could forge log lines. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
}

/**
 * The route pattern a request matched (`/admin/api/tokens/:id`), a bounded label set for metrics: Express
 * leaves `req.route` on a matched request; `fastRoute` names the fast lane's routes; the rest is `static`
 * (files) or `unmatched` (404s), never the raw path (which would be unbounded).
 */
export function routeLabel(req: IncomingMessage & { route?: { path?: unknown }; baseUrl?: string }, status: number, fastRoute: string | undefined): string {
  if (fastRoute) return fastRoute;
  const path = req.route?.path;
  if (typeof path === 'string') return (req.baseUrl ?? '') + path;
  return status === 404 || status === 405 ? 'unmatched' : 'static';
}

export type Observer = (req: IncomingMessage, res: ServerResponse, fastRoute?: string) => void;

export function createObserver(log: Logger): Observer {
  const logRequests = log.isLevelEnabled('info');
  return (req, res, fastRoute) => {
    const start = process.hrtime.bigint();
    const id = requestId(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', id);
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const status = res.statusCode;
      const route = routeLabel(req, status, fastRoute);
      const method = req.method ?? '';
      httpRequests.inc({ route, method, status });
      httpDuration.observe({ route, method }, seconds);
      if (status === 429) rateLimitRefusals.inc({ route });
      if (!logRequests) return;
      const facts = factsOf(res);
      // Express rewrites req.url inside mounted routers; originalUrl is what the client asked for.
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
      const q = url.indexOf('?');
      log.info(
        {
          request_id: id,
          method,
          route,
          // The path without its query (which can carry addresses); emails and secrets in a path are masked.
          path: mask(q < 0 ? url : url.slice(0, q)),
          status,
          duration_ms: Math.round(seconds * 1e6) / 1e3,
          customer: facts?.customer ?? null,
          credits: facts?.credits ?? 0,
        },
        'request',
      );
    });
  };
}
