/**
 * Page views (feature `page_views`): one beacon per page view, only with the visitor's permission
 * (privacy.ts: the same rule as the lookup). The wire format (the service's `POST /v1/events`):
 *
 *   navigator.sendBeacon('<endpoint>/v1/events?tag=<tagId>',
 *     '{"type":"pageview","path":"/pricing?utm_source=x","referrer":"news.example","session":"<id>"}')
 *
 * A string body goes out as `text/plain;charset=UTF-8`: a simple CORS request, no preflight. What it
 * carries, and nothing else: the path with only the `utm_*` query parameters and the ones the customer
 * named (`kept_query_params`; any other may hold emails, tokens, search terms), the referrer's host
 * (omitted when none or this site), and a random per-tab session id kept in sessionStorage (gone with the
 * tab; no cookie, no fingerprint).
 */
import type { KeyValueStore } from './storage.ts';

export interface PageView {
  type: 'pageview';
  path: string;
  referrer?: string;
  session: string;
}

/**
 * The pathname plus only the `utm_*` query parameters and those named in `kept` (the customer's
 * `kept_query_params`, inlined into the per-tag bundle: they make a page of its own on the account page),
 * as they were written, in their order. A kept name matches the parameter's name as written (names are
 * [A-Za-z0-9_.-], which nobody percent-encodes), case included, as the server's cleanPath matches it.
 */
export function pageViewPath(url: Pick<Location, 'pathname' | 'search'>, kept?: string[]): string {
  const query = url.search
    .slice(1)
    .split('&')
    .filter((parameter) => parameter.startsWith('utm_') || kept?.includes(parameter.split('=')[0]))
    .join('&');
  return url.pathname + (query ? '?' + query : '');
}

/**
 * The referrer's host name, or undefined when there is none or it is this site. Read as a URL relative to
 * this site (any scheme: `a:`), so none ("") or anything not absolute is this site's own host, without a
 * try: `document.referrer` is always "" or a whole URL, which parses.
 */
export function referrerHost(referrer: string, ownHost: string): string | undefined {
  const host = new URL(referrer, 'a://' + ownHost).hostname;
  if (host != ownHost) return host;
}

/**
 * This tab's session id: the stored one, or a new one stored for the next page views of the tab. A new
 * one is 12 random bytes (96 bits) in decimal, joined by "_": 23–47 characters of [0-9_], within the
 * wire format's 8–64 of [A-Za-z0-9_-] (the separator keeps every byte sequence its own id; decimal
 * needs no hex digit padding: 25 B gzip less than 24 hex digits).
 */
export function sessionId(session: KeyValueStore): string {
  let id = session('svc:session');
  if (!id) session('svc:session', (id = crypto.getRandomValues(new Uint8Array(12)).join('_')));
  return id;
}
