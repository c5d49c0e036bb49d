/**
 * Feature `integrations`: the identified account told to the analytics tools already on the page, built
 * from the very entry the tag pushes to `dataLayer` (datalayer.ts), so the `fields` allow-list decides
 * what every tool gets:
 *
 * - GA4: `gtag('set', 'user_properties', {svc_company_name: 'Globex Corporation', …})`, the dataLayer
 *   keys as user property names. GA4 does not log a user property whose name is over 24 characters, nor
 *   one whose value is over 36 (support.google.com/analytics/answer/9267744, "Collection limits"), so a
 *   longer key (`svc_web_analytics_buying_stage`) is left out — a shortened name would be a property
 *   nobody asked for, and could collide — and a longer text value is cut to 36 characters (whole
 *   characters: an emoji is not split), which keeps a long company name useful. Names are the dataLayer's
 *   `svc_[a-z0-9_]+`: a letter first, no reserved `ga_`/`google_`/`firebase_` prefix.
 * - Segment: `analytics.group(companyId, traits)`, traits named as the dataLayer keys without `svc_`,
 *   and without `company_` where Segment reserves the rest for a group: `name` (the company name), `id`
 *   (our company id), `domain`; then `industry`, `employee_range`, `segment_names` … as they are.
 *
 * Neither gets the dataLayer's `event` nor `svc_company_match` (always `Match` here). Nothing but those
 * two calls: the tag never loads a tool, and a tool that throws is reported to the console (`guarded`),
 * never into the host page or the tag. `tell` builds what each tool gets and calls the tools.
 */
import type { DataLayerEntry, DataLayerValue } from './datalayer.ts';
import { guarded } from './events.ts';
import type { SvcDataLayerEvent, SvcIntegrations } from './types.ts';

/** GA4's longest user property name and value, in characters. */
export const GA4_NAME_MAX = 24;
export const GA4_VALUE_MAX = 36;

export type Properties = Record<string, DataLayerValue>;

/** What the tools look like on a page (`window`): GA4's `gtag` function, Segment's analytics.js (or its snippet's queue). */
export interface AnalyticsTools {
  gtag?: (...args: unknown[]) => void;
  analytics?: { group(groupId: string, traits: Properties): void };
}

/**
 * Tells each tool asked for (`tools`) that is on `page` and not yet in `told` about the account, and
 * marks it in `told` (true): called again later, it tells only the ones that were missing. Both tools' snippets
 * define their global at once and queue calls until the library has loaded, so "on the page" means the
 * snippet ran. What each tool gets from the dataLayer entry: GA4 user properties (keys of at most 24
 * characters, text values cut to 36; null as null: it clears the property), Segment group traits. Both
 * are built in this one function: a separate builder returning both cost 24 B gzip.
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
  for (const key in account) {
    const value = account[key];
    if (key.length <= GA4_NAME_MAX) ga4[key] = typeof value == 'string' ? [...value].slice(0, GA4_VALUE_MAX).join('') : value;
    segment[key.replace(/^svc_(company_)?/, '')] = value;
  }
  // A tool is told once: `told.<tool>` becomes true when it is (`!` of the guarded call, which returns
  // nothing); asked for but not on the page, it stays falsy for the next call. (An assignment per tool
  // rather than an `if` that tests `told` and then sets it: 12 B gzip less on the full bundle.)
  told.ga4 ||= tools.ga4 && page.gtag && !guarded(page.gtag)('set', 'user_properties', ga4);
  told.segment ||= tools.segment && page.analytics && !guarded(() => page.analytics!.group(companyId, segment))();
}
