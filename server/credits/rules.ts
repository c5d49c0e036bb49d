/**
 * Credit rules (spec "Credits"), pure: which APIs charge, from which pool, and what makes two charges
 * "the same" so the second is free.
 *   identification: 1 credit per Match response, every time (a repeated IP is charged again), from the
 *     identification pool. Quotas of both pools run per contract year from the customer's contract start.
 *   enrichment pool: Company Firmographics v3 and v2, Lead Scoring and Firmographics, People Enrichment —
 *     one charge per (API, record, UTC calendar month); the same record through another API is charged again.
 *   Lead Scoring and People Search never charge; 404s never charge.
 */
export const CHARGEABLE_APIS = ['identification', 'company-firmographics-v3', 'company-firmographics-v2', 'lead-scoring-firmographics', 'people-enrichment'] as const;
export type ChargeableApi = (typeof CHARGEABLE_APIS)[number];
export type CreditPool = 'identification' | 'enrichment';

export function poolOf(api: ChargeableApi): CreditPool {
  return api === 'identification' ? 'identification' : 'enrichment';
}

/** `YYYY-MM` in UTC: the month a free re-export lasts. */
export function chargeMonth(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** The contract year (0-based) `now` falls in, counted from the contract start date. */
export function contractYear(contractStart: string, now: Date): number {
  const start = new Date(contractStart.length === 10 ? `${contractStart}T00:00:00Z` : contractStart);
  if (Number.isNaN(start.getTime()) || now < start) return 0;
  let years = now.getUTCFullYear() - start.getUTCFullYear();
  const anniversary = new Date(start);
  anniversary.setUTCFullYear(start.getUTCFullYear() + years);
  if (anniversary > now) years--;
  return Math.max(0, years);
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
