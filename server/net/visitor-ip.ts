/**
 * Which address a request is about, normalised so one address has one text: a dotted quad for IPv4, the
 * RFC 5952 form (lower case, shortest, `::`) for IPv6. IPv4 carried in IPv6 one-to-one — IPv4-mapped
 * (`::ffff:a.b.c.d`, what a dual-stack socket reports for an IPv4 client) and NAT64's well-known prefix
 * (`64:ff9b::a.b.c.d`, RFC 6052: an IPv6-only client reaching that IPv4 host) — is unwrapped to its IPv4
 * address, so it answers, is charged and is rate-limited exactly like that address.
 *
 * Two readers, for the two ways an address arrives:
 * - `toVisitorIp`: the connection's own address (the socket, a trusted proxy's X-Forwarded-For). The
 *   caller did not write it; anything that is not an address (garbage, a CIDR, a bracketed address, a zone
 *   id) is "no address", answered blank as the spec says for an invalid IP.
 * - `clientIp`: an address a client wrote (`?ip=`, the demo's `test_ip` on lookups and page views): the
 *   one rule for those. An address spelled in a form some parser reads and another does not (a port,
 *   brackets, a leading zero, an integer, a short quad, too many IPv6 groups) is a 422 `invalid` (spec
 *   "Errors": validation error) naming what is wrong, so an integrator's bug is seen instead of answered
 *   as an empty No Match; text that is plainly no address (`garbage`, `999.1.1.1`) is the spec's invalid
 *   IP: every company variable blank (spec "Company Identification API", "Errors").
 *
 * The spec supports only IPv4; IPv6 is our extension (docs/api.md, "IPv6").
 */
import { Address4 } from 'ip-address';
import { ApiError } from '../../core/error-codes.ts';
import { formatIPv4, formatIPv6, parseIPv6 } from '../data/mmdb/address.ts';

/**
 * A dotted quad already in canonical form (no leading zeros, each part ≤ 255) is its own answer: the
 * common case on every lookup skips ip-address's parser (which parses twice: isValid, then the address;
 * ~1.5% of a lookup's CPU). It is also the only IPv4 text `clientIp` takes.
 */
const CANONICAL_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** parseIPv6's output: one buffer, so normalising allocates only the answer. */
const WORDS = new Uint32Array(4);

/** NAT64's well-known prefix 64:ff9b::/96 (RFC 6052), as the first 32-bit word. */
const NAT64_WKP = 0x0064ff9b;

/**
 * The text of the address parseIPv6 left in WORDS. The NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215)
 * is not unwrapped: its operator picks where in it the IPv4 address sits (any RFC 6052 length, /48 to
 * /96), which the address does not tell, and a wrong guess would name another network's company.
 */
function wordsText(): string {
  if (WORDS[0] === 0 && WORDS[1] === 0 && WORDS[2] === 0xffff) return formatIPv4(WORDS[3]);
  if (WORDS[0] === NAT64_WKP && WORDS[1] === 0 && WORDS[2] === 0) return formatIPv4(WORDS[3]);
  return formatIPv6(WORDS);
}

/** The connection's address, normalised: a dotted quad, IPv4 in IPv6 unwrapped, or RFC 5952 IPv6; null for anything else. */
export function toVisitorIp(input: string | undefined | null): string | null {
  if (!input) return null;
  const s = input.trim();
  if (s.length > 64) return null;
  if (CANONICAL_QUAD.test(s)) return s;
  if (s.includes(':')) return parseIPv6(s, WORDS) ? wordsText() : null;
  if (Address4.isValid(s) && !s.includes('/')) return new Address4(s).correctForm();
  return null;
}

/**
 * An address a client wrote (`param` names where: `ip`, `test_ip`), normalised as `toVisitorIp` does; null
 * for text that is plainly no address (the spec's invalid IP: a blank answer); or a 422 `invalid`. Taken: a
 * canonical dotted quad (`203.0.113.7`), or an IPv6 address in any RFC 4291 text form (compressed or not,
 * either case, a trailing dotted quad) — nothing around it. Refused: leading zeros (`049.153.0.5`: octal to
 * some parsers, decimal to others), a port, an integer (`822673413`), hex parts, a short quad (`49.153.5`),
 * brackets, a zone id, a CIDR, spaces, an empty value, IPv6-looking text that does not parse.
 */
