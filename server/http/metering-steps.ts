/** The pipeline's rate-limit and credit steps, backed by the state store's metering (shared by every node). */
import type { ServerResponse } from 'node:http';
import { ApiError } from '../../core/error-codes.ts';
import type { CreditPool } from '../../core/usage-records.ts';
import type { Caller } from '../auth/authenticate.ts';
import { type ChargeableApi, chargeMonth, dedupeKey, poolOf, quotaPeriod } from '../credits/rules.ts';
import { limitKeys, WINDOW_MS } from '../limits/policy.ts';
import { noteCharge, noteStateStoreError } from '../observability/request-facts.ts';
import { StoreUnavailableError } from '../state/errors.ts';
import type { ChargeOutcome, ChargeRequest, Metering, RateCounter, RateLimitHit, RateLimitRequest } from '../state/metering/service.ts';
import { retryChargeKey } from './request-id.ts';

const POOL_NAMES = { identification: 'Company Identification API credits', enrichment: 'Enrichment APIs credits' } as const;

/**
 * Fails closed: if the store cannot count or charge, the request gets 503 rather than unmetered data —
 * an outage of the store must not turn into free, unlimited use.
 */
async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ApiError) throw e;
    noteStateStoreError(what);
    const retryAfter = e instanceof StoreUnavailableError ? e.retryAfterS : 1;
    throw new ApiError('unavailable', `${what} is unavailable, retry shortly`, { 'Retry-After': String(retryAfter) });
  }
}

/**
 * Identification (web tag, or an identification token) may be metered locally while a shared store is
 * unreachable (bounded allowance, journaled); every other API fails closed.
 */
export const isDegradable = (caller: Caller) => caller.tag !== null || caller.token?.api_group === 'identification';

/** Sets the RateLimit-* headers of a counter's hit (spec "Limits"), one call per header: no object on the hot path. */
export function setRateLimitHeaders(hit: RateLimitHit, setHeader: (name: string, value: string) => void): void {
  setHeader('RateLimit-Limit', String(hit.limit));
  setHeader('RateLimit-Remaining', String(hit.remaining));
  setHeader('RateLimit-Reset', String(Math.ceil(hit.resetMs / 1000)));
}

/** The RateLimit-* headers of a counter's hit, as an object (a 429's headers). */
export function rateLimitHeaders(hit: RateLimitHit): Record<string, string> {
  const headers: Record<string, string> = {};
  setRateLimitHeaders(hit, (name, value) => (headers[name] = value));
  return headers;
}

/**
 * The pipeline's metering steps on plain values: server/http/run-route.ts runs them for every API route
 * with a customer caller.
 */
export interface MeteringSteps {
  /**
   * Counts the request against the caller's counters; `report` gets the first counter's hit (the one the
   * RateLimit-* headers report) before any refusal is thrown as ApiError('rate_limited').
   */
  rateLimit(caller: Caller, visitorIp: string, report: (first: RateLimitHit) => void): Promise<void>;
  /**
   * Charges (or refuses with ApiError('quota_exhausted')); the outcome is noted on `res` for the request's
   * log line (null: no request, as for `svc enrich`, which charges through this same step).
   */
  charge(caller: Caller, charge: { api: ChargeableApi; record: string }, requestId: string | null, res: ServerResponse | null): Promise<void>;
  /**
   * `rateLimit`, then `charge` (when there is one) only if the request is admitted, as one metering
   * operation: for a route whose handler only reads (ApiRouteDef `meterAfterHandler`), so its metering is one
   * round trip to a shared store instead of two. Refusals as the two steps' (429 first, then 402).
   */
  rateLimitAndCharge(
    caller: Caller,
    visitorIp: string,
    report: (first: RateLimitHit) => void,
    charge: { api: ChargeableApi; record: string } | null,
    requestId: string | null,
    res: ServerResponse,
  ): Promise<void>;
}

export function createMeteringSteps(metering: Metering, now: () => Date = () => new Date()): MeteringSteps {
  const rateRequest = (caller: Caller, counters: RateCounter[]): RateLimitRequest => ({
    customer_id: caller.customer.id,
    counters,
    windowMs: WINDOW_MS,
    nowMs: now().getTime(),
    degradable: isDegradable(caller),
  });
  const chargeRequest = (caller: Caller, api: ChargeableApi, record: string, requestId: string | null): ChargeRequest => {
    const at = now();
    const pool = poolOf(api);
    return {
      customer_id: caller.customer.id,
      api,
      pool,
      record,
      period: quotaPeriod(caller.customer.contract_start, at),
      quota: pool === 'identification' ? caller.customer.identification_credits : caller.customer.enrichment_credits,
      // A proxy's retry of an identification request that one node already charged is not charged again.
      dedupe_key: dedupeKey(caller.customer.id, api, record, at) ?? (requestId ? retryChargeKey(caller.customer.id, requestId) : null),
      month: chargeMonth(at),
      token_id: caller.token?.id ?? null,
      partner: caller.partner,
      at: at.toISOString(),
    };
  };
  const hit = async (caller: Caller, counters: RateCounter[], report: (first: RateLimitHit) => void) => {
    if (counters.length === 0) return;
    // All counters of a request are hit together, in one metering operation.
    admit(await guarded('rate limiting', () => metering.hitRateLimits(rateRequest(caller, counters))), report);
  };
  const steps: MeteringSteps = {
    rateLimit(caller, visitorIp, report) {
      return hit(caller, limitKeys(caller, visitorIp), report);
    },

    async charge(caller, { api, record }, requestId, res) {
      const request = chargeRequest(caller, api, record, requestId);
      settle(await guarded('credit accounting', () => metering.charge(request)), request.pool, api, res);
    },

    async rateLimitAndCharge(caller, visitorIp, report, charge, requestId, res) {
      const counters = limitKeys(caller, visitorIp);
      if (charge === null || counters.length === 0) {
        await hit(caller, counters, report);
        if (charge !== null) await steps.charge(caller, charge, requestId, res);
        return;
      }
      const request = chargeRequest(caller, charge.api, charge.record, requestId);
      // The step's failure (503) names what the two steps' would: the counters are checked first.
      const { hits, outcome } = await guarded('rate limiting', () => metering.hitAndCharge(rateRequest(caller, counters), request));
      admit(hits, report);
      if (outcome !== null) settle(outcome, request.pool, charge.api, res);
    },
  };
  return steps;
}

/** Reports the first counter's hit; refuses (429) when any counter is over its limit. */
function admit(hits: RateLimitHit[], report: (first: RateLimitHit) => void): void {
  for (let i = 0; i < hits.length; i++) {
    const hit = hits[i];
    // The first counter (the caller's own) is the one reported on every answer.
    if (i === 0) report(hit);
    if (!hit.allowed) {
      const headers = rateLimitHeaders(hit);
      throw new ApiError('rate_limited', `rate limit exceeded: ${hit.limit} requests per minute; retry in ${headers['RateLimit-Reset']} s`, {
        ...headers,
        'Retry-After': headers['RateLimit-Reset'],
      });
    }
  }
}

/** Notes a charge's outcome for the request's log line; refuses (402) when the quota is spent. */
function settle(result: ChargeOutcome, pool: CreditPool, api: ChargeableApi, res: ServerResponse | null): void {
  if (res !== null) noteCharge(res, pool, api, result.outcome);
  if (result.outcome === 'exhausted') {
    throw new ApiError(
      'quota_exhausted',
      `quota exhausted: no ${POOL_NAMES[pool]} left for this contract year; contact your customer success manager to add credits`,
    );
  }
}
