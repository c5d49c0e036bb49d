/**
 * The object pushed to GTM's `window.dataLayer` for an answer. Flat, every key `svc_` + snake_case,
 * values as the API gives them ("" when absent, so a later push overwrites an earlier one in GTM's model).
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
 */
import type { SvcData } from './types.ts';

export type DataLayerEntry = Record<string, string | number | boolean>;
type Bag = Record<string, any>;

/** What the default leaves out: contact data, the visitor's location, and the nested industry_v2. */
export const PRIVATE = /address|zip|phone|geoip|_v2/i;

/**
 * `fields` default: every company field of the answer but the PRIVATE ones, then `confidence`,
 * `segments` and `scores`.
 */
export function flatten(data: SvcData, fields?: string[] | null): DataLayerEntry {
  const c: Bag = data.company || {}, m = c.company_match, match = m == 'Match';
  const o: Bag = { event: match ? 'svc_company_details_loaded' : 'svc_company_not_identified', svc_company_match: m || 'No Match' };
  const put = (k: string, v: unknown) => (o['svc_' + k.replace(/\W+/g, '_').toLowerCase()] = v ?? '');
  if (match)
    (fields || Object.keys(c).filter((k) => !PRIVATE.test(k)).concat('confidence', 'segments', 'scores')).forEach((f) =>
      f == 'segments'
        ? ['ids', 'names'].forEach((k) => put('segment_' + k, (data.segments as Bag)?.[k]?.join()))
        : f == 'scores'
          ? data.scores?.forEach((x: Bag) => {
              for (const k in x) if (!/^product/.test(k)) put(x.product + '_' + k, x[k]);
            })
          : put(
              f == 'companyId' ? 'company_id' : /^(name|domain)$/.test(f) ? 'company_' + f : f,
              f == 'confidence' ? data.confidence : c[f],
            ),
    );
  return o;
}
