/**
 * Parsing of the network notations the writer accepts, with `ip-address` doing the address syntax:
 *   - CIDR:   `203.0.113.0/24`, `2001:db8::/32` (host bits must be zero — a typo must not silently
 *             claim a wider network; the error names the network address that was probably meant)
 *   - range:  `203.0.113.10-203.0.113.99` (inclusive, any alignment, both ends of one family)
 *   - single address: `203.0.113.7` (= /32 or /128)
 */
import { Address4, Address6 } from 'ip-address';

/** 2^k for k = 0..32: `2 ** k` with a variable k is a call to V8's pow (≈ 3 % of building networks.mmdb, in a profile). */
export const POW2 = Float64Array.from({ length: 33 }, (_, k) => 2 ** k);

export interface ParsedV4 {
  family: 4;
  /** First address, as an unsigned 32-bit number. */
  start: number;
  /** Last address (inclusive). */
  end: number;
}

export interface ParsedV6 {
  family: 6;
  start: bigint;
  /** Last address (inclusive). */
  end: bigint;
}

export type ParsedNetwork = ParsedV4 | ParsedV6;

export function networkError(text: string, reason: string): Error {
  return new Error(`Invalid network ${JSON.stringify(text)}: ${reason}`);
}

/**
 * Strict fast path for the common case, canonical `a.b.c.d` or `a.b.c.d/p` (decimal, no leading zeros,
 * no spaces). It accepts a subset of what Address4 accepts and returns the same numbers, so it never
 * changes what is valid; anything else goes to `ip-address`. Why: Address4 costs ≈ 1.2–1.6 µs per
 * network (regexes, objects), about a third of the whole insert at millions of networks.
 * Returns false when the text is not in canonical form.
 */
export function canonicalV4(text: string, out: { value: number; prefix: number }): boolean {
  const n = text.length;
  let value = 0;
  let i = 0;
  for (let part = 0; part < 4; part++) {
    const begin = i;
    let octet = 0;
    while (i < n) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      octet = octet * 10 + c;
      i++;
    }
    const digits = i - begin;
    if (digits === 0 || digits > 3 || octet > 255 || (digits > 1 && text.charCodeAt(begin) === 48)) return false;
    value = value * 256 + octet;
    if (part < 3) {
      if (text.charCodeAt(i) !== 46) return false; // '.'
      i++;
    }
  }
  let prefix = 32;
  if (i < n) {
    if (text.charCodeAt(i) !== 47) return false; // '/'
    prefix = prefixLength(text, i + 1, 32);
    if (prefix < 0) return false;
  }
  out.value = value;
  out.prefix = prefix;
  return true;
}

function parseV4(text: string, whole: string): { value: number; prefix: number } {
  const fast = { value: 0, prefix: 0 };
  if (canonicalV4(text, fast)) return fast;
  let a: Address4;
  try {
    a = new Address4(text);
  } catch (e) {
    throw networkError(whole, (e as Error).message);
  }
  const o = a.parsedAddress;
  const value = ((+o[0] << 24) >>> 0) + (+o[1] << 16) + (+o[2] << 8) + +o[3];
  return { value, prefix: a.subnetMask };
}

/**
 * Fast path for plain IPv6 text, `2001:db8::/32` or `2001:DB8:0:1::5`: hex groups of 1–4 digits, at most
 * one `::`, an optional `/prefix` (decimal, no leading zero). Anything else (an embedded IPv4 quad, a zone
 * id, odd forms) returns false and goes to `ip-address`, so it never changes what is valid. Why: Address6
 * costs ≈ 3 µs per network, most of an IPv6 insert at millions of networks.
 */
