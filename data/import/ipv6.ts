/**
 * IPv6 addresses as 128-bit bigints, the network text `networks.csv` takes, and the parts of the IPv6
 * space that are IPv4 in every MaxMind tree and in ours (never imported as IPv6 networks).
 */
import { Address6 } from 'ip-address';
import { ipv6GroupsText } from '../../core/ipv6-text.ts';

/** An IPv6 address (any text form, no prefix, no zone id); null otherwise. */
export function parseIPv6(text: string): bigint | null {
  const s = text.trim();
  if (!s.includes(':') || s.includes('/') || s.includes('%') || !Address6.isValid(s)) return null;
  return new Address6(s).bigInt();
}

export function formatIPv6(x: bigint): string {
  const g: number[] = [];
  for (let k = 7; k >= 0; k--) g.push(Number((x >> BigInt(16 * k)) & 0xffffn));
  return ipv6GroupsText(g);
}

/** `first`–`last` inclusive as a CIDR when it is one, else as an inclusive range. */
export function networkText6(first: bigint, last: bigint): string {
  const size = last - first + 1n;
  if ((size & (size - 1n)) === 0n && first % size === 0n) return `${formatIPv6(first)}/${128 - (size.toString(2).length - 1)}`;
  return `${formatIPv6(first)}-${formatIPv6(last)}`;
}

/**
 * IPv4 inside IPv6, inclusive ranges in address order: `::/96` (where IPv6 trees keep IPv4),
 * `::ffff:0:0/96` (IPv4-mapped) and `2002::/16` (6to4), the two MaxMind writes as aliases of `::/96` and
 * our index aliases too (data/mmdb/writer.ts). Data there is IPv4 data, read from the IPv4 subtree.
 */
export const IPV4_IN_IPV6: readonly (readonly [bigint, bigint])[] = [
  [0n, 0xffff_ffffn],
  [0xffffn << 32n, (0xffffn << 32n) | 0xffff_ffffn],
  [0x2002n << 112n, (0x2003n << 112n) - 1n],
];

/** The pieces of [first, last] outside IPV4_IN_IPV6, in order. */
export function outsideIpv4(first: bigint, last: bigint): [bigint, bigint][] {
  const out: [bigint, bigint][] = [];
  let pos = first;
  for (const [a, b] of IPV4_IN_IPV6) {
    if (b < pos || a > last) continue;
    if (a > pos) out.push([pos, a - 1n]);
    pos = b + 1n;
    if (pos > last) return out;
  }
  if (pos <= last) out.push([pos, last]);
  return out;
}

/** Whether [first, last] lies inside one of IPV4_IN_IPV6. */
export function insideIpv4(first: bigint, last: bigint): boolean {
  return IPV4_IN_IPV6.some(([a, b]) => a <= first && last <= b);
}

/** A number of IPv6 addresses in /64 blocks (a float: exact up to 2^53 blocks). */
export function blocks64(addresses: bigint): number {
  return Number(addresses >> 64n) + Number(addresses & 0xffff_ffff_ffff_ffffn) / 2 ** 64;
}
