/**
 * Coverage (pure): what the Visitors report makes of why page views matched no company — the reason each
 * was recorded with (server/data/network-company.ts networkVisitor, the identification's rule, decided once
 * when the view is recorded) — the split of its anonymous page views by reason, which always adds up to
 * them, and the match rate (identified / all page views) per day and over the range.
 */
import type { DailyTotals, DailyUnidentified } from '../../core/visit-records.ts';
import { UNIDENTIFIED_REASONS, type UnidentifiedReason } from '../../core/vocabulary.ts';

/** Who a page view is from, by the identification's rule (server/data/network-company.ts), for the visits modules. */
export { type NetworkVisitor, visitorAt } from '../data/network-company.ts';

/**
 * What the report says of the anonymous page views: each recorded reason, and `unclassified` — those
 * counted before reasons were recorded (or imported without them), so the split always adds up to
 * the anonymous page views.
 */
export type UnidentifiedSplit = Record<UnidentifiedReason | 'unclassified', number>;

export const SPLIT_KEYS = [...UNIDENTIFIED_REASONS, 'unclassified'] as const;

/** Identified / all page views, 0–1 to 4 decimals (as Home's `match_rate`); null without page views. */
export function matchRate(identified: number, anonymous: number): number | null {
  const all = identified + anonymous;
  return all === 0 ? null : Math.round((identified / all) * 10_000) / 10_000;
}

/** One day's split: its recorded reasons, and what they leave of its anonymous page views as `unclassified`. */
export function splitOf(anonymous: number, reasons: Readonly<Record<UnidentifiedReason, number>> | undefined): UnidentifiedSplit {
  const split = { unclassified: 0 } as UnidentifiedSplit;
  let recorded = 0;
  for (const r of UNIDENTIFIED_REASONS) {
    split[r] = reasons?.[r] ?? 0;
    recorded += split[r];
  }
  // A day's reasons are counted in the same atomic step as its anonymous views, so they never exceed
  // them; a state edited by hand could: then the reasons stand and nothing is unclassified.
  split.unclassified = Math.max(0, anonymous - recorded);
  return split;
}

/** One day of the report's coverage. */
export interface DailyCoverage {
  day: string;
  match_rate: number | null;
  unidentified: UnidentifiedSplit;
}

export interface Coverage {
  /** Identified / all page views of the range (0–1), null without page views. */
  match_rate: number | null;
  /** The range's anonymous page views by reason: adds up to `totals.anonymous`. */
  unidentified: UnidentifiedSplit;
  /** Every day of the range, in order. */
  daily: DailyCoverage[];
}

/** The report's coverage from its daily totals and the store's per-day reasons (the days of `daily`). */
export function coverageOf(daily: readonly DailyTotals[], reasons: readonly DailyUnidentified[]): Coverage {
  const byDay = new Map(reasons.map((r) => [r.day, r.reasons]));
  const total = Object.fromEntries(SPLIT_KEYS.map((k) => [k, 0])) as UnidentifiedSplit;
  let identified = 0;
  let anonymous = 0;
  const days = daily.map((d): DailyCoverage => {
    identified += d.identified;
    anonymous += d.anonymous;
    const unidentified = splitOf(d.anonymous, byDay.get(d.day));
    for (const k of SPLIT_KEYS) total[k] += unidentified[k];
    return { day: d.day, match_rate: matchRate(d.identified, d.anonymous), unidentified };
  });
  return { match_rate: matchRate(identified, anonymous), unidentified: total, daily: days };
}
