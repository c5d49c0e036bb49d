/**
 * Feature `integrations`: the identified account told to the analytics tools already on the page, built
 * from the very entry the tag pushes to `dataLayer` (datalayer.ts), so the `fields` allow-list decides
 * what every tool may get:
 *
 * - GA4: `gtag('set', 'user_properties', {svc_company_name: 'Globex Corporation', …})`. GA4 does not
 *   process the 26th user property of a property, a name over 24 characters or a value over 36
 *   (support.google.com/analytics/answer/9267744, "Event collection limits": "User properties 25 per
 *   property", "Length of user property name 24 characters", "Length of user property value 36
 *   characters"; names are letters, digits and `_`, a letter first, no `ga_`/`google_`/`firebase_`
 *   prefix). So GA4 gets, of the dataLayer entry, GA4_KEY's: 11 properties of the account, then each
 *   product's buying stage and intent score as `svc_<product>_stage` and `svc_<product>_intent`, the product
 *   cut to its first 13 characters (`svc_sales_intelligence_buying_stage` → `svc_sales_intelli_stage`; two
 *   products alike in their first 13 share names, the later one kept) — every product of up to 7 within
 *   25, and never more than 25 (the first ones). With `fields` set, those of them it lets through. Every
 *   name is within 24 characters by construction. Values: a text over 36 characters is cut after its last
 *   whole word that fits (a word: letters and digits of any script; the spaces, punctuation and symbols
 *   before the cut are dropped), a first word over 36 at 36 characters (whole characters: an emoji is not
 *   split). The rest of the entry (a product's profile fit and hot flag, the codes, the address …) goes to
 *   dataLayer and Segment only: GA4 would drop what passes 25, and a made-up short name for a long key
 *   would be a property nobody asked for.
 * - Segment: `analytics.group(companyId, traits)`, traits named as the dataLayer keys without `svc_`,
 *   and without `company_` where Segment reserves the rest for a group: `name` (the company name), `id`
 *   (our company id), `domain`; then `industry`, `employee_range`, `segment_names` … as they are.
 *
 * Neither gets the dataLayer's `event` nor `svc_company_match` (always `Match` here). Nothing but those
 * two calls: the tag never loads a tool, and a tool that throws is reported to the console (`guarded`),
 * never into the host page or the tag. `tell` builds what each tool gets and calls the tools.
 *
 * Not in the tag's bundle: this module is the integrations chunk (integrations-chunk.ts, built by
 * tag/build.ts as `/tag/v1/integrations.<hash>.js`, 895 B gzip with its copy of datalayer.ts), which the
 * tag imports the first time a tool is asked for on a `Match` (tag.ts); the bundle holds only that loader
 * (+71 B gzip, where this code cost every bundle with the feature +362 B: tag/size-history.md).
 */
import { type DataLayerEntry, type DataLayerValue, flatten } from './datalayer.ts';
import { guarded } from './events.ts';
import type { Svc, SvcData, SvcDataLayerEvent, SvcGlobal, SvcInitOptions, SvcIntegrations } from './types.ts';

/** GA4's collection limits (see above): user properties per property, characters of a name, of a value. */
export const GA4_PROPERTIES_MAX = 25;
export const GA4_NAME_MAX = 24;
export const GA4_VALUE_MAX = 36;

/**
 * The dataLayer keys GA4 gets: the company's id, name and domain, industry, employee and revenue ranges,
 * country, hot flag, the confidence and the segments' ids and names (11), then per product its buying
 * stage and intent score (2): 11 + 2 × 7 products = 25. A product's key gives its first 13 characters
 * (group 1) and the score (group 2 or 3): `svc_<product>_stage`, `svc_<product>_intent`, at most 24. (One
 * pattern for which keys and how they are named: about 50 B gzip less in every bundle with the
 * integrations than a list of fields, a filter and a renaming of their own.)
 */
export const GA4_KEY = /^svc_(?:company_\w+|\w+_range|industry|country|is_svcqa|confidence|segment_\w+|(.{1,13}).*?_(?:buying_(stage)|(intent)_score))$/;

