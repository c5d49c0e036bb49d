/**
 * What the CRM service (service.ts) asks of a backend: storage only. Each method is one atomic step of
 * the backend (a statement or an IMMEDIATE transaction on SQLite, a Lua script or a MULTI in the
 * customer's slot on Redis), run with what the service decided and checked: the times, the lease's end,
 * the runs kept. Writes of what belongs to a connection (pending accounts, the lease, runs, account
 * records) do nothing while the connection does not exist, in the same step: a node that read the list of
 * connections before one was deleted leaves nothing of it behind.
 */
import type { CrmAccountRecord, CrmConnectionRecord, CrmPendingItem, CrmProvider, CrmRunRecord } from '../../../core/crm-records.ts';

/** The fields updateConnection may change (crm/store.ts). */
export type CrmConnectionChange = Partial<Omit<CrmConnectionRecord, 'customer_id' | 'provider' | 'created_at' | 'secret_prefix'>>;

/** One step of an import, in the file's order (the service groups the entries of a page into these). */
export type CrmImportStep =
  | { kind: 'connection'; record: CrmConnectionRecord; secret: string }
  | { kind: 'pending'; customerId: string; provider: CrmProvider; items: CrmPendingItem[] }
  | { kind: 'accounts'; customerId: string; provider: CrmProvider; rows: CrmAccountRecord[] }
  | { kind: 'run'; run: CrmRunRecord; keep: number };

/** One import's writer: a page of steps at a time (one transaction on SQLite, the steps in turn on Redis). */
export interface CrmImportWriter {
  write(steps: CrmImportStep[]): Promise<void>;
}

export interface CrmPort {
  /** Creates or replaces the record and its secret; what else the connection has stays. */
  putConnection(record: CrmConnectionRecord, secret: string): Promise<void>;
  /** Applies `change` to the stored record in one step; the record after, or null when there is none. */
  updateConnection(customerId: string, provider: CrmProvider, change: CrmConnectionChange): Promise<CrmConnectionRecord | null>;
  getConnection(customerId: string, provider: CrmProvider): Promise<CrmConnectionRecord | null>;
  connectionSecret(customerId: string, provider: CrmProvider): Promise<string | null>;
  /** The customer's connections, in no particular order. */
  listConnections(customerId: string): Promise<CrmConnectionRecord[]>;
  /** Every connection, in no particular order. */
  allConnections(): Promise<CrmConnectionRecord[]>;
  /** Removes the connection and everything of it in one step; false when there was none. */
  deleteConnection(customerId: string, provider: CrmProvider): Promise<boolean>;

  /** Adds the items in turn: one already pending keeps the later `at`, and `force` if either has it. */
  markPending(customerId: string, provider: CrmProvider, items: readonly CrmPendingItem[]): Promise<void>;
  /** Ordered by `at`, then company id; only those after `after` when given. */
  pending(customerId: string, provider: CrmProvider, limit: number, after?: Pick<CrmPendingItem, 'company_id' | 'at'>): Promise<CrmPendingItem[]>;
  pendingCount(customerId: string, provider: CrmProvider): Promise<number>;
  /** Removes each item whose stored `at` is not later than the one given. */
  ackPending(customerId: string, provider: CrmProvider, items: readonly Pick<CrmPendingItem, 'company_id' | 'at'>[]): Promise<void>;

  /** Sets the lease to (owner, untilMs) unless another owner's lease ends after nowMs; whether it was set. */
  acquireLease(customerId: string, provider: CrmProvider, owner: string, nowMs: number, untilMs: number): Promise<boolean>;
  releaseLease(customerId: string, provider: CrmProvider, owner: string): Promise<void>;

  /** Creates or replaces the run, then keeps the newest `keep` of its connection (by started_at, then id). */
  putRun(run: CrmRunRecord, keep: number): Promise<void>;
  /** Newest first (started_at, then id, both descending). */
  listRuns(customerId: string, provider: CrmProvider, limit: number): Promise<CrmRunRecord[]>;
  getRun(customerId: string, provider: CrmProvider, runId: string): Promise<CrmRunRecord | null>;

  /** Creates or replaces the rows of one connection (a company given twice: the later row). */
  putAccounts(customerId: string, provider: CrmProvider, rows: readonly CrmAccountRecord[]): Promise<void>;
  getAccounts(customerId: string, provider: CrmProvider, companyIds: readonly string[]): Promise<CrmAccountRecord[]>;
  /** In company id order (byte order), after `afterCompanyId` when given. */
  listAccounts(customerId: string, provider: CrmProvider, limit: number, afterCompanyId?: string): Promise<CrmAccountRecord[]>;

  /** Whether the backend holds nothing of the CRM store (an import goes only into such a store). */
  isEmpty(): Promise<boolean>;
  importer(): CrmImportWriter;
  close(): Promise<void>;
}
