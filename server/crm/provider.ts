/**
 * What the sync (sync.ts) needs of a CRM: one client per connection, HubSpot's (hubspot.ts, through
 * `@hubspot/api-client`) or Salesforce's (salesforce.ts, through `jsforce`). The clients batch, obey the
 * provider's rate limits, retry what may be retried (429, 5xx, timeouts) a bounded number of times with
 * backoff, and turn the provider's answers into these shapes; the sync decides what to write.
 */
import type { CrmProvider, CrmValue } from '../../core/crm-records.ts';

/** A field svc writes, as the client checks (and on HubSpot creates) it. */
export interface CrmFieldSpec {
  /** The CRM field's name (HubSpot property name `svc_…`; Salesforce `Svc_…__c`). */
  name: string;
  label: string;
  type: 'string' | 'number' | 'datetime' | 'bool';
}

/** A CRM account record as matched and read back. */
export interface CrmRecordRef {
  crm_id: string;
  /** The record's domain (HubSpot `domain`, Salesforce `Website`) normalised (domain.ts), or null when it has none valid. */
  domain: string | null;
  owner_email: string | null;
  owner_name: string | null;
  /** HubSpot `lifecyclestage`; Salesforce null. */
  stage: string | null;
  /** HubSpot `type`; Salesforce `Type`. */
  type: string | null;
}

/** What "Test connection" answers: what the credential may do. */
export interface CrmCheck {
  /** The OAuth scopes / permissions the credential holds, as the provider names them. */
  scopes: string[];
  /** The CRM objects svc can read and write with it (e.g. `companies`, `owners`; `Account`, `User`). */
  objects: string[];
  /** The fields of `fields` svc can write. */
  writable_fields: string[];
  /** The fields of `fields` that do not exist or cannot be written (Salesforce: the admin must create them). */
  missing_fields: string[];
  /** The fields the check created (HubSpot with `ensure`: svc's property group and properties). */
  created_fields: string[];
}

export interface CrmWrite {
  crm_id: string;
  values: Record<string, CrmValue>;
}

/** A record the provider refused (HubSpot's 207 errors; Salesforce's per-record results). */
export interface CrmRecordError {
  crm_id: string | null;
  /** The field the provider names, when it names one (a deleted field). */
  field: string | null;
  message: string;
}

export interface CrmWriteResult {
  /** CRM ids written. */
  written: string[];
  /** Records refused for good (a deleted field, a validation error): listed in the run, not retried. */
  errors: CrmRecordError[];
  /** CRM ids not written for a passing reason (the provider kept failing within the retries): retried at a later run. */
  retry: string[];
}

export interface CrmCreate {
  /** Normalised domain. */
  domain: string;
  name: string;
  values: Record<string, CrmValue>;
}

export interface CrmCreateResult {
  created: { domain: string; crm_id: string }[];
  errors: (CrmRecordError & { domain: string })[];
  retry: string[];
}

export interface CrmClient {
  readonly provider: CrmProvider;
  /**
   * Checks the credential and `fields`. `ensure` (HubSpot): creates svc's property group and any of
   * `fields` missing in it. Throws CrmAuthError on a revoked or wrong credential.
   */
  check(fields: readonly CrmFieldSpec[], opts: { ensure: boolean }): Promise<CrmCheck>;
  /** The records of these normalised domains (each domain → every record of it; absent: none). */
  findByDomains(domains: readonly string[]): Promise<Map<string, CrmRecordRef[]>>;
  /** These records read again (owner, stage, type); ids the CRM no longer has are absent. */
  readRecords(crmIds: readonly string[]): Promise<CrmRecordRef[]>;
  /** Writes in the provider's batches (HubSpot 100, Salesforce 200 per request). */
  update(writes: readonly CrmWrite[]): Promise<CrmWriteResult>;
  create(rows: readonly CrmCreate[]): Promise<CrmCreateResult>;
  /** HTTP requests made to the provider so far (retries included). */
  requests(): number;
}

/** The credential was refused (401/403, invalid_client …): the connection needs attention; nothing is retried. */
export class CrmAuthError extends Error {
  override name = 'CrmAuthError';
}

/** The provider kept failing (429 storm, 5xx, timeouts, malformed answers) past the bounded retries. */
export class CrmUnavailableError extends Error {
  override name = 'CrmUnavailableError';
}
