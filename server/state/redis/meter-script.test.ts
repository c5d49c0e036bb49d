/**
 * METER gathers a batch's writes (meter-script.ts): one call of many requests costs Redis a handful of
 * commands, not a few per request — and answers and stores exactly what the ops one by one would have.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { identificationCharge, TEST_CUSTOMER } from '../../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { HOLD_MAX_MS } from './batcher.ts';
import { keys } from './keys.ts';
import { RedisStateStore } from './store.ts';

let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-meter-script-'));
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Calls per command since the last CONFIG RESETSTAT. */
async function commandCalls(admin: { info(section: string): Promise<string> }): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const m of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return calls;
}

it('writes a batch of 40 charges, 40 rate-limit hits and retried charges with one command per key, with the outcomes of one by one', async () => {
  const s = await RedisStateStore.open({ url: redis.url, journalDir: join(dir, 'a'), outageAllowance: 10 });
  const admin = createClient({ url: redis.url });
  await admin.connect();
  try {
    await s.createCustomer({ ...TEST_CUSTOMER, tags: [] });
    const now = Date.now();
    const hit = () =>
      s.hitRateLimits({ customer_id: TEST_CUSTOMER.id, counters: [{ key: 'token:t', limit: 30 }], windowMs: 60_000, nowMs: now, degradable: true });
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    // One turn: 40 hits (the last 10 over the limit of 30), 40 charges and two attempts of one proxied
    // request (the second free), against a quota of 45.
    const charge = (i: number) => ({ ...identificationCharge(i), quota: 45 });
    const hits = Array.from({ length: 40 }, hit);
    const charges = Array.from({ length: 40 }, (_, i) => s.charge(charge(i)));
    const retried = { ...charge(99), dedupe_key: 'acme|request|r1' };
    const retries = [s.charge(retried), s.charge(retried)];
    const counts = (await Promise.all(hits)).map((h) => h[0]!.remaining);
    const outcomes = (await Promise.all([...charges, ...retries])).map((o) => o.outcome);
    const calls = await commandCalls(admin);

    expect(counts).toEqual([...Array.from({ length: 30 }, (_, i) => 29 - i), ...Array(10).fill(0)]);
    expect(outcomes).toEqual([...Array(40).fill('charged'), 'charged', 'free']);
    expect(calls.get('evalsha')).toBe(1);
    expect(calls.get('rpush')).toBe(1);
    expect(calls.get('incrby')).toBe(2);
    expect(calls.get('hset')).toBe(1);
    expect(calls.get('hincrby')).toBe(1);

    expect(Number(await admin.get(keys.used(TEST_CUSTOMER.id, 'identification', 'year-0')))).toBe(41);
    expect(await admin.lLen(keys.ledger(TEST_CUSTOMER.id))).toBe(41);
    expect(await admin.hGet(keys.dedupe(TEST_CUSTOMER.id, '2026-11'), 'acme|request|r1')).toBe('2');
    expect(await admin.pTTL(keys.dedupe(TEST_CUSTOMER.id, '2026-11'))).toBeGreaterThan(0);
    expect(await admin.pTTL(keys.rate(TEST_CUSTOMER.id, now - (now % 60_000), 'token:t'))).toBeGreaterThan(0);
    expect((await s.usage(TEST_CUSTOMER.id))[0]).toMatchObject({ charges: 41 });
    // The next call reads what the first wrote: past the quota now.
    const more = await Promise.all(Array.from({ length: 5 }, (_, i) => s.charge(charge(100 + i))));
    expect(more.map((o) => o.outcome)).toEqual(['charged', 'charged', 'charged', 'charged', 'exhausted']);
  } finally {
    await admin.close();
    await s.close();
  }
});

it("makes a request's hit and charge one op: charged only when admitted, one script call for the turn", async () => {
  const s = await RedisStateStore.open({ url: redis.url, journalDir: join(dir, 'b'), outageAllowance: 10 });
  const admin = createClient({ url: redis.url });
  await admin.connect();
  try {
    await s.createCustomer({ ...TEST_CUSTOMER, id: 'pair', tags: [] });
    const now = Date.now();
    const rate = { customer_id: 'pair', counters: [{ key: 'token:p', limit: 6 }], windowMs: 60_000, nowMs: now, degradable: true };
    const charge = (i: number) => ({ ...identificationCharge(i), customer_id: 'pair', quota: 4 });
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => s.hitAndCharge(rate, charge(i))));
    const calls = await commandCalls(admin);

    expect(results.map((r) => r.hits[0]!.remaining)).toEqual([5, 4, 3, 2, 1, 0, 0, 0, 0, 0]);
    expect(results.map((r) => r.hits[0]!.allowed)).toEqual([...Array(6).fill(true), ...Array(4).fill(false)]);
    // The refused requests charge nothing (null); the admitted ones run into the quota of 4.
    expect(results.map((r) => r.outcome?.outcome ?? null)).toEqual([...Array(4).fill('charged'), 'exhausted', 'exhausted', ...Array(4).fill(null)]);
    expect(calls.get('evalsha')).toBe(1);
    expect(await admin.lLen(keys.ledger('pair'))).toBe(4);
    expect(Number(await admin.get(keys.used('pair', 'identification', 'year-0')))).toBe(4);
  } finally {
    await admin.close();
    await s.close();
  }
});

