/**
 * The access records: a customer, its API tokens and its web tags — what the state store keeps (SQLite
 * rows, Redis hashes, export files), what the admin API and the CLI accept (NewToken, NewTag, TagPatch,
 * TagSettings) and answer, and what the console shows. Wire and storage shapes at once, so in the neutral
 * core: the server's state layer, its routes and the browser console read the same schemas.
 * One zod schema per record is the validation, the TypeScript type and the documentation.
 */
import { z } from 'zod';
import { AllowedDomains, RequiredAllowedDomains } from './allowed-domain.ts';
import { AccountList, CustomerId, Grant, HotAccount, Package, Product, Segment, TagRateLimit, TokenGroup } from './customer-records.ts';
import { TagFeatures } from './tag-features.ts';
import { CONFIDENCES, DEFAULT_TOKEN_LIMIT, TAG_CEILING, TAG_PER_VISITOR_LIMIT } from './vocabulary.ts';

export const CustomerRecord = z.object({
  id: CustomerId,
  name: z.string(),
  packages: z.array(Package),
  identification_credits: z.number().int(),
  enrichment_credits: z.number().int(),
  contract_start: z.string(),
  products: z.array(Product),
  segments: z.array(Segment),
  excluded_accounts: z.array(z.string()),
  hot_accounts: z.array(HotAccount),
  /** Named account lists (server/lists/routes.ts); absent in records written before lists. */
  account_lists: z.array(AccountList).default([]),
  /** API groups granted beyond the packages (the Segments API); absent in records written before grants. */
  grants: z.array(Grant).default([]),
  /** Query parameters kept apart in the account page's top pages (core/customer-records.ts); absent: none. */
  kept_query_params: z.array(z.string()).default([]),
  /** The third-party intent topics the customer follows (core/topic-records.ts); absent: none. */
  topics: z.array(z.string()).default([]),
  /** The highest segment id ever given: a deleted segment's id is never reused (server/segments/crud.ts). */
  segment_seq: z.number().int().min(0).default(0),
  created_at: z.string(),
});
export type CustomerRecord = z.infer<typeof CustomerRecord>;

export const TOKEN_STATUSES = ['active', 'inactive'] as const;

export const TokenRecord = z.object({
  id: z.string(),
  customer_id: CustomerId,
  api_group: TokenGroup,
  name: z.string(),
  /** First characters of the secret, for recognising a token in lists; not enough to use it. */
  prefix: z.string(),
  integrations: z.array(z.string()),
  allowed_domains: z.array(z.string()),
  scores: z.boolean(),
  segment_names: z.boolean(),
  /** Whether answers carry the account's followed intent topics (`intent_topics`); absent in records written before it: off. */
  intent_topics: z.boolean().default(false),
  rate_limit: z.number().int().positive(),
  status: z.enum(TOKEN_STATUSES),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  rotated_at: z.string().nullable(),
});
export type TokenRecord = z.infer<typeof TokenRecord>;

export const NewToken = z.object({
  customer_id: z.string().min(1),
  api_group: TokenGroup,
  name: z.string().trim().min(1, 'a token needs a name (name it after its integration)').max(100),
  integrations: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  allowed_domains: AllowedDomains.default([]),
  scores: z.boolean().default(false),
  segment_names: z.boolean().default(false),
  /** Whether answers carry the account's followed intent topics; absent: off (the record says false). */
  intent_topics: z.boolean().optional(),
  rate_limit: z.number().int().positive().max(1_000_000).default(DEFAULT_TOKEN_LIMIT),
});
export type NewToken = z.input<typeof NewToken>;

/**
 * Per-tag settings the server inlines into `/tag/v1/<tagId>.js`, so changing one never needs a page edit.
 * Absent keys keep the bundle's defaults.
 */
export const TagSettings = z
  .object({
    /** Which answer fields go to dataLayer (address and phone are excluded by default). */
    fields: z.array(z.string().min(1).max(64)).max(64).optional(),
    min_confidence: z.enum(CONFIDENCES).optional(),
    cache_ttl_ms: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400_000)
      .optional(),
    consent_default: z.enum(['granted', 'denied', 'pending']).optional(),
    anti_flicker_timeout_ms: z.number().int().min(0).max(10_000).optional(),
    /** Whether navigator.globalPrivacyControl suppresses the lookup (default true). */
    honor_gpc: z.boolean().optional(),
    /** Which bundle variant /tag/v1/<tagId>.js serves (core/tag-features.ts; absent keys are on). */
    features: TagFeatures.optional(),
  })
  .strict();
export type TagSettings = z.infer<typeof TagSettings>;

export const TagRecord = z.object({
  tag_id: z.string(),
  customer_id: CustomerId,
  allowed_domains: z.array(z.string()),
  scores: z.boolean(),
  segment_names: z.boolean(),
  // Defaults here too: records written before these fields existed (Redis hashes, export files) read as
  // the fixed limits every tag had then, and as no demo tag.
  /** Requests per minute across all visitors of the tag (default TAG_CEILING). */
  rate_limit: z.number().int().positive().default(TAG_CEILING),
  /** Requests per minute per visitor IP (default TAG_PER_VISITOR_LIMIT). */
  visitor_rate_limit: z.number().int().positive().default(TAG_PER_VISITOR_LIMIT),
  /** Demo tags honour `test_ip` in demo mode; customer tags never do. */
  demo: z.boolean().default(false),
  /**
   * A disabled tag answers identification and page views 403 ("web tag … is disabled") and its bundle URL
   * 404 with a JavaScript comment (the snippet's fail-safe shows the page); absent in older records = enabled.
   */
  disabled: z.boolean().default(false),
  settings: TagSettings,
  created_at: z.string(),
});
export type TagRecord = z.infer<typeof TagRecord>;

export const NewTag = z.object({
  customer_id: z.string().min(1),
  tag_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{4,64}$/)
    .optional(),
  allowed_domains: RequiredAllowedDomains,
  scores: z.boolean().default(false),
  segment_names: z.boolean().default(false),
  rate_limit: TagRateLimit.default(TAG_CEILING),
  visitor_rate_limit: TagRateLimit.default(TAG_PER_VISITOR_LIMIT),
  demo: z.boolean().default(false),
  settings: TagSettings.default({}),
});
export type NewTag = z.input<typeof NewTag>;

/** A change to a tag (PATCH /admin/api/tags/:tagId): only the fields given are touched. */
export const TagPatch = z
  .object({
    allowed_domains: NewTag.shape.allowed_domains,
    scores: z.boolean(),
    segment_names: z.boolean(),
    rate_limit: TagRateLimit,
    visitor_rate_limit: TagRateLimit,
    demo: z.boolean(),
    disabled: z.boolean(),
    settings: TagSettings,
  })
  .partial()
  .strict();
export type TagPatch = z.input<typeof TagPatch>;