export function canonicalV6(text: string, out: { value: bigint; prefix: number }): boolean {
  const n = text.length;
  const groups = [0, 0, 0, 0, 0, 0, 0, 0];
  let count = 0;
  let gap = -1; // index of the group the `::` stands before
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < n && text.charCodeAt(i) !== 47) {
    let g = 0;
    const begin = i;
    while (i < n) {
      const c = text.charCodeAt(i);
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
      if (d < 0) break;
      g = g * 16 + d;
      i++;
    }
    if (i - begin === 0 || i - begin > 4 || count === 8) return false;
    groups[count++] = g;
    if (i >= n || text.charCodeAt(i) === 47) break;
    if (text.charCodeAt(i) !== 58) return false; // '.', '%' or junk: the slow path decides
    i++;
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i++;
      if (i >= n || text.charCodeAt(i) === 47) break;
    } else if (i >= n || text.charCodeAt(i) === 47) return false; // a trailing single ':'
  }
  if (gap < 0 ? count !== 8 : count > 7) return false;
  let prefix = 128;
  if (i < n) {
    prefix = prefixLength(text, i + 1, 128); // after the '/'
    if (prefix < 0) return false;
  }
  if (gap >= 0) {
    const tail = count - gap;
    for (let k = 0; k < tail; k++) groups[7 - k] = groups[count - 1 - k];
    for (let k = gap; k < 8 - tail; k++) groups[k] = 0;
  }
  const word = (k: number) => BigInt(groups[k] * 65536 + groups[k + 1]);
  out.value = (word(0) << 96n) | (word(2) << 64n) | (word(4) << 32n) | word(6);
  out.prefix = prefix;
  return true;
}

function parseV6(text: string, whole: string): { value: bigint; prefix: number } {
  const fast = { value: 0n, prefix: 0 };
  if (canonicalV6(text, fast)) return fast;
  let a: Address6;
  try {
    a = new Address6(text);
  } catch (e) {
    throw networkError(whole, (e as Error).message);
  }
  if (a.zone) throw networkError(whole, `zone index ${a.zone} is not allowed`);
  return { value: a.bigInt(), prefix: a.subnetMask };
}

function v4String(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function parseSingle(text: string, whole: string): ParsedNetwork {
  if (text.includes(':')) {
    const { value, prefix } = parseV6(text, whole);
    const hostMask = (1n << BigInt(128 - prefix)) - 1n;
    if ((value & hostMask) !== 0n) {
      const net = Address6.fromBigInt(value & ~hostMask).correctForm();
      throw networkError(whole, `host bits are set (the network address is ${net}/${prefix})`);
    }
    return { family: 6, start: value, end: value | hostMask };
  }
  const { value, prefix } = parseV4(text, whole);
  const size = POW2[32 - prefix];
  const hostBits = value % size;
  if (hostBits !== 0) {
    throw networkError(whole, `host bits are set (the network address is ${v4String(value - hostBits)}/${prefix})`);
  }
  return { family: 4, start: value, end: value + size - 1 };
}

function parseAddressOnly(text: string, whole: string): ParsedNetwork {
  if (text.includes('/')) throw networkError(whole, 'a range takes two plain addresses (no /prefix)');
  return parseSingle(text, whole);
}

/** Parses a CIDR, an inclusive range `a-b`, or a single address. Throws an Error naming `text`. */
export function parseNetwork(text: string): ParsedNetwork {
  if (typeof text !== 'string') throw networkError(String(text), 'expected a string');
  const dash = text.indexOf('-');
  if (dash < 0) return parseSingle(text.trim(), text);
  if (text.indexOf('-', dash + 1) >= 0) throw networkError(text, 'a range has exactly one "-"');
  const lo = parseAddressOnly(text.slice(0, dash).trim(), text);
  const hi = parseAddressOnly(text.slice(dash + 1).trim(), text);
  if (lo.family !== hi.family) throw networkError(text, 'the two ends of a range must be of the same IP version');
  if (lo.start > hi.start) throw networkError(text, 'the range ends before it starts');
  return lo.family === 4 ? { family: 4, start: lo.start, end: hi.start as number } : { family: 6, start: lo.start, end: hi.start as bigint };
}

/**
 * The prefix length written from `begin` to the end of `text`: decimal digits, no leading zero, at most
 * `bits`; -1 when it is not one.
 */
function prefixLength(text: string, begin: number, bits: 32 | 128): number {
  const n = text.length;
  const digits = n - begin;
  if (digits === 0 || digits > (bits === 32 ? 2 : 3) || (digits > 1 && text.charCodeAt(begin) === 48)) return -1;
  let prefix = 0;
  for (let i = begin; i < n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    prefix = prefix * 10 + c;
  }
  return prefix > bits ? -1 : prefix;
}
