/**
 * The create-tag form as data: its fields as typed and the admin API body they become, checked by the
 * API's rules for allowed domains (`NewTag` in server/state/store.ts: at least one, each non-blank and at
 * most 253 characters; tag-form.test.ts holds the two in step) so a person learns which field to fix before
 * sending; the server still validates everything and its 422 message is shown as it comes. The schema
 * itself is not imported: zod would multiply the console bundle's size.
 * The tag's limits (`rate_limit`, `visitor_rate_limit`) are top-level tag fields; the feature toggles
 * (which bundle variant the tag serves) live in its settings.
 */
import type { NewTag, TagSettings } from '../state/store.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../limits/policy.ts';
import { splitList } from './token-form.ts';

export const TAG_FEATURES = ['personalisation', 'form_fill', 'spa', 'page_views'] as const;
export type TagFeature = (typeof TAG_FEATURES)[number];
export const FEATURE_LABELS: Record<TagFeature, string> = {
  personalisation: 'Personalisation (data-svc-* rules)',
  form_fill: 'Form fill',
  spa: 'Single-page app navigations',
  page_views: 'Page views (Visitors report)',
};
export const MAX_TAG_LIMIT = 1_000_000;
/** NewTag's bound on one allowed domain (a DNS name's length). */
export const MAX_DOMAIN_LENGTH = 253;

export interface TagFormFields {
  allowed_domains: string;
  scores: boolean;
  segment_names: boolean;
  features: Record<TagFeature, boolean>;
  rate_limit: string;
  visitor_rate_limit: string;
}

export function emptyTagForm(): TagFormFields {
  return {
    allowed_domains: '',
    scores: false,
    segment_names: false,
    features: { personalisation: true, form_fill: false, spa: false, page_views: true },
    rate_limit: String(TAG_CEILING),
    visitor_rate_limit: String(TAG_PER_VISITOR_LIMIT),
  };
}

export type TagRequestBody = NewTag & { rate_limit: number; visitor_rate_limit: number };
export type TagFormResult = { ok: true; body: TagRequestBody } | { ok: false; field: keyof TagFormFields; message: string };

function limit(text: string, fallback: number): number | null {
  const t = text.trim();
  const n = t === '' ? fallback : Number(t);
  return Number.isInteger(n) && n >= 1 && n <= MAX_TAG_LIMIT ? n : null;
}

export function tagRequestBody(customerId: string, f: TagFormFields): TagFormResult {
  const rate_limit = limit(f.rate_limit, TAG_CEILING);
  if (rate_limit === null) return { ok: false, field: 'rate_limit', message: `Tag rate limit: a whole number of requests per minute from 1 to ${MAX_TAG_LIMIT.toLocaleString('en-US')}.` };
  const visitor_rate_limit = limit(f.visitor_rate_limit, TAG_PER_VISITOR_LIMIT);
  if (visitor_rate_limit === null) {
    return { ok: false, field: 'visitor_rate_limit', message: `Per-visitor rate limit: a whole number of requests per minute from 1 to ${MAX_TAG_LIMIT.toLocaleString('en-US')}.` };
  }
  const settings: TagSettings = { features: { ...f.features } };
  const body = { customer_id: customerId, allowed_domains: splitList(f.allowed_domains, /[,\s]+/), scores: f.scores, segment_names: f.segment_names, settings };
  if (body.allowed_domains.length === 0) return { ok: false, field: 'allowed_domains', message: 'Allowed domains: a web tag needs at least one allowed domain.' };
  const tooLong = body.allowed_domains.find((d) => d.length > MAX_DOMAIN_LENGTH);
  if (tooLong) return { ok: false, field: 'allowed_domains', message: `Allowed domains: ${tooLong.slice(0, 40)}… is longer than ${MAX_DOMAIN_LENGTH} characters.` };
  return { ok: true, body: { ...body, rate_limit, visitor_rate_limit } };
}
