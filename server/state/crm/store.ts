/**
 * The CRM sync's state as callers see it (server/crm/): a customer's connections (their secrets apart, as
 * webhook secrets are), the accounts waiting to be synced per connection, the one lease per connection that
 * lets a single node run its sync at a time, the runs' log, and per account what svc knows of the CRM side.
 * Durable and shared by every node (both backends, a Redis Cluster included: every key of a customer under
 * its `{cust:<id>}` hash tag). The service over a backend is service.ts (SQLite: sqlite.ts, Redis:
 * redis.ts); one contract test for both (crm.contract.test.ts).
 */
import type { CrmAccountRecord, CrmConnectionRecord, CrmPendingItem, CrmProvider, CrmRunRecord } from '../../../core/crm-records.ts';
import type { CrmEntry } from '../transfer/transfer.ts';

/** A connection as created or replaced: the record and its secret (a JSON text, server/crm/credentials.ts). */
export interface CrmConnectionToStore {
  record: CrmConnectionRecord;
  secret: string;
}

export interface CrmStore {
  /** Creates or replaces the connection of (customer, provider) with its secret. */
  putConnection(conn: CrmConnectionToStore): Promise<CrmConnectionRecord>;
  /** Changes fields of the record (never the secret; putConnection replaces it); null when there is none. */
  updateConnection(
    customerId: string,
    provider: CrmProvider,
    change: Partial<Omit<CrmConnectionRecord, 'customer_id' | 'provider' | 'created_at' | 'secret_prefix'>>,
  ): Promise<CrmConnectionRecord | null>;
  getConnection(customerId: string, provider: CrmProvider): Promise<CrmConnectionRecord | null>;
  connectionSecret(customerId: string, provider: CrmProvider): Promise<string | null>;
  listConnections(customerId: string): Promise<CrmConnectionRecord[]>;
  /** Every customer's connections (the scheduler's sweep), ordered by customer id then provider. */
  allConnections(): Promise<CrmConnectionRecord[]>;
  /** Deletes the connection with its pending accounts, lease, runs and account records; false when there was none. */
  deleteConnection(customerId: string, provider: CrmProvider): Promise<boolean>;

  /**
   * Adds accounts to the connection's pending set, in one atomic step: an account already pending keeps the
   * later of the two times, and `force` once set stays set until acknowledged.
   */
  markPending(customerId: string, provider: CrmProvider, companyIds: readonly string[], atMs: number, force: boolean): Promise<void>;
  /** Pending accounts, oldest first (ties by company id), at most `limit`, after `after` (a company id of the same order) when given. */
  pending(customerId: string, provider: CrmProvider, limit: number, after?: Pick<CrmPendingItem, 'company_id' | 'at'>): Promise<CrmPendingItem[]>;
  pendingCount(customerId: string, provider: CrmProvider): Promise<number>;
  /** Removes each item unless it was marked again after its `at` (then it stays, with the new time), in one step. */
  ackPending(customerId: string, provider: CrmProvider, items: readonly Pick<CrmPendingItem, 'company_id' | 'at'>[]): Promise<void>;

  /**
   * Takes (or renews) the connection's lease for `owner` until nowMs + leaseMs: true when nobody holds it,
   * its holder's lease ran out, or `owner` holds it. One atomic step, so two nodes never both get true.
   */
  acquireLease(customerId: string, provider: CrmProvider, owner: string, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Gives the lease up if `owner` holds it. */
  releaseLease(customerId: string, provider: CrmProvider, owner: string): Promise<void>;

  /** Creates or replaces a run by id; only the newest CRM_RUNS_KEPT of the connection are kept. */
  putRun(run: CrmRunRecord): Promise<void>;
  /** The connection's runs, newest first (by started_at, then id), at most `limit`. */
  listRuns(customerId: string, provider: CrmProvider, limit: number): Promise<CrmRunRecord[]>;
  getRun(customerId: string, provider: CrmProvider, runId: string): Promise<CrmRunRecord | null>;

  /** Creates or replaces account records (by customer, provider, company id). */
  putAccounts(rows: readonly CrmAccountRecord[]): Promise<void>;
  /** The records of these companies that exist (any order). */
  getAccounts(customerId: string, provider: CrmProvider, companyIds: readonly string[]): Promise<CrmAccountRecord[]>;
  /** Every account record of the connection, in company id order, in pages (for re-checks and exports). */
  listAccounts(customerId: string, provider: CrmProvider, limit: number, afterCompanyId?: string): Promise<CrmAccountRecord[]>;

  exportEntries(): AsyncIterable<CrmEntry>;
  isEmpty(): Promise<boolean>;
  /** Writes exported entries into this store, which must be empty (EntryTransfer: StateError `conflict` otherwise). */
  importEntries(entries: AsyncIterable<CrmEntry> | Iterable<CrmEntry>): Promise<number>;
  close(): Promise<void>;
}
