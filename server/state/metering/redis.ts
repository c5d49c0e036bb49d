/**
 * Metering on Redis (port.ts): rate-limit counters, credit balances, the monthly dedup and the ledger in
 * each customer's slot, written by the METER script through the turn batcher (redis/batcher.ts). While
 * Redis is unreachable identification goes on against the local allowance and its journal
 * (redis/journal.ts), replayed here exactly once when Redis is back; other metering fails closed (503).
 */
import { randomUUID } from 'node:crypto';
import type { CreditPool, UsageRow } from '../../../core/usage-records.ts';
import { StoreUnavailableError } from '../errors.ts';
import { type MeterBatcher, UnconfirmedCharge } from '../redis/batcher.ts';
import { neverSent, scanKeys, shardUnreachable } from '../redis/connection.ts';
import { ShardSilent } from '../redis/epoch.ts';
import type { JournaledCharge } from '../redis/journal.ts';
import { DEDUPE_TTL_MS, keys } from '../redis/keys.ts';
import type { RedisBackend } from '../redis/lifecycle.ts';
import { ChargeOp, type MeterOp, RateChargeOp, RateLimitOp } from '../redis/meter-ops.ts';
import { LedgerEntry, StateEntry } from '../transfer/transfer.ts';
import { type MeteringPort, sequentially } from './port.ts';
import type { ChargeOutcome, ChargeRequest, MeterResult, RateLimitHit, RateLimitRequest } from './service.ts';

/** Journal entries replayed per script call. */
const REPLAY_CHUNK = 500;

export class RedisMetering implements MeteringPort {
  /** The journal replay under way, if any. */
  draining: Promise<void> | null = null;

  constructor(
    private readonly b: RedisBackend,
    private readonly batcher: MeterBatcher,
    /** The customers, in id order (the export walks them). */
    private readonly customerIds: () => Promise<string[]>,
  ) {}

