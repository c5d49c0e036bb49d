/**
 * customers.json: the demo customer (every package, two products, four segments, excluded and hot accounts,
 * a web tag for localhost, 127.0.0.1 and ::1) and a second, smaller customer with only the `platform` package.
 *
 * The companies the configuration names are "anchors": the generator places them among the first companies
 * with the firmographics their role needs (a member of each segment, a competitor to exclude, ICP-fit hot
 * accounts) and gives each one a protected network, so the demo works whatever the seed.
 */
import type { CustomersFile, Product, Segment } from '../../core/customer-records.ts';
import type { CompanyConstraints } from './companies.ts';
import type { TitleWish } from './people.ts';

export const DEMO_CUSTOMER_ID = 'demo';
export const DEMO_TAG_ID = 'demo-web-tag';
export const SECOND_CUSTOMER_ID = 'globex';

export const DEMO_PRODUCTS: Product[] = [
  {
    name: 'cdp',
    display_name: 'Customer Data Platform',
    icp: {
      industries: ['Software', 'Financial Services', 'Retail', 'Media'],
      employee_ranges: ['200-499', '500-999', '1,000-4,999', '5,000-9,999', '10,000+'],
      revenue_ranges: ['$50M-$100M', '$100M-$250M', '$250M-$500M', '$500M-$1B', '$1B-$10B'],
      regions: ['North America', 'EMEA'],
    },
    intent_topics: ['customer data platform', 'identity resolution', 'data enrichment', 'marketing automation', 'predictive analytics', 'web personalization'],
    persona: { levels: ['C-Level', 'VP', 'Director'], functions: ['Marketing', 'Data & Analytics'] },
  },
  {
    name: 'sales-intelligence',
    display_name: 'Sales Intelligence',
    icp: {
      industries: ['Software', 'Professional Services', 'Telecommunications', 'Manufacturing'],
      employee_ranges: ['50-199', '200-499', '500-999', '1,000-4,999'],
      revenue_ranges: ['$10M-$50M', '$50M-$100M', '$100M-$250M', '$250M-$500M'],
      regions: ['North America', 'EMEA', 'APAC'],
    },
    intent_topics: ['sales intelligence', 'account based marketing', 'lead scoring', 'crm', 'sales engagement', 'intent data', 'revenue operations'],
    persona: { levels: ['VP', 'Director', 'Manager'], functions: ['Sales', 'Marketing'] },
  },
];

export const DEMO_SEGMENTS: Segment[] = [
  { id: 101, name: 'Enterprise Software', match: { industry: ['Software'], employee_range: ['1,000-4,999', '5,000-9,999', '10,000+'] } },
  { id: 102, name: 'Mid-Market Financial Services', match: { industry: ['Financial Services'], employee_range: ['200-499', '500-999'] } },
  { id: 103, name: 'EMEA Manufacturing', match: { industry: ['Manufacturing'], region: ['EMEA'] } },
  { id: 104, name: 'North America Healthcare', match: { industry: ['Healthcare'], country_iso_code: ['US', 'CA'] } },
];

/** The third-party intent topics the demo customer follows (topics.csv): its CDP product's first ones. */
export const DEMO_TOPICS: string[] = DEMO_PRODUCTS[0].intent_topics.slice(0, 5);

export type AnchorRole = 'segment' | 'excluded' | 'hot';

export interface Anchor {
  role: AnchorRole;
  label: string;
  constraints: CompanyConstraints;
  /** Topics the account researches (strong, recent intent). */
  focusTopics: readonly string[];
  /** Contacts the account must have (decision makers of the demo persona). */
  wishes: readonly TitleWish[];
  /** Hot accounts: the products the flag applies to (empty = every product). */
  hotProducts?: string[];
}

const DECISION_MAKERS: TitleWish[] = [
  { level: 'VP', fn: 'Marketing' },
  { level: 'Director', fn: 'Data & Analytics' },
];

function segmentConstraints(s: Segment): CompanyConstraints {
  const m = s.match;
  if (m.revenue_range || m.company_id) throw new Error(`segment ${s.name}: the generator anchors only industry, employee range, region and country rules`);
  return { industries: m.industry, employeeRanges: m.employee_range, regions: m.region, countries: m.country_iso_code };
}

