/**
 * Page views (feature `page_views`): one beacon per page view, only with the visitor's permission
 * (the same rule as the lookup: tag.ts). The wire format (the service's `POST /v1/events`):
 *
 *   navigator.sendBeacon('<endpoint>/v1/events?tag=<tagId>',
 *     '{"type":"pageview","path":"/pricing?utm_source=x","referrer":"news.example","session":"<id>"}')
 *
 * A string body goes out as `text/plain;charset=UTF-8`: a simple CORS request, no preflight. What it
 * carries, and nothing else: the path with only the `utm_*` query parameters and the ones the customer
 * named (`kept_query_params`; any other may hold emails, tokens, search terms), the referrer's host
 * (omitted when none or this site), and a random per-tab session id kept in sessionStorage (gone with the
 * tab; no cookie, no fingerprint). The path is this module's (pure); tag.ts reads the referrer's host and
 * the session id where it builds the beacon (as functions here they cost the bundle 8 and 9 B gzip).
 */

export interface PageView {
  type: 'pageview';
  path: string;
  referrer?: string;
  session: string;
}

/**
 * Engaged time: how long the page view's page was visible since it was last reported, sent when the page
 * is hidden or left (`visibilitychange`, `pagehide`) or its page view ends (an SPA navigation), to the same
 * URL as page views: `{"type":"engagement","path":"/pricing","engaged_ms":5234.5,"session":"<id>"}`.
 */
export interface EngagementBeacon {
  type: 'engagement';
  path: string;
  /** Milliseconds (a fraction from `performance.now()` as measured; the server rounds). */
  engaged_ms: number;
  session: string;
}

/** A custom event (`svc('track', name, properties)`): `{"type":"event","name":"demo_requested","properties":{"plan":"pro"},"path":"/pricing","session":"<id>"}`. */
export interface CustomEventBeacon {
  type: 'event';
  name: string;
  properties?: Record<string, string | number | boolean>;
  path: string;
  session: string;
}

/** A beacon before it is sent: tag.ts `send` fills in the session id. */
type Unsent<B> = Omit<B, 'session'> & { session?: string };
/** Any beacon of `POST /v1/events`. */
export type Beacon = Unsent<PageView> | Unsent<EngagementBeacon> | Unsent<CustomEventBeacon>;

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
