/**
 * The customer records: the format of `customers.json` (what the sample generator writes and
 * `customer import` reads) and the records the admin API, the CLI, the console and the state stores
 * build on — packages, API groups, segments, predictive models (products), hot accounts, web tags, and a
 * customer with its changes (CustomerPatch).
 *
 * In the neutral core: data/ (the generator), server/ (state, admin API, CLI, console) read these, so
 * they import nothing of either; only zod and the other core modules (the allowed-domain syntax).
 * One zod schema per record is the validation, the TypeScript type and the documentation.
 */
import { z } from 'zod';
import { RequiredAllowedDomains } from './allowed-domain.ts';
import { EventName } from './engagement-records.ts';
import { CustomerTopics, TopicCondition } from './topic-records.ts';
import { BUYING_STAGES } from './vocabulary.ts';

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
/** The API groups a package covers (./entitlements.ts GROUP_PACKAGES). */
export const ApiGroup = z.enum(API_GROUPS);
export type ApiGroup = z.infer<typeof ApiGroup>;

/**
 * What the operator grants a customer beyond its packages: API groups sold on request (spec
 * "Authentication" 4: Segments API tokens are requested from support). Packages never imply a grant.
 */
export const GRANTS = ['segments'] as const;
export const Grant = z.enum(GRANTS);
export type Grant = z.infer<typeof Grant>;

/** Every group a token can belong to: the package-covered API groups and the granted ones. */
export const TOKEN_GROUPS = [...API_GROUPS, ...GRANTS] as const;
export const TokenGroup = z.enum(TOKEN_GROUPS);
export type TokenGroup = z.infer<typeof TokenGroup>;

const values = z.array(z.string().max(200)).max(1000);

/** Days a behaviour condition looks back (the visit store keeps VISIT_RETENTION_DAYS = 400 of them). */
const LookBackDays = z
  .number({ error: 'a whole number of days from 1 to 400' })
  .int('a whole number of days from 1 to 400')
  .min(1, 'a whole number of days from 1 to 400')
  .max(400, 'a whole number of days from 1 to 400');

/** The buying stages a condition accepts (core/vocabulary.ts BUYING_STAGES). */
const Stage = z.enum(BUYING_STAGES, { error: `a buying stage is one of ${BUYING_STAGES.join(', ')}` });

/**
 * A product's intent (the customer's `products[].name`): the account's buying stage is one of `stages`
 * and/or its intent score is at least `min_score` (both given: both must hold). The score is the one
 * identification answers for that product (server/scoring/model.ts: third-party signals and the
 * account's own page views).
 */
export const IntentCondition = z
  .object({
    product: z.string().trim().min(1, 'name one of the customer’s products').max(200),
    stages: z.array(Stage).min(1, 'at least one buying stage (or leave stages out)').max(BUYING_STAGES.length).optional(),
    min_score: z
      .number({ error: 'a whole number from 0 to 100' })
      .int('a whole number from 0 to 100')
      .min(0, 'a whole number from 0 to 100')
      .max(100, 'a whole number from 0 to 100')
      .optional(),
  })
  .strict()
  .refine((c) => c.stages !== undefined || c.min_score !== undefined, { message: 'give stages, min_score or both' });
export type IntentCondition = z.infer<typeof IntentCondition>;

/**
 * First-party behaviour: the account viewed a page whose path matches `path` in the last `days` UTC days
 * (today and the days before it). `*` matches any run of characters (`/pricing*`, `/blog/*`); compared
 * to the page's path without its query string, ignoring case.
 */
