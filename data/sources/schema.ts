/**
 * Source formats of the dataset (see ../../shared/DESIGN.md "Data").
 *
 * One zod schema per file is the validation, the TypeScript type and the documentation. The generator
 * writes these files, `data build` reads them, and the server seeds customers from `customers.json`.
 * CSV files have a header row; extra columns are allowed (and ignored). Blank CSV cells are "".
 */
import { z } from 'zod';
import { RequiredAllowedDomains } from '../../server/auth/allowed-domain.ts';
import { CONFIDENCES } from './vocabulary.ts';

const blank = z.string().default('');

export { CONFIDENCES };
export const Confidence = z.enum(CONFIDENCES);
export type Confidence = z.infer<typeof Confidence>;

/** Network kinds that carry no B2B use case: answered as `Non-actionable Match`. */
export const NON_COMPANY_KINDS = ['isp', 'hosting', 'bot'] as const;

export const CompanyRow = z.object({
  company_id: z.string().min(1),
  name: z.string().min(1),
  domain: z.string().min(1),
  industry: blank,
  subindustry: blank,
  sic: blank,
  sic_description: blank,
  naics: blank,
  naics_description: blank,
  country: blank,
  country_iso_code: blank,
  region: blank,
  state: blank,
  state_code: blank,
  city: blank,
  address: blank,
  zip: blank,
  phone: blank,
  employee_count: blank,
  employee_range: blank,
  annual_revenue: blank,
  revenue_range: blank,
});
export type CompanyRow = z.infer<typeof CompanyRow>;
export const COMPANY_COLUMNS = Object.keys(CompanyRow.shape) as (keyof CompanyRow)[];

/** A network kind: a lower-case word (shared with the fast path, ./fast-rows.ts). */
export const KIND_PATTERN = /^[a-z][a-z0-9_-]*$/;

/**
 * `network` is a CIDR (`203.0.113.0/24`) or an inclusive range (`203.0.113.10-203.0.113.99`).
 * `kind` is `company` or a non-company kind (`isp`, `hosting`, `bot`, or another); `company_id` only for
 * `company`. Overlaps are legal: the most specific network wins; equal networks: the later row wins.
 */
export const NetworkRow = z
  .object({
    network: z.string().min(1),
    kind: z.string().regex(KIND_PATTERN, 'kind must be a lower-case word such as company, isp, hosting, bot'),
    company_id: blank,
    confidence: Confidence,
    country: blank,
    state: blank,
    city: blank,
  })
  .refine((r) => (r.kind === 'company') === (r.company_id !== ''), {
    message: 'company_id is required for kind "company" and only for it',
  });
export type NetworkRow = z.infer<typeof NetworkRow>;
export const NETWORK_COLUMNS = ['network', 'kind', 'company_id', 'confidence', 'country', 'state', 'city'] as const;

export const DomainRow = z.object({ domain: z.string().min(1), company_id: z.string().min(1) });
export type DomainRow = z.infer<typeof DomainRow>;
export const DOMAIN_COLUMNS = ['domain', 'company_id'] as const;

export const PersonRow = z.object({
  people_id: z.string().min(1),
  email: blank,
  first_name: blank,
  last_name: blank,
  title: blank,
  company_id: blank,
  country: blank,
  state: blank,
  city: blank,
  phone: blank,
  mobile: blank,
  linkedin_url: blank,
});
export type PersonRow = z.infer<typeof PersonRow>;
export const PERSON_COLUMNS = Object.keys(PersonRow.shape) as (keyof PersonRow)[];

/** Starts with an ISO date (shared with the fast path, ./fast-rows.ts). */
export const ISO_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}/;
const isoDate = z.string().regex(ISO_DATE_PATTERN, 'expected an ISO date (YYYY-MM-DD…)');

/** Third-party intent signal on a topic for an account; `strength` 0–100. */
export const IntentRow = z.object({
  company_id: z.string().min(1),
  topic: z.string().min(1),
  strength: z.coerce.number().min(0).max(100),
  observed_at: isoDate,
});
export type IntentRow = z.infer<typeof IntentRow>;
export const INTENT_COLUMNS = ['company_id', 'topic', 'strength', 'observed_at'] as const;

/** First-party engagement of a person (email opens, form fills, page views, meetings …). */
export const EngagementRow = z.object({
  people_id: z.string().min(1),
  activity: z.string().min(1),
  count: z.coerce.number().int().min(0),
  observed_at: isoDate,
});
export type EngagementRow = z.infer<typeof EngagementRow>;
export const ENGAGEMENT_COLUMNS = ['people_id', 'activity', 'count', 'observed_at'] as const;

// ---------------------------------------------------------------------------------------------------
// customers.json

export const PACKAGES = ['platform', 'sales-intelligence', 'advanced', 'people-enrichment'] as const;
export const Package = z.enum(PACKAGES);
export type Package = z.infer<typeof Package>;

export const API_GROUPS = [
  'identification',
  'company-firmographics',
  'lead-scoring-firmographics',
  'lead-scoring',
  'people-enrichment',
  'people-search',
] as const;
export const ApiGroup = z.enum(API_GROUPS);
export type ApiGroup = z.infer<typeof ApiGroup>;

/**
 * A segment matches an account when every listed field matches one of its values (AND across fields,
 * OR within a field; comparisons are case-insensitive). An empty rule matches nothing.
 */
