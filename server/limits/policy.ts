/**
 * Rate-limit policy (spec "Limits": 100 requests per minute by default), pure: which counters a request
 * counts against. Windows are fixed minutes, so a counter is one atomic increment in SQLite or Redis; the
 * cost is that a client may burst up to twice its limit across a minute boundary.
 *   token: per token, its own limit (default 100/min, adjustable per token).
 *   web tag: per (tag, visitor) the tag's `visitor_rate_limit`/min (default TAG_PER_VISITOR_LIMIT in
 *     core/vocabulary.ts — generous because whole offices share one NAT address); a visitor is an IPv4 address or an IPv6 /64
 *     (`rateLimitVisitor`: one host holds a whole /64) and a per-tag ceiling of the tag's
 *     `rate_limit`/min across all visitors (default TAG_CEILING). Both are settings of the tag, so a large
 *     site's peak traffic or a load test can be allowed without a code change.
 *     Between the two, for IPv6 only, per (tag, /48) IPV6_SITE_FACTOR × the per-visitor limit: a host that
 *     holds a /48 (what an ISP gives a site, RFC 6177) has 65,536 /64s and could otherwise rotate them to
 *     take a fresh per-visitor counter each time. Looser than the per-visitor limit by the factor, so a
 *     site's several real /64s (office, guest, VPN …) fit; IPv4 has no such counter (one address is one
 *     visitor already).
 */
import type { Caller } from '../auth/authenticate.ts';
import { rateLimitSite, rateLimitVisitor } from '../net/visitor-ip.ts';

export const WINDOW_MS = 60_000;
export { DEFAULT_TOKEN_LIMIT } from '../../core/vocabulary.ts';
/** The per-(tag, IPv6 /48) limit is this many times the tag's per-visitor limit (2,400/min at the default 300). */
export const IPV6_SITE_FACTOR = 8;

export interface LimitKey {
  key: string;
  limit: number;
}

/** Counters to hit, the one reported in RateLimit-* headers first. */
export function limitKeys(caller: Caller, visitorIp: string): LimitKey[] {
  if (caller.token) return [{ key: `token:${caller.token.id}`, limit: caller.token.rate_limit }];
  if (caller.tag) {
    const { tag_id, visitor_rate_limit, rate_limit } = caller.tag;
    const visitor = { key: `tag:${tag_id}:ip:${rateLimitVisitor(visitorIp)}`, limit: visitor_rate_limit };
    const tag = { key: `tag:${tag_id}`, limit: rate_limit };
    const site = rateLimitSite(visitorIp);
    return site === null ? [visitor, tag] : [visitor, { key: `tag:${tag_id}:site:${site}`, limit: visitor_rate_limit * IPV6_SITE_FACTOR }, tag];
  }
  return [];
}
