/**
 * Rate-limit policy (spec "Limits": 100 requests per minute by default), pure: which counters a request
 * counts against. Windows are fixed minutes, so a counter is one atomic increment in SQLite or Redis; the
 * cost is that a client may burst up to twice its limit across a minute boundary.
 *   token: per token, its own limit (default 100/min, adjustable per token).
 *   web tag: per (tag, visitor) the tag's `visitor_rate_limit`/min (default TAG_PER_VISITOR_LIMIT —
 *     generous because whole offices share one NAT address); a visitor is an IPv4 address or an IPv6 /64
 *     (`rateLimitVisitor`: one host holds a whole /64) and a per-tag ceiling of the tag's
 *     `rate_limit`/min across all visitors (default TAG_CEILING). Both are settings of the tag, so a large
 *     site's peak traffic or a load test can be allowed without a code change.
 */
import type { Caller } from '../auth/authenticate.ts';
import { rateLimitVisitor } from '../http/visitor-ip.ts';

export const WINDOW_MS = 60_000;
export { DEFAULT_TOKEN_LIMIT } from '../../core/vocabulary.ts';
export const TAG_PER_VISITOR_LIMIT = 300;
export const TAG_CEILING = 6_000;

export interface LimitKey {
  key: string;
  limit: number;
}

/** Counters to hit, the one reported in RateLimit-* headers first. */
export function limitKeys(caller: Caller, visitorIp: string): LimitKey[] {
  if (caller.token) return [{ key: `token:${caller.token.id}`, limit: caller.token.rate_limit }];
  if (caller.tag) {
    return [
      { key: `tag:${caller.tag.tag_id}:ip:${rateLimitVisitor(visitorIp)}`, limit: caller.tag.visitor_rate_limit },
      { key: `tag:${caller.tag.tag_id}`, limit: caller.tag.rate_limit },
    ];
  }
  return [];
}
