/**
 * Which address a request is about, normalised so one address has one text: a dotted quad for IPv4, the
 * RFC 5952 form (lower case, shortest, `::`) for IPv6. IPv4-mapped IPv6 (`::ffff:a.b.c.d`, what a
 * dual-stack socket reports for an IPv4 client) is unwrapped to its IPv4 address, so it answers, is
 * charged and is rate-limited exactly like that address. Anything else (garbage, a CIDR, a bracketed
 * address) is "no address".
 *
 * The spec supports only IPv4 and answers an invalid address with blank company variables; IPv6 is our
 * extension (README "IPv6"). A zone id (`fe80::1%eth0`) names an interface of the machine that printed it,
 * never an Internet address: from the socket it is "no address", in a query parameter (`queryIp`) it is
 * refused with a 422 so the integrator learns why.
 */
import { Address4 } from 'ip-address';
import { ApiError } from '../../core/error-codes.ts';
import { formatIPv4, formatIPv6, parseIPv6 } from '../data/mmdb-reader.ts';

/**
 * A dotted quad already in canonical form (no leading zeros, each part ≤ 255) is its own answer: the
 * common case on every lookup skips ip-address's parser (which parses twice: isValid, then the address;
 * ~1.5% of a lookup's CPU). Anything else takes the general path below.
 */
const CANONICAL_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** parseIPv6's output: one buffer, so normalising allocates only the answer. */
const WORDS = new Uint32Array(4);

/** The normalised address: a dotted quad, IPv4-mapped unwrapped, or RFC 5952 IPv6; null for anything else. */
export function toVisitorIp(input: string | undefined | null): string | null {
  if (!input) return null;
  const s = input.trim();
  if (s.length > 64) return null;
  if (CANONICAL_QUAD.test(s)) return s;
  if (s.includes(':')) {
    if (!parseIPv6(s, WORDS)) return null;
    if (WORDS[0] === 0 && WORDS[1] === 0 && WORDS[2] === 0xffff) return formatIPv4(WORDS[3]);
    return formatIPv6(WORDS);
  }
  if (Address4.isValid(s) && !s.includes('/')) return new Address4(s).correctForm();
  return null;
}

/**
 * `?ip=` (and the demo's `test_ip`): `toVisitorIp`, except that an IPv6 address with a zone id is
 * refused (422 `invalid`) rather than answered blank — it is an address, just not one on the Internet.
 */
export function queryIp(input: string | undefined | null): string | null {
  const s = input?.trim() ?? '';
  const zone = s.indexOf('%');
  if (zone > 0 && s.includes(':') && parseIPv6(s.slice(0, zone), WORDS)) {
    throw new ApiError(
      'invalid',
      `validation error: ip ${JSON.stringify(s.slice(0, 64))} has a zone id (${JSON.stringify(s.slice(zone, zone + 20))}), which names a local network interface, not an Internet address: send the address without it`,
    );
  }
  return toVisitorIp(input);
}

/**
 * The visitor a per-visitor rate limit counts: the address for IPv4; for IPv6 its /64 (`2001:db8:1:2::/64`),
 * because one host or home holds a whole /64 and could otherwise take a fresh counter per request. Input
 * that is no address keys as itself (the counter still exists, shared by every such request).
 */
export function rateLimitVisitor(ip: string): string {
  const v = toVisitorIp(ip);
  if (v === null) return ip;
  if (!v.includes(':')) return v;
  parseIPv6(v, WORDS);
  WORDS[2] = 0;
  WORDS[3] = 0;
  return `${formatIPv6(WORDS)}/64`;
}
