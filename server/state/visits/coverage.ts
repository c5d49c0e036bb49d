/**
 * The visit store's coverage counts: anonymous page views per (customer, UTC day, reason), the reason the
 * recorder decided (core/vocabulary.ts UNIDENTIFIED_REASONS). Each is counted in the very atomic step
 * that counts the anonymous view (the SQLite transaction of sqlite.ts, the Lua script RECORD of
 * redis-scripts.ts), so a day's reasons never drift from its anonymous total; what stores them and reads,
 * moves and prunes them is this concern's own: sqlite-coverage.ts and redis-coverage.ts behind this port.
 */
import type { DailyUnidentified } from '../../../core/visit-records.ts';
import { UNIDENTIFIED_REASONS, type UnidentifiedReason } from '../../../core/vocabulary.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import { daysBetween } from './store.ts';

/** One stored count: a day's anonymous page views for one reason. */
export interface UnidentifiedRow {
  day: string;
  reason: UnidentifiedReason;
  page_views: number;
}

/** A coverage count as `svc state export/import` moves it (transfer.ts VisitEntry). */
export type UnidentifiedEntry = Extract<VisitEntry, { type: 'visit_unidentified' }>;

/** What the visit service needs of a backend's coverage counts (the counting itself is in the view's step). */
export interface CoveragePort {
  /** The customer's counts of the days `from`..`to` (inclusive UTC days), in any order; days without any: none. */
  unidentified(customerId: string, from: string, to: string): Promise<UnidentifiedRow[]>;
  exportEntries(): AsyncIterable<UnidentifiedEntry>;
  isEmpty(): Promise<boolean>;
  /** An import's writer: each batch one step (a transaction, a MULTI per customer). */
  importer(): { batchSize: number; write(batch: UnidentifiedEntry[]): Promise<void> };
}

/** Every day of the range with every reason (zeros included), from a backend's rows. */
export function dailyUnidentified(rows: readonly UnidentifiedRow[], from: string, to: string): DailyUnidentified[] {
  const byDay = new Map<string, Record<UnidentifiedReason, number>>();
  const zeros = () => Object.fromEntries(UNIDENTIFIED_REASONS.map((r) => [r, 0])) as Record<UnidentifiedReason, number>;
  for (const r of rows) {
    if (!(UNIDENTIFIED_REASONS as readonly string[]).includes(r.reason)) continue;
    let day = byDay.get(r.day);
    if (day === undefined) byDay.set(r.day, (day = zeros()));
    day[r.reason] += r.page_views;
  }
  return daysBetween(from, to).map((day) => ({ day, reasons: byDay.get(day) ?? zeros() }));
}

export const isUnidentifiedEntry = (e: VisitEntry): e is UnidentifiedEntry => e.type === 'visit_unidentified';
