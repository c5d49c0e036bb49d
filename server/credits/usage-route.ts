/**
 * `GET /v3/usage`: what the calling token may still use — per credit pool the contract year's quota, what
 * is used and left, and when the year restarts; the token's own rate limit. Any token of any group may
 * ask about itself; free (never charged), rate limited like every call of the token.
 */
import { z } from 'zod';
import type { TokenGroup } from '../../core/customer-records.ts';
import type { CreditPool } from '../../core/usage-records.ts';
import type { Caller } from '../auth/authenticate.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import type { UsageReports } from '../state/metering/service.ts';
import { usageDocs } from './docs.ts';
import { contractYearRange, quotaPeriod } from './rules.ts';

export const PoolUsage = z.object({
  pool: z.enum(['identification', 'enrichment']).describe('The credit pool'),
  quota: z.number().int().describe('Credits of the pool for the contract year'),
  used: z.number().int().describe('Credits used this contract year'),
  remaining: z.number().int().describe('quota − used, never below 0'),
  period: z.string().describe('The contract year the quota counts in: `year-N` from the contract start'),
  period_start: z.string().describe('When this contract year started (ISO 8601)'),
  period_end: z.string().describe('When the next contract year starts and the quota renews (ISO 8601)'),
});
export type PoolUsage = z.infer<typeof PoolUsage>;

/** The answer of GET /v3/usage: the schema is the type and the OpenAPI document's schema. */
export const UsageResponse = z.object({
  customer_id: z.string(),
  token: z.object({ id: z.string(), name: z.string(), api_group: z.string() }).describe('The calling token'),
  pools: z.array(PoolUsage).describe("The pools this token's calls spend; empty for a free group (Lead Scoring, People Search)"),
  rate_limit: z
    .object({ limit: z.number().int(), remaining: z.number().int(), reset_seconds: z.number().int() })
    .describe("The token's own rate limit as of this call (the same as the RateLimit-* headers)"),
});
export type UsageAnswer = z.infer<typeof UsageResponse>;

/** The pools each group's calls can spend (identification Matches; enrichment exports); Lead Scoring, People Search and the Segments API are free. */
export const GROUP_POOLS: Readonly<Record<TokenGroup, readonly CreditPool[]>> = {
  identification: ['identification'],
  'company-firmographics': ['enrichment'],
  'lead-scoring-firmographics': ['enrichment'],
  'lead-scoring': [],
  'people-enrichment': ['enrichment'],
  'people-search': [],
  segments: [],
};

export const usageRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/v3/usage',
    auth: { kind: 'any-token' },
    doc: usageDocs.get,
    async handler(ctx) {
      // The token's own counter as of this call: what the RateLimit-* headers of this answer report. A token
      // always has one; without it the figures are absent (null in JSON), as when they were read back from headers.
      const hit = ctx.rateLimit;
      const rate = hit
        ? { limit: hit.limit, remaining: hit.remaining, reset_seconds: Math.ceil(hit.resetMs / 1000) }
        : { limit: Number.NaN, remaining: Number.NaN, reset_seconds: Number.NaN };
      return { status: 200, body: await usageAnswer(ctx.services.store, ctx.caller!, rate) };
    },
  }),
];

export async function usageAnswer(store: UsageReports, caller: Caller, rate: UsageAnswer['rate_limit'], now = new Date()): Promise<UsageAnswer> {
  const { customer } = caller;
  const token = caller.token!;
  const period = quotaPeriod(customer.contract_start, now);
  const { start, end } = contractYearRange(customer.contract_start, now);
  const pools: PoolUsage[] = [];
  for (const pool of GROUP_POOLS[token.api_group]) {
    const quota = pool === 'identification' ? customer.identification_credits : customer.enrichment_credits;
    const b = await store.balance(customer.id, pool, period, quota);
    pools.push({ pool, quota, used: b.used, remaining: b.remaining, period, period_start: start.toISOString(), period_end: end.toISOString() });
  }
  return { customer_id: customer.id, token: { id: token.id, name: token.name, api_group: token.api_group }, pools, rate_limit: rate };
}
