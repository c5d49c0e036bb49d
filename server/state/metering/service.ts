/**
 * Metering: rate-limit hits and credit charges (limit check, balance check, monthly dedup, charge, ledger
 * entry). Each backend commits the operations that reach it in one event-loop turn as one atomic batch
 * (one SQLite IMMEDIATE transaction; one Lua script per customer on Redis, one round trip), so counts are
 * exact across processes and nodes. Usage reporting reads what metering wrote.
 */
import type { CreditPool, UsageRow } from '../../../core/usage-records.ts';
import type { ChargeableApi } from '../../credits/rules.ts';
import { type MeteringPort, sequentially } from './port.ts';

export interface ChargeRequest {
  customer_id: string;
  api: ChargeableApi;
  pool: CreditPool;
  record: string;
  /** Quota period (contract year) the charge counts in, and its quota. */
  period: string;
  quota: number;
  /** Charges sharing a non-null key are made once (enrichment: API, record, month). */
  dedupe_key: string | null;
  month: string;
  token_id: string | null;
  partner: string | null;
  at: string;
}

/** `charged`: a credit was spent; `free`: already paid this month; `exhausted`: nothing spent, answer 402. */
export type ChargeOutcome = { outcome: 'charged' | 'free'; remaining: number } | { outcome: 'exhausted'; remaining: 0 };

/** One counter a request counts against (the caller's own first: it is the one reported in headers). */
export interface RateCounter {
  key: string;
  limit: number;
}

/**
 * All counters of one request, hit together. `degradable`: whether a node may count them locally while
 * a shared backend is unreachable (identification, tag and token) or must fail closed (other APIs).
 */
export interface RateLimitRequest {
  customer_id: string;
  counters: RateCounter[];
  windowMs: number;
  nowMs: number;
  degradable: boolean;
}

export interface RateLimitHit {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** A request's hits, and its charge's outcome: null when a counter refused it (nothing charged). */
export interface MeterResult {
  hits: RateLimitHit[];
  outcome: ChargeOutcome | null;
}

export interface Metering {
  /** Counts one request against each counter in a fixed window; atomic across processes and nodes. */
  hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]>;
  /** Atomically: skip if already charged under the dedupe key, refuse if the quota is spent, else record. */
  charge(req: ChargeRequest): Promise<ChargeOutcome>;
  /** `hitRateLimits`, then `charge` only if every counter admitted the request: one round trip where the backend can. */
  hitAndCharge(rate: RateLimitRequest, charge: ChargeRequest): Promise<MeterResult>;
}

export interface CreditBalance {
  pool: CreditPool;
  period: string;
  quota: number;
  used: number;
  remaining: number;
}

export interface UsageReports {
  usage(customerId: string): Promise<UsageRow[]>;
  balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance>;
}

/** Metering and usage reports over a backend's primitives (port.ts). */
export class MeteringService implements Metering, UsageReports {
  constructor(private readonly port: MeteringPort) {}

  // The hot path: passed straight on (no await, no allocation here).
  hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]> {
    return this.port.hitRateLimits(req);
  }

  charge(req: ChargeRequest): Promise<ChargeOutcome> {
    return this.port.charge(req);
  }

  hitAndCharge(rate: RateLimitRequest, charge: ChargeRequest): Promise<MeterResult> {
    return this.port.hitAndCharge ? this.port.hitAndCharge(rate, charge) : sequentially(this.port, rate, charge);
  }

  usage(customerId: string): Promise<UsageRow[]> {
    return this.port.usage(customerId);
  }

  async balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance> {
    const used = await this.port.creditsUsed(customerId, pool, period);
    return { pool, period, quota, used, remaining: Math.max(0, quota - used) };
  }
}
