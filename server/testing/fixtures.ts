/** Small hand-written fixtures shared by unit and integration tests. */

import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import type { CustomerSeed } from '../../core/customer-records.ts';
import type { DomainRow, EngagementRow } from '../../data/sources/schema.ts';
import type { ChargeRequest } from '../state/metering/service.ts';

export const ACME_SOFTWARE: CompanyRow = {
  company_id: '900001',
  name: 'Northwind Analytics',
  domain: 'northwind.example',
  industry: 'Software',
  subindustry: 'Business Intelligence Software',
  sic: '7372',
  sic_description: 'Prepackaged Software',
  naics: '511210',
  naics_description: 'Software Publishers',
  country: 'United States',
  country_iso_code: 'US',
  region: 'North America',
  state: 'California',
  state_code: 'CA',
  city: 'San Francisco',
  address: '1 Market St',
  zip: '94105',
  phone: '+1 415 555 0100',
  employee_count: '1200',
  employee_range: '1,000-4,999',
  annual_revenue: '180000000',
  revenue_range: '$100M-$250M',
};

export const BLUEPEAK_MANUFACTURING: CompanyRow = {
  ...ACME_SOFTWARE,
  company_id: '900002',
  name: 'Bluepeak Fertigung GmbH',
  domain: 'bluepeak.example',
  industry: 'Manufacturing',
  subindustry: 'Industrial Machinery',
  country: 'Germany',
  country_iso_code: 'DE',
  region: 'EMEA',
  state: 'Bavaria',
  state_code: 'BY',
  city: 'Munich',
  employee_range: '200-499',
  employee_count: '320',
};

export const TEST_CUSTOMER: CustomerSeed = {
  id: 'acme',
  name: 'Acme Test',
  packages: ['platform', 'sales-intelligence', 'advanced', 'people-enrichment'],
  identification_credits: 1000,
  enrichment_credits: 1000,
  contract_start: '2026-01-01',
  products: [
    {
      name: 'cdp',
      display_name: 'Customer Data Platform',
      icp: { industries: ['Software'], employee_ranges: ['1,000-4,999'], revenue_ranges: [], regions: ['North America'] },
      intent_topics: ['customer data platform'],
      persona: { levels: ['VP'], functions: ['Marketing'] },
    },
  ],
  segments: [
    { id: 101, name: 'Enterprise Software', match: { industry: ['Software'], employee_range: ['1,000-4,999', '5,000-9,999', '10,000+'] } },
    { id: 102, name: 'EMEA Manufacturing', match: { industry: ['Manufacturing'], region: ['EMEA'] } },
  ],
  excluded_accounts: ['900002'],
  hot_accounts: [{ company_id: '900001', products: [] }],
  tags: [{ tag_id: 'acme-tag', allowed_domains: ['localhost', '*.acme.test'], scores: true, segment_names: true }],
};

// ---------------------------------------------------------------------------------------------------
// People-level fixtures (enrichment, scoring, people APIs). Pass them to startTestServer as needed.

/** A second company sharing northwind.example (through domains.csv): what disambiguation tells apart. */
export const NORTHWIND_EUROPE: CompanyRow = {
  ...ACME_SOFTWARE,
  company_id: '900003',
  name: 'Northwind Analytics Europe Ltd',
  domain: 'northwind.co.uk',
  industry: 'IT Consulting',
  subindustry: 'IT Services',
  country: 'United Kingdom',
  country_iso_code: 'GB',
  region: 'EMEA',
  state: 'England',
  state_code: 'ENG',
  city: 'London',
  address: '10 Fleet St',
  zip: 'EC4Y 1AA',
  phone: '+44 20 5550 0100',
  employee_count: '150',
  employee_range: '50-199',
  annual_revenue: '30000000',
  revenue_range: '$10M-$50M',
};

/** domains.csv rows: northwind.example also belongs to Northwind Europe (the primary owner stays 900001). */
export const SHARED_DOMAINS: DomainRow[] = [{ domain: 'northwind.example', company_id: '900003' }];

