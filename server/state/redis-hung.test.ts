/**
 * The unkind Redis faults: a server that stops answering without closing the connection (SIGSTOP, as a
 * partition without RST looks), and a Redis that comes back without this deployment's data (restarted
 * without persistence, FLUSHALL). Real redis-server processes; each node is a store.
 */

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enrichmentCharge, identificationCharge, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { openRedisStore } from '../testing/state-backends.ts';
import { StoreUnavailableError } from './errors.ts';
import type { RateLimitRequest } from './metering/service.ts';
import type { RedisStateStore } from './redis/store.ts';

const TIMEOUT_MS = 400;
let dir: string;
const logs: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-hung-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const identification = (i: number) => identificationCharge(i, '10.1.0');
const enrichment = enrichmentCharge;
const rate = (degradable: boolean): RateLimitRequest => ({
  customer_id: 'acme',
  counters: [{ key: 'token:t1', limit: 1000 }],
  windowMs: 60_000,
  nowMs: Date.now(),
  degradable,
});
const timedOutcome = async <T>(p: Promise<T>) => {
  const start = Date.now();
  const r = await p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { ...r, ms: Date.now() - start };
};

async function redisWithStores(name: string, n: number): Promise<{ redis: RedisServer; stores: RedisStateStore[] }> {
  const redis = await startRedisServer({ appendfsync: 'always' });
  const stores: RedisStateStore[] = [];
  for (let i = 0; i < n; i++) stores.push(await openRedisStore(redis.url, join(dir, name, `node-${i}`), 5, (m) => logs.push(`${name}/${i}: ${m}`), TIMEOUT_MS));
  await stores[0].importCustomer(TEST_CUSTOMER);
  return { redis, stores };
}

it('a stopped Redis (SIGSTOP) is an outage after the command timeout, not a hang; charges that timed out are counted once', async () => {
  const { redis, stores } = await redisWithStores('stall', 2);
  const [a, b] = stores;
  try {
    for (let i = 0; i < 3; i++) expect((await a.charge(identification(i))).outcome).toBe('charged');
    await b.getTag('acme-tag');
    const used0 = (await a.balance('acme', 'identification', 'year-0', 1000)).used;

    redis.pause();
    // In flight when Redis stops: each is answered within about the command timeout, identification on
    // the local allowance (journaled), the rest refused with 503 — nothing waits for the stall to end.
    const first = await Promise.all([
      timedOutcome(a.charge(identification(10))),
      timedOutcome(b.charge(identification(11))),
      timedOutcome(a.hitRateLimits(rate(true))),
      timedOutcome(b.charge(enrichment)),
    ]);
    for (const o of first) expect(o.ms).toBeLessThan(TIMEOUT_MS + 1000);
    expect(first.map((o) => o.ok)).toEqual([true, true, true, false]);
    expect((first[3] as { error: unknown }).error).toBeInstanceOf(StoreUnavailableError);
    expect(a.connected).toBe(false);
    expect(b.connected).toBe(false);

    // Once the stall is known, calls go to the outage paths at once.
    const next = await Promise.all([
      timedOutcome(a.charge(identification(12))),
      timedOutcome(a.hitRateLimits(rate(false))),
      timedOutcome(a.getSetting('readiness_probe')),
      timedOutcome(b.getTag('acme-tag')), // cached: answers
      timedOutcome(b.getTag('unknown-tag')), // not cached: 503 at once
    ]);
    for (const o of next) expect(o.ms).toBeLessThan(200);
    expect(next.map((o) => o.ok)).toEqual([true, false, false, true, false]);
    for (const o of next.filter((o) => !o.ok)) expect((o as { error: unknown }).error).toBeInstanceOf(StoreUnavailableError);
    const answered = [...first, ...next].filter((o) => o.ok && (o.value as { outcome?: string }).outcome === 'charged').length;
    expect(answered).toBe(3);

    // Held for longer than any client waits, then resumed: the commands written before the stall run
    // first (the two timed-out charges land in the ledger), then the journal replays; each answer is
    // counted exactly once.
    await new Promise((r) => setTimeout(r, 1500));
    redis.resume();
    await expect.poll(() => a.connected && b.connected, { timeout: 10_000, interval: 50 }).toBe(true);
    await expect.poll(async () => (await a.balance('acme', 'identification', 'year-0', 1000)).used, { timeout: 10_000, interval: 100 }).toBe(used0 + answered);
    await expect.poll(() => readdirSync(join(dir, 'stall', 'node-0')).length + readdirSync(join(dir, 'stall', 'node-1')).length, { timeout: 5000 }).toBe(0);
    // Nothing else arrives later.
    await new Promise((r) => setTimeout(r, 500));
    expect((await a.balance('acme', 'identification', 'year-0', 1000)).used).toBe(used0 + answered);
    expect(logs.some((l) => /did not answer within 400 ms/.test(l))).toBe(true);
  } finally {
    redis.resume();
    for (const s of stores) await s.close();
    await redis.close();
  }
}, 60_000);