it('dedups a charge whose key holds the packing separator (the key goes as a script argument of its own)', async () => {
  const s = await RedisStateStore.open({ url: redis.url, journalDir: join(dir, 'c'), outageAllowance: 10 });
  try {
    await s.createCustomer({ ...TEST_CUSTOMER, id: 'sep', tags: [] });
    const odd = { ...identificationCharge(1), customer_id: 'sep', dedupe_key: 'sep|v3|a\x1fb|2026-11' };
    const plain = { ...identificationCharge(2), customer_id: 'sep' };
    const first = await Promise.all([s.charge(odd), s.charge(plain)]);
    const again = await s.charge(odd);
    expect(first.map((o) => o.outcome)).toEqual(['charged', 'charged']);
    expect(again.outcome).toBe('free');
    expect((await s.balance('sep', 'identification', 'year-0', 1000)).used).toBe(2);
  } finally {
    await s.close();
  }
});

/**
 * The batcher's hold tests: a store with customer `id`, an admin client whose command stats were just
 * reset, and `hit()`, one rate-limit op of that customer.
 */
async function withHoldFixture(
  journal: string,
  id: string,
  test: (f: {
    admin: { sendCommand(args: string[]): Promise<unknown>; info(section: string): Promise<string> };
    hit: () => ReturnType<RedisStateStore['hitRateLimits']>;
  }) => Promise<void>,
): Promise<void> {
  const s = await RedisStateStore.open({ url: redis.url, journalDir: join(dir, journal), outageAllowance: 10 });
  const admin = createClient({ url: redis.url });
  await admin.connect();
  try {
    await s.createCustomer({ ...TEST_CUSTOMER, id, tags: [] });
    const hit = () =>
      s.hitRateLimits({ customer_id: id, counters: [{ key: `token:${id}`, limit: 100 }], windowMs: 60_000, nowMs: Date.now(), degradable: true });
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    await test({ admin, hit });
  } finally {
    await admin.close();
    await s.close();
  }
}

it("holds a customer's ops while its call is in flight and sends them as one call when it answers", async () => {
  await withHoldFixture('d', 'held', async ({ admin, hit }) => {
    // Redis holds every client's commands for 10 ms (well under HOLD_MAX_MS): the first call stays in
    // flight while three more turns each add an op.
    await admin.sendCommand(['CLIENT', 'PAUSE', '10', 'ALL']);
    const pending = [hit()];
    for (let turn = 0; turn < 3; turn++) {
      await new Promise((r) => setImmediate(r));
      pending.push(hit());
    }
    const counts = (await Promise.all(pending)).map((h) => h[0]!.remaining);
    expect(counts).toEqual([99, 98, 97, 96]);
    expect((await commandCalls(admin)).get('evalsha')).toBe(2);
  });
});

it(`holds nothing back behind a call unanswered for ${HOLD_MAX_MS} ms (a stalled shard): later ops go on their own`, async () => {
  await withHoldFixture('e', 'stalled', async ({ admin, hit }) => {
    // Redis answers nothing for 400 ms. The first call is in flight; the op of the next turn waits behind it
    // only HOLD_MAX_MS, then goes; one more op 100 ms later finds that call past the limit too and goes
    // alone: three calls. Held until the first answer instead, the last two would have gone as one.
    await admin.sendCommand(['CLIENT', 'PAUSE', '400', 'ALL']);
    const pending = [hit()];
    await new Promise((r) => setImmediate(r));
    pending.push(hit());
    expect(HOLD_MAX_MS).toBeLessThan(100);
    await new Promise((r) => setTimeout(r, 100));
    pending.push(hit());
    const counts = (await Promise.all(pending)).map((h) => h[0]!.remaining);
    expect(counts).toEqual([99, 98, 97]);
    expect((await commandCalls(admin)).get('evalsha')).toBe(3);
  });
});
