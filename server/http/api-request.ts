/**
 * A request as routes read it, over `node:http`'s own object: method, path, path parameters, query,
 * headers, the client address as Express computes `req.ip` (proxy-addr with the compiled trust rule).
 * The client address is computed only when asked, so the hot route pays only for what it reads.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import proxyaddr from 'proxy-addr';
import type { HeaderSource } from '../auth/authenticate.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';
import type { TrustProxy } from './request-id.ts';

/** The query as node:querystring parses it: repeated parameters are arrays. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** Characters node:querystring leaves as they are in a name or value (no %, +, &, =, ;): `[\w.~-]`. */
const PLAIN = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.~-') PLAIN[c.charCodeAt(0)] = 1;

/**
 * A query object without a prototype, as node:querystring makes them, but made by a constructor: V8 keeps
 * it in fast mode, where `Object.create(null)` starts in dictionary mode.
 */
const QueryObject = function (this: RawQuery) {} as unknown as new () => RawQuery;
QueryObject.prototype = Object.create(null);

/**
 * The query as node:querystring parses it. Both identification modes send one plain parameter (`?tag=…`,
 * `?ip=…`): one `name=value` of plain characters is read by one scan into the same kind of object, and
 * anything else goes to node:querystring. Why: querystring.parse costs ~0.7 µs even for `tag=bench-tag-17`
 * (micro-benchmark), and a regex with Object.create(null) ~0.6 µs against ~0.1 µs for the scan (≈ 1 % of
 * a tag-mode lookup's CPU, --cpu-prof).
 */
export function parseQuery(search: string): RawQuery {
  const n = search.length;
  if (n === 0) return new QueryObject();
  let eq = -1;
  for (let i = 0; i < n; i++) {
    const c = search.charCodeAt(i);
    if (c === 61 /* = */ && eq < 0 && i > 0) eq = i;
    else if (c >= 128 || PLAIN[c] === 0) return parseQueryString(search) as RawQuery;
  }
  if (eq < 0) return parseQueryString(search) as RawQuery;
  const query = new QueryObject();
  query[search.slice(0, eq)] = search.slice(eq + 1);
  return query;
}

/**
 * SVC_TRUST_PROXY as Express compiles its `trust proxy` setting: true (every hop), a hop count, or a
 * comma-separated list of addresses, subnets and proxy-addr's names (loopback, linklocal, uniquelocal).
 */
export function compileTrust(setting: boolean | number | string): TrustProxy {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_addr, hop) => hop < setting;
  const rule = proxyaddr.compile(setting.split(',').map((v) => v.trim()));
  // A list's verdict depends on the address alone, and proxy-addr parses it anew on every call (ipaddr.js:
  // 2–3 % of a tag-mode lookup's CPU, asked twice per request: the peer, then the visitor). Remembered per
  // address string, as Express would answer it.
  return boundedMemo((addr: string) => rule(addr, 0), TRUST_MEMO_LIMIT);
}

/** Distinct addresses whose trust verdict is remembered (proxies and recent visitors; starts over when full). */
const TRUST_MEMO_LIMIT = 10_000;

/** Whether the request is not cross-origin: no Origin (servers and CLIs send none), or this server's own host. */
export function sameOrigin(req: HeaderSource): boolean {
  const origin = req.get('origin');
  if (!origin) return true;
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

export class ApiRequest implements HeaderSource {
  private address: string | undefined | null = null;

  constructor(
    readonly raw: IncomingMessage,
    /** The path as the client sent it (no query), for messages and logs. */
    readonly path: string,
    /** The route's path parameters (decoded). */
    readonly params: Readonly<Record<string, string | undefined>>,
    /** The query, parsed by the router (parseQuery below, its `querystringParser`). */
    readonly query: RawQuery,
    private readonly trust: TrustProxy,
  ) {}

  get method(): string {
    return this.raw.method ?? 'GET';
  }

  /** A header's value as Express's `req.get` gives it (Referer and Referrer are one header). */
  get(name: string): string | undefined {
    const lc = name.toLowerCase();
    const headers = this.raw.headers;
    if (lc === 'referer' || lc === 'referrer') return (headers.referer ?? headers.referrer) as string | undefined;
    const value = headers[lc];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** The client address: the peer, or the nearest untrusted address of X-Forwarded-For behind trusted proxies. */
  get ip(): string | undefined {
    if (this.address === null) this.address = proxyaddr(this.raw, this.trust);
    return this.address;
  }
}
