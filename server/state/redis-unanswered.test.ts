/**
 * Charges whose answer never came back: sent to Redis, then the deadline passed (a stalled Redis runs
 * them when it resumes) or the connection dropped after Redis ran them. Whatever the request was
 * answered — 200 on the outage allowance, 503, 402 — the credits Redis holds once the journal is
 * replayed are exactly the answers given as charged: never one for a 503, never two for one 200, even
 * when the charge itself runs after its replay (as a cluster client sends a command it held while the
 * slot's new primary was connecting). Real redis-server; faults at the socket where a process cannot
 * produce them on cue.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enrichmentCharge, identificationCharge, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { StoreUnavailableError } from './errors.ts';
import type { ChargeRequest } from './metering/service.ts';
import { keys } from './redis/keys.ts';
import { RedisStateStore } from './redis/store.ts';

const TIMEOUT_MS = 300;
let redis: RedisServer;
let dir: string;
const logs: string[] = [];

beforeAll(async () => {
  redis = await startRedisServer({ appendfsync: 'always' });
  dir = mkdtempSync(join(tmpdir(), 'svc-unanswered-'));
});
afterAll(async () => {
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Client = Record<'evalSha' | 'sendCommand', (...args: unknown[]) => Promise<unknown>>;
/** The store's connection, whose methods a test wraps to hold or cut a command at the socket. */
const clientOf = (s: RedisStateStore) => (s as unknown as { client: Client }).client;

/** A store (node) of its own customer `id`, whose balance it has seen once (the allowance is bounded by it). */
async function storeFor(id: string, allowance: number, waitReplicas = 0): Promise<RedisStateStore> {
  const s = await RedisStateStore.open({
    url: redis.url,
    journalDir: join(dir, id),
    outageAllowance: allowance,
    commandTimeoutMs: TIMEOUT_MS,
    waitReplicas,
    log: (m) => logs.push(`${id}: ${m}`),
  });
  await s.importCustomer({ ...TEST_CUSTOMER, id, name: id, tags: [] });
  expect((await s.charge(identification(id, 0))).outcome).toBe('charged');
  return s;
}

const identification = (customer: string, i: number): ChargeRequest => ({ ...identificationCharge(i, '10.9.0'), customer_id: customer });
const enrichment = (customer: string, record: string): ChargeRequest => ({
  ...enrichmentCharge,
  customer_id: customer,
  record,
  dedupe_key: `${customer}|v3|${record}|2026-11`,
});
const outcomeOf = (p: Promise<{ outcome: string }>) =>
  p.then(
    (o) => o.outcome,
    (e: unknown) => (e instanceof StoreUnavailableError ? 503 : e),
  );
/** Redis resumes after half a second stopped; waits until the store is back and `id`'s journal is drained. */
async function resumeAndDrain(s: RedisStateStore, id: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 500));
  redis.resume();
  await expect.poll(() => s.connected, { timeout: 10_000, interval: 50 }).toBe(true);
  await expect.poll(() => readdirSync(join(dir, id)).length, { timeout: 10_000, interval: 50 }).toBe(0);
}

const used = async (s: RedisStateStore, id: string, pool: 'identification' | 'enrichment' = 'identification') =>
  (await s.balance(id, pool, 'year-0', 1000)).used;

it('a stalled Redis (SIGSTOP) bills none of the 503s given while it stood still: each charge in flight counts only if its request was answered 200', async () => {
  const s = await storeFor('stalled', 2);
  try {
    redis.pause();
    // One batch in flight when Redis stops: five lookups (two fit the allowance, three answer 503) and an
    // enrichment export (fails closed: 503). Redis runs them all when it resumes.
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => outcomeOf(s.charge(identification('stalled', 1 + i)))),
      outcomeOf(s.charge(enrichment('stalled', '900001'))),
    ]);
    expect(answers).toEqual(['charged', 'charged', 503, 503, 503, 503]);
    await resumeAndDrain(s, 'stalled');
    expect(await used(s, 'stalled')).toBe(1 + 2);
    expect(await used(s, 'stalled', 'enrichment')).toBe(0);
    expect((await s.usage('stalled')).map((r) => [r.pool, r.charges])).toEqual([['identification', 3]]);
    // The refused export's record is no free re-export: the client's retry is charged.
    expect((await s.charge(enrichment('stalled', '900001'))).outcome).toBe('charged');
    expect(logs.some((l) => /^stalled: journal drained: 4 charges of requests refused while their answer was lost settled, 4 taken back$/.test(l))).toBe(true);
  } finally {
    redis.resume();
    await s.close();
  }
});

