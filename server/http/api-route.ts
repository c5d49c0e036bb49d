/**
 * The one pipeline every API route runs, in the documented order of checks:
 *   authentication (401) → group / package / domain (403) → rate limit (429) → input (400/422)
 *   → lookup → credit (402, never for HEAD) → 200 / 404.
 * A route supplies how its caller is authenticated and a handler that validates input and looks up;
 * the handler names the record its answer exports, and the pipeline charges for it.
 */
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Caller } from '../auth/authenticate.ts';
import type { ChargeableApi } from '../credits/rules.ts';
import { noteCustomer } from '../observability/request-facts.ts';
import { type MeteringSteps, setRateLimitHeaders } from './pipeline.ts';
import { trustedRequestId } from './request-id.ts';

export interface ApiResult {
  status: 200 | 404;
  body: unknown;
  headers?: Record<string, string>;
  /** The record this answer exports, when it is chargeable (spec "Credits"). */
  charge?: { api: ChargeableApi; record: string };
}

/** What the metering needs of a request, and where its answer's headers go (Express's response, or the fast lane's header list). */
export interface MeteredCall {
  visitorIp: string;
  /** HEAD carries no answer, so it exports no record: never charged (nor refused for want of credit). */
  head: boolean;
  /** The id a trusted proxy gave the request (asked only when there is a charge). */
  requestId: () => string | null;
  /** Where the request's log facts (customer, charge) are noted. */
  res: ServerResponse;
  setHeader: (name: string, value: string) => void;
}

/**
 * The pipeline from the authenticated caller to the answer, in its documented order: the caller's CORS
 * origin, rate limit (RateLimit-* headers, 429), the handler (input, lookup), the charge (402), then
 * `Cache-Control`. Shared by apiRoute and the fast lane's identification route, so the two cannot drift.
 */
export async function meteredAnswer(
  steps: MeteringSteps,
  caller: Caller,
  call: MeteredCall,
  handler: () => Promise<ApiResult> | ApiResult,
): Promise<ApiResult> {
  noteCustomer(call.res, caller.customer.id); // for the request's log line
  if (caller.corsOrigin) call.setHeader('Access-Control-Allow-Origin', caller.corsOrigin);
  await steps.rateLimit(caller, call.visitorIp, (hit) => setRateLimitHeaders(hit, call.setHeader));
  const result = await handler();
  // An answer whose client is gone (it gave up, e.g. while a stalled store was timing out) is never
  // received, so it exports nothing: not charged. Writing it afterwards is a no-op.
  if (result.charge && result.status === 200 && !call.head && !clientGone(call.res)) await steps.charge(caller, result.charge, call.requestId(), call.res);
  call.setHeader('Cache-Control', 'private, no-store');
  return result;
}

/** Whether the client closed its connection before its answer was written. */
export function clientGone(res: ServerResponse): boolean {
  return res.destroyed || res.socket?.destroyed === true;
}

export function apiRoute(
  steps: MeteringSteps,
  authenticate: (req: Request, res: Response) => Promise<Caller>,
  handler: (req: Request, caller: Caller) => Promise<ApiResult> | ApiResult,
): RequestHandler {
  return async (req, res) => {
    const caller = await authenticate(req, res);
    const call: MeteredCall = {
      visitorIp: req.ip ?? '',
      head: req.method === 'HEAD',
      requestId: () => trustedRequestId(req),
      res,
      setHeader: (name, value) => void res.setHeader(name, value),
    };
    const result = await meteredAnswer(steps, caller, call, () => handler(req, caller));
    if (result.headers) res.set(result.headers);
    if (req.method === 'POST') {
      // What res.status().json() sends for a POST, written directly: Express's send() re-parses and
      // re-formats the Content-Type for its charset, looks up the ETag setting, and checks freshness
      // (never fresh for a POST). Same bytes, same headers in the same order (etag is off app-wide;
      // api-route.test.ts compares them). Saved 6–15 µs of server CPU per response on the enrichment
      // routes (185 → 170 µs firmographics, 179 → 173 µs combined; `npm run bench -- enrichment`).
      // GET and HEAD keep res.json(): Express answers their conditional requests 304 and HEAD bodiless.
      const json = JSON.stringify(result.body);
      res.statusCode = result.status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(json));
      res.end(json);
      return;
    }
    res.status(result.status).json(result.body);
  };
}
