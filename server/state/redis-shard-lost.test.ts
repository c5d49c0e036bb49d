/**
 * A Redis Cluster shard restarted empty while the others keep their data: the data epoch (`svc:epoch`)
 * lives on one shard, so each slot carries a copy of it and every primary's copy is checked. Real cluster
 * (3 primaries, no replicas: the restarted primary keeps its slots, nothing fails over), a real server
 * over HTTP, customers spread over the shards.
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createClient, type RedisClientType } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerSeed } from '../../core/customer-records.ts';
import { generateSecret } from '../auth/token-secret.ts';
import { createLogger } from '../observability/logger.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisCluster, startRedisCluster } from '../testing/redis-cluster.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { CLUSTER_SLOTS, slotOf, slotTag } from './redis/connection.ts';
import type { RedisStateStore } from './redis/store.ts';

const calculateSlot = createRequire(import.meta.url)('@redis/client/dist/lib/utils/calculate-slot.js').default as (key: string) => number;

describe('slot tags', () => {
  it('computes the slot Redis Cluster computes, and has a tag hashing to every slot', () => {
    for (const key of ['svc:epoch', 'svc:{cust:acme}:customer', 'svc:{}:x', 'a{b}c{d}', '{', 'é{ü}', 'svc:epoch:{svc:epoch}:slots']) {
      expect(slotOf(key)).toBe(calculateSlot(key));
    }
    expect(slotOf('svc:epoch:{svc:epoch}:slots')).toBe(slotOf('svc:epoch'));
    for (let slot = 0; slot < CLUSTER_SLOTS; slot++) expect(calculateSlot(`svc:epoch:{${slotTag(slot)}}`)).toBe(slot);
  });
});

let cluster: RedisCluster;
let srv: TestServer;
let journal: string;
const lines: string[] = [];
/** Port of the primary serving `slot`. */
let primaryOf: (slot: number) => number;

const customer = (id: string): CustomerSeed => ({ ...TEST_CUSTOMER, id, name: id, tags: [{ ...TEST_CUSTOMER.tags[0]!, tag_id: `${id}-tag` }] });
const customerSlot = (id: string) => slotOf(`svc:{cust:${id}}:customer`);

const tagCall = (id: string) =>
  fetch(`${srv.url}/v3/company/details?tag=${id}-tag`, {
    headers: { 'user-agent': BROWSER_UA, origin: 'http://localhost', 'x-forwarded-for': IPS.northwind },
  });
