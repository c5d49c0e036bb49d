/**
 * The create-tag form as data: its fields as typed and the admin API body they become, checked by the
 * API's rules for allowed domains (at least one; the syntax check of core/allowed-domain.ts that
 * `NewTag` uses; tag-form.test.ts holds the two in step) so a person learns which field to fix before
 * sending; the server still validates everything and its 422 message is shown as it comes. The NewTag
 * schema itself is not imported: zod would multiply the console bundle's size.
 * The tag's limits (`rate_limit`, `visitor_rate_limit`) are top-level tag fields; the feature toggles
 * (which bundle variant the tag serves) live in its settings.
 */

import { parseAllowedDomains } from '../../core/allowed-domain.ts';
// Type-only: core/tag-features.ts builds a zod schema, which must stay out of the console bundle.
import type { FeatureName } from '../../core/tag-features.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../limits/policy.ts';
import type { NewTag, TagSettings } from '../state/store.ts';
import { splitList } from './token-form.ts';

/** The tag's compile-time features (core/tag-features.ts FEATURE_NAMES); in a tag's settings an absent key is on. */
export const TAG_FEATURES: readonly FeatureName[] = ['personalisation', 'form_fill', 'spa', 'page_views', 'debug'];
export type TagFeature = FeatureName;
export const FEATURE_LABELS: Record<TagFeature, string> = {
  personalisation: 'Personalisation (data-svc-* rules)',
  form_fill: 'Form fill',
  spa: 'Single-page app navigations',
  page_views: 'Page views (Visitors report)',
  debug: 'Debug logging (?svc_debug=1)',
};
export const MAX_TAG_LIMIT = 1_000_000;

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
    // Every feature as the server defaults them, except debug logging, which a live site does not need.
    features: { personalisation: true, form_fill: true, spa: true, page_views: true, debug: false },
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
  if (rate_limit === null)
    return {
      ok: false,
      field: 'rate_limit',
      message: `Tag rate limit: a whole number of requests per minute from 1 to ${MAX_TAG_LIMIT.toLocaleString('en-US')}.`,
    };
  const visitor_rate_limit = limit(f.visitor_rate_limit, TAG_PER_VISITOR_LIMIT);
  if (visitor_rate_limit === null) {
    return {
      ok: false,
      field: 'visitor_rate_limit',
      message: `Per-visitor rate limit: a whole number of requests per minute from 1 to ${MAX_TAG_LIMIT.toLocaleString('en-US')}.`,
    };
  }
  const settings: TagSettings = { features: { ...f.features } };
  const body = { customer_id: customerId, allowed_domains: splitList(f.allowed_domains, /[,\s]+/), scores: f.scores, segment_names: f.segment_names, settings };
  if (body.allowed_domains.length === 0)
    return { ok: false, field: 'allowed_domains', message: 'Allowed domains: a web tag needs at least one allowed domain.' };
  // The API's own syntax check (core/allowed-domain.ts), which the console bundle can carry.
  const domains = parseAllowedDomains(body.allowed_domains);
  if (!domains.ok) return { ok: false, field: 'allowed_domains', message: `Allowed domains: ${domains.message}` };
  return { ok: true, body: { ...body, allowed_domains: domains.value, rate_limit, visitor_rate_limit } };
}

/** The consent defaults a tag may start with (TagSettings.consent_default); '' keeps the bundle's default. */
export const CONSENT_DEFAULTS = ['granted', 'denied', 'pending'] as const;

/** A tag's server-managed settings as the settings form edits them (features, consent, Global Privacy Control). */
export interface TagSettingsFields {
  features: Record<TagFeature, boolean>;
  consent_default: '' | (typeof CONSENT_DEFAULTS)[number];
  honor_gpc: boolean;
}

/** The form for a tag's current settings: absent features are on, GPC is honoured unless turned off. */
export function tagSettingsForm(settings: TagSettings): TagSettingsFields {
  const features = Object.fromEntries(TAG_FEATURES.map((f) => [f, settings.features?.[f] !== false])) as Record<TagFeature, boolean>;
  return { features, consent_default: settings.consent_default ?? '', honor_gpc: settings.honor_gpc !== false };
}

/**
 * The whole settings object to send (PATCH …/settings replaces it: absent keys are the bundle's defaults),
 * so the settings this form does not edit (fields, min_confidence, timeouts …) are kept as they were.
 */
export function tagSettingsBody(current: TagSettings, f: TagSettingsFields): TagSettings {
  const { consent_default: _c, ...rest } = current;
  return { ...rest, features: { ...f.features }, honor_gpc: f.honor_gpc, ...(f.consent_default ? { consent_default: f.consent_default } : {}) };
}