export const VisitedCondition = z
  .object({
    path: z
      .string()
      .max(500, 'at most 500 characters')
      .regex(/^\//, 'a path pattern starts with / (`/pricing*`, `/blog/*`)')
      .refine((p) => !p.includes('?'), 'compared without the query string, so it holds no ?'),
    days: LookBackDays,
  })
  .strict();
export type VisitedCondition = z.infer<typeof VisitedCondition>;

/** First-party behaviour: the account's page views in the last `days` UTC days are at least `min`. */
export const PageViewsCondition = z
  .object({
    min: z
      .number({ error: 'a whole number of page views from 1 to 1,000,000' })
      .int('a whole number of page views from 1 to 1,000,000')
      .min(1, 'a whole number of page views from 1 to 1,000,000')
      .max(1_000_000, 'a whole number of page views from 1 to 1,000,000'),
    days: LookBackDays,
  })
  .strict();
export type PageViewsCondition = z.infer<typeof PageViewsCondition>;

/** The special values of `crm_owner`: the account has a CRM owner (`any`) or has none (`none`). */
export const CRM_OWNER_SPECIAL = ['any', 'none'] as const;

/**
 * The account's owner in a connected CRM (HubSpot, Salesforce; what the CRM sync read back): one of these
 * owner emails (ignoring case), or `any` (it has an owner) / `none` (it has none: no CRM record matched
 * the account, or its record has no owner).
 */
export const CrmOwnerCondition = z
  .array(
    z
      .string()
      .trim()
      .max(320, 'an owner email is at most 320 characters')
      .refine((v) => /^[^\s@]+@[^\s@]+$/.test(v) || (CRM_OWNER_SPECIAL as readonly string[]).includes(v.toLowerCase()), {
        message: 'an owner’s email address, any (the account has a CRM owner) or none (it has none)',
      }),
  )
  .min(1, 'at least one owner email, any or none')
  .max(1000, 'at most 1000 values');
export type CrmOwnerCondition = z.infer<typeof CrmOwnerCondition>;

const crmStages = z
  .array(z.string().trim().min(1, 'a CRM stage or type is not empty').max(200, 'a CRM stage or type is at most 200 characters'))
  .min(1, 'at least one CRM stage or type (or leave it out)')
  .max(100, 'at most 100 stages');

/**
 * The account's stage in a connected CRM: its HubSpot lifecycle stage or type, its Salesforce type, any
 * of them (ignoring case) is one of `in` and none is one of `not_in` (both given: both must hold). An
 * account no CRM record matched has no stage: `in` does not hold, `not_in` does (so "not a customer yet"
 * is `{"not_in": ["customer"]}`).
 */
export const CrmStageCondition = z
  .object({ in: crmStages.optional(), not_in: crmStages.optional() })
  .strict()
  .refine((c) => c.in !== undefined || c.not_in !== undefined, { message: 'give in, not_in or both' });
export type CrmStageCondition = z.infer<typeof CrmStageCondition>;

/** Company ids a lookalike seed names at most (a list or a segment may seed more). */
export const MAX_SEED_COMPANIES = 10_000;

/** The seed of a lookalike: one of the customer's account lists, one of its segments, or company ids. */
const seedFields = {
  list: z.string().trim().min(1, 'a list id (hot, excluded or a named list’s id)').max(64, 'a list id is at most 64 characters').optional(),
  segment: z
    .number({ error: 'a segment id (a positive whole number)' })
    .int('a segment id (a positive whole number)')
    .positive('a segment id (a positive whole number)')
    .optional(),
  companies: z
    .array(z.string().trim().min(1, 'a company id is not empty').max(200, 'a company id is at most 200 characters'))
    .min(1, 'at least one company id (an empty seed finds nothing)')
    .max(MAX_SEED_COMPANIES, `at most ${MAX_SEED_COMPANIES.toLocaleString('en-US')} company ids (seed from a list for more)`)
    .optional(),
};
const oneSeed = (s: { list?: unknown; segment?: unknown; companies?: unknown }) => [s.list, s.segment, s.companies].filter((v) => v !== undefined).length === 1;
const ONE_SEED = { message: 'give one seed: list, segment or companies' };

/** Accounts like these (POST …/lookalikes/preview `seed`). */
export const LookalikeSeed = z.object(seedFields).strict().refine(oneSeed, ONE_SEED);
export type LookalikeSeed = z.infer<typeof LookalikeSeed>;

/**
 * Accounts like a seed (server/lookalikes/method.ts: firmographic similarity in [0, 1]): the account's score
 * against the seed's profile is at least `min_score`; the seed's own accounts are never members.
 */
export const LookalikeCondition = z
  .object({
    ...seedFields,
    min_score: z.number({ error: 'a score from 0 to 1 (0.7: most features shared)' }).min(0, 'a score from 0 to 1').max(1, 'a score from 0 to 1'),
  })
  .strict()
  .refine(oneSeed, ONE_SEED);
export type LookalikeCondition = z.infer<typeof LookalikeCondition>;

/**
 * First-party engagement: the account's engaged time (the seconds the tag measured a page visible) on pages
 * whose path matches `path` in the last `days` UTC days is at least `min_seconds`. `path` is a pattern as
 * `visited`'s (`*` any run of characters, ignoring case, without the query string).
 */
export const EngagedCondition = z
  .object({
    path: VisitedCondition.shape.path,
    min_seconds: z
      .number({ error: 'a whole number of seconds from 1 to 86,400' })
      .int('a whole number of seconds from 1 to 86,400')
      .min(1, 'a whole number of seconds from 1 to 86,400')
      .max(86_400, 'a whole number of seconds from 1 to 86,400'),
    days: LookBackDays,
  })
  .strict();
export type EngagedCondition = z.infer<typeof EngagedCondition>;

/** A custom event (`svc('track', name, …)`) the account sent at least `min_count` times in the last `days` UTC days. */
export const EventCondition = z
  .object({
    name: EventName,
    min_count: z
      .number({ error: 'a whole number of events from 1 to 1,000,000' })
      .int('a whole number of events from 1 to 1,000,000')
      .min(1, 'a whole number of events from 1 to 1,000,000')
      .max(1_000_000, 'a whole number of events from 1 to 1,000,000'),
    days: LookBackDays,
  })
  .strict();
export type EventCondition = z.infer<typeof EventCondition>;

/** How a level's conditions combine: `all` (default) every one holds, `any` at least one. */
export const RuleOp = z.enum(['all', 'any'], { error: 'all or any' });
export type RuleOp = z.infer<typeof RuleOp>;

/** Groups a rule holds at most. */
export const MAX_SEGMENT_GROUPS = 20;

const conditions = {
  industry: values.optional(),
  subindustry: values.optional(),
  employee_range: values.optional(),
  revenue_range: values.optional(),
  country_iso_code: values.optional(),
  region: values.optional(),
  state: values.optional(),
  sic_prefix: values.optional(),
  naics_prefix: values.optional(),
  company_id: z.array(z.string().max(200)).max(100_000).optional(),
  /** Account lists by id (`hot`, `excluded`, or a named list's id): the company is in one of them. */
  in_list: z.array(z.string().max(64)).max(100).optional(),
  intent: IntentCondition.optional(),
  visited: VisitedCondition.optional(),
  page_views: PageViewsCondition.optional(),
  crm_owner: CrmOwnerCondition.optional(),
  crm_stage: CrmStageCondition.optional(),
  lookalike: LookalikeCondition.optional(),
  /** A third-party intent topic's score over the dataset's last weeks (./topic-records.ts). */
  topic: TopicCondition.optional(),
  /** Engaged time on pages of a path pattern, and a custom event's count (./engagement-records.ts). */
  engaged: EngagedCondition.optional(),
  event: EventCondition.optional(),
  op: RuleOp.optional(),
};

/** The conditions of a level: every present field but `op` (a group of the top level is one more). */
export const conditionCount = (level: Record<string, unknown>): number =>
  Object.entries(level).filter(([k, v]) => k !== 'op' && v !== undefined && !(k === 'groups' && Array.isArray(v) && v.length === 0)).length;

/**
 * A group of the top level: the same conditions with its own `op`, no groups of its own (one level of
 * nesting), and at least one condition.
 */
export const SegmentGroup = z
  .object({
    ...conditions,
    groups: z.never({ error: 'a group cannot hold groups (one level of nesting)' }).optional(),
  })
  .strict()
  .refine((g) => conditionCount(g) > 0, { message: 'a group needs at least one condition' });
export type SegmentGroup = z.infer<typeof SegmentGroup>;

/**
 * A segment's rule. Each present field is one condition: a catalog field matches one of its values
 * (comparisons ignore case; the `*_prefix` fields match codes that start with one of the values:
 * `sic_prefix: ["73"]`, `naics_prefix: ["5112"]`), `in_list` the account is in one of the lists, `intent`,
 * `visited`, `page_views`, `crm_owner`, `crm_stage`, `engaged`, `event` as above, and each group is one more. `op` says how they combine (default
 * `all`: every one; `any`: at least one), so a rule saved as a flat object of fields keeps its meaning
 * (AND across fields, OR within one). An empty rule matches nothing.
 */
export const SegmentMatch = z
  .object({
    ...conditions,
    groups: z.array(SegmentGroup).max(MAX_SEGMENT_GROUPS, `at most ${MAX_SEGMENT_GROUPS} groups`).optional(),
  })
  .strict();
export type SegmentMatch = z.infer<typeof SegmentMatch>;

export const SegmentName = z.string().trim().min(1).max(200);

export const Segment = z.object({
  id: z.number().int().positive(),
  name: SegmentName,
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

/** The fixed ids of the two lists every customer has: its hot accounts and its excluded accounts. */
export const FIXED_LIST_IDS = ['hot', 'excluded'] as const;
/** Most accounts one list holds (and rows one CSV upload reads). */
export const MAX_LIST_ACCOUNTS = 100_000;

/** A named list's id: lower-case letters, digits, `-`, `_` (given by the server); never `hot` or `excluded`. */
export const AccountListId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a list id is 1–64 of a–z 0–9 _ - (starting with a letter or digit)')
  .refine((id) => !(FIXED_LIST_IDS as readonly string[]).includes(id), 'hot and excluded are the fixed lists');

/** A named account list of a customer: company ids a segment can use (`in_list`). */
export const AccountList = z.object({
  id: AccountListId,
  name: z.string().trim().min(1).max(200),
  company_ids: z.array(z.string().min(1).max(200)).max(MAX_LIST_ACCOUNTS),
});
export type AccountList = z.infer<typeof AccountList>;

/** Requests per minute of one web tag, all visitors together / per visitor IP (see server/limits/policy.ts). */
export const TagRateLimit = z.number().int().positive().max(10_000_000);

/** A real calendar date: `2026-02-30` and `2026-13-01` are refused (zod checks month lengths and leap years). */
export const ContractStart = z.iso.date('contract_start must be a real date (YYYY-MM-DD)');

export const TagSeed = z.object({
  tag_id: z.string().regex(/^[A-Za-z0-9_-]{4,64}$/),
  allowed_domains: RequiredAllowedDomains,
  scores: z.boolean().default(false),
  segment_names: z.boolean().default(false),
  /** Absent: TAG_CEILING (./vocabulary.ts). */
  rate_limit: TagRateLimit.optional(),
  /** Absent: TAG_PER_VISITOR_LIMIT. */
  visitor_rate_limit: TagRateLimit.optional(),
  /** A demo tag honours `test_ip` in demo mode (the demo page's visitor switcher); no customer tag does. Absent: false. */
  demo: z.boolean().optional(),
  /** Per-tag bundle settings (see TagSettings in ./access-records.ts); validated when imported. */
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
  /** Named account lists (segments use them with `in_list`); edited at /admin/api/customers/:id/lists. Absent: none. */
  account_lists: z.array(AccountList).optional(),
  /** API groups the operator granted beyond the packages (the Segments API). */
  grants: z.array(Grant).optional(),
  /**
   * Query parameters that make a page a page of its own in the account page's top pages (`/pricing?plan=pro`);
   * every other one (UTM included) is collapsed into the path. Absent: none.
   */
  kept_query_params: z
    .array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a query parameter name is 1–64 of A–Z a–z 0–9 _ . -'))
    .max(50)
    .optional(),
  /** The third-party intent topics the customer follows (./topic-records.ts): the account page shows them, answers may carry them. Absent: none. */
  topics: CustomerTopics.optional(),
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
          'grants',
          'kept_query_params',
          'topics',
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
  | 'hot_accounts'
  | 'grants'
  | 'kept_query_params'
  | 'topics';
type Unwrapped<T> = T extends z.ZodDefault<infer I> ? I : T;
export type CustomerPatch = z.infer<typeof CustomerPatch>;

export const CustomersFile = z.object({ customers: z.array(CustomerSeed) });
export type CustomersFile = z.infer<typeof CustomersFile>;
