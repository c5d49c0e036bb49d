/** Answers of `GET /v3/company/details` in the spec's shape, for the tag's unit tests. */
import type { SvcData } from '../src/types.ts';

export const matched = (): SvcData => ({
  company: {
    company_match: 'Match',
    additional_comment: 'Company name or domain match was found',
    companyId: 'c-000042',
    name: 'Globex Corporation',
    display_name: 'Globex',
    domain: 'globex.example',
    industry: 'Software',
    industry_v2: [{ industry: 'Software', subindustry: 'Enterprise Software' }],
    country: 'United States',
    country_iso_code: 'US',
    state: 'California',
    state_code: 'CA',
    city: 'San Francisco',
    address: '1 Market Street',
    zip: '94105',
    phone: '+1 415 555 0100',
    region: 'Northern America',
    employee_count: '2400',
    employee_range: '1,000 - 4,999',
    annual_revenue: '450000000',
    revenue_range: '$250M - $500M',
    sic: '7372',
    sic_description: 'Prepackaged Software',
    naics: '511210',
    naics_description: 'Software Publishers',
    is_blacklisted: false,
    is_svcqa: true,
    geoIP_country: 'United States',
    geoIP_state: 'California',
    geoIP_city: 'Oakland',
  },
  scores: [
    {
      is_svcqa: true,
      product: 'cdp',
      product_display_name: 'Customer Data Platform',
      intent_score: 82,
      buying_stage: 'Decision',
      profile_score: 91,
      profile_fit: 'Strong',
    },
    {
      is_svcqa: false,
      product: 'Web Analytics',
      product_display_name: 'Web analytics',
      intent_score: 35,
      buying_stage: 'Awareness',
      profile_score: 55,
      profile_fit: 'Moderate',
    },
  ],
  segments: {
    ids: [12, 15],
    names: ['Enterprise Software', 'North America'],
    list: [
      { id: 12, name: 'Enterprise Software' },
      { id: 15, name: 'North America' },
    ],
  },
  confidence: 'High',
});

export const isp = (): SvcData => ({
  company: {
    company_match: 'Non-actionable Match',
    additional_comment: 'No valid B2B use case: the IP belongs to an internet service provider',
    companyId: '',
    name: '',
    domain: '',
    industry: '',
    country: '',
    phone: '',
    address: '',
    geoIP_country: 'Germany',
  },
  scores: [],
  segments: { ids: [], names: [], list: [] },
  confidence: 'Low',
});

export const noMatch = (): SvcData => ({
  company: { company_match: 'No Match', additional_comment: 'No company name or domain was found' },
  scores: [],
  segments: { ids: [], names: [], list: [] },
  confidence: null,
});
