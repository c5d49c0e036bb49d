/** Small hand-written fixtures shared by unit and integration tests. */
import type { CompanyRow, CustomerSeed } from '../../data/sources/schema.ts';

export const ACME_SOFTWARE: CompanyRow = {
  company_id: '900001', name: 'Northwind Analytics', domain: 'northwind.example', industry: 'Software', subindustry: 'Business Intelligence Software',
  sic: '7372', sic_description: 'Prepackaged Software', naics: '511210', naics_description: 'Software Publishers', country: 'United States',
  country_iso_code: 'US', region: 'North America', state: 'California', state_code: 'CA', city: 'San Francisco', address: '1 Market St',
  zip: '94105', phone: '+1 415 555 0100', employee_count: '1200', employee_range: '1,000-4,999', annual_revenue: '180000000', revenue_range: '$100M-$250M',
};

export const BLUEPEAK_MANUFACTURING: CompanyRow = {
  ...ACME_SOFTWARE, company_id: '900002', name: 'Bluepeak Fertigung GmbH', domain: 'bluepeak.example', industry: 'Manufacturing', subindustry: 'Industrial Machinery',
  country: 'Germany', country_iso_code: 'DE', region: 'EMEA', state: 'Bavaria', state_code: 'BY', city: 'Munich', employee_range: '200-499', employee_count: '320',
};

export const TEST_CUSTOMER: CustomerSeed = {
  id: 'acme', name: 'Acme Test', packages: ['platform', 'sales-intelligence', 'advanced', 'people-enrichment'],
  identification_credits: 1000, enrichment_credits: 1000, contract_start: '2026-01-01',
  products: [{ name: 'cdp', display_name: 'Customer Data Platform', icp: { industries: ['Software'], employee_ranges: ['1,000-4,999'], revenue_ranges: [], regions: ['North America'] }, intent_topics: ['customer data platform'], persona: { levels: ['VP'], functions: ['Marketing'] } }],
  segments: [
    { id: 101, name: 'Enterprise Software', match: { industry: ['Software'], employee_range: ['1,000-4,999', '5,000-9,999', '10,000+'] } },
    { id: 102, name: 'EMEA Manufacturing', match: { industry: ['Manufacturing'], region: ['EMEA'] } },
  ],
  excluded_accounts: ['900002'],
  hot_accounts: [{ company_id: '900001', products: [] }],
  tags: [{ tag_id: 'acme-tag', allowed_domains: ['localhost', '*.acme.test'], scores: true, segment_names: true }],
};
