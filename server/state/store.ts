/**
 * The state store: customers, tokens, web tags (and, with the credits and rate-limit issue, the credit
 * ledger and counters). One interface, two implementations: embedded SQLite (default) and Redis (several
 * nodes). Methods are async so both fit.
 */
import { z } from 'zod';
import { ApiGroup, CustomerSeed, HotAccount, Package, Product, Segment } from '../../data/sources/schema.ts';
import type { ChargeableApi, CreditPool } from '../credits/rules.ts';

export const CustomerRecord = z.object({
  id: z.string(),
  name: z.string(),
  packages: z.array(Package),
  identification_credits: z.number().int(),
  enrichment_credits: z.number().int(),
  contract_start: z.string(),
  products: z.array(Product),
  segments: z.array(Segment),
  excluded_accounts: z.array(z.string()),
  hot_accounts: z.array(HotAccount),
  created_at: z.string(),
});
export type CustomerRecord = z.infer<typeof CustomerRecord>;

export const TOKEN_STATUSES = ['active', 'inactive'] as const;

export const TokenRecord = z.object({
  id: z.string(),
  customer_id: z.string(),
  api_group: ApiGroup,
  name: z.string(),
  /** First characters of the secret, for recognising a token in lists; not enough to use it. */
  prefix: z.string(),
  integrations: z.array(z.string()),
  allowed_domains: z.array(z.string()),
  scores: z.boolean(),
  segment_names: z.boolean(),
  rate_limit: z.number().int().positive(),
  status: z.enum(TOKEN_STATUSES),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  rotated_at: z.string().nullable(),
});
export type TokenRecord = z.infer<typeof TokenRecord>;

export const NewToken = z.object({
  customer_id: z.string().min(1),
  api_group: ApiGroup,
  name: z.string().trim().min(1, 'a token needs a name (name it after its integration)').max(100),
  integrations: z.array(z.string().trim().min(1).max(100)).max(20).default([]),
  allowed_domains: z.array(z.string().trim().min(1).max(253)).max(100).default([]),
  scores: z.boolean().default(false),
  segment_names: z.boolean().default(false),
  rate_limit: z.number().int().positive().max(1_000_000).default(100),
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
    min_confidence: z.enum(['Very High', 'High', 'Moderate', 'Low']).optional(),
    cache_ttl_ms: z.number().int().min(0).max(30 * 86_400_000).optional(),
    consent_default: z.enum(['granted', 'denied', 'pending']).optional(),
    anti_flicker_timeout_ms: z.number().int().min(0).max(10_000).optional(),
    /** Whether navigator.globalPrivacyControl suppresses the lookup (default true). */
    honor_gpc: z.boolean().optional(),
    /** Which bundle variant the tag serves (issue 12; the tag build reads these). */
    features: z
      .object({ personalisation: z.boolean().optional(), form_fill: z.boolean().optional(), spa: z.boolean().optional(), page_views: z.boolean().optional() })
      .strict()
      .optional(),
  })
  .strict();
export type TagSettings = z.infer<typeof TagSettings>;

export const TagRecord = z.object({
  tag_id: z.string(),
  customer_id: z.string(),
  allowed_domains: z.array(z.string()),
  scores: z.boolean(),
  segment_names: z.boolean(),
  settings: TagSettings,
  created_at: z.string(),
});
export type TagRecord = z.infer<typeof TagRecord>;

export const NewTag = z.object({
  customer_id: z.string().min(1),
  tag_id: z.string().regex(/^[A-Za-z0-9_-]{4,64}$/).optional(),
  allowed_domains: z.array(z.string().trim().min(1).max(253)).min(1, 'a web tag needs at least one allowed domain'),
  scores: z.boolean().default(false),
  segment_names: z.boolean().default(false),
  settings: TagSettings.default({}),
});
export type NewTag = z.input<typeof NewTag>;

/** A request the caller can fix (unknown customer, package not bought …): the CLI and admin API show the message. */
export class StateError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 403 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

export interface ChargeRequest {
  customer_id: string;
  api: ChargeableApi;
  pool: CreditPool;
  record: string;
  /** Quota period (contract year) the charge counts in, and its quota. */
  period: string;
  quota: number;
  /** Charges sharing a non-null key are made once (enrichment: API, record, month). */
  dedupe_key: string | null;
  month: string;
  token_id: string | null;
  partner: string | null;
  at: string;
}

/** `charged`: a credit was spent; `free`: already paid this month; `exhausted`: nothing spent, answer 402. */
export type ChargeOutcome = { outcome: 'charged' | 'free'; remaining: number } | { outcome: 'exhausted'; remaining: 0 };

export interface RateLimitHit {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface UsageRow {
  pool: CreditPool;
  api: string;
  month: string;
  charges: number;
  partner_charges: number;
}

export interface CreditBalance {
  pool: CreditPool;
  period: string;
  quota: number;
  used: number;
  remaining: number;
}

export interface StateStore {
  /** Creates or replaces a customer and its web tags (tags of the seed are upserted, others kept). */
  importCustomer(seed: CustomerSeed): Promise<CustomerRecord>;
  getCustomer(id: string): Promise<CustomerRecord | null>;
  listCustomers(): Promise<CustomerRecord[]>;

  createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }>;
  /** The active token whose secret this is, or null; records the use. */
  authenticateToken(secret: string): Promise<TokenRecord | null>;
  getToken(id: string): Promise<TokenRecord | null>;
  listTokens(customerId?: string): Promise<TokenRecord[]>;
  setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord>;
  rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }>;
  deleteToken(id: string): Promise<void>;

  createTag(input: NewTag): Promise<TagRecord>;
  getTag(tagId: string): Promise<TagRecord | null>;
  updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord>;
  listTags(customerId?: string): Promise<TagRecord[]>;

  /** Atomically: skip if already charged under the dedupe key, refuse if the quota is spent, else record. */
  charge(req: ChargeRequest): Promise<ChargeOutcome>;
  usage(customerId: string): Promise<UsageRow[]>;
  balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance>;
  /** Counts one request against `key` in a fixed window; atomic across processes sharing the store. */
  hitRateLimit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitHit>;

  /** Small server settings (e.g. the admin credential's hash). */
  getSetting(key: string): Promise<string | null>;
  /** Sets the value unless the key exists; true when this call set it (first writer wins across nodes). */
  setSettingIfAbsent(key: string, value: string): Promise<boolean>;

  close(): Promise<void>;
}
