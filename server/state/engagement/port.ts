/**
 * What the engagement service (service.ts) asks of a backend: storage only, each write one atomic step (an
 * IMMEDIATE transaction on SQLite, a Lua script in the customer's slot on Redis) applying the bounds of
 * store.ts (`boundedKey`) inside it, so two nodes adding to one day never pass them together. The
 * retention is given once, at construction.
 */
import type { RecentEvent } from '../../../core/engagement-records.ts';
import type { EngagementEntry } from './entries.ts';
import type { EngagedTimeInput, EngagementRow, EngagementRowQuery } from './store.ts';

/** A count to add to (account, day, name), with the event to keep among the account's latest (none on import). */
export interface EventCountInput {
  customer_id: string;
  company_id: string;
  day: string;
  name: string;
  count: number;
  recent: RecentEvent | null;
}

export interface EngagementPort {
  addTime(input: EngagedTimeInput): Promise<void>;
  addEvent(input: EventCountInput): Promise<void>;
  /** Rows of the query in the export's order (compareRowKeys), at most `limit` (absent: all). */
  rows(customerId: string, q: EngagementRowQuery): Promise<EngagementRow[]>;
  /** Every account's rows of a range, ordered by company, day, kind and key. */
  accountsRows(customerId: string, from: string, to: string): Promise<EngagementRow[]>;
  /** Newest first. */
  recent(customerId: string, companyId: string): Promise<RecentEvent[]>;
  /** Per customer: the aggregates, then each account's latest events oldest first. */
  exportEntries(): AsyncIterable<EngagementEntry>;
  isEmpty(): Promise<boolean>;
  /** Writes a page of entries (into an empty store) with the bounds of a live write. */
  importPage(entries: EngagementEntry[]): Promise<void>;
  close(): Promise<void>;
}

/** The first UTC day a store keeps on `today` (days before it are past the retention). */
export function keptFrom(today: string, retentionDays: number): string {
  return new Date(Date.parse(`${today}T00:00:00Z`) - (retentionDays - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** When a day's aggregates may go: the end of the last day the retention keeps it (epoch ms). */
export function dayExpiresAtMs(day: string, retentionDays: number): number {
  return Date.parse(`${day}T00:00:00Z`) + (retentionDays + 1) * 86_400_000;
}
