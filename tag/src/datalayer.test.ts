import { describe, expect, it } from 'vitest';
import { isp, matched, noMatch } from '../test/fixtures.ts';
import { flatten } from './datalayer.ts';

describe('flatten', () => {
  it('flattens a match into svc_ keys', () => {
    const o = flatten(matched());
    expect(o).toMatchObject({
      event: 'svc_company_details_loaded',
      svc_company_match: 'Match',
      svc_company_id: 'c-000042',
      svc_company_name: 'Globex Corporation',
      svc_display_name: 'Globex',
      svc_company_domain: 'globex.example',
      svc_industry: 'Software',
      svc_employee_range: '1,000 - 4,999',
      svc_employee_count: '2400',
      svc_revenue_range: '$250M - $500M',
      svc_annual_revenue: '450000000',
      svc_country: 'United States',
      svc_country_iso_code: 'US',
      svc_region: 'Northern America',
      svc_state: 'California',
      svc_city: 'San Francisco',
      svc_sic: '7372',
      svc_naics: '511210',
      svc_is_blacklisted: false,
      svc_is_svcqa: true,
      svc_confidence: 'High',
      svc_segment_ids: '12,15',
      svc_segment_names: 'Enterprise Software,North America',
      svc_cdp_buying_stage: 'Decision',
      svc_cdp_intent_score: 82,
      svc_cdp_profile_fit: 'Strong',
      svc_cdp_profile_score: 91,
      svc_cdp_is_svcqa: true,
      svc_web_analytics_buying_stage: 'Awareness',
    });
  });

  it('is flat, with consistent lower-case svc_ keys', () => {
    const o = flatten(matched());
    for (const [k, v] of Object.entries(o)) {
      if (k !== 'event') expect(k).toMatch(/^svc_[a-z0-9_]+$/);
      expect(['string', 'number', 'boolean']).toContain(typeof v); // the fixture has every field
    }
  });

  it('by default never carries address, zip, phone or the visitor location', () => {
    const o = flatten(matched());
    const text = JSON.stringify(o);
    for (const leak of ['1 Market Street', '94105', '555 0100', 'Oakland']) expect(text).not.toContain(leak);
    expect(Object.keys(o).filter((k) => /address|zip|phone|geoip/i.test(k))).toEqual([]);
  });

  it('pushes only the fields asked for (setFields), address included if asked', () => {
    expect(flatten(matched(), ['name', 'industry', 'address', 'geoIP_city'])).toEqual({
      event: 'svc_company_details_loaded',
      svc_company_match: 'Match',
      svc_company_name: 'Globex Corporation',
      svc_industry: 'Software',
      svc_address: '1 Market Street',
      svc_geoip_city: 'Oakland',
    });
    expect(flatten(matched(), ['segments'])).toEqual({
      event: 'svc_company_details_loaded',
      svc_company_match: 'Match',
      svc_segment_ids: '12,15',
      svc_segment_names: 'Enterprise Software,North America',
    });
    expect(Object.keys(flatten(matched(), ['scores']))).toContain('svc_cdp_buying_stage');
    expect(flatten(matched(), [])).toEqual({ event: 'svc_company_details_loaded', svc_company_match: 'Match' });
  });

  it('pushes absent and null fields as null so a later push overwrites an earlier one', () => {
    const o = flatten({ company: { company_match: 'Match', name: 'Tiny Co', industry: null } }, ['name', 'industry', 'confidence', 'segments']);
    expect(o).toEqual({
      event: 'svc_company_details_loaded',
      svc_company_match: 'Match',
      svc_company_name: 'Tiny Co',
      svc_industry: null,
      svc_confidence: null,
      svc_segment_ids: null,
      svc_segment_names: null,
    });
  });

  it('reports anything but Match as not identified, with nothing else', () => {
    expect(flatten(isp())).toEqual({ event: 'svc_company_not_identified', svc_company_match: 'Non-actionable Match' });
    expect(flatten(noMatch(), ['name'])).toEqual({ event: 'svc_company_not_identified', svc_company_match: 'No Match' });
    expect(flatten({} as never)).toEqual({ event: 'svc_company_not_identified', svc_company_match: 'No Match' });
  });
});