/**
 * The anchors in priority order: if there are fewer companies than anchors, the first ones win
 * (the member of the first segment first). The 'segment' anchors are plain accounts (neither excluded nor hot).
 */
export const ANCHORS: Anchor[] = [
  ...DEMO_SEGMENTS.map(
    (s, i): Anchor => ({
      role: 'segment',
      label: s.name,
      constraints: { ...segmentConstraints(s), ...(i === 0 ? { countries: ['US'] } : {}) },
      focusTopics: i === 0 ? DEMO_PRODUCTS[0].intent_topics.slice(0, 3) : [],
      wishes: i === 0 ? DECISION_MAKERS : [],
    }),
  ),
  {
    role: 'excluded',
    label: 'competitor',
    constraints: { industries: ['Software'], employeeRanges: ['200-499', '500-999'], regions: ['North America'] },
    focusTopics: [],
    wishes: [],
  },
  {
    role: 'hot',
    label: 'ICP-fit retailer',
    constraints: { industries: ['Retail'], employeeRanges: ['1,000-4,999'], regions: ['North America'] },
    focusTopics: DEMO_PRODUCTS[0].intent_topics.slice(0, 4),
    wishes: DECISION_MAKERS,
    hotProducts: [],
  },
  { role: 'excluded', label: 'agency partner', constraints: { industries: ['Media'], employeeRanges: ['50-199', '200-499'] }, focusTopics: [], wishes: [] },
  {
    role: 'hot',
    label: 'EMEA media group',
    constraints: { industries: ['Media'], employeeRanges: ['500-999', '1,000-4,999'], regions: ['EMEA'] },
    focusTopics: DEMO_PRODUCTS[0].intent_topics.slice(2, 5),
    wishes: DECISION_MAKERS,
    hotProducts: ['cdp'],
  },
];

/** The customers file for the anchors that exist (`anchorIds[i]` = company id of ANCHORS[i], or undefined). */
export function customersFile(anchorIds: readonly (string | undefined)[]): CustomersFile {
  const ids = (role: AnchorRole) => ANCHORS.flatMap((a, i) => (a.role === role && anchorIds[i] ? [{ id: anchorIds[i]!, anchor: a }] : []));
  return {
    customers: [
      {
        id: DEMO_CUSTOMER_ID,
        name: 'Acme Analytics',
        packages: ['platform', 'sales-intelligence', 'advanced', 'people-enrichment'],
        identification_credits: 100_000,
        enrichment_credits: 10_000,
        contract_start: '2026-01-01',
        products: DEMO_PRODUCTS,
        segments: DEMO_SEGMENTS,
        excluded_accounts: ids('excluded').map((x) => x.id),
        hot_accounts: ids('hot').map((x) => ({ company_id: x.id, products: x.anchor.hotProducts ?? [] })),
        // The third-party topics it follows: the anchors research them (focus topics), so they surge on its account pages.
        topics: DEMO_TOPICS,
        tags: [{ tag_id: DEMO_TAG_ID, allowed_domains: ['localhost', '127.0.0.1', '::1'], scores: true, segment_names: true, demo: true }],
      },
      {
        id: SECOND_CUSTOMER_ID,
        name: 'Globex Corporation',
        packages: ['platform'],
        identification_credits: 500,
        enrichment_credits: 100,
        contract_start: '2026-03-01',
        products: [
          {
            name: 'field-service',
            display_name: 'Field Service Management',
            icp: {
              industries: ['Manufacturing', 'Energy', 'Transportation', 'Construction'],
              employee_ranges: ['500-999', '1,000-4,999', '5,000-9,999', '10,000+'],
              revenue_ranges: [],
              regions: ['North America'],
            },
            intent_topics: ['erp', 'supply chain management', 'business intelligence'],
            persona: { levels: ['VP', 'Director'], functions: ['Operations', 'IT'] },
          },
        ],
        segments: [{ id: 201, name: 'Large Manufacturing', match: { industry: ['Manufacturing'], employee_range: ['1,000-4,999', '5,000-9,999', '10,000+'] } }],
        excluded_accounts: [],
        hot_accounts: [],
        tags: [{ tag_id: 'globex-web-tag', allowed_domains: ['globex.example', 'localhost'], scores: false, segment_names: false }],
      },
    ],
  };
}
