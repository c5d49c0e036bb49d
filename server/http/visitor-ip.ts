/**
 * Which IPv4 address a request is about. Only IPv4 is in the index: IPv4-mapped IPv6 (`::ffff:a.b.c.d`,
 * what a dual-stack socket reports) is unwrapped; anything else (IPv6, garbage) is "no address".
 * Normalising here matters: the `maxmind` reader answers null for mapped addresses on an IPv4 tree and can
 * answer wrongly for 2002::/16, so nothing but a dotted quad ever reaches the index.
 */
import { Address4, Address6 } from 'ip-address';

/**
 * A dotted quad already in canonical form (no leading zeros, each part ≤ 255) is its own answer: the
 * common case on every lookup skips ip-address's parser (which parses twice: isValid, then the address;
 * ~1.5% of a lookup's CPU). Anything else takes the general path below.
 */
const CANONICAL_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function toIPv4(input: string | undefined | null): string | null {
  if (!input) return null;
  const s = input.trim();
  if (s.length > 64) return null;
  if (CANONICAL_QUAD.test(s)) return s;
  if (Address4.isValid(s) && !s.includes('/')) return new Address4(s).correctForm();
  if (s.includes(':') && Address6.isValid(s) && !s.includes('/')) {
    const v6 = new Address6(s);
    if (v6.is4()) return v6.to4().correctForm();
  }
  return null;
}
