/**
 * The alerts' state beside the outbox (which keeps the alerts themselves as endpoints): a customer's owners
 * list and territory rules (server/alerts/owners.ts routes to them), the buying stages each account reached
 * per product (stage_reached fires once per account, product and stage: the mark is set once, atomically, so
 * two nodes seeing the same view never both fire), and the day's mark of each (recipient, account) an alert
 * mail went to (at most one a day per person and account, across alerts and nodes). Durable and shared by
 * every node: SQLite (sqlite.ts) or Redis (redis.ts, every key of a customer under `{cust:<id>}`); one
 * contract test for both (alerts.contract.test.ts).
 *
 * `svc state export/import` moves the owners list, the rules and the stage marks (AlertEntry); mail marks
 * are not moved (they last a day, as rate-limit counters are not).
 */
import type { OwnerRow, TerritoryRule } from '../../../core/alert-records.ts';
import type { AlertEntry, EntryTransfer } from '../transfer/transfer.ts';

export interface OwnersDocument {
  owners: OwnerRow[];
  territories: TerritoryRule[];
  /** When the list was last uploaded (ISO), null when never. */
  updated_at: string | null;
}

export interface StageMark {
  product: string;
  stage: string;
}

/** Stage marks are kept this long after they were set (an account that comes back a year later reaches them again). */
export const STAGE_MARK_KEEP_MS = 365 * 86_400_000;

export interface AlertStateStore extends EntryTransfer<AlertEntry> {
  /** Replaces the customer's owners list and territory rules, in one step. */
  putOwners(customerId: string, doc: { owners: readonly OwnerRow[]; territories: readonly TerritoryRule[]; updated_at: string }): Promise<void>;
  getOwners(customerId: string): Promise<OwnersDocument>;
  /** The owners list's rows under these keys (`company:<id>`, `domain:<domain>`), any order. */
  ownerRows(customerId: string, keys: readonly string[]): Promise<OwnerRow[]>;
  territories(customerId: string): Promise<TerritoryRule[]>;
  /** Sets the marks not set yet (one atomic step) and returns those: the stages reached for the first time. */
  markStages(customerId: string, companyId: string, marks: readonly StageMark[], atMs: number): Promise<StageMark[]>;
  /**
   * Takes the mark of (recipient, account, day) for `holder`: true when it was free or is the holder's
   * already (a retry of the same delivery), false when another holder has it. One atomic step.
   */
  claimMail(customerId: string, recipient: string, companyId: string, day: string, holder: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Owners list keys: what an account is looked up by. */
export const ownerKey = {
  company: (companyId: string) => `company:${companyId}`,
  domain: (domain: string) => `domain:${domain.toLowerCase()}`,
};
