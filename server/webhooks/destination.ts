/**
 * Where a webhook may be delivered: the public internet only, so a customer's endpoint URL can never
 * reach our own network (SSRF: loopback, the cloud metadata address, private ranges, internal names).
 *
 * Checked twice: at registration (the URL's host: an address in any spelling the WHATWG URL parser
 * accepts — `2130706433`, `0x7f000001`, `127.1`, `[::ffff:127.0.0.1]` all become the address they mean —
 * and names that are internal by construction), and at connect time (every address the name resolves to
 * is checked, and the connection goes to the address that was checked: a name that resolves to a public
 * address at registration and to 10.0.0.5 at delivery is refused, and DNS cannot change in between).
 * `allowPrivate` (SVC_WEBHOOK_ALLOW_PRIVATE=1) turns both off, for tests and private deployments.
 *
 * Node's own `net.BlockList` holds the ranges (IPv4 and IPv6, with IPv4-mapped and NAT64 forms checked
 * by their embedded IPv4 address).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['100::', 64], // discard
  // Transition mechanisms that carry IPv4 inside: a relay would forward to whatever IPv4 address is
  // embedded (loopback or private ones included), so none of them is a public destination.
  ['2002::', 16], // 6to4
  ['2001::', 32], // Teredo
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215); the well-known 64:ff9b::/96 is checked by its embedded IPv4
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** An IPv4 address embedded in an IPv6 one that reaches it (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`). */
function embeddedIPv4(ip: string): string | null {
  const m = /^(?:::ffff:|::|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2], 16);
  const lo = parseInt(m[3], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a webhook may be sent to this address (a literal IPv4 or IPv6 address, no brackets). */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    const v4 = embeddedIPv4(ip.toLowerCase());
    if (v4 !== null) return !BLOCKED.check(v4, 'ipv4');
    return !BLOCKED.check(ip, 'ipv6');
  }
  return !BLOCKED.check(ip, 'ipv4');
}

/** Names that only ever mean something inside a network. */
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home|corp|localdomain|home\.arpa)$/i;

export const REFUSED_DESTINATION =
  'the webhook URL must point to a public internet address (not loopback, private, link-local or internal hosts); a receiver on a private network needs the server started with SVC_WEBHOOK_ALLOW_PRIVATE=1';

/** Why the URL may not be registered, or null when it may (its name is checked again at each delivery). */
export function destinationProblem(url: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return 'url must be an absolute http(s) URL';
  }
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(literal) !== 0) return isPublicAddress(literal) ? null : REFUSED_DESTINATION;
  // A single label (`http://redis/`) resolves through the local search domains: internal by nature.
  if (!literal.includes('.') || INTERNAL_NAME.test(literal.replace(/\.$/, ''))) return REFUSED_DESTINATION;
  return null;
}

/** A refusal at connect time: named so the delivery log says why without mapping the network. */
export class RefusedDestinationError extends Error {
  readonly code = 'ERR_WEBHOOK_DESTINATION';
  constructor() {
    super('refused: the receiver resolves to a non-public address');
  }
}

/** dns.lookup for the HTTP client: resolves every address and refuses the connection unless all are public. */
export function publicOnlyLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return (callback as (e: Error | null, a: LookupAddress[] | string, f?: number) => void)(err, [], 0);
      const list = addresses as LookupAddress[];
      if (!allowPrivate && list.some((a) => !isPublicAddress(a.address))) {
        return (callback as (e: Error | null, a: string, f: number) => void)(new RefusedDestinationError(), '', 0);
      }
      // The socket connects to what was checked, never to a second resolution.
      if ((options as { all?: boolean }).all) (callback as (e: null, a: LookupAddress[]) => void)(null, list);
      else (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family);
    });
  };
}

export interface DeliveryAnswer {
  status: number;
  /** The answer's first `readBody` bytes (as text), when asked for. */
  body?: string;
  /** Its Retry-After header, if any (a 429 from Slack says when to try again). */
  retryAfter?: string;
}

/**
 * POSTs a delivery with node:http(s), the connection guarded by publicOnlyLookup (also for an address
 * literal: node:http skips the lookup for those, so they are checked here). No redirect is followed
 * (a redirect answer is simply not a 2xx). The body of the answer is not read beyond what arrives.
 */
export function postDelivery(
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number; allowPrivate: boolean; readBody?: number },
): Promise<DeliveryAnswer> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return reject(new Error('invalid URL'));
    }
    const literal = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    if (!init.allowPrivate && isIP(literal) !== 0 && !isPublicAddress(literal)) return reject(new RefusedDestinationError());
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(target, {
      method: 'POST',
      headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
      lookup: publicOnlyLookup(init.allowPrivate),
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${init.timeoutMs} ms`), { name: 'TimeoutError' })), init.timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const retryAfter = typeof res.headers['retry-after'] === 'string' ? { retryAfter: res.headers['retry-after'] } : {};
      res.on('error', () => {});
      const limit = init.readBody ?? 0;
      if (limit <= 0) {
        clearTimeout(timer);
        resolve({ status, ...retryAfter });
        res.resume();
        return;
      }
      // A test event shows what the receiver said: its first bytes, within the same timeout.
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        clearTimeout(timer);
        resolve({ status, ...retryAfter, body: Buffer.concat(chunks).subarray(0, limit).toString('utf8') });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= limit) done();
      });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(init.body);
  });
}

/**
 * The error text the delivery log keeps: what went wrong in general terms, never the address or port
 * behind a name (which would let a customer map our network through the log).
 */
export function deliveryErrorText(e: unknown, timeoutMs: number): string {
  const err = e as { name?: string; code?: string; cause?: { code?: string } };
  if (err instanceof RefusedDestinationError) return err.message;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  switch (err.code ?? err.cause?.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return "the receiver's host name does not resolve";
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'receiver unreachable';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'TLS certificate not accepted';
    default:
      return 'delivery failed (connection error)';
  }
}
