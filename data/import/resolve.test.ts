import { describe, expect, it } from 'vitest';
import type { FirmographicsRow } from './firmographics.ts';
import { normaliseOrganization } from './organization-name.ts';
import { CONFIDENCE_BY_RULE, indexFirmographics, joinCompany } from './resolve.ts';

const company = (name: string, domain: string): FirmographicsRow => ({
  company_id: '',
  name,
  domain,
  industry: '',
  subindustry: '',
  sic: '',
  sic_description: '',
  naics: '',
  naics_description: '',
  country: '',
  country_iso_code: '',
  region: '',
  state: '',
  state_code: '',
  city: '',
  address: '',
  zip: '',
  phone: '',
  employee_count: '',
  employee_range: '',
  annual_revenue: '',
  revenue_range: '',
});

describe('normaliseOrganization', () => {
  it.each([
    ['Lariat Software, Inc.', 'lariat software'],
    ['LARIAT SOFTWARE', 'lariat software'],
    ['U.S. Department of Defense', 'us department of defense'],
    ['US Department of Defense', 'us department of defense'],
    ['Bevtec AB', 'bevtec'],
    ['Müller & Söhne GmbH & Co. KG', 'muller and sohne'],
    ['Telefónica S.A.', 'telefonica'],
    ['The Boeing Company', 'boeing'],
    ['Acme Holdings Ltd.', 'acme'],
    ['Group', 'group'],
  ])('%s → %s', (input, key) => expect(normaliseOrganization(input)).toBe(key));
});

describe('joinCompany: domain first, then the normalised name', () => {
  const index = indexFirmographics([
    company('U.S. Department of Defense', 'health.mil'),
    company('Bevtec AB', 'bevtec.se'),
    company('Twin Corp', 'twin-a.example'),
    company('Twin Corporation', 'twin-b.example'),
  ]);

  it('domain and name agree: Very High; domain only: High', () => {
    expect(joinCompany('US Department of Defense', 'health.mil', index)).toMatchObject({ rule: 'domain+name', company: { domain: 'health.mil' } });
    expect(joinCompany('DNIC', 'HEALTH.MIL.', index)).toMatchObject({ rule: 'domain', company: { domain: 'health.mil' } });
    expect(CONFIDENCE_BY_RULE).toEqual({ 'domain+name': 'Very High', domain: 'High', name: 'Moderate', 'domain-only': 'Low' });
  });

  it('a domain no company has falls back to the name, then to a company made from the domain', () => {
    expect(joinCompany('Bevtec', 'bredband2.com', index)).toMatchObject({ rule: 'name', company: { domain: 'bevtec.se' } });
    expect(joinCompany('Stonehouse Ltd', 'stonehouse.example', index)).toEqual({ rule: 'domain-only', domain: 'stonehouse.example', name: 'Stonehouse Ltd' });
    expect(joinCompany('', 'stonehouse.example', index)).toEqual({ rule: 'domain-only', domain: 'stonehouse.example', name: 'stonehouse.example' });
  });

  it('a name shared by several companies, a reverse-DNS pseudo-domain or nothing at all does not join', () => {
    expect(joinCompany('TWIN CORP.', '', index)).toEqual({ rule: 'unmatched' });
    expect(joinCompany('STONEHOUSE office network', 'in-addr.arpa', index)).toEqual({ rule: 'unmatched' });
    expect(joinCompany('', '', index)).toEqual({ rule: 'unmatched' });
  });
});
