/**
 * The engagement store as callers see it: what identified accounts did on the customer's pages beyond
 * viewing them — engaged time (milliseconds a page was visible, per account, UTC day and path) and custom
 * events (`svc('track', …)`: a count per account, UTC day and name, and the account's latest events with
 * their properties for its journey). Anonymous visitors are not kept here: nothing to attribute them to.
 *
 * Bounded as the visit store is, by what was visited rather than how often: at most
 * ENGAGED_PATHS_PER_ACCOUNT_DAY paths and EVENT_NAMES_PER_ACCOUNT_DAY names per account and day (the rest
 * summed under OTHER_KEY), RECENT_EVENTS_PER_ACCOUNT latest events per account, and ENGAGEMENT_RETENTION_DAYS
 * days (SQLite deletes older days, Redis lets their keys expire). The rules over a backend are service.ts
 * (SQLite: sqlite.ts, Redis: redis.ts); one contract test for both (engagement.contract.test.ts).
 */
import type { AccountEngagement, EventProperties, RecentEvent } from '../../../core/engagement-records.ts';
import type { EntryTransfer } from '../transfer/transfer.ts';
import type { EngagementEntry } from './entries.ts';

/** Distinct paths kept per (customer, account, day); the time of further paths is summed under OTHER_KEY. */
export const ENGAGED_PATHS_PER_ACCOUNT_DAY = 200;
/** Distinct event names kept per (customer, account, day); further names are counted under OTHER_KEY. */
export const EVENT_NAMES_PER_ACCOUNT_DAY = 100;
/** Neither a path (no leading /) nor an event name (not lower-case letters first). */
export const OTHER_KEY = '(other)';
/** Latest custom events kept per (customer, account), with their properties. */
export const RECENT_EVENTS_PER_ACCOUNT = 50;
/** Days kept: as the visit store's per-day aggregates (VISIT_RETENTION_DAYS), so segment rules read the same look-back. */
export const ENGAGEMENT_RETENTION_DAYS = 400;
/**
 * Engaged time one beacon adds at most: a page visible longer than this at a stretch was left open, not
 * read (a dashboard on a second screen), and a forged beacon cannot add a day to a path.
 */
export const MAX_ENGAGED_MS_PER_BEACON = 60 * 60_000;

export interface EngagedTimeInput {
  customer_id: string;
  company_id: string;
  /** UTC day of the beacon. */
  day: string;
  path: string;
  ms: number;
}

export interface TrackedEventInput {
  customer_id: string;
  company_id: string;
  /** ISO time of the beacon; its UTC day is the count's day. */
  at: string;
  name: string;
  path: string;
  properties: EventProperties;
}

/** One row of the per-day aggregates: engaged ms on a path, or the count of an event name. */
export interface EngagementRow {
  day: string;
  company_id: string;
  kind: 'engaged' | 'event';
  /** The path (`engaged`) or the event name (`event`); OTHER_KEY past the day's bound. */
  key: string;
  /** Milliseconds (`engaged`) or the count (`event`). */
  value: number;
}

/** Where a row sits in the export's order (day, company, kind, key): a read after it answers the rows past it. */
export type EngagementRowKey = Pick<EngagementRow, 'day' | 'company_id' | 'kind' | 'key'>;

/** The order the export lists rows in: day, company, kind, key (binary text order, as SQLite compares). */
export function compareRowKeys(a: EngagementRowKey, b: EngagementRowKey): number {
  for (const k of ['day', 'company_id', 'kind', 'key'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

/** Which rows a read lists: UTC days `from`..`to`, one account or all, after a row (exclusive), at most `limit`. */
export interface EngagementRowQuery {
  from: string;
  to: string;
  company_id?: string;
  after?: EngagementRowKey | null;
  limit?: number;
}

/**
 * The key a write adds to, given whether the day already holds it and how many other keys it holds
 * (OTHER_KEY not counted): itself, or OTHER_KEY once the day holds `max` others. redis.ts ADD mirrors it.
 */
export function boundedKey(key: string, held: boolean, others: number, max: number): string {
  return held || others < max ? key : OTHER_KEY;
}

/** An account's engagement split from rows (one account's, any order) into engaged time and event counts. */
export function engagementOf(rows: readonly EngagementRow[]): AccountEngagement {
  const out: AccountEngagement = { time: [], events: [] };
  for (const r of rows) {
    if (r.kind === 'engaged') out.time.push({ day: r.day, path: r.key, ms: r.value });
    else out.events.push({ day: r.day, name: r.key, count: r.value });
  }
  return out;
}

export interface EngagementStore extends EntryTransfer<EngagementEntry> {
  /** Adds engaged time to (account, day, path): one atomic step (the day's bound decided inside it). */
  addEngagedTime(input: EngagedTimeInput): Promise<void>;
  /** Counts a custom event on (account, day, name) and keeps it among the account's latest: one atomic step. */
  addEvent(input: TrackedEventInput): Promise<void>;
  /** One account's engaged time and event counts between two UTC days (inclusive). */
  accountEngagement(customerId: string, companyId: string, from: string, to: string): Promise<AccountEngagement>;
  /**
   * Every account's rows between two UTC days, ordered by company, day, kind and key: what segment rules on
   * engagement read over the whole catalog (server/segments/member-facts.ts). Bounded by what was engaged.
   */
  accountsEngagement(customerId: string, from: string, to: string): Promise<EngagementRow[]>;
  /** The account's latest custom events (at most RECENT_EVENTS_PER_ACCOUNT), newest first. */
  recentEvents(customerId: string, companyId: string): Promise<RecentEvent[]>;
  /** The rows of a range in the export's order (compareRowKeys), read a bounded page at a time. */
  engagementRows(customerId: string, q: EngagementRowQuery): AsyncIterable<EngagementRow>;
  close(): Promise<void>;
}