const tokenCall = (secret: string) =>
  fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${secret}`, 'user-agent': BROWSER_UA } });

async function onNode<T>(port: number, fn: (c: RedisClientType) => Promise<T>): Promise<T> {
  const c = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false } }) as RedisClientType;
  await c.connect();
  try {
    return await fn(c);
  } finally {
    c.destroy();
  }
}

beforeAll(async () => {
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 0 });
  const primaries = (await cluster.nodes()).filter((n) => n.role === 'master');
  primaryOf = (slot) =>
    primaries.find((p) =>
      p.slots.some((r) => {
        const [from, to] = r.split('-').map(Number);
        return from! <= slot && slot <= (to ?? from!);
      }),
    )!.port;
  journal = mkdtempSync(join(tmpdir(), 'svc-shard-lost-'));
  // Customers until every primary holds at least two.
  const ids: string[] = [];
  for (let i = 0; primaries.some((p) => ids.filter((id) => primaryOf(customerSlot(id)) === p.port).length < 2); i++) ids.push(`cust${i}`);
  srv = await startTestServer({
    customers: ids.map(customer),
    env: { SVC_REDIS_URL: cluster.url, SVC_REDIS_CLUSTER: '1', SVC_JOURNAL_DIR: journal, SVC_TRUST_PROXY: 'loopback', SVC_OUTAGE_ALLOWANCE: '10' },
    log: createLogger('info', {
      destination: new Writable({
        write(chunk, _enc, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    }),
  });
}, 60_000);
afterAll(async () => {
  await srv?.close();
  await cluster?.close();
  if (journal) rmSync(journal, { recursive: true, force: true });
});

/** The first primary (by port) that does not hold svc:epoch and serves customers, and its customers. */
async function victim(): Promise<{ port: number; ids: string[]; elsewhere: string }> {
  const ids = (await srv.store.listCustomers()).map((c) => c.id);
  const epochPort = primaryOf(slotOf('svc:epoch'));
  const port = cluster.ports.find((p) => p !== epochPort && ids.some((id) => primaryOf(customerSlot(id)) === p))!;
  return { port, ids: ids.filter((id) => primaryOf(customerSlot(id)) === port), elsewhere: ids.find((id) => primaryOf(customerSlot(id)) !== port)! };
}
const charges = async (id: string) => (await srv.store.usage(id)).reduce((n, r) => n + r.charges, 0);
const journalFiles = () => readdirSync(journal).filter((f) => !f.endsWith('.orphaned'));

it('a primary restarted WITH its data is no loss: nothing refused, the journal of its downtime replayed exactly once', async () => {
  const store = srv.store as RedisStateStore;
  const { port, ids } = await victim();
  const secret = (await store.createToken({ customer_id: ids[0]!, api_group: 'identification', name: 'kept' })).secret;
  expect((await tokenCall(secret)).status).toBe(200);
  const before = await charges(ids[0]!);
  await onNode(port, (c) => c.sendCommand(['SAVE']));

  await cluster.kill(port);
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await tokenCall(secret)).status);
  expect(statuses).toEqual([200, 200, 200]);
  expect(journalFiles().length).toBeGreaterThan(0);
  await cluster.start(port); // loads its dump.rdb: the slot copies of the epoch are back with the data
  await cluster.settled();

  await expect.poll(journalFiles, { timeout: 15_000, interval: 100 }).toEqual([]);
  expect(store.dataLost).toBeNull();
  expect(await charges(ids[0]!)).toBe(before + 3);
  expect((await tokenCall(secret)).status).toBe(200);
  expect((await fetch(`${srv.url}/readyz`)).status).toBe(200);
  expect(lines.some((l) => l.includes('holds none of this deployment'))).toBe(false);
}, 90_000);

it('a primary restarted empty with its slots: 503 + Retry-After (not 401), /readyz 503, the shard named in the log, its journal kept', async () => {
  const store = srv.store as RedisStateStore;
  // The victim: a primary that does not hold svc:epoch, and two of its customers (one token, one tag).
  const { port: victimPort, ids: onIt, elsewhere } = await victim();
  const [onVictim, alsoOnVictim] = onIt;
  const secret = (await store.createToken({ customer_id: onVictim!, api_group: 'identification', name: 'crm' })).secret;
  const secretElsewhere = (await store.createToken({ customer_id: elsewhere, api_group: 'identification', name: 'crm' })).secret;
  expect((await tokenCall(secret)).status).toBe(200);
  expect((await tagCall(alsoOnVictim!)).status).toBe(200);
  expect((await tokenCall(secretElsewhere)).status).toBe(200);
  expect((await fetch(`${srv.url}/readyz`)).status).toBe(200);

  await cluster.kill(victimPort);
  // While the shard is down its customers' identification goes on the allowance, journaled.
  await expect.poll(async () => (await tokenCall(secret)).status, { timeout: 10_000, interval: 100 }).toBe(200);
  await expect.poll(() => readdirSync(journal).some((f) => f.endsWith('.jsonl')), { timeout: 5_000 }).toBe(true);

  // Back empty (no persistence files; nodes.conf kept, so it rejoins serving the same slots).
  for (const f of readdirSync(join(cluster.dir, String(victimPort)))) {
    if (f !== 'nodes.conf' && f !== 'redis.log') rmSync(join(cluster.dir, String(victimPort), f), { recursive: true, force: true });
  }
  await cluster.start(victimPort);
  await cluster.settled();
  expect(await onNode(victimPort, (c) => c.sendCommand(['CLUSTER', 'INFO']))).toMatch(/cluster_state:ok/);

  await expect.poll(() => store.dataLost, { timeout: 10_000, interval: 50 }).toMatch(new RegExp(`Redis Cluster shard 127\\.0\\.0\\.1:${victimPort} \\(slots `));
  for (const res of [await tokenCall(secret), await tagCall(alsoOnVictim!), await tokenCall(secretElsewhere)]) {
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ status: 'error', code: 'unavailable' });
  }
  // A token never seen by this node (its customer's records are gone with the shard): 503, not 401.
  expect((await tokenCall(generateSecret())).status).toBe(503);
  const list = await fetch(`${srv.url}/admin/api/customers`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  expect(list.status).toBe(503);
  const ready = await fetch(`${srv.url}/readyz`);
  expect(ready.status).toBe(503);
  expect((await ready.json()).message).toContain(`127.0.0.1:${victimPort}`);
  expect(lines.some((l) => l.includes(`Redis Cluster shard 127.0.0.1:${victimPort} (slots `) && l.includes('holds none of this deployment'))).toBe(true);

  // Checked every second, and never written into: the journaled charge stays on disk, the shard empty.
  await new Promise((r) => setTimeout(r, 2_500));
  expect(store.dataLost).not.toBeNull();
  expect(await onNode(victimPort, (c) => c.dbSize())).toBe(0);
  expect(readdirSync(journal).some((f) => f.endsWith('.jsonl'))).toBe(true);
}, 90_000);