  async hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]> {
    if (!this.b.connected) return this.offlineRate(req);
    let counts: number[];
    try {
      counts = (await this.batcher.enqueue(this.rateOp(req))) as number[];
    } catch (e) {
      return this.lostRate(req, e);
    }
    return hitsOf(req, counts);
  }

  private rateOp(req: RateLimitRequest): RateLimitOp {
    const windowStart = req.nowMs - (req.nowMs % req.windowMs);
    return new RateLimitOp(
      req.customer_id,
      req.counters.map((c) => keys.rate(req.customer_id, windowStart, c.key)),
      req.counters.map((c) => c.limit),
      2 * req.windowMs,
    );
  }

  /**
   * A hit sent and lost (connection dropped mid-flight, or no answer in time): whether it counted is
   * unknown; count locally. On a cluster, also when only this customer's shard is out of reach (a primary
   * failing over): the other shards keep the node "connected".
   */
  private lostRate(req: RateLimitRequest, e: unknown): RateLimitHit[] {
    if (!this.b.connected || (this.b.cluster && shardUnreachable(e))) return this.offlineRate(req);
    throw this.b.unavailable(e);
  }

  /**
   * The hit and the charge in one op (one script op pair, one round trip): the charge only if every
   * counter admits the request. What either part does when the answer is lost is what its own method
   * does, and a charge that may have run for a request answered 429 or 503 is voided as `unanswered` voids.
   */
  async hitAndCharge(rate: RateLimitRequest, charge: ChargeRequest): Promise<MeterResult> {
    if (!this.b.connected) return sequentially(this, rate, charge);
    const id = randomUUID();
    let reply: [number[], [string, number] | 'limited'];
    try {
      reply = (await this.batcher.enqueue(new RateChargeOp(this.rateOp(rate), this.chargeOp(charge, id)))) as typeof reply;
    } catch (e) {
      if (!(e instanceof UnconfirmedCharge)) return this.lostHitAndCharge(rate, charge, id, e);
      reply = e.reply as typeof reply;
      if (reply[1] !== 'limited' && reply[1][0] === 'charged') await this.unconfirmed(charge, id);
    }
    const hits = hitsOf(rate, reply[0]);
    return { hits, outcome: reply[1] === 'limited' ? null : this.outcomeOf(charge, reply[1]) };
  }

  private async lostHitAndCharge(rate: RateLimitRequest, charge: ChargeRequest, id: string, e: unknown): Promise<MeterResult> {
    let hits: RateLimitHit[];
    try {
      hits = this.lostRate(rate, e);
    } catch (refused) {
      await this.voidLost(charge, id, e);
      throw refused;
    }
    if (!hits.every((h) => h.allowed)) {
      await this.voidLost(charge, id, e);
      return { hits, outcome: null };
    }
    return { hits, outcome: await this.unanswered(charge, id, e) };
  }

  /** A charge that may have reached Redis, for a request answered without it: taken back if it ran, never to run. */
  private async voidLost(r: ChargeRequest, id: string, e: unknown): Promise<void> {
    if (neverSent(e)) return;
    this.b.outage.settleLater(r, id, false);
    await this.b.outage.synced();
  }

  /** Made on the primary, not confirmed on a replica: journaled so the replay counts it only if the new primary lacks it. */
  private async unconfirmed(r: ChargeRequest, id: string): Promise<void> {
    this.b.outage.settleLater(r, id, true);
    await this.b.outage.synced();
  }

  private outcomeOf(r: ChargeRequest, [outcome, used]: [string, number]): ChargeOutcome {
    const result: ChargeOutcome =
      outcome === 'exhausted' ? { outcome: 'exhausted', remaining: 0 } : { outcome: outcome as 'charged' | 'free', remaining: Math.max(0, r.quota - used) };
    this.b.outage.observe(r, result);
    return result;
  }

  private offlineRate(req: RateLimitRequest): RateLimitHit[] {
    if (this.b.epoch.lost !== null) throw new StoreUnavailableError(this.b.epoch.lost, 5);
    if (!req.degradable) throw new StoreUnavailableError('Redis is unreachable: this API fails closed until it is back');
    return this.b.outage.hitRateLimits(req);
  }

  /**
   * Every charge sent carries an id, in its ledger entry and in the op: a charge whose answer is lost with
   * the connection (or the deadline) is journaled under it — to be counted once if its request was
   * answered as charged, taken back if not — and a charge that runs after its node settled it that way
   * counts nothing (meter-script.ts, `r`).
   */
  private chargeOp(r: ChargeRequest, id: string, journaled?: JournaledCharge): ChargeOp {
    const c = r.customer_id;
    return new ChargeOp(
      c,
      {
        used: keys.used(c, r.pool, r.period),
        ledger: keys.ledger(c),
        usage: keys.usage(c),
        settled: keys.replayed(c),
        dedupe: r.dedupe_key === null ? null : keys.dedupe(c, r.month),
      },
      r.dedupe_key,
      DEDUPE_TTL_MS,
      r.quota,
      ledgerJson(r, id),
      `${r.pool}|${r.api}|${r.month}`,
      r.partner !== null,
      id,
      journaled === undefined ? '' : journaled.void ? 'v' : journaled.uncertain ? 'x' : 'j',
    );
  }

  async charge(r: ChargeRequest): Promise<ChargeOutcome> {
    const { outage } = this.b;
    if (!this.b.connected) {
      const outcome = this.offlineCharge(r);
      // A journaled charge is answered only once it is on disk (an outcome of 'exhausted' journals nothing).
      if (outcome.outcome === 'charged') await outage.synced();
      return outcome;
    }
    const id = randomUUID();
    let reply: [string, number];
    try {
      reply = (await this.batcher.enqueue(this.chargeOp(r, id))) as [string, number];
    } catch (e) {
      if (!(e instanceof UnconfirmedCharge)) return this.unanswered(r, id, e);
      // Made on the primary, which may be failing over before a replica has it: journaled like a charge
      // whose answer was lost, so the replay counts it only if the new primary lacks it.
      reply = e.reply as [string, number];
      if (reply[0] === 'charged') await this.unconfirmed(r, id);
    }
    return this.outcomeOf(r, reply);
  }

  /**
   * A charge without an answer. When it may have reached Redis (sent, then the connection dropped or the
   * deadline passed — a stalled Redis runs it when it resumes, a cluster client may still send it once
   * the slot's new primary is connected), Redis may count it now, later, or never; nothing here can wait
   * to find out. An identification request is answered on the outage allowance, journaled under the
   * charge's id, and the replay counts it only if Redis did not — so credits equal the answers clients
   * got. Any other answer (503 for a spent allowance and for the other pools, which fail closed; 402) is
   * given only once the charge's void is journaled under its id: the replay takes it back if Redis
   * counted it and makes sure it never counts later — no credit is spent on an answer a client did not get.
   */
  private async unanswered(r: ChargeRequest, id: string, e: unknown): Promise<ChargeOutcome> {
    const { outage } = this.b;
    const sent = !neverSent(e);
    let outcome: ChargeOutcome | null = null;
    if (r.pool === 'identification' && this.b.epoch.lost === null) {
      outcome = outage.charge(r, sent ? { id, uncertain: true } : { id });
      if (outcome?.outcome === 'charged') {
        await outage.synced();
        return outcome;
      }
    }
    if (sent) {
      outage.settleLater(r, id, false);
      await outage.synced();
    }
    if (outcome) return outcome;
    throw this.b.unavailable(e);
  }

  private offlineCharge(r: ChargeRequest): ChargeOutcome {
    // No journal against a Redis that lost the data: it could never be replayed into it.
    if (this.b.epoch.lost !== null) throw new StoreUnavailableError(this.b.epoch.lost, 5);
    // Enrichment and people exports are server-to-server and retryable: fail closed, nothing charged.
    if (r.pool !== 'identification') throw new StoreUnavailableError('Redis is unreachable: credit accounting for this API fails closed until it is back');
    const outcome = this.b.outage.charge(r);
    if (outcome === null) throw new StoreUnavailableError('Redis is unreachable and the local allowance for this customer is spent', 5);
    return outcome;
  }

  /**
   * Replays the journal of charges made while Redis was unreachable (and of charges whose answer was
   * lost, to count or to take back): each exactly once (the script skips ids it has seen), then removes
   * the file. Runs when Redis is (back) ready; until it finished,
   * identification charges keep using the allowance, so the replayed charges are counted first.
   */
  drainJournal(): Promise<void> {
    const { b } = this;
    if (this.draining || b.closed || !b.connected) return this.draining ?? Promise.resolve();
    const run = async () => {
      try {
        // Never into a Redis that is not the one the charges were made against (checked just before).
        if (!(await b.epoch.check())) return;
        const journals = b.outage.takeJournal(b.epoch.value);
        let total = 0;
        let voided = 0;
        let refunded = 0;
        for (const { file, charges } of journals) {
          for (let i = 0; i < charges.length; i += REPLAY_CHUNK) {
            const chunk = charges.slice(i, i + REPLAY_CHUNK);
            const byCustomer = new Map<string, MeterOp[]>();
            const done: Promise<unknown>[] = [];
            for (const j of chunk) {
              const op = this.chargeOp(j.charge, j.id, j);
              done.push(
                new Promise((resolve, reject) => {
                  op.resolve = resolve;
                  op.reject = reject;
                }),
              );
              const list = byCustomer.get(j.charge.customer_id);
              if (list) list.push(op);
              else byCustomer.set(j.charge.customer_id, [op]);
            }
            for (const group of byCustomer.values()) void this.batcher.run(group);
            for (const [outcome] of (await Promise.all(done)) as [string, number][]) if (outcome === 'refunded') refunded++;
          }
          b.outage.drained(file);
          for (const j of charges) if (j.void) voided++;
          total += charges.length;
        }
        if (!b.outage.hasJournal) b.outage.resetAllowance();
        if (total > voided) b.log(`journal drained: ${total - voided} charges made while Redis was unreachable replayed`, 'info');
        if (voided > 0) b.log(`journal drained: ${voided} charges of requests refused while their answer was lost settled, ${refunded} taken back`, 'info');
      } catch (e) {
        // A shard failing over: tried again in a second, once every shard shows its data is there.
        if (e instanceof ShardSilent) return;
        b.log(`journal replay interrupted (${(e as Error).message}); retrying when Redis is reachable`);
      }
    };
    // Cleared after the assignment (a run with nothing to do finishes synchronously).
    this.draining = run().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  async usage(customerId: string): Promise<UsageRow[]> {
    const h = await this.b.io(() => this.b.client.hGetAll(keys.usage(customerId)));
    const rows = new Map<string, UsageRow>();
    for (const [field, n] of Object.entries(h)) {
      const [pool, api, month, kind] = field.split('|');
      const id = `${month}|${pool}|${api}`;
      const row = rows.get(id) ?? { pool: pool as CreditPool, api, month, charges: 0, partner_charges: 0 };
      if (kind === 'c') row.charges = Number(n);
      else row.partner_charges = Number(n);
      rows.set(id, row);
    }
    return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  }

  async creditsUsed(customerId: string, pool: CreditPool, period: string): Promise<number> {
    return Number((await this.b.io(() => this.b.client.get(keys.used(customerId, pool, period)))) ?? 0);
  }

  async *exportEntries(): AsyncIterable<StateEntry> {
    const { b } = this;
    const customers = await this.customerIds();
    for (const c of customers) {
      const usedKeys: string[] = [];
      // SCAN, not KEYS: an export must not block a live server.
      for await (const batch of scanKeys(b.client, `svc:{cust:${c}}:used:*`)) usedKeys.push(...batch);
      for (const key of usedKeys.sort()) {
        const [pool, period] = key.slice(keys.used(c, '', '').length - 1).split(':');
        yield StateEntry.parse({ type: 'credit_usage', customer_id: c, pool, period, used: Number(await b.client.get(key)) });
      }
    }
    for (const c of customers) {
      const n = await b.io(() => b.client.lLen(keys.ledger(c)));
      for (let i = 0; i < n; i += 1000) {
        for (const raw of await b.io(() => b.client.lRange(keys.ledger(c), i, i + 999))) {
          yield { type: 'charge', charge: LedgerEntry.parse(JSON.parse(raw)) };
        }
      }
    }
  }

  /** Writes one imported entry of metering (false: not one of its); inside the import's io. */
  async importEntry(e: StateEntry): Promise<boolean> {
    const { client } = this.b;
    if (e.type === 'credit_usage') await client.set(keys.used(e.customer_id, e.pool, e.period), String(e.used));
    else if (e.type === 'charge') {
      const c = e.charge;
      const m = client
        .multi()
        .rPush(keys.ledger(c.customer_id), JSON.stringify(ledgerOf(c)))
        .hIncrBy(keys.usage(c.customer_id), `${c.pool}|${c.api}|${c.month}|c`, 1);
      if (c.partner !== null) m.hIncrBy(keys.usage(c.customer_id), `${c.pool}|${c.api}|${c.month}|p`, 1);
      if (c.dedupe_key !== null) m.hSet(keys.dedupe(c.customer_id, c.month), c.dedupe_key, '1').pExpire(keys.dedupe(c.customer_id, c.month), DEDUPE_TTL_MS);
      await m.exec();
    } else return false;
    return true;
  }
}

