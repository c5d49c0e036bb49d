/**
 * The object pushed to GTM's `window.dataLayer` for an answer. Flat, every key `svc_` + snake_case,
 * values as the API gives them ("" when absent, so a later push overwrites an earlier one in GTM's model).
 *
 * Allow-list only: address, zip, phone (company contact data) and the visitor's geoIP location never
 * reach the dataLayer, which every marketing pixel on the page can read.
 *
 * Match:     { event: 'svc_company_details_loaded', svc_company_match, svc_company_id, svc_company_name,
 *              svc_company_domain, svc_industry, svc_employee_range, svc_employee_count, svc_revenue_range,
 *              svc_annual_revenue, svc_country, svc_country_iso_code, svc_region, svc_state, svc_city,
 *              svc_sic, svc_naics, svc_is_blacklisted, svc_is_svcqa, svc_confidence,
 *              svc_segment_ids ("12,15"), svc_segment_names ("A,B"),
 *              and per scored product P (lower-case, non-alphanumerics as _):
 *              svc_P_buying_stage, svc_P_intent_score, svc_P_profile_fit, svc_P_profile_score, svc_P_is_svcqa }
 * Otherwise: { event: 'svc_company_not_identified', svc_company_match }
 */
import type { SvcData, SvcScore } from './types.ts';

export type DataLayerEntry = Record<string, string | number | boolean>;

const COMPANY =
  'company_match companyId:company_id name:company_name domain:company_domain industry employee_range ' +
  'employee_count revenue_range annual_revenue country country_iso_code region state city sic naics ' +
  'is_blacklisted is_svcqa';
const SCORE = 'buying_stage intent_score profile_fit profile_score is_svcqa';

type Bag = Record<string, unknown>;

const copy = (o: DataLayerEntry, prefix: string, from: Bag, keys: string) =>
  keys.split(' ').forEach((f) => {
    const [k, n] = f.split(':');
    const v = from[k];
    o[prefix + (n || k)] = v == null ? '' : (v as string);
  });

export function flatten(data: SvcData): DataLayerEntry {
  const c = (data.company || {}) as unknown as Bag;
  const s = data.segments || {};
  if (c.company_match != 'Match') {
    return { event: 'svc_company_not_identified', svc_company_match: (c.company_match as string) || 'No Match' };
  }
  const o: DataLayerEntry = { event: 'svc_company_details_loaded' };
  copy(o, 'svc_', c, COMPANY);
  o.svc_confidence = data.confidence || '';
  o.svc_segment_ids = (s.ids || []).join(',');
  o.svc_segment_names = (s.names || []).join(',');
  (data.scores || []).forEach((x: SvcScore) =>
    copy(o, 'svc_' + String(x.product).toLowerCase().replace(/\W+/g, '_') + '_', x as unknown as Bag, SCORE),
  );
  return o;
}
