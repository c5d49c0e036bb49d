/**
 * The page-view beacon the tag sends (`POST /v1/events?tag=…`, a `text/plain` JSON string so the request
 * stays a simple CORS request): `{"type":"pageview","path":"/pricing?utm_source=x","referrer":"news.example",
 * "session":"<random id>"}`. The schema is the validation; `cleanPath` and `referrerHost` enforce the privacy
 * rules on the server too (no query string except `utm_*` and the customer's `kept_query_params`, referrer host only), whatever a tag sends.
 *
 * The same route takes the tag's two other beacons: engaged time (`{"type":"engagement","path":…,
 * "session":…,"engaged_ms":12345}`, once the page is hidden or left) and custom events (`{"type":"event",
 * "name":"demo_requested","properties":{"plan":"pro"},"path":…,"session":…}`, from `svc('track', …)`),
 * whose properties are scrubbed by the same privacy rules (./custom-event.ts).
 */
import { z } from 'zod';
import { EventName, EventProperties } from '../../core/engagement-records.ts';

/** Request bodies above this are refused with 413 (a beacon is ~150 bytes). */
export const BEACON_LIMIT_BYTES = 4096;
const MAX_PATH = 1024;

const Path = z.string().min(1).max(2048).startsWith('/', 'path must start with /');
const Session = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'session must be 8–64 characters [A-Za-z0-9_-]');

export const PageViewBeacon = z.object({
  type: z.literal('pageview'),
  path: Path,
  referrer: z.string().max(2048).nullish(),
  session: Session,
});
export type PageViewBeacon = z.infer<typeof PageViewBeacon>;

/** How long the page view's page was visible since the last report, sent when the page is hidden or left. */
export const EngagementBeacon = z.object({
  type: z.literal('engagement'),
  path: Path,
  session: Session,
  engaged_ms: z.number().min(0, 'engaged_ms is a number of milliseconds, 0 or more'),
});
export type EngagementBeacon = z.infer<typeof EngagementBeacon>;

/** A custom event (`svc('track', name, properties)`): a name, at most 10 flat properties, the page it happened on. */
export const CustomEventBeacon = z.object({
  type: z.literal('event'),
  name: EventName,
  properties: EventProperties.optional(),
  path: Path,
  session: Session,
});
export type CustomEventBeacon = z.infer<typeof CustomEventBeacon>;

/** Every beacon of `POST /v1/events`, by its `type`. */
export const TagBeacon = z.discriminatedUnion('type', [PageViewBeacon, EngagementBeacon, CustomEventBeacon]);
export type TagBeacon = z.infer<typeof TagBeacon>;

const WHAT: Readonly<Record<TagBeacon['type'], string>> = { pageview: 'page view', engagement: 'engaged time', event: 'custom event' };

/**
 * The path with only `utm_*` query parameters and those the customer named (`kept_query_params`: they
 * make a page of its own on the account page) kept, in their order, and no fragment.
 */
export function cleanPath(raw: string, keptParams: readonly string[] = []): string {
  const url = new URL(raw, 'http://path.invalid');
  const kept = [...url.searchParams].filter(([k]) => k.toLowerCase().startsWith('utm_') || keptParams.includes(k));
  const query = kept.length ? '?' + new URLSearchParams(kept).toString() : '';
  return (url.pathname + query).slice(0, MAX_PATH);
}

/** The referrer's host (a host or a URL may be sent), lower case; null when absent or unreadable. */
export function referrerHost(raw: string | null | undefined): string | null {
  const s = raw?.trim();
  if (!s) return null;
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(s) ? s : `http://${s}`).hostname.toLowerCase();
    return host && host.length <= 253 ? host : null;
  } catch {
    return null;
  }
}

/** The beacon from a raw body, or the reason it is not one (for the 400 message). */
export function parseBeacon(text: string): { ok: true; beacon: TagBeacon } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the body must be a JSON page view: {"type":"pageview","path":"/…","session":"…"}' };
  }
  const parsed = TagBeacon.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const type = (json as { type?: unknown } | null)?.type;
    const what = typeof type === 'string' && Object.hasOwn(WHAT, type) ? WHAT[type as TagBeacon['type']] : 'page view';
    return { ok: false, message: `invalid ${what}: ${issue?.path.join('.') || 'body'}: ${issue?.message}` };
  }
  return { ok: true, beacon: parsed.data };
}
