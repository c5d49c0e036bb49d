/**
 * Which IPv4 address a request is about. Only IPv4 is in the index: IPv4-mapped IPv6 (`::ffff:a.b.c.d`,
 * what a dual-stack socket reports) is unwrapped; anything else (IPv6, garbage) is "no address".
 * Normalising here matters: the `maxmind` reader answers null for mapped addresses on an IPv4 tree and can
 * answer wrongly for 2002::/16, so nothing but a dotted quad ever reaches the index.
 */
import { Address4, Address6 } from 'ip-address';

export function toIPv4(input: string | undefined | null): string | null {
  if (!input) return null;
  const s = input.trim();
  if (s.length > 64) return null;
  if (Address4.isValid(s) && !s.includes('/')) return new Address4(s).correctForm();
  if (s.includes(':') && Address6.isValid(s) && !s.includes('/')) {
    const v6 = new Address6(s);
    if (v6.is4()) return v6.to4().correctForm();
  }
  return null;
}
