/**
 * Redis unreachable mid-traffic, with a real redis-server stopped (SIGKILL) and started again: what each
 * node (store) still does, what it refuses, and that the journal of charges made meanwhile is replayed
 * exactly once when Redis is back — without a restart of the node.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enrichmentCharge, identificationCharge, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { openRedisStore } from '../testing/state-backends.ts';
import { StoreUnavailableError } from './errors.ts';
import type { RateLimitRequest } from './metering/service.ts';
import type { RedisStateStore } from './redis/store.ts';

let redis: RedisServer;
let dir: string;
let a: RedisStateStore;
let b: RedisStateStore;
const logs: string[] = [];
const ALLOWANCE = 5;

beforeAll(async () => {
  redis = await startRedisServer({ appendfsync: 'always' });
  dir = mkdtempSync(join(tmpdir(), 'svc-outage-'));
  a = await openRedisStore(redis.url, join(dir, 'a'), ALLOWANCE, (m) => logs.push(`a: ${m}`));
  b = await openRedisStore(redis.url, join(dir, 'b'), ALLOWANCE, (m) => logs.push(`b: ${m}`));
  await a.importCustomer(TEST_CUSTOMER);
}, 20_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

const identification = (i: number) => identificationCharge(i, '10.0.0');
const enrichment = enrichmentCharge;
const rate = (degradable: boolean, limit = 10): RateLimitRequest => ({
  customer_id: 'acme',
  counters: [{ key: 'token:t1', limit }],
  windowMs: 60_000,
  nowMs: Date.now(),
  degradable,
});
const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

it('keeps identification answering on a bounded allowance, fails the rest closed, and replays the journal exactly once', async () => {
  const { secret } = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
  // Both nodes have heard of the change (pub/sub) before they cache what they read.
  await new Promise((r) => setTimeout(r, 300));
  expect(await a.authenticateToken(secret)).not.toBeNull();
  expect(await b.getTag('acme-tag')).not.toBeNull();
  for (let i = 0; i < 3; i++) expect((await a.charge(identification(i))).outcome).toBe('charged');
  await a.hitRateLimits(rate(true));
  await b.heartbeatNow();
  await a.heartbeatNow();
  expect(a.liveNodes).toBe(2);

  await redis.stop();
  await expect.poll(() => a.connected || b.connected, { timeout: 5000 }).toBe(false);

  // Identification: each node charges up to its allowance, journaled; then 503 with Retry-After.
  const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => settled((i % 2 ? a : b).charge(identification(100 + i)))));
  const more = await Promise.all(Array.from({ length: 6 }, (_, i) => settled((i % 2 ? a : b).charge(identification(200 + i)))));
  const all = [...outcomes, ...more];
  const charged = all.filter((o) => o.ok && o.value.outcome === 'charged').length;
  expect(charged).toBe(2 * ALLOWANCE);
  for (const o of all.filter((o) => !o.ok)) {
    expect(o.error).toBeInstanceOf(StoreUnavailableError);
    expect((o.error as StoreUnavailableError).retryAfterS).toBeGreaterThan(0);
  }
  // Enrichment and people fail closed; nothing is charged or journaled for them.
  await expect(a.charge(enrichment)).rejects.toBeInstanceOf(StoreUnavailableError);
  // Rate limits: identification counts per node, the limit split over the 2 live nodes; the rest fails closed.
  const local = [];
  for (let i = 0; i < 6; i++) local.push((await a.hitRateLimits(rate(true)))[0].allowed);
  expect(local).toEqual([true, true, true, true, true, false]);
  await expect(a.hitRateLimits(rate(false))).rejects.toBeInstanceOf(StoreUnavailableError);
  // Cached access records keep answering; writes and uncached reads answer 503.
  expect((await a.authenticateToken(secret))?.name).toBe('crm');
  expect((await b.getTag('acme-tag'))?.customer_id).toBe('acme');
  await expect(a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'x' })).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(a.getTag('unknown-tag')).rejects.toBeInstanceOf(StoreUnavailableError);

  // A copy of node a's journal, to replay it a second time later (as if a node crashed mid-replay).
  const journalA = join(dir, 'a', readdirSync(join(dir, 'a')).find((f) => f.endsWith('.jsonl'))!);
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  copyFileSync(journalA, join(dir, 'a', `${dead}.jsonl`));

  await redis.start();
  // Back without a restart: the journals drain and every charge a client saw is counted once.
  await expect.poll(async () => (await a.balance('acme', 'identification', 'year-0', 1000)).used, { timeout: 10_000, interval: 100 }).toBe(3 + 2 * ALLOWANCE);
  await expect.poll(() => logs.filter((l) => /journal drained/.test(l)).length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
  expect((await a.usage('acme'))[0]).toMatchObject({ charges: 3 + 2 * ALLOWANCE });
  expect(readdirSync(join(dir, 'a'))).toEqual([]);
  expect(readdirSync(join(dir, 'b'))).toEqual([]);
  // Normal service: exact shared metering again, admin writes work.
  expect((await b.charge(identification(999))).outcome).toBe('charged');
  await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'after' });
  expect((await a.balance('acme', 'identification', 'year-0', 1000)).used).toBe(3 + 2 * ALLOWANCE + 1);
}, 60_000);

it('refuses to start on an unreachable Redis with a clear message (no secret in it)', async () => {
  const { freePort } = await import('../testing/redis-server.ts');
  const port = await freePort();
  await expect(openRedisStore(`redis://:hunter2@127.0.0.1:${port}`, join(dir, 'c'))).rejects.toThrow(
    new RegExp(`cannot reach Redis at redis://:\\*\\*\\*@127.0.0.1:${port}`),
  );
});

it('a charge in flight when the connection drops is counted once: answered on the allowance, journaled under its id, replayed only if Redis had not counted it', async () => {
  const c = await openRedisStore(redis.url, join(dir, 'in-flight'), ALLOWANCE, (m) => logs.push(`c: ${m}`));
  type EvalSha = (...args: unknown[]) => Promise<unknown>;
  const client = (c as unknown as { client: { evalSha: EvalSha } }).client;
  const real: EvalSha = client.evalSha.bind(client);
  try {
    expect((await c.charge(identification(300))).outcome).toBe('charged'); // the script is loaded, the balance known
    const before = (await c.balance('acme', 'identification', 'year-0', 1000)).used;
    // Redis counts the charge, then the connection drops before the answer arrives.
    client.evalSha = async (...args) => {
      await real(...args);
      throw new Error('Socket closed unexpectedly');
    };
    expect((await c.charge(identification(301))).outcome).toBe('charged');
    // The connection drops before Redis sees the charge.
    client.evalSha = async () => {
      throw new Error('Socket closed unexpectedly');
    };
    expect((await c.charge(identification(302))).outcome).toBe('charged');
    client.evalSha = real;
    expect((await c.balance('acme', 'identification', 'year-0', 1000)).used).toBe(before + 1);
    await c.drainJournal();
    // Two answers, two credits: the first was already counted, the second is counted by the replay.
    expect((await c.balance('acme', 'identification', 'year-0', 1000)).used).toBe(before + 2);
    await c.drainJournal();
    expect((await c.balance('acme', 'identification', 'year-0', 1000)).used).toBe(before + 2);
  } finally {
    client.evalSha = real;
    await c.close();
  }
});
