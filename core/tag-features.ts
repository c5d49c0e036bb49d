/**
 * Compile-time features of the web tag (as Plausible builds its script variants): `/tag/v1/<tagId>.js`
 * is the bundle built with only the features the tag's settings enable, so a tag that does not
 * personalise or count page views does not ship that code.
 *
 * - core (always): identification, cache, `window.svc` and its commands, `svc:*` events, `dataLayer`,
 *   opt-out / consent / Global Privacy Control, the anti-flicker reveal;
 * - `personalisation`: `data-svc-text`, `-show`, `-hide`, `-attr` (rule language, templates),
 *   `svc:personalized`, the `personalize` command;
 * - `form_fill`: `data-svc-fill` and `data-svc-hide-when-filled`;
 * - `spa`: single-page apps: elements added or re-rendered later are personalised, and history
 *   navigations (pushState, replaceState, popstate) are new views — and new page views;
 * - `page_views`: one beacon per page view to `POST <endpoint>/v1/events?tag=<tagId>`;
 * - `debug`: `?svc_debug=1` and the `debug` command log decisions and events to the console;
 * - `integrations`: the account told to the page's own analytics tools, GA4 (`gtag`) and Segment
 *   (`analytics`), when the tag's setting or the `integrations` command asks for them.
 *
 * A tag's `features` setting lists booleans; an absent key is ON (DEFAULT_FEATURES), so tags created
 * before features existed keep everything they had — except `integrations`, which no tag had: it is on
 * when `features.integrations` is true or names the tools (`{ga4: true, segment: true}`, TagIntegrations),
 * so only tags that use it pay its bytes. `/tag/v1/svc.js` is the bundle with every feature (EVERY_FEATURE).
 * Shared by the build (tag/build.ts), the server (server/tag/assets.ts), the records (TagSettings in
 * ./access-records.ts) and the console, so it lives in the neutral core (imports zod only). The bundle
 * never imports it: tag/src/flags.d.ts takes its types, and the build turns each flag into a literal.
 */
import { z } from 'zod';

/** The features the `features` setting switches with a boolean, absent = on (the console's toggles). */
export const FEATURE_NAMES = ['personalisation', 'form_fill', 'spa', 'page_views', 'debug'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
/** Every compile-time feature: those, then `integrations` (off unless asked for). Variant names follow this order. */
export const BUNDLE_FEATURES = [...FEATURE_NAMES, 'integrations'] as const;
export type BundleFeature = (typeof BUNDLE_FEATURES)[number];
/** Every feature decided: what one bundle variant contains. */
export type FeatureSet = Record<BundleFeature, boolean>;

/**
 * The analytics tools the tag tells about the identified account (the `integrations` command's argument,
 * and `features.integrations` when it names them). Absent or false: not that tool — reporting company data
 * to another tool is the customer's choice, never a default. Inlined into the per-tag bundle as the
 * `integrations` init option (server/tag/assets.ts).
 */
export const TagIntegrations = z
  .object({
    /** GA4: `gtag('set', 'user_properties', …)` when `window.gtag` is on the page. */
    ga4: z.boolean().optional(),
    /** Segment: `analytics.group(companyId, traits)` when `window.analytics` is on the page. */
    segment: z.boolean().optional(),
  })
  .strict();
export type TagIntegrations = z.infer<typeof TagIntegrations>;

/** The `features` tag setting (admin API, console): absent booleans are on; `integrations` absent is off. */
export const TagFeatures = z
  .object({
    personalisation: z.boolean().optional(),
    form_fill: z.boolean().optional(),
    spa: z.boolean().optional(),
    page_views: z.boolean().optional(),
    debug: z.boolean().optional(),
    /** true: the code is in and the page's `integrations` command chooses the tools; the tools: also told by default. */
    integrations: z.union([z.boolean(), TagIntegrations]).optional(),
  })
  .strict();
export type TagFeatures = z.infer<typeof TagFeatures>;

/** What a tag with no `features` setting gets. */
export const DEFAULT_FEATURES: FeatureSet = { personalisation: true, form_fill: true, spa: true, page_views: true, debug: true, integrations: false };
export const CORE_FEATURES: FeatureSet = { personalisation: false, form_fill: false, spa: false, page_views: false, debug: false, integrations: false };
/** `/tag/v1/svc.js`, the generic bundle: every feature, integrations included. */
export const EVERY_FEATURE: FeatureSet = { ...DEFAULT_FEATURES, integrations: true };

/** A tag's setting with the defaults filled in. */
export function resolveFeatures(features: TagFeatures | undefined): FeatureSet {
  const set = { ...DEFAULT_FEATURES };
  for (const name of FEATURE_NAMES) if (typeof features?.[name] === 'boolean') set[name] = features[name]!;
  set.integrations = Boolean(features?.integrations);
  return set;
}

/** The tools a tag's `features.integrations` names (told without a page command), or undefined. */
export const settingIntegrations = (features: TagFeatures | undefined): TagIntegrations | undefined =>
  typeof features?.integrations === 'object' ? features.integrations : undefined;

/** The variant's file name stem: its features joined by "-" in BUNDLE_FEATURES order, or "core". */
export const variantName = (features: FeatureSet): string => BUNDLE_FEATURES.filter((name) => features[name]).join('-') || 'core';

/** Every combination of features (2^6 = 64): every variant the build ships. */
export const ALL_VARIANTS: FeatureSet[] = Array.from(
  { length: 2 ** BUNDLE_FEATURES.length },
  (_, bits) => Object.fromEntries(BUNDLE_FEATURES.map((name, i) => [name, Boolean(bits & (1 << i))])) as FeatureSet,
);