it("a request's hit and charge as one op, stalled (SIGSTOP): only the answers given as charged are billed — none for a 503, none for a request the local limit refused", async () => {
  const s = await storeFor('paired', 2);
  const rate = (key: string, limit: number, degradable = true) => ({
    customer_id: 'paired',
    counters: [{ key, limit }],
    windowMs: 60_000,
    nowMs: Date.now(),
    degradable,
  });
  const answer = (p: Promise<{ outcome: { outcome: string } | null }>) =>
    p.then(
      (r) => r.outcome?.outcome ?? 429,
      (e: unknown) => (e instanceof StoreUnavailableError ? 503 : e),
    );
  try {
    redis.pause();
    // One batch in flight when Redis stops. Lookups: two fit the allowance of 2, one is refused by the local
    // share of its counter's limit of 1 (429), one finds the allowance spent (503); an export fails closed (503).
    const answers = await Promise.all([
      answer(s.hitAndCharge(rate('token:a', 1000), identification('paired', 1))),
      answer(s.hitAndCharge(rate('token:one', 1), identification('paired', 2))),
      answer(s.hitAndCharge(rate('token:one', 1), identification('paired', 3))),
      answer(s.hitAndCharge(rate('token:a', 1000), identification('paired', 4))),
      answer(s.hitAndCharge(rate('token:e', 1000, false), enrichment('paired', '900003'))),
    ]);
    expect(answers).toEqual(['charged', 'charged', 429, 503, 503]);
    await resumeAndDrain(s, 'paired');
    expect(await used(s, 'paired')).toBe(1 + 2);
    expect(await used(s, 'paired', 'enrichment')).toBe(0);
    expect((await s.usage('paired')).map((r) => [r.pool, r.charges])).toEqual([['identification', 3]]);
  } finally {
    redis.resume();
    await s.close();
  }
});

it('a charge sent after its node gave up on it (held before the socket, as a cluster client holds it for a new primary) counts nothing once its journal entry was settled', async () => {
  const s = await storeFor('late', 1);
  const client = clientOf(s);
  const real = client.evalSha.bind(client);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let late: Promise<unknown> | undefined;
  client.evalSha = (...args) => {
    client.evalSha = real;
    late = gate.then(() => real(...args));
    return late;
  };
  try {
    // One batch: the first lookup answers 200 on the allowance, the second 503 (the allowance is spent).
    const answers = await Promise.all([outcomeOf(s.charge(identification('late', 1))), outcomeOf(s.charge(identification('late', 2)))]);
    expect(answers).toEqual(['charged', 503]);
    await expect.poll(() => s.connected, { timeout: 5_000, interval: 20 }).toBe(true);
    await s.drainJournal();
    expect(await used(s, 'late')).toBe(1 + 1);
    // Now the batch reaches Redis: both charges are already settled by id.
    release();
    expect(JSON.parse((await late) as string)).toEqual([
      ['duplicate', 2],
      ['duplicate', 2],
    ]);
    expect(await used(s, 'late')).toBe(1 + 1);
    expect((await s.usage('late'))[0]).toMatchObject({ charges: 2 });
  } finally {
    client.evalSha = real;
    release();
    await s.close();
  }
});

it('an export refused while its charge ran unanswered is taken back, unless a retry was answered for free on it', async () => {
  const s = await storeFor('export', 10);
  const client = clientOf(s);
  const real = client.evalSha.bind(client);
  // Redis runs the charge, then the connection drops before its answer arrives.
  const ranThenLost = () => {
    client.evalSha = async (...args) => {
      client.evalSha = real;
      await real(...args);
      throw new Error('Socket closed unexpectedly');
    };
  };
  try {
    // No retry: refunded, and the record is not free afterwards.
    ranThenLost();
    await expect(s.charge(enrichment('export', 'a'))).rejects.toBeInstanceOf(StoreUnavailableError);
    await s.drainJournal();
    expect(await used(s, 'export', 'enrichment')).toBe(0);
    expect((await s.charge(enrichment('export', 'a'))).outcome).toBe('charged');
    expect(await used(s, 'export', 'enrichment')).toBe(1);

    // The client retries at once: answered 200 for free on the charge that ran, which is then kept.
    ranThenLost();
    await expect(s.charge(enrichment('export', 'b'))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await s.charge(enrichment('export', 'b'))).outcome).toBe('free');
    await s.drainJournal();
    expect(await used(s, 'export', 'enrichment')).toBe(2);
    expect((await s.usage('export')).find((r) => r.pool === 'enrichment')).toMatchObject({ charges: 2 });
  } finally {
    client.evalSha = real;
    await s.close();
  }
});

it('WAIT lost after the charge ran: answered as charged (never 503 for a charge made), journaled, so the new primary of a failover that lost it counts it once', async () => {
  // No allowance at all: an answer lost with the charge unknown could only be a 503.
  const s = await storeFor('wait', 0, 1);
  const admin = createClient({ url: redis.url });
  await admin.connect();
  const client = clientOf(s);
  const real = client.sendCommand.bind(client);
  client.sendCommand = async (...args) => {
    if (String((args[0] as string[])[0]) !== 'WAIT') return real(...args);
    client.sendCommand = real;
    // The primary dies before its replica has the charge: the promoted replica holds the state before it.
    await admin.decr(keys.used('wait', 'identification', 'year-0'));
    await admin.rPop(keys.ledger('wait'));
    await admin.hIncrBy(keys.usage('wait'), 'identification|identification|2026-11|c', -1);
    throw new Error('Socket closed unexpectedly');
  };
  try {
    // The first charge's WAIT found no replica: WAIT is skipped for a second after that.
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await outcomeOf(s.charge(identification('wait', 1)))).toBe('charged');
    await s.drainJournal();
    expect(await used(s, 'wait')).toBe(1 + 1);
    expect((await s.usage('wait'))[0]).toMatchObject({ charges: 2 });
    expect(readdirSync(join(dir, 'wait'))).toEqual([]);
  } finally {
    client.sendCommand = real;
    await admin.close();
    await s.close();
  }
});
