/**
 * SVC_REDIS_WAIT: a batch of charges is answered only after `WAIT n` — here against a Redis with no
 * replica, so WAIT runs out its timeout: the answer still goes out (the charge is on the primary), later,
 * the node says once that charges are answered without a replica's acknowledgement, and skips WAIT for a
 * while (it holds the connection for every command behind it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { identificationCharge, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { RedisStateStore } from './redis/store.ts';

let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-wait-'));
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('waits for the replicas asked for before answering a charge, and answers when none acknowledges in time', async () => {
  const logs: string[] = [];
  const open = (waitReplicas: number, n: string) =>
    RedisStateStore.open({ url: redis.url, journalDir: join(dir, n), outageAllowance: 10, commandTimeoutMs: 400, waitReplicas, log: (m) => logs.push(m) });
  const plain = await open(0, 'a');
  const waiting = await open(1, 'b');
  try {
    await plain.createCustomer({ ...TEST_CUSTOMER, tags: [] });
    expect(await plain.charge(identificationCharge(1))).toEqual({ outcome: 'charged', remaining: 999 });
    let t0 = Date.now();
    // Two charges of one turn: one batch, one WAIT (a quarter of the command deadline: 100 ms).
    const both = await Promise.all([waiting.charge(identificationCharge(2)), waiting.charge(identificationCharge(3))]);
    const took = Date.now() - t0;
    expect(both.map((o) => o.outcome)).toEqual(['charged', 'charged']);
    expect(took).toBeGreaterThanOrEqual(95);
    // No replica acknowledged: the next charges go without WAIT for a second (WAIT holds the connection).
    t0 = Date.now();
    await waiting.charge(identificationCharge(4));
    expect(Date.now() - t0).toBeLessThan(95);
    expect(logs.filter((m) => m.startsWith('WAIT 1: only 0 replica(s) acknowledged within 100 ms'))).toHaveLength(1);
    expect((await plain.balance(TEST_CUSTOMER.id, 'identification', 'year-0', 1000)).used).toBe(4);
    // A rate limit is not a charge: no WAIT.
    t0 = Date.now();
    await waiting.hitRateLimits({ customer_id: TEST_CUSTOMER.id, counters: [{ key: 'k', limit: 5 }], windowMs: 60_000, nowMs: Date.now(), degradable: true });
    expect(Date.now() - t0).toBeLessThan(95);
  } finally {
    await plain.close();
    await waiting.close();
  }
});