export const SegmentMatch = z
  .object({
    industry: z.array(z.string()).optional(),
    employee_range: z.array(z.string()).optional(),
    revenue_range: z.array(z.string()).optional(),
    country_iso_code: z.array(z.string()).optional(),
    region: z.array(z.string()).optional(),
    company_id: z.array(z.string()).optional(),
  })
  .strict();
export type SegmentMatch = z.infer<typeof SegmentMatch>;

export const Segment = z.object({
  id: z.number().int().positive(),
  name: z.string().min(1),
  match: SegmentMatch,
});
export type Segment = z.infer<typeof Segment>;

/** A predictive model (product category) of a customer: its ideal customer profile, intent topics, persona. */
export const Product = z.object({
  name: z.string().min(1),
  display_name: z.string().min(1),
  icp: z.object({
    industries: z.array(z.string()).default([]),
    employee_ranges: z.array(z.string()).default([]),
    revenue_ranges: z.array(z.string()).default([]),
    regions: z.array(z.string()).default([]),
  }),
  intent_topics: z.array(z.string()).default([]),
  persona: z
    .object({
      levels: z.array(z.string()).default([]),
      functions: z.array(z.string()).default([]),
    })
    .default({ levels: [], functions: [] }),
});
export type Product = z.infer<typeof Product>;

/** Hot account: flagged at account level; `products` narrows the per-product flag (empty = every product). */
export const HotAccount = z.object({
  company_id: z.string().min(1),
  products: z.array(z.string()).default([]),
});
export type HotAccount = z.infer<typeof HotAccount>;

/** Requests per minute of one web tag, all visitors together / per visitor IP (see server/limits/policy.ts). */
export const TagRateLimit = z.number().int().positive().max(10_000_000);

/** A real calendar date: `2026-02-30` and `2026-13-01` are refused (zod checks month lengths and leap years). */
export const ContractStart = z.iso.date('contract_start must be a real date (YYYY-MM-DD)');

export const TagSeed = z.object({
  tag_id: z.string().regex(/^[A-Za-z0-9_-]{4,64}$/),
  allowed_domains: RequiredAllowedDomains,
  scores: z.boolean().default(false),
  segment_names: z.boolean().default(false),
  /** Absent: TAG_CEILING (server/limits/policy.ts). */
  rate_limit: TagRateLimit.optional(),
  /** Absent: TAG_PER_VISITOR_LIMIT. */
  visitor_rate_limit: TagRateLimit.optional(),
  /** A demo tag honours `test_ip` in demo mode (the demo page's visitor switcher); no customer tag does. Absent: false. */
  demo: z.boolean().optional(),
  /** Per-tag bundle settings (see TagSettings in server/state/store.ts); validated when imported. */
  settings: z.record(z.string(), z.unknown()).optional(),
});
export type TagSeed = z.infer<typeof TagSeed>;

/**
 * A customer id: also a path segment (the page-view files live under `<events dir>/<customer id>/`), so it
 * is checked wherever a record is read or imported, never trusted because a store held it.
 */
export const CustomerId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a customer id is 1–64 letters, digits, _ or -');

export const CustomerSeed = z.object({
  id: CustomerId,
  name: z.string().min(1),
  packages: z.array(Package).default([]),
  identification_credits: z.number().int().min(0).default(0),
  enrichment_credits: z.number().int().min(0).default(0),
  /** Start of the contract, a calendar date; identification quotas run per contract year from here. */
  contract_start: ContractStart.default('2026-01-01'),
  products: z.array(Product).default([]),
  segments: z.array(Segment).default([]),
  excluded_accounts: z.array(z.string()).default([]),
  hot_accounts: z.array(HotAccount).default([]),
  tags: z.array(TagSeed).default([]),
});
export type CustomerSeed = z.infer<typeof CustomerSeed>;

/**
 * A change to a customer: only the fields given are touched (`customer update`, PATCH /admin/api/customers/:id).
 * Its id is fixed and its web tags have their own commands, so neither is here.
 */
export const CustomerPatch = z
  .object(
    Object.fromEntries(
      (
        [
          'name',
          'packages',
          'identification_credits',
          'enrichment_credits',
          'contract_start',
          'products',
          'segments',
          'excluded_accounts',
          'hot_accounts',
        ] as const
      ).map((k) => {
        const f = CustomerSeed.shape[k];
        return [k, ('unwrap' in f && f.def.type === 'default' ? f.unwrap() : f).optional()];
      }),
    ) as { [K in PatchKey]: z.ZodOptional<Unwrapped<(typeof CustomerSeed.shape)[K]>> },
  )
  .strict();
type PatchKey =
  | 'name'
  | 'packages'
  | 'identification_credits'
  | 'enrichment_credits'
  | 'contract_start'
  | 'products'
  | 'segments'
  | 'excluded_accounts'
  | 'hot_accounts';
type Unwrapped<T> = T extends z.ZodDefault<infer I> ? I : T;
export type CustomerPatch = z.infer<typeof CustomerPatch>;

export const CustomersFile = z.object({ customers: z.array(CustomerSeed) });
export type CustomersFile = z.infer<typeof CustomersFile>;

/** File names inside a sources folder. */
export const SOURCE_FILES = {
  companies: 'companies.csv',
  networks: 'networks.csv',
  domains: 'domains.csv',
  people: 'people.csv',
  intent: 'intent.csv',
  engagement: 'engagement.csv',
  customers: 'customers.json',
} as const;
