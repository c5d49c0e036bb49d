/**
 * The object pushed to GTM's `window.dataLayer` for an answer. Flat, every key `svc_` + snake_case,
 * values as the API gives them; an absent or null value is pushed as null (the API's "no value"), so
 * a later push overwrites an earlier one in GTM's data model. Pure.
 *
 * Which fields go out is a list (`setFields`, `fields` in the tag's server settings); the default leaves
 * out address, zip, phone (company contact data) and the visitor's geoIP location: every marketing pixel
 * on the page can read the dataLayer. Entries are company field names as in the answer, plus
 * `confidence`, `segments` and `scores`. Key names: `companyId` → `svc_company_id`, `name` →
 * `svc_company_name`, `domain` → `svc_company_domain`, any other field F → `svc_` + F in lower case
 * (`geoIP_city` → `svc_geoip_city`); `segments` → `svc_segment_ids` ("12,15") and `svc_segment_names`
 * ("A,B"); `scores` → per product P (lower-case, non-alphanumerics as `_`) `svc_P_buying_stage`,
 * `svc_P_intent_score`, `svc_P_profile_fit`, `svc_P_profile_score`, `svc_P_is_svcqa`.
 *
 * Match:     { event: 'svc_company_details_loaded', svc_company_match: 'Match', …the fields }
 * Otherwise: { event: 'svc_company_not_identified', svc_company_match }
 * (the public type: `SvcDataLayerEvent` in types.ts)
 */
import type { SvcCompany, SvcData, SvcDataLayerEvent, SvcScore } from './types.ts';

export type DataLayerValue = string | number | boolean | null;
export type DataLayerEntry = Record<string, DataLayerValue>;

/** What the default leaves out: contact data, the visitor's location, and the nested industry_v2. */
export const PRIVATE = /address|zip|phone|geoip|_v2/i;

/** `fields` default: every company field of the answer but the PRIVATE ones, then confidence, segments, scores. */
export function flatten(data: SvcData, fields?: string[] | null): SvcDataLayerEvent {
  const company: Partial<SvcCompany> = data.company ?? {};
  const match = company.company_match == 'Match';
  const entry: DataLayerEntry = {
    event: match ? 'svc_company_details_loaded' : 'svc_company_not_identified',
    svc_company_match: company.company_match || 'No Match',
  };
  /** `svc_` + the name in lower case, non-word characters as `_`. */
  const add = (name: string, value: unknown): void => {
    entry['svc_' + name.replace(/\W+/g, '_').toLowerCase()] = (value ?? null) as DataLayerValue;
  };
  if (match)
    for (const field of fields ?? [...Object.keys(company).filter((name) => !PRIVATE.test(name)), 'confidence', 'segments', 'scores']) {
      if (field == 'segments') {
        for (const list of ['ids', 'names'] as const) add('segment_' + list, data.segments?.[list]?.join());
      } else if (field == 'scores') {
        // (for…in: an answer is parsed JSON, a plain object with no inherited enumerable members)
        for (const score of data.scores ?? [])
          for (const name in score) if (!name.startsWith('product')) add(score.product + '_' + name, score[name as keyof SvcScore]);
      } else {
        // (industry_v2, a list, is left out by default; asked for, it goes out as the API gives it)
        const renamed: Record<string, string> = { companyId: 'company_id', name: 'company_name', domain: 'company_domain' };
        add(renamed[field] ?? field, field == 'confidence' ? data.confidence || null : company[field as keyof SvcCompany]);
      }
    }
  return entry as unknown as SvcDataLayerEvent;
}
