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
 * - `debug`: `?svc_debug=1` and the `debug` command log decisions and events to the console.
 *
 * A tag's `features` setting lists booleans; an absent key is ON (DEFAULT_FEATURES), so tags created
 * before features existed keep everything they had. `/tag/v1/svc.js` is the bundle with every feature.
 * Shared by the build (tag/build.ts), the server (server/tag/assets.ts, TagSettings in
 * server/state/store.ts) and the console, so it lives in the neutral core (imports zod only). The bundle
 * never imports it: tag/src/flags.d.ts takes its types, and the build turns each flag into a literal.
 */
import { z } from 'zod';

export const FEATURE_NAMES = ['personalisation', 'form_fill', 'spa', 'page_views', 'debug'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
/** Every feature decided: what one bundle variant contains. */
export type FeatureSet = Record<FeatureName, boolean>;

/** The `features` tag setting (admin API, console): absent keys are on. */
export const TagFeatures = z
  .object({
    personalisation: z.boolean().optional(),
    form_fill: z.boolean().optional(),
    spa: z.boolean().optional(),
    page_views: z.boolean().optional(),
    debug: z.boolean().optional(),
  })
  .strict();
export type TagFeatures = z.infer<typeof TagFeatures>;

export const DEFAULT_FEATURES: FeatureSet = { personalisation: true, form_fill: true, spa: true, page_views: true, debug: true };
export const CORE_FEATURES: FeatureSet = { personalisation: false, form_fill: false, spa: false, page_views: false, debug: false };

/** A tag's setting with the defaults filled in. */
export function resolveFeatures(features: TagFeatures | undefined): FeatureSet {
  const set = { ...DEFAULT_FEATURES };
  for (const name of FEATURE_NAMES) if (typeof features?.[name] === 'boolean') set[name] = features[name]!;
  return set;
}

/** The variant's file name stem: its features joined by "-" in FEATURE_NAMES order, or "core". */
export const variantName = (features: FeatureSet): string => FEATURE_NAMES.filter((name) => features[name]).join('-') || 'core';

/** Every combination of features (2^5 = 32): every variant the build ships. */
export const ALL_VARIANTS: FeatureSet[] = Array.from(
  { length: 2 ** FEATURE_NAMES.length },
  (_, bits) => Object.fromEntries(FEATURE_NAMES.map((name, i) => [name, Boolean(bits & (1 << i))])) as FeatureSet,
);
