/**
 * Runs (meter-ops.ts ChargeRun): alike requests of a turn go to the METER script as one op. Whatever
 * the mix, each request gets the reply and Redis ends in the state that sending the same turns op by op
 * gives (the store opened with `meterRuns: false`, on a second redis-server).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { identificationCharge, TEST_CUSTOMER } from '../../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import type { ChargeRequest, RateLimitRequest } from '../metering/service.ts';
import { keys } from './keys.ts';
import { ChargeOp, ChargeRun, packCall, RateChargeOp, RateLimitOp } from './meter-ops.ts';
import { METER_SCRIPT } from './meter-script.ts';
import { RedisStateStore } from './store.ts';

let runs: RedisServer;
let oneByOne: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-meter-runs-'));
beforeAll(async () => {
  [runs, oneByOne] = await Promise.all([startRedisServer(), startRedisServer()]);
});
afterAll(async () => {
  await Promise.all([runs?.close(), oneByOne?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** A small deterministic generator (mulberry32): the same turns on both stores, a failure reproducible. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Request =
  | { kind: 'pair'; rate: RateLimitRequest; charge: ChargeRequest }
  | { kind: 'charge'; charge: ChargeRequest }
  | { kind: 'hit'; rate: RateLimitRequest };

/** One turn of `n` requests: mostly alike (one token), with the variations that must break a run. */
function turn(next: () => number, customer: string, n: number, nowMs: number, i0: number): Request[] {
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
  // Hits alone (requests that exported nothing): a few, half, or all of the turn.
  const hits = pick([0.04, 0.04, 0.5, 1]);
  const out: Request[] = [];
  for (let i = 0; i < n; i++) {
    const counters = pick([
      [{ key: 'token:a', limit: 40 }],
      [{ key: 'token:a', limit: 40 }],
      [{ key: 'token:a', limit: 40 }],
      [{ key: 'token:b', limit: 12 }],
      [
        { key: 'token:a', limit: 40 },
        { key: `ip:${pick(['x', 'y'])}`, limit: 9 },
      ],
      [{ key: 'token:a', limit: 25 }],
    ]);
    const rate: RateLimitRequest = { customer_id: customer, counters, windowMs: 60_000, nowMs, degradable: true };
    const charge: ChargeRequest = {
      ...identificationCharge(i0 + i),
      customer_id: customer,
      quota: pick([70, 70, 70, 55]),
      api: pick(['identification', 'identification', 'company-details-v3' as ChargeRequest['api']]),
      partner: next() < 0.15 ? 'crm' : null,
      token_id: 'tok',
    };
    const r = next();
    if (next() < hits) out.push({ kind: 'hit', rate });
    else if (r < 0.08) out.push({ kind: 'pair', rate, charge: { ...charge, dedupe_key: `${customer}|request|${Math.floor(next() * 4)}` } });
    else if (r < 0.13) out.push({ kind: 'charge', charge });
    else out.push({ kind: 'pair', rate, charge });
  }
  return out;
}

/** Sends a turn's requests in the same event-loop turn (one batch); each one's reply with the ledger id left out. */
async function send(s: RedisStateStore, requests: Request[]): Promise<unknown[]> {
  return Promise.all(
    requests.map((r) => (r.kind === 'pair' ? s.hitAndCharge(r.rate, r.charge) : r.kind === 'charge' ? s.charge(r.charge) : s.hitRateLimits(r.rate))),
  );
}

/** Every key of `customer` and what it holds (ledger entries without their random ids; whether a TTL is set). */
async function dump(url: string, customer: string): Promise<Record<string, unknown>> {
  const c = createClient({ url });
  await c.connect();
  try {
    const out: Record<string, unknown> = {};
    // The customer's record (created at slightly different times on the two) is not metering's.
    for (const key of (await c.keys(`*${customer}*`)).sort().filter((k) => !k.endsWith(':customer'))) {
      const type = await c.type(key);
      const ttl = (await c.pTTL(key)) > 0;
      if (type === 'string') out[key] = { v: await c.get(key), ttl };
      else if (type === 'hash') out[key] = { v: await c.hGetAll(key), ttl };
      else if (type === 'list')
        out[key] = {
          v: (await c.lRange(key, 0, -1)).map((e) => {
            const { id: _id, ...rest } = JSON.parse(e) as Record<string, unknown>;
            return rest;
          }),
          ttl,
        };
      else if (type === 'set') out[key] = { v: (await c.sMembers(key)).length, ttl };
      else out[key] = { type, ttl };
    }
    return out;
  } finally {
    await c.close();
  }
}