/**
 * A text over GA4_VALUE_MAX characters as GA4 keeps it (`value.replace(GA4_CUT, '$1')`): cut after its last
 * whole word that fits — the longest start of at most 36 characters that ends a word, a word being
 * letters, marks and digits of any script, so no separator dangles — else (a first word longer than that)
 * at 36 characters. `.` with the `su` flags is one whole character, an emoji included; shorter texts match
 * nothing and stay as they are.
 */
export const GA4_CUT = /^(?=.{37})(.{0,35}[\p{L}\p{M}\p{N}](?![\p{L}\p{M}\p{N}])|.{36}).*/su;

export type Properties = Record<string, DataLayerValue>;

/** A value as GA4 keeps it: a text cut by GA4_CUT, anything else as it is. */
export const ga4Value = (value: DataLayerValue): DataLayerValue => (typeof value == 'string' ? value.replace(GA4_CUT, '$1') : value);

/** What the tools look like on a page (`window`): GA4's `gtag` function, Segment's analytics.js (or its snippet's queue). */
export interface AnalyticsTools {
  gtag?: (...args: unknown[]) => void;
  analytics?: { group(groupId: string, traits: Properties): void };
}

/**
 * Tells each tool asked for (`tools`) that is on `page` and not yet in `told` about the account, and
 * marks it in `told` (true): called again later, it tells only the ones that were missing. Both tools'
 * snippets define their global at once and queue calls until the library has loaded, so "on the page"
 * means the snippet ran. What each tool gets from the dataLayer entry: GA4 user properties (see above;
 * null as null: it clears the property), Segment group traits. Both are built in this one loop: a
 * separate builder returning both cost 24 B gzip.
 */
export function tell(
  page: AnalyticsTools,
  tools: SvcIntegrations = {},
  told: SvcIntegrations,
  companyId: string,
  entry: SvcDataLayerEvent | DataLayerEntry,
): void {
  const { event, svc_company_match, ...account } = entry as DataLayerEntry;
  const ga4: Properties = {};
  const segment: Properties = {};
  let count = 0;
  for (const key in account) {
    const value = account[key];
    const ga4Key = key.match(GA4_KEY);
    if (ga4Key && count++ < GA4_PROPERTIES_MAX) ga4[ga4Key[1] ? `svc_${ga4Key[1]}_${ga4Key[2] || ga4Key[3]}` : key] = ga4Value(value);
    segment[key.replace(/^svc_(company_)?/, '')] = value;
  }
  // A tool is told once: `told.<tool>` becomes true when it is (`!` of the guarded call, which returns
  // nothing); asked for but not on the page, it stays falsy for the next call. (An assignment per tool
  // rather than an `if` that tests `told` and then sets it: 12 B gzip less on the full bundle.)
  told.ga4 ||= tools.ga4 && page.gtag && !guarded(page.gtag)('set', 'user_properties', ga4);
  told.segment ||= tools.segment && page.analytics && !guarded(() => page.analytics!.group(companyId, segment))();
}

/** What the tag passes for each try: its live config (the tools asked for and `fields`, as they are now). */
export type IntegrationsConfig = Pick<SvcInitOptions, 'integrations' | 'fields'>;

/** Which tools each answer the tag delivered has told (tag.ts tries twice per answer): by the answer object, which each delivery makes anew. */
const toldOf = new WeakMap<SvcData, SvcIntegrations>();

/**
 * One try of the tag's (tag.ts: when the answer arrives, and once more INTEGRATIONS_RETRY_MS later): while
 * `data` is still the page's answer (`page.svc.data`), tells the tools asked for now what `fields` lets into
 * the dataLayer entry (`tell`), each tool once per answer. In the chunk rather than the tag, where the
 * per-answer record alone cost the bundle 8 B gzip (tag/size-history.md).
 */
export function tellAnswer(page: AnalyticsTools & { svc?: SvcGlobal }, config: IntegrationsConfig, data: SvcData): void {
  if ((page.svc as Svc | undefined)?.data != data) return;
  const told = toldOf.get(data) ?? {};
  toldOf.set(data, told);
  tell(page, config.integrations, told, data.company.companyId!, flatten(data, config.fields));
}

/**
 * What the chunk (integrations-chunk.ts, an ES module the tag loads with `import()`) exports: `t`, this page's
 * `tellAnswer`. One letter: the tag's bundle spells the name.
 */
export interface IntegrationsChunk {
  t(config: IntegrationsConfig, data: SvcData): void;
}
