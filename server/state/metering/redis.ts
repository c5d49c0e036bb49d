/**
 * Metering on Redis (port.ts): rate-limit counters, credit balances, the monthly dedup and the ledger in
 * each customer's slot, written by the METER script through the turn batcher (redis/batcher.ts). While
 * Redis is unreachable identification goes on against the local allowance and its journal
 * (redis/journal.ts), replayed here exactly once when Redis is back; other metering fails closed (503).
 */
import { randomUUID } from 'node:crypto';
import type { CreditPool, UsageRow } from '../../../core/usage-records.ts';
import { StoreUnavailableError } from '../errors.ts';
import type { MeterBatcher, MeterOp } from '../redis/batcher.ts';
import { scanKeys, shardUnreachable } from '../redis/connection.ts';
import { ShardSilent } from '../redis/epoch.ts';
import type { JournaledCharge } from '../redis/journal.ts';
import { DEDUPE_TTL_MS, keys } from '../redis/keys.ts';
import type { RedisBackend } from '../redis/lifecycle.ts';
import { LedgerEntry, StateEntry } from '../transfer/transfer.ts';
import type { MeteringPort } from './port.ts';
import type { ChargeOutcome, ChargeRequest, RateLimitHit, RateLimitRequest } from './service.ts';

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
    const windowStart = req.nowMs - (req.nowMs % req.windowMs);
    let counts: number[];
    try {
      counts = (await this.batcher.enqueue({
        customer: req.customer_id,
        keys: { k: req.counters.map((c) => keys.rate(req.customer_id, windowStart, c.key)) },
        op: { t: 'rl', ttl: 2 * req.windowMs, lim: req.counters.map((c) => c.limit) },
      })) as number[];
    } catch (e) {
      // Sent and lost (connection dropped mid-flight, or no answer in time): whether it counted is
      // unknown; count locally. On a cluster, also when only this customer's shard is out of reach (a
      // primary failing over): the other shards keep the node "connected".
      if (!this.b.connected || (this.b.cluster && shardUnreachable(e))) return this.offlineRate(req);
      throw this.b.unavailable(e);
    }
    return req.counters.map(({ limit }, i) => ({
      allowed: counts[i] <= limit,
      limit,
      remaining: Math.max(0, limit - counts[i]),
      resetMs: windowStart + req.windowMs - req.nowMs,
    }));
  }

  private offlineRate(req: RateLimitRequest): RateLimitHit[] {
    if (this.b.epoch.lost !== null) throw new StoreUnavailableError(this.b.epoch.lost, 5);
    if (!req.degradable) throw new StoreUnavailableError('Redis is unreachable: this API fails closed until it is back');
    return this.b.outage.hitRateLimits(req);
  }

  /**
   * `id`: identification charges carry one in their ledger entry, so that a charge whose answer was lost
   * with the connection can be journaled under it and replayed only if Redis had not counted it.
   */
  private chargeOp(r: ChargeRequest, replay?: JournaledCharge, id?: string) {
    const chargeId = replay?.id ?? id;
    const entry = JSON.stringify(chargeId ? { ...ledgerOf(r), id: chargeId } : ledgerOf(r));
    const ks: Record<string, string> = { u: keys.used(r.customer_id, r.pool, r.period), l: keys.ledger(r.customer_id), s: keys.usage(r.customer_id) };
    const op: Record<string, unknown> = { t: 'ch', q: r.quota, e: entry, f: `${r.pool}|${r.api}|${r.month}`, p: r.partner !== null };
    if (replay) {
      ks.r = keys.replayed(r.customer_id);
      op.id = replay.id;
      if (replay.uncertain) op.x = true;
    } else if (r.dedupe_key !== null) {
      ks.d = keys.dedupe(r.customer_id, r.month);
      op.dk = r.dedupe_key;
      op.dttl = DEDUPE_TTL_MS;
    }
    return { customer: r.customer_id, keys: ks, op };
  }

  async charge(r: ChargeRequest): Promise<ChargeOutcome> {
    const { outage } = this.b;
    if (!this.b.connected) {
      const outcome = this.offlineCharge(r);
      // A journaled charge is answered only once it is on disk (an outcome of 'exhausted' journals nothing).
      if (outcome.outcome === 'charged') await outage.synced();
      return outcome;
    }
    const id = r.pool === 'identification' ? randomUUID() : undefined;
    let reply: [string, number];
    try {
      reply = (await this.batcher.enqueue(this.chargeOp(r, undefined, id))) as [string, number];
    } catch (e) {
      // The connection dropped (or Redis stalled) with the charge in flight: Redis may or may not count
      // it. An identification answer goes out on the outage allowance, journaled under the same id, and
      // the replay (after Redis has answered a PING sent behind the charge) counts it only if its ledger
      // entry is not there already — so credits equal the answers clients got. Other pools fail closed
      // (their callers retry).
      if (id && this.b.epoch.lost === null) {
        const outcome = outage.charge(r, { id, uncertain: true });
        if (outcome) {
          await outage.synced();
          return outcome;
        }
      }
      throw this.b.unavailable(e);
    }
    const [outcome, used] = reply;
    const result: ChargeOutcome =
      outcome === 'exhausted' ? { outcome: 'exhausted', remaining: 0 } : { outcome: outcome as 'charged' | 'free', remaining: Math.max(0, r.quota - used) };
    outage.observe(r, result);
    return result;
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
   * Replays the journal of charges made while Redis was unreachable: each exactly once (the script
   * skips ids it has seen), then removes the file. Runs when Redis is (back) ready; until it finished,
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
        for (const { file, charges } of journals) {
          for (let i = 0; i < charges.length; i += REPLAY_CHUNK) {
            const chunk = charges.slice(i, i + REPLAY_CHUNK);
            const byCustomer = new Map<string, MeterOp[]>();
            const done: Promise<unknown>[] = [];
            for (const j of chunk) {
              done.push(
                new Promise((resolve, reject) => {
                  const op = { ...this.chargeOp(j.charge, j), resolve, reject };
                  const list = byCustomer.get(j.charge.customer_id);
                  if (list) list.push(op);
                  else byCustomer.set(j.charge.customer_id, [op]);
                }),
              );
            }
            for (const group of byCustomer.values()) void this.batcher.run(group);
            await Promise.all(done);
          }
          b.outage.drained(file);
          total += charges.length;
        }
        if (!b.outage.hasJournal) b.outage.resetAllowance();
        if (total > 0) b.log(`journal drained: ${total} charges made while Redis was unreachable replayed`, 'info');
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