it('answers every request of random turns and leaves Redis as the same turns sent op by op do', async () => {
  const customer = 'runs';
  const [a, b] = await Promise.all([
    RedisStateStore.open({ url: runs.url, journalDir: join(dir, 'runs'), outageAllowance: 10 }),
    RedisStateStore.open({ url: oneByOne.url, journalDir: join(dir, 'one'), outageAllowance: 10, meterRuns: false }),
  ]);
  const admins = await Promise.all([runs.url, oneByOne.url].map((url) => createClient({ url }).connect()));
  try {
    await Promise.all([a, b].map((s) => s.createCustomer({ ...TEST_CUSTOMER, id: customer, tags: [] })));
    await Promise.all(admins.map((c) => c.sendCommand(['CONFIG', 'RESETSTAT'])));
    const next = random(38);
    const nowMs = Date.UTC(2026, 11, 7, 12, 0, 0);
    let i0 = 0;
    // Turns of 1–48 requests; counters and quotas run out along the way (limits 9–40 a minute, quota 55–70).
    for (let t = 0; t < 20; t++) {
      const n = 1 + Math.floor(next() * 48);
      const requests = turn(next, customer, n, nowMs + t * 7_000, i0);
      i0 += n;
      const [ra, rb] = await Promise.all([send(a, requests), send(b, requests)]);
      expect(ra, `turn ${t}`).toEqual(rb);
    }
    expect(await dump(runs.url, customer)).toEqual(await dump(oneByOne.url, customer));
    // Both made the same charges; the runs in far fewer script arguments (the op-by-op store sends ~20 a request).
    const ledger = await admins[0]!.lLen(keys.ledger(customer));
    expect(ledger).toBeGreaterThan(40);
    expect(ledger).toBeLessThan(i0);
  } finally {
    await Promise.all(admins.map((c) => c.close()));
    await Promise.all([a.close(), b.close()]);
  }
});

