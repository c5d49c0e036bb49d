/**
 * What the metering service (service.ts) needs of a backend. Rate-limit hits and charges are the backend's
 * atomic primitives (one IMMEDIATE transaction per event-loop turn on SQLite, one Lua script per customer
 * and turn on Redis): the decision (limit, quota, dedupe) is made where the counters are, exactly once.
 */
import type { CreditPool, UsageRow } from '../../../core/usage-records.ts';
import type { StateEntry } from '../transfer/transfer.ts';
import type { ChargeOutcome, ChargeRequest, MeterResult, RateLimitHit, RateLimitRequest } from './service.ts';

export interface MeteringPort {
  hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]>;
  charge(req: ChargeRequest): Promise<ChargeOutcome>;
  /**
   * A request's hit and its charge as one operation, where that saves a round trip (Redis); absent: the
   * two one after the other (`sequentially`).
   */
  hitAndCharge?(rate: RateLimitRequest, charge: ChargeRequest): Promise<MeterResult>;
  /** Charges per pool, API and month (in that order of month, pool, api). */
  usage(customerId: string): Promise<UsageRow[]>;
  /** Credits used in the quota period (0 when none). */
  creditsUsed(customerId: string, pool: CreditPool, period: string): Promise<number>;
  /** Credit balances, then the ledger. */
  exportEntries(): AsyncIterable<StateEntry>;
}

/** The hit, then the charge only if every counter admitted the request. */
export async function sequentially(port: Pick<MeteringPort, 'hitRateLimits' | 'charge'>, rate: RateLimitRequest, charge: ChargeRequest): Promise<MeterResult> {
  const hits = await port.hitRateLimits(rate);
  for (const hit of hits) if (!hit.allowed) return { hits, outcome: null };
  return { hits, outcome: await port.charge(charge) };
}