export const FIXTURE_PEOPLE: PersonRow[] = [
  {
    people_id: 'P1001',
    email: 'Jane.Doe@northwind.example',
    first_name: 'Jane',
    last_name: 'Doe',
    title: 'VP of Marketing',
    company_id: '900001',
    country: 'United States',
    state: 'California',
    city: 'San Francisco',
    phone: '+1 415 555 0101',
    mobile: '+1 415 555 0199',
    linkedin_url: 'https://www.linkedin.com/in/janedoe',
  },
  {
    people_id: 'P1002',
    email: 'max.mustermann@bluepeak.example',
    first_name: 'Max',
    last_name: 'Mustermann',
    title: 'Chief Technology Officer',
    company_id: '900002',
    country: 'Germany',
    state: 'Bavaria',
    city: 'Munich',
    phone: '+49 89 5550 0102',
    mobile: '',
    linkedin_url: 'https://linkedin.com/in/max-mustermann/',
  },
  {
    people_id: 'P1003',
    email: 'sam.lee@northwind.example',
    first_name: 'Sam',
    last_name: 'Lee',
    title: 'Software Engineer',
    company_id: '900001',
    country: 'United States',
    state: 'New York',
    city: 'New York',
    phone: '',
    mobile: '',
    linkedin_url: '',
  },
  // A known person with a free-mail address: the person record (not the domain) names the company.
  {
    people_id: 'P1004',
    email: 'ada.freelance@gmail.com',
    first_name: 'Ada',
    last_name: 'Free',
    title: 'Director of Sales',
    company_id: '900002',
    country: 'Germany',
    state: 'Berlin',
    city: 'Berlin',
    phone: '',
    mobile: '+49 170 5550 0104',
    linkedin_url: '',
  },
  {
    people_id: 'P1005',
    email: 'oliver.brown@northwind.co.uk',
    first_name: 'Oliver',
    last_name: 'Brown',
    title: 'Marketing Manager',
    company_id: '900003',
    country: 'United Kingdom',
    state: 'England',
    city: 'London',
    phone: '+44 20 5550 0105',
    mobile: '',
    linkedin_url: '',
  },
];

/** Engagement of Jane Doe observed at `now` (scores decay with age, so tests pass the date). */
export const freshEngagement = (now: Date): EngagementRow[] => [
  { people_id: 'P1001', activity: 'meeting', count: 3, observed_at: now.toISOString().slice(0, 10) },
];

/** A customer like TEST_CUSTOMER under another id, without tags, with `overrides`. */
export const plainCustomer = (id: string, overrides: Partial<CustomerSeed> = {}): CustomerSeed => ({ ...TEST_CUSTOMER, id, name: id, tags: [], ...overrides });

/** The catalog the lead APIs' route tests run on: three companies (one sharing a domain), people, fresh engagement. */
export const leadSources = (now: Date) => ({
  companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE],
  domains: SHARED_DOMAINS,
  people: FIXTURE_PEOPLE,
  engagement: freshEngagement(now),
});

/** An identification charge of TEST_CUSTOMER for the address `<prefix>.<i>` (store-level metering tests). */
export const identificationCharge = (i: number, prefix = '10.0.0'): ChargeRequest => ({
  customer_id: 'acme',
  api: 'identification',
  pool: 'identification',
  record: `${prefix}.${i}`,
  period: 'year-0',
  quota: 1000,
  dedupe_key: null,
  month: '2026-11',
  token_id: null,
  partner: null,
  at: '2026-11-10T00:00:00Z',
});

/** An enrichment charge of TEST_CUSTOMER (deduplicated per month, fails closed while a shared store is down). */
export const enrichmentCharge: ChargeRequest = {
  ...identificationCharge(0),
  api: 'company-firmographics-v3',
  pool: 'enrichment',
  record: '900001',
  dedupe_key: 'acme|v3|900001|2026-11',
};
