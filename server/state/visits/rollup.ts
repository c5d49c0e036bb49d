/**
 * The per-day rollup of the visit store, what the console's Home reads instead of the per-day account
 * aggregates (server/home/): per (customer, UTC day) the identified page views, the accounts first seen
 * that day, the segments entered, and the day's visiting accounts counted by their *gap* — the days since
 * the account's previous visiting day. Both backends keep it in the same atomic step as the page-view
 * aggregates (sqlite-rollup.ts, redis-rollup-scripts.ts), and derive it the same way on import.
 *
 * Why gaps: a count of distinct accounts over several days is not a sum of the days' counts (an account
 * seen on two days is one account). Over a range from..to an account is counted once, on its first day in
 * the range: the day whose previous visiting day is before `from`, i.e. whose gap is larger than its offset
 * in the range. So a range's distinct accounts are a sum over its days' gap counts (distinctAccounts), exact
 * for any range of at most ROLLUP_SPAN_DAYS days; a gap of that many days or more, or none, is kept as 0.
 * A late view of an earlier day (a delayed beacon) moves the gap of the account's next day too.
 */
import type { DailyTotals } from '../../../core/visit-records.ts';
import type { VisitPort } from './port.ts';
import { type AccountTotals, daysBetween } from './store.ts';
import { topAccounts } from './top-accounts.ts';

/** The longest range whose distinct accounts the rollup answers exactly (Home's longest period). */
export const ROLLUP_SPAN_DAYS = 92;

const DAY_MS = 86_400_000;
/** A UTC day as days since the epoch (what gaps are counted in, and Redis scores first days by). */
export const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
export const dayOfNumber = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The gap of an account's visiting day `day`: days since `prev` (its previous one), 0 when none within ROLLUP_SPAN_DAYS. */
export function visitGap(day: number, prev: number | null): number {
  if (prev === null) return 0;
  const gap = day - prev;
  return gap >= ROLLUP_SPAN_DAYS ? 0 : gap;
}

/** One day of the rollup as a store reads it. */
export interface RollupDay extends DailyTotals {
  new_accounts: number;
  segment_entries: number;
  /** The day's visiting accounts by gap (visitGap); a gap not listed has none. */
  gaps: ReadonlyMap<number, number>;
  /**
   * False for a day whose account views were partly recorded before the rollup existed (a Redis store
   * upgraded that day or before): its figures are not the whole day's, so a read falls back to the aggregates.
   */
  complete: boolean;
}

/** Distinct accounts that visited in `days` (every day of a range starting at `from`, at most ROLLUP_SPAN_DAYS). */
export function distinctAccounts(days: readonly RollupDay[], from: string): number {
  const start = dayNumber(from);
  let n = 0;
  for (const d of days) {
    const offset = dayNumber(d.day) - start;
    for (const [gap, accounts] of d.gaps) if (gap === 0 || gap > offset) n += accounts;
  }
  return n;
}

/** What Home reads of a range: the store's PeriodSummary (store.ts periodSummary). */
export interface PeriodSummary {
  /** Identified and anonymous page views per day, every day of the range (zeros included), as dailyTotals. */
  daily: DailyTotals[];
  /** Distinct accounts with an identified view in the range (accountTotals' length). */
  accounts: number;
  /** Accounts first seen in the range (newAccounts). */
  new_accounts: number;
  /** Segments entered in the range (segmentEntries). */
  segment_entries: number;
  /** The range's most active accounts, at most the number asked, ranked as accountTotals ranks them. */
  top: AccountTotals[];
  /** `rollup`: read from the rollup; `aggregates`: a day of the range was not covered by it (RollupDay.complete), read as before. */
  source: 'rollup' | 'aggregates';
}

/** What periodSummary reads of a backend (port.ts VisitPort). */
type SummaryReads = Pick<
  VisitPort,
  'rollupDays' | 'rankedAccounts' | 'accountDayViews' | 'accountsTotals' | 'accountTotals' | 'dailyTotals' | 'newAccounts' | 'segmentEntries'
>;

/** store.ts periodSummary over a backend: the rollup when it covers every day of the range, else the aggregates. */
export async function periodSummary(port: SummaryReads, customerId: string, from: string, to: string, top: number): Promise<PeriodSummary> {
  const days = daysBetween(from, to);
  const rollup = days.length <= ROLLUP_SPAN_DAYS ? await port.rollupDays(customerId, from, to) : null;
  if (rollup?.every((d) => d.complete)) {
    return {
      daily: rollup.map(({ day, identified, anonymous }) => ({ day, identified, anonymous })),
      accounts: distinctAccounts(rollup, from),
      new_accounts: rollup.reduce((n, d) => n + d.new_accounts, 0),
      segment_entries: rollup.reduce((n, d) => n + d.segment_entries, 0),
      // Only days with account views have ranked accounts.
      top: await topAccounts(
        rollup.filter((d) => d.identified > 0 || d.gaps.size > 0).map((d) => d.day),
        top,
        {
          ranked: (reads) => port.rankedAccounts(customerId, reads),
          dayViews: (pairs) => port.accountDayViews(customerId, pairs),
          totals: (ids) => port.accountsTotals(customerId, ids, days),
        },
      ),
      source: 'rollup',
    };
  }
  const [accounts, daily, newAccounts, segmentEntries] = await Promise.all([
    port.accountTotals(customerId, from, to),
    port.dailyTotals(customerId, from, to),
    port.newAccounts(customerId, from, to),
    port.segmentEntries(customerId, from, to),
  ]);
  return { daily, accounts: accounts.length, new_accounts: newAccounts, segment_entries: segmentEntries, top: accounts.slice(0, top), source: 'aggregates' };
}