it('a flushed Redis is noticed within seconds: every node answers 503, charges nothing, writes nothing', async () => {
  const { redis, stores } = await redisWithStores('flush', 2);
  const [a, b] = stores;
  const admin = createClient({ url: redis.url });
  await admin.connect();
  try {
    const { secret } = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
    await new Promise((r) => setTimeout(r, 200));
    expect(await b.authenticateToken(secret)).not.toBeNull();

    await admin.flushAll();
    await expect.poll(() => a.dataLost !== null && b.dataLost !== null, { timeout: 5000, interval: 50 }).toBe(true);
    expect(a.dataLost).toMatch(/Redis holds none of this deployment's data/);
    expect(logs.some((l) => /^flush\/1: Redis holds none of this deployment's data .*data epoch/.test(l))).toBe(true);

    // Nothing answers from the empty store: not 401 for the valid token's reads, no allowance, no journal.
    await expect(a.getSetting('readiness_probe')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(a.listCustomers()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(a.charge(identification(20))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(b.hitRateLimits(rate(true))).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(b.createToken({ customer_id: 'acme', api_group: 'identification', name: 'x' })).rejects.toBeInstanceOf(StoreUnavailableError);
    // Still lost a heartbeat later, and nothing was written into the empty Redis.
    await new Promise((r) => setTimeout(r, 1200));
    expect(a.dataLost).not.toBeNull();
    expect(await admin.dbSize()).toBe(0);
  } finally {
    await admin.close();
    for (const s of stores) await s.close();
    await redis.close();
  }
}, 60_000);

it('Redis restarted without its data: the journal of the outage is never replayed into it', async () => {
  const { redis, stores } = await redisWithStores('restart', 1);
  const [a] = stores;
  try {
    expect((await a.charge(identification(1))).outcome).toBe('charged');
    await redis.stop();
    await expect.poll(() => a.connected, { timeout: 5000 }).toBe(false);
    expect((await a.charge(identification(2))).outcome).toBe('charged'); // journaled
    const journal = join(dir, 'restart', 'node-0');
    expect(readdirSync(journal).some((f) => f.endsWith('.jsonl'))).toBe(true);

    // Back empty: its persistence files are gone (a restart without persistence, a new empty replica).
    rmSync(join(redis.dir, 'appendonlydir'), { recursive: true, force: true });
    await redis.start();
    await expect.poll(() => a.dataLost, { timeout: 10_000, interval: 50 }).not.toBeNull();
    await new Promise((r) => setTimeout(r, 1500));
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      expect(await admin.dbSize()).toBe(0);
    } finally {
      await admin.close();
    }
    // The charge made during the outage is still on disk for the operator.
    expect(readdirSync(journal).length).toBeGreaterThan(0);
    expect(existsSync(journal)).toBe(true);
    await expect(a.getSetting('x')).rejects.toBeInstanceOf(StoreUnavailableError);
  } finally {
    for (const s of stores) await s.close();
    await redis.close();
  }
}, 60_000);
