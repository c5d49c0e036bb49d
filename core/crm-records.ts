/**
 * CRM sync records (HubSpot, Salesforce): a customer's connection to a CRM, the runs of its sync, and what
 * svc keeps per account of the CRM's side (the matched records, their owner and stage, the values last
 * written). Wire and storage shapes, so they live in the neutral core (the console reads them); the store
 * is server/state/crm/, the sync server/crm/.
 */
import { z } from 'zod';

export const CRM_PROVIDERS = ['hubspot', 'salesforce'] as const;
export const CrmProvider = z.enum(CRM_PROVIDERS);
export type CrmProvider = z.infer<typeof CrmProvider>;

/**
 * What svc writes, by key: fixed keys, and per product of the customer `<product>.intent_score`,
 * `<product>.buying_stage`, `<product>.profile_fit` (`<product>` the product's key, server/crm/mapping.ts).
 */
export const CRM_FIXED_VALUES = ['company_id', 'segments', 'last_visit_at', 'page_views_30d', 'top_pages', 'hot'] as const;
export const CRM_PRODUCT_VALUES = ['intent_score', 'buying_stage', 'profile_fit'] as const;

/** One value as written to a CRM field (null clears it). */
export type CrmValue = string | number | boolean | null;

/**
 * The mapping: svc value key → the CRM field it is written to, or null (not written). Keys absent take the
 * provider's default field (server/crm/mapping.ts). A field must be one svc owns (HubSpot `svc_…` in svc's
 * property group; Salesforce `Svc_…__c`).
 */
export const CrmMapping = z.record(z.string(), z.string().nullable());
export type CrmMapping = z.infer<typeof CrmMapping>;

export const CRM_STATUSES = ['active', 'paused', 'needs_attention'] as const;
export const CrmStatus = z.enum(CRM_STATUSES);
export type CrmStatus = z.infer<typeof CrmStatus>;

/** A customer's connection to one CRM, without its secret (what lists and the console show). */
export const CrmConnectionRecord = z.object({
  customer_id: z.string(),
  provider: CrmProvider,
  /** The provider's API host (HubSpot https://api.hubapi.com; Salesforce the org's My Domain URL). */
  base_url: z.string(),
  /** Salesforce: the connected app's client id (not secret); HubSpot: null. */
  client_id: z.string().nullable(),
  /** First characters of the secret (the access token, the client secret), for telling secrets apart. */
  secret_prefix: z.string(),
  status: CrmStatus,
  /** Why the connection needs attention (the provider's message), else null. */
  attention: z.string().nullable(),
  mapping: CrmMapping,
  /** Create a CRM account for an svc account no record matches (off by default). */
  create_missing: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  /** When the last run of each kind started (ISO), or null. */
  last_run_at: z.string().nullable(),
  last_full_at: z.string().nullable(),
  /** What the customer's account rules were when the last run started (server/crm/sync.ts): a change re-checks written accounts. */
  config_hash: z.string().nullable(),
});
export type CrmConnectionRecord = z.infer<typeof CrmConnectionRecord>;

export const CRM_RUN_KINDS = ['incremental', 'full', 'dry_run'] as const;
export const CrmRunKind = z.enum(CRM_RUN_KINDS);
export type CrmRunKind = z.infer<typeof CrmRunKind>;

export const CRM_RUN_STATUSES = ['running', 'succeeded', 'partial', 'failed'] as const;

/** One record the run could not write (HubSpot's per-record errors of a 207; Salesforce's per-record results). */
export const CrmRunError = z.object({
  company_id: z.string().nullable(),
  domain: z.string().nullable(),
  crm_id: z.string().nullable(),
  /** The CRM field the error names, when it names one (a field deleted in the CRM). */
  field: z.string().nullable(),
  message: z.string(),
});
export type CrmRunError = z.infer<typeof CrmRunError>;

export const CrmRunCounts = z.object({
  /** Accounts the run looked at. */
  accounts: z.number().int(),
  /** Accounts with at least one CRM record of their domain. */
  matched: z.number().int(),
  /** CRM records written (an account with three records counts three). */
  written: z.number().int(),
  created: z.number().int(),
  /** Accounts whose values were already in the CRM as svc last wrote them. */
  unchanged: z.number().int(),
  not_found: z.number().int(),
  /** Accounts whose domain is not a valid host name: skipped. */
  invalid_domain: z.number().int(),
  /** Accounts matched by several CRM records (all of them are written). */
  multiple_matches: z.number().int(),
  failed: z.number().int(),
  /** HTTP requests made to the provider. */
  requests: z.number().int(),
});
export type CrmRunCounts = z.infer<typeof CrmRunCounts>;

export const CrmRunRecord = z.object({
  id: z.string(),
  customer_id: z.string(),
  provider: CrmProvider,
  kind: CrmRunKind,
  status: z.enum(CRM_RUN_STATUSES),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  counts: CrmRunCounts,
  /** At most CRM_RUN_ERRORS_KEPT, the first ones. */
  errors: z.array(CrmRunError),
  /** What stopped or troubled the run as a whole (a revoked credential, the provider down), else null. */
  message: z.string().nullable(),
});
export type CrmRunRecord = z.infer<typeof CrmRunRecord>;
export const CRM_RUN_ERRORS_KEPT = 200;
/** Runs kept per connection (newest). */
export const CRM_RUNS_KEPT = 50;

/** What svc keeps per account and CRM: the matched records, the CRM's owner and stage, the values last written. */
export const CrmAccountRecord = z.object({
  customer_id: z.string(),
  provider: CrmProvider,
  company_id: z.string(),
  /** The CRM records of the account's domain (empty: none matched when last looked up). */
  crm_ids: z.array(z.string()),
  owner_email: z.string().nullable(),
  owner_name: z.string().nullable(),
  /** HubSpot `lifecyclestage`; Salesforce: null (no such field on Account). */
  stage: z.string().nullable(),
  /** HubSpot `type`; Salesforce `Type` (e.g. Customer, Prospect). */
  type: z.string().nullable(),
  /** Hash of the values last written (server/crm/mapping.ts valuesHash), or null when never written. */
  written_hash: z.string().nullable(),
  /** When the CRM side was last read and the values last written (ISO), or null. */
  read_at: z.string().nullable(),
  written_at: z.string().nullable(),
});
export type CrmAccountRecord = z.infer<typeof CrmAccountRecord>;

/** An account waiting to be synced: since when (ms), and whether it is written even if unchanged (a full run). */
export interface CrmPendingItem {
  company_id: string;
  at: number;
  force: boolean;
}
