/**
 * The page-view beacon the tag sends (`POST /v1/events?tag=…`, a `text/plain` JSON string so the request
 * stays a simple CORS request): `{"type":"pageview","path":"/pricing?utm_source=x","referrer":"news.example",
 * "session":"<random id>"}`. The schema is the validation; `cleanPath` and `referrerHost` enforce the privacy
 * rules on the server too (no query string except `utm_*` and the customer's `kept_query_params`, referrer host only), whatever a tag sends.
 */
import { z } from 'zod';

/** Request bodies above this are refused with 413 (a beacon is ~150 bytes). */
export const BEACON_LIMIT_BYTES = 4096;
const MAX_PATH = 1024;

export const PageViewBeacon = z.object({
  type: z.literal('pageview'),
  path: z.string().min(1).max(2048).startsWith('/', 'path must start with /'),
  referrer: z.string().max(2048).nullish(),
  session: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'session must be 8–64 characters [A-Za-z0-9_-]'),
});
export type PageViewBeacon = z.infer<typeof PageViewBeacon>;

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
export function parseBeacon(text: string): { ok: true; beacon: PageViewBeacon } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the body must be a JSON page view: {"type":"pageview","path":"/…","session":"…"}' };
  }
  const parsed = PageViewBeacon.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `invalid page view: ${issue?.path.join('.') || 'body'}: ${issue?.message}` };
  }
  return { ok: true, beacon: parsed.data };
}