export function clientIp(input: string, param: string): string | null {
  if (CANONICAL_QUAD.test(input)) return input;
  if (input.includes(':') && parseIPv6(input, WORDS)) return wordsText();
  const zone = input.indexOf('%');
  if (zone > 0 && input.includes(':') && parseIPv6(input.slice(0, zone), WORDS)) {
    throw new ApiError(
      'invalid',
      `validation error: ${param} ${JSON.stringify(input.slice(0, 64))} has a zone id (${JSON.stringify(input.slice(zone, zone + 20))}), which names a local network interface, not an Internet address: send the address without it`,
    );
  }
  if (plainlyNoAddress(input)) return null;
  throw new ApiError(
    'invalid',
    `validation error: ${param} ${JSON.stringify(input.slice(0, 64))} is not an IP address${notAddressReason(input)}: send a dotted quad (203.0.113.7) or an IPv6 address (2001:db8::1), nothing else`,
  );
}

/**
 * Text no parser reads as an address: a character that is in no spelling of one (`garbage`, `unknown`),
 * or four decimal parts without leading zeros where one is over 255 (`999.1.1.1`). The spec answers such
 * an invalid IP with blank company variables; only spellings that some parser would read as an address
 * (and another would read differently, or not at all) are worth a 422.
 */
function plainlyNoAddress(s: string): boolean {
  if (s.includes('%')) return false; // a zone id names an interface with letters (`%eth0`): an address spelled wrong
  if (!/^[0-9a-fA-FxX.:,[\]%/\s]*$/.test(s)) return true;
  return /^(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*)){3}$/.test(s);
}

/** What is wrong with text that is not an address, when it looks like a common mistake ("" otherwise). */
function notAddressReason(s: string): string {
  if (s === '') return ' (empty: leave the parameter out to identify the caller)';
  if (s.trim() !== s) return ' (spaces around it)';
  if (s.startsWith('[')) return ' (an IPv6 address is written without brackets)';
  if (s.includes('/')) return ' (a network, not an address)';
  if (/^[\d.]+:\d+$/.test(s)) return ' (it has a port)';
  if (/^\d+$/.test(s)) return ' (an integer: write the address as a dotted quad)';
  if (/^[\d.]+$/.test(s) && /(?:^|\.)0\d/.test(s)) return ' (a part with a leading zero)';
  return '';
}

/**
 * The visitor a per-visitor rate limit counts: the address for IPv4; for IPv6 its /64 (`2001:db8:1:2::/64`),
 * because one host or home holds a whole /64 and could otherwise take a fresh counter per request. Input
 * that is no address keys as itself (the counter still exists, shared by every such request).
 */
export function rateLimitVisitor(ip: string): string {
  const v = toVisitorIp(ip);
  if (v === null) return ip;
  return v.includes(':') ? ipv6Network(v, 64) : v;
}

/**
 * The /48 of an IPv6 visitor (`2001:db8:1::/48`), the site one customer of an ISP is usually given (RFC 6177):
 * what the per-site rate limit counts. null for IPv4 (IPv4 in IPv6 included) and for anything that is no address.
 */
export function rateLimitSite(ip: string): string | null {
  if (!ip.includes(':')) return null; // IPv4, the common case: no second parse
  const v = toVisitorIp(ip);
  return v?.includes(':') ? ipv6Network(v, 48) : null;
}

/** The /64 or /48 network of a normalised IPv6 address, as `prefix::/bits`. */
function ipv6Network(v: string, bits: 48 | 64): string {
  parseIPv6(v, WORDS);
  if (bits === 48) WORDS[1] &= 0xffff0000;
  WORDS[2] = 0;
  WORDS[3] = 0;
  return `${formatIPv6(WORDS)}/${bits}`;
}
