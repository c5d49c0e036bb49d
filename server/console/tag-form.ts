/**
 * The create-tag form as data: its fields as typed and the admin API body they become, checked by the
 * API's rules for allowed domains (at least one; the syntax check of core/allowed-domain.ts that
 * `NewTag` uses; tag-form.test.ts holds the two in step) so a person learns which field to fix before
 * sending; the server still validates everything and its 422 message is shown as it comes. The NewTag
 * schema itself is not imported: zod would multiply the console bundle's size.
 * The tag's limits (`rate_limit`, `visitor_rate_limit`) are top-level tag fields; the feature toggles
 * (which bundle variant the tag serves) live in its settings.
 */

import type { NewTag, TagPatch, TagRecord, TagSettings } from '../../core/access-records.ts';
import { parseAllowedDomains } from '../../core/allowed-domain.ts';
// Type-only: core/tag-features.ts builds a zod schema, which must stay out of the console bundle.
import type { FeatureName, TagFeatures } from '../../core/tag-features.ts';
import { CONFIDENCES, TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../../core/vocabulary.ts';
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

/**
 * The `integrations` feature as the settings form edits it (core/tag-features.ts: `features.integrations`
 * is absent/false = off, `true` = the code only (the page's `integrations` command chooses the tools), or
 * the tools told by default `{ga4, segment}`, which also puts the code in).
 */
export interface IntegrationsFields {
  ga4: boolean;
  segment: boolean;
  /** The code without a default tool: the page's `integrations` command chooses (setting `true`). */
  page_command: boolean;
}

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

/** Confidence floors a tag may require before it acts on an answer (TagSettings.min_confidence); '' keeps the bundle's. */
export const MIN_CONFIDENCES = CONFIDENCES;
/** Largest cache time and anti-flicker timeout the API takes (TagSettings). */
export const MAX_CACHE_TTL_MS = 30 * 86_400_000;
export const MAX_ANTI_FLICKER_MS = 10_000;

/**
 * A tag's server-managed settings as the settings form edits them: features, consent default, Global
 * Privacy Control, minimum confidence, the dataLayer fields, the cache time and the anti-flicker timeout
 * (numbers and lists as typed; '' = the bundle's default).
 */
export interface TagSettingsFields {
  features: Record<TagFeature, boolean>;
  integrations: IntegrationsFields;
  consent_default: '' | (typeof CONSENT_DEFAULTS)[number];
  honor_gpc: boolean;
  min_confidence: '' | (typeof CONFIDENCES)[number];
  fields: string;
  cache_ttl_ms: string;
  anti_flicker_timeout_ms: string;
}

export const INTEGRATION_LABELS: Record<keyof IntegrationsFields, string> = {
  ga4: "GA4 (gtag('set', 'user_properties', …))",
  segment: 'Segment (analytics.group(…))',
  page_command: "Code only: the page's integrations command chooses",
};

/** The form's integrations for a setting: the tools it names; the code is in for `true` and for named tools. */
export function integrationsForm(setting: TagFeatures['integrations']): IntegrationsFields {
  const tools = typeof setting === 'object' ? setting : {};
  return { ga4: tools.ga4 === true, segment: tools.segment === true, page_command: setting === true || typeof setting === 'object' };
}

/** The setting for the form's integrations: the tools when any is chosen, else `true` for the code alone, else none (off). */
export function integrationsSetting(f: IntegrationsFields): TagFeatures['integrations'] {
  if (f.ga4 || f.segment) return { ga4: f.ga4, segment: f.segment };
  return f.page_command ? true : undefined;
}

/** The form for a tag's current settings: absent features are on (integrations off), GPC is honoured unless turned off. */
export function tagSettingsForm(settings: TagSettings): TagSettingsFields {
  const features = Object.fromEntries(TAG_FEATURES.map((f) => [f, settings.features?.[f] !== false])) as Record<TagFeature, boolean>;
  return {
    features,
    integrations: integrationsForm(settings.features?.integrations),
    consent_default: settings.consent_default ?? '',
    honor_gpc: settings.honor_gpc !== false,
    min_confidence: settings.min_confidence ?? '',
    fields: (settings.fields ?? []).join(', '),
    cache_ttl_ms: settings.cache_ttl_ms === undefined ? '' : String(settings.cache_ttl_ms),
    anti_flicker_timeout_ms: settings.anti_flicker_timeout_ms === undefined ? '' : String(settings.anti_flicker_timeout_ms),
  };
}

export type TagSettingsResult = { ok: true; body: TagSettings } | { ok: false; field: keyof TagSettingsFields; message: string };

/** A whole number from 0 to `max` typed in a field, '' for none (the bundle's default), or null when not one. */
function wholeOrNone(text: string, max: number): number | undefined | null {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isInteger(n) && n >= 0 && n <= max ? n : null;
}

/**
 * The whole settings object to send (PATCH …/settings replaces it: absent keys are the bundle's defaults),
 * built on the tag's `current` settings so a key the form does not edit (a feature it has no toggle for,
 * a setting added later) is sent back as it was instead of being wiped; what the form edits and leaves
 * empty is the default. Checked as the API checks.
 */
export function tagSettingsBody(f: TagSettingsFields, current: TagSettings = {}): TagSettingsResult {
  const fields = splitList(f.fields, /[,\s]+/);
  if (fields.length > 64 || fields.some((x) => x.length > 64))
    return { ok: false, field: 'fields', message: 'dataLayer fields: at most 64 names of at most 64 characters.' };
  const cache = wholeOrNone(f.cache_ttl_ms, MAX_CACHE_TTL_MS);
  if (cache === null)
    return {
      ok: false,
      field: 'cache_ttl_ms',
      message: `Cache time: whole milliseconds from 0 to ${MAX_CACHE_TTL_MS.toLocaleString('en-US')} (30 days), or empty for the default.`,
    };
  const flicker = wholeOrNone(f.anti_flicker_timeout_ms, MAX_ANTI_FLICKER_MS);
  if (flicker === null)
    return {
      ok: false,
      field: 'anti_flicker_timeout_ms',
      message: `Anti-flicker timeout: whole milliseconds from 0 to ${MAX_ANTI_FLICKER_MS.toLocaleString('en-US')}, or empty for the default.`,
    };
  // The keys the form edits start empty (emptied = default); every other key is kept as it was.
  const { consent_default, min_confidence, fields: _fields, cache_ttl_ms, anti_flicker_timeout_ms, ...kept } = current;
  const features: TagFeatures = { ...current.features, ...f.features };
  const integrations = integrationsSetting(f.integrations);
  if (integrations === undefined) delete features.integrations;
  else features.integrations = integrations;
  const body: TagSettings = { ...kept, features, honor_gpc: f.honor_gpc };
  if (f.consent_default) body.consent_default = f.consent_default;
  if (f.min_confidence) body.min_confidence = f.min_confidence;
  if (fields.length > 0) body.fields = fields;
  if (cache !== undefined) body.cache_ttl_ms = cache;
  if (flicker !== undefined) body.anti_flicker_timeout_ms = flicker;
  return { ok: true, body };
}

/** A tag's own fields as the edit form types them (allowed domains, answers, limits): `tags:write`. */
export interface TagEditFields {
  allowed_domains: string;
  scores: boolean;
  segment_names: boolean;
  rate_limit: string;
  visitor_rate_limit: string;
}

export function tagEditForm(tag: Pick<TagRecord, 'allowed_domains' | 'scores' | 'segment_names' | 'rate_limit' | 'visitor_rate_limit'>): TagEditFields {
  return {
    allowed_domains: tag.allowed_domains.join(', '),
    scores: tag.scores,
    segment_names: tag.segment_names,
    rate_limit: String(tag.rate_limit),
    visitor_rate_limit: String(tag.visitor_rate_limit),
  };
}

export type TagPatchResult = { ok: true; body: TagPatch } | { ok: false; field: keyof TagEditFields; message: string };

/** The PATCH body of the edit form, checked by the create form's rules (the same fields, the same API schema). */
export function tagPatchBody(f: TagEditFields): TagPatchResult {
  const r = tagRequestBody('', { ...f, features: emptyTagForm().features });
  if (!r.ok) return r as TagPatchResult;
  const { allowed_domains, scores, segment_names, rate_limit, visitor_rate_limit } = r.body;
  return { ok: true, body: { allowed_domains, scores, segment_names, rate_limit, visitor_rate_limit } };
}
