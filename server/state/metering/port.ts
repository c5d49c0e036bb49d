/**
 * What the metering service (service.ts) needs of a backend. Rate-limit hits and charges are the backend's
 * atomic primitives (one IMMEDIATE transaction per event-loop turn on SQLite, one Lua script per customer
 * and turn on Redis): the decision (limit, quota, dedupe) is made where the counters are, exactly once.
 */
import type { CreditPool, UsageRow } from '../../../core/usage-records.ts';
import type { StateEntry } from '../transfer/transfer.ts';
import type { ChargeOutcome, ChargeRequest, RateLimitHit, RateLimitRequest } from './service.ts';

export interface MeteringPort {
  hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]>;
  charge(req: ChargeRequest): Promise<ChargeOutcome>;
  /** Charges per pool, API and month (in that order of month, pool, api). */
  usage(customerId: string): Promise<UsageRow[]>;
  /** Credits used in the quota period (0 when none). */
  creditsUsed(customerId: string, pool: CreditPool, period: string): Promise<number>;
  /** Credit balances, then the ledger. */
  exportEntries(): AsyncIterable<StateEntry>;
}
