/**
 * What the web tag's two routes share — a lookup (`GET /v3/company/details?tag=`) and a page view
 * (`POST /v1/events?tag=`): whose address a tag request is about, and the CORS preflight a page sends
 * before a request that needs one. Written once, so the two answer alike.
 */
import { ApiError } from '../../core/error-codes.ts';
import { requestHost } from '../auth/allowed-origin.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import { clientIp, toVisitorIp } from '../net/visitor-ip.ts';
import type { RouteContext } from './route-def.ts';

/**
 * In tag mode the address is the visitor itself (the connection's, read by `toVisitorIp`), except for a
 * tag marked `demo` (the seeded demo tag, never a customer's tag that happens to run on a demo server) in
 * demo mode: the demo page's visitor switcher names a sample address in `test_ip`, read by the same rule
 * as a token's `?ip=` (`clientIp`: anything but an address is a 422).
 */
export function tagVisitorAddress(config: Config, caller: Caller, connectionIp: string | undefined, testIp: unknown): string | null {
  if (caller.tag?.demo && config.SVC_DEMO && typeof testIp === 'string') return clientIp(testIp, 'test_ip');
  return toVisitorIp(connectionIp);
}

/** How a route answers an allowed preflight, and how it decides and words a refusal. */
export interface PreflightRule {
  /** Access-Control-Allow-Methods. */
  methods: string;
  /** Access-Control-Allow-Headers. */
  headers: string;
  /** Whether the page's host may call (the store's tags and tokens decide). */
  allowed(host: string, ctx: RouteContext): Promise<boolean>;
  /** The 403's message for a host that may not. */
  refusal(host: string): string;
}

/**
 * A CORS preflight: 204 with the allow headers (cached by the browser for 10 minutes) when the page's
 * origin is allowed, else 403 `forbidden` and no CORS allow header. The preflight carries no credentials,
 * so `allowed` can only ask which tags or tokens allow the origin; the real request is then checked
 * against its own. A store that cannot answer is its 503, not a refusal.
 */
export async function corsPreflight(ctx: RouteContext, rule: PreflightRule): Promise<{ status: 204; headers: Record<string, string> }> {
  const origin = ctx.req.get('origin');
  const host = requestHost(origin, undefined);
  if (!origin || !host) throw new ApiError('forbidden', 'CORS preflight without a usable Origin');
  if (!(await rule.allowed(host, ctx))) throw new ApiError('forbidden', rule.refusal(host));
  return {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': rule.methods,
      'Access-Control-Allow-Headers': rule.headers,
      'Access-Control-Max-Age': '600',
    },
  };
}