/**
 * A charge's ledger entry as stored: `ledgerOf`'s fields and the id, in that order (the script finds an
 * entry by its exact text), written as one string rather than through a spread copy per charge.
 */
function ledgerJson(r: LedgerEntry, id: string): string {
  return JSON.stringify({
    customer_id: r.customer_id,
    api: r.api,
    pool: r.pool,
    record: r.record,
    month: r.month,
    period: r.period,
    dedupe_key: r.dedupe_key,
    token_id: r.token_id,
    partner: r.partner,
    at: r.at,
    id,
  });
}

/** The ledger entry of a charge: the fields export and usage reports need, in a fixed order. */
function ledgerOf(r: LedgerEntry): LedgerEntry {
  return {
    customer_id: r.customer_id,
    api: r.api,
    pool: r.pool,
    record: r.record,
    month: r.month,
    period: r.period,
    dedupe_key: r.dedupe_key,
    token_id: r.token_id,
    partner: r.partner,
    at: r.at,
  };
}

/** The hits of a request's counters from their counts after the hit. */
function hitsOf(req: RateLimitRequest, counts: number[]): RateLimitHit[] {
  const windowStart = req.nowMs - (req.nowMs % req.windowMs);
  return req.counters.map(({ limit }, i) => ({
    allowed: counts[i] <= limit,
    limit,
    remaining: Math.max(0, limit - counts[i]),
    resetMs: windowStart + req.windowMs - req.nowMs,
  }));
}
