/**
 * Credit rules (spec "Credits"), pure: which APIs charge, from which pool, and what makes two charges
 * "the same" so the second is free.
 *   identification: 1 credit per Match response, every time (a repeated IP is charged again), from the
 *     identification pool. Quotas of both pools run per contract year from the customer's contract start.
 *   enrichment pool: Company Firmographics v3 and v2, Lead Scoring and Firmographics, People Enrichment —
 *     one charge per (API, record, UTC calendar month); the same record through another API is charged again.
 *   Lead Scoring and People Search never charge; 404s never charge.
 */
import type { CreditPool } from '../../core/usage-records.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';

export const CHARGEABLE_APIS = [
  'identification',
  'company-firmographics-v3',
  'company-firmographics-v2',
  'lead-scoring-firmographics',
  'people-enrichment',
] as const;
export type ChargeableApi = (typeof CHARGEABLE_APIS)[number];

export function poolOf(api: ChargeableApi): CreditPool {
  return api === 'identification' ? 'identification' : 'enrichment';
}

/*
 * Every charge (each identification Match) asks for the month and the contract year of `now`; both change
 * rarely, so each is remembered with the interval of instants it holds for and recomputed only outside it.
 * Why: toISOString, parsing the contract start and two Date objects per charge were ~1.5% of a tag-mode
 * lookup's CPU (--cpu-prof under `npm run bench -- identification`); a hit is a comparison of numbers.
 */
let month = { from: Number.NaN, to: Number.NaN, month: '' };

/** `YYYY-MM` in UTC: the month a free re-export lasts. */
export function chargeMonth(now: Date): string {
  const t = now.getTime();
  if (t >= month.from && t < month.to) return month.month;
  const value = now.toISOString().slice(0, 7);
  const d = new Date(t);
  month = { from: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1), month: value };
  return value;
}

/** Per contract start: the contract year and the instants it holds for, [anniversary, next anniversary). */
const contractYears = new BoundedCache<string, { from: number; to: number; years: number }>(10_000);

/** The contract year (0-based) `now` falls in, counted from the contract start date. */
export function contractYear(contractStart: string, now: Date): number {
  const t = now.getTime();
  const known = contractYears.get(contractStart);
  if (known !== undefined && t >= known.from && t < known.to) return known.years;
  const start = new Date(contractStart.length === 10 ? `${contractStart}T00:00:00Z` : contractStart);
  if (Number.isNaN(start.getTime()) || now < start) return 0;
  // now >= start, so this year's anniversary is at the earliest the start itself: years >= 0.
  let years = now.getUTCFullYear() - start.getUTCFullYear();
  let from = anniversary(start, years);
  if (from > t) from = anniversary(start, --years);
  // The year is `years` exactly from its anniversary up to the next one (anniversaries only grow).
  contractYears.set(contractStart, { from, to: anniversary(start, years + 1), years });
  return years;
}

/** The current contract year as instants: from its anniversary up to the next one (when credits renew). */
export function contractYearRange(contractStart: string, now: Date): { start: Date; end: Date } {
  const start = new Date(contractStart.length === 10 ? `${contractStart}T00:00:00Z` : contractStart);
  const years = contractYear(contractStart, now);
  return { start: new Date(anniversary(start, years)), end: new Date(anniversary(start, years + 1)) };
}

/** The instant `years` contract years after `start`. */
function anniversary(start: Date, years: number): number {
  const d = new Date(start);
  d.setUTCFullYear(start.getUTCFullYear() + years);
  return d.getTime();
}

/**
 * The period a quota is counted in: the contract year (the spec says so for identification; enrichment
 * allocations are arranged per contract too, so both pools renew on the contract anniversary).
 */
export function quotaPeriod(contractStart: string, now: Date): string {
  return `year-${contractYear(contractStart, now)}`;
}

/**
 * Enrichment charges are deduplicated by this key — per customer: one customer's export never makes a
 * record free for another; identification charges never are.
 */
export function dedupeKey(customerId: string, api: ChargeableApi, record: string, now: Date): string | null {
  return poolOf(api) === 'enrichment' ? `${customerId}|${api}|${record}|${chargeMonth(now)}` : null;
}