it('writes a run of more charges than one RPUSH takes (2,500 in one turn) as the same requests op by op do', async () => {
  const customer = 'burst';
  const [a, b] = await Promise.all([
    RedisStateStore.open({ url: runs.url, journalDir: join(dir, 'burst-runs'), outageAllowance: 10 }),
    RedisStateStore.open({ url: oneByOne.url, journalDir: join(dir, 'burst-one'), outageAllowance: 10, meterRuns: false }),
  ]);
  try {
    await Promise.all([a, b].map((s) => s.createCustomer({ ...TEST_CUSTOMER, id: customer, tags: [] })));
    const nowMs = Date.UTC(2026, 11, 7, 12, 0, 0);
    // One turn of alike requests, under the limit and the quota: one run, every request charged.
    const requests: Request[] = Array.from({ length: 2_500 }, (_, i) => ({
      kind: 'pair',
      rate: { customer_id: customer, counters: [{ key: 'token:a', limit: 10_000 }], windowMs: 60_000, nowMs, degradable: true },
      charge: { ...identificationCharge(i), customer_id: customer, quota: 100_000, token_id: 'tok' },
    }));
    const [ra, rb] = await Promise.all([send(a, requests), send(b, requests)]);
    expect(ra).toEqual(rb);
    expect(await dump(runs.url, customer)).toEqual(await dump(oneByOne.url, customer));
    const c = createClient({ url: runs.url });
    await c.connect();
    try {
      const ledger = await c.lRange(keys.ledger(customer), 0, -1);
      expect(ledger).toHaveLength(2_500);
      // In the order sent, across the script's chunks of 1,000.
      expect(ledger.map((e) => (JSON.parse(e) as { record: string }).record)).toEqual(requests.map((r) => (r.kind === 'pair' ? r.charge.record : '')));
    } finally {
      await c.close();
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

it("answers 'duplicate' for a run's request settled out of band, and counts the rest of the run", async () => {
  const c = createClient({ url: runs.url });
  await c.connect();
  try {
    const customer = 'settled';
    const k = {
      used: keys.used(customer, 'identification', 'year-0'),
      ledger: keys.ledger(customer),
      usage: keys.usage(customer),
      settled: keys.replayed(customer),
      dedupe: null,
    };
    const op = (i: number) =>
      new RateChargeOp(
        new RateLimitOp(customer, [keys.rate(customer, 0, 'token:s')], [3], 120_000),
        new ChargeOp(customer, k, null, 0, 2, JSON.stringify({ id: `id-${i}` }), 'identification|identification|2026-12', false, `id-${i}`, ''),
      );
    const run = new ChargeRun(op(0));
    for (let i = 1; i < 5; i++) expect(run.add(op(i))).toBe(true);
    // The second request was settled by its node while its answer was lost: it counts nothing.
    await c.sAdd(k.settled, 'id-1');
    const keyList: string[] = [];
    const args = packCall([run], (name) => String(keyList.includes(name) ? keyList.indexOf(name) + 1 : keyList.push(name)));
    const sha = createHash('sha1').update(METER_SCRIPT).digest('hex');
    await c.scriptLoad(METER_SCRIPT);
    const [reply] = JSON.parse((await c.evalSha(sha, { keys: keyList, arguments: args })) as string) as unknown[];

    expect(reply).toEqual([[0], 3, 0, [2]]);
    // Limit 3: three admitted; quota 2: the first and third charged, the second a duplicate; the last two limited.
    expect(run.replies(reply)).toEqual([
      [[1], ['charged', 1]],
      [[2], ['duplicate', 1]],
      [[3], ['charged', 2]],
      [[4], 'limited'],
      [[4], 'limited'],
    ]);
    expect(await c.get(k.used)).toBe('2');
    expect(await c.lRange(k.ledger, 0, -1)).toEqual([JSON.stringify({ id: 'id-0' }), JSON.stringify({ id: 'id-2' })]);
    expect(await c.get(keys.rate(customer, 0, 'token:s'))).toBe('3');
  } finally {
    await c.close();
  }
});

it('breaks a run where a request differs: another counter, limit, window, quota, usage field, partner, dedup key or mode', () => {
  const customer = 'breaks';
  const k = { used: 'u', ledger: 'l', usage: 's', settled: 'r', dedupe: null };
  const op = (o: { key?: string; limit?: number; quota?: number; field?: string; partner?: boolean; dedupe?: string; mode?: '' | 'j' } = {}) =>
    new RateChargeOp(
      new RateLimitOp(customer, [o.key ?? 'rl:a'], [o.limit ?? 10], 120_000),
      new ChargeOp(
        customer,
        o.dedupe ? { ...k, dedupe: 'd' } : k,
        o.dedupe ?? null,
        0,
        o.quota ?? 5,
        '{}',
        o.field ?? 'identification|identification|2026-12',
        o.partner ?? false,
        'id',
        o.mode ?? '',
      ),
    );
  const run = new ChargeRun(op());
  expect(run.add(op())).toBe(true);
  // A hit alone (its request exported nothing) of the same counters is part of the run.
  expect(run.add(new RateLimitOp(customer, ['rl:a'], [10], 120_000))).toBe(true);
  expect(run.add(new RateLimitOp(customer, ['rl:a'], [10], 60_000))).toBe(false);
  for (const other of [op({ key: 'rl:b' }), op({ limit: 11 }), op({ quota: 6 }), op({ field: 'identification|x|2026-12' }), op({ partner: true })])
    expect(run.add(other)).toBe(false);
  expect(ChargeRun.fits(op({ dedupe: 'retry' }))).toBe(false);
  expect(ChargeRun.fits(op({ mode: 'j' }))).toBe(false);
});
