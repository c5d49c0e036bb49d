/**
 * Redis lost under load: a local cluster (two nodes behind nginx, redis-server in a temp folder) takes
 * identification traffic for several customers while redis-server is killed (SIGKILL) and, a few seconds
 * later, restarted from its AOF. Clients only ever see answers or 503 (never another 5xx); once the nodes
 * have replayed their journals, every customer's used credits equal the 200s its clients saw; a customer
 * whose quota ran out during the outage is overspent by at most the outage allowance × the nodes.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { IPS } from '../server/testing/test-server.ts';
import { lookup, startTestCluster, type TestCluster } from './testing/cluster-fixture.ts';

// Real processes on a shared, busy machine: generous time per test.
vi.setConfig({ testTimeout: 180_000 });

const NODES = 2;
const ALLOWANCE = 15;
let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ nodes: NODES, state: 'redis', nodeEnv: { SVC_OUTAGE_ALLOWANCE: String(ALLOWANCE) } });
}, 300_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A customer's used identification credits, polled until they equal `expected` (journals replay) or 30 s pass. */
async function usedOnceSettled(id: string, expected: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  let used = NaN;
  while (Date.now() < deadline) {
    used = await c.used(id).then(
      (u) => u.identification,
      () => NaN,
    );
    if (used === expected) break;
    await sleep(250);
  }
  return used;
}

it('kill redis-server under load from two nodes, restart it: only 503s, then credits equal the 200s clients saw', async () => {
  const customers = [
    { id: 'outage-a', quota: 100_000 },
    { id: 'outage-b', quota: 100_000 },
    // Almost spent: its quota runs out during the outage, when no node can see the shared balance.
    { id: 'outage-tight', quota: 25 },
  ];
  const tokens = new Map<string, string>();
  for (const { id, quota } of customers) {
    await c.customer({ id, packages: ['platform'], identification_credits: quota });
    tokens.set(id, await c.token(id, 'identification'));
  }
  // The tight customer spends most of its quota while Redis is up, so each node knows its last balance.
  for (let i = 0; i < 20; i++) expect((await lookup(c.url, tokens.get('outage-tight')!, IPS.northwind)).status).toBe(200);

  const seen = new Map<string, number[]>(customers.map(({ id }) => [id, []]));
  /** Answers to requests sent and answered entirely while redis-server was down. */
  const duringOutage: number[] = [];
  let down = false;
  let running = true;
  const worker = async (customer: string) => {
    while (running) {
      const sentDuringOutage = down;
      const { status } = await lookup(c.url, tokens.get(customer)!, IPS.northwind);
      seen.get(customer)!.push(status);
      if (sentDuringOutage && down) duringOutage.push(status);
      if (status === 503) await sleep(20);
    }
  };
  const load = Promise.all(customers.flatMap(({ id }) => [worker(id), worker(id), worker(id)]));

  await sleep(1500);
  // Killed under load: charges in flight at that instant may or may not have been counted by Redis; the
  // nodes answer them on the allowance, journaled under their ids, and the replay counts only the ones
  // Redis had not (server/state/metering/redis.ts) — so the totals below are exact across the kill too.
  c.redis.killNow('SIGKILL');
  await c.redis.waitForExit();
  down = true;
  await sleep(3000);
  down = false;
  await c.startRedis();
  await sleep(3000);
  running = false;
  await load;

  const all = [...seen.values()].flat();
  // No 5xx other than 503 (and nothing but answers, 402 for the spent quota, and 503).
  expect(all.filter((s) => s >= 500 && s !== 503)).toEqual([]);
  expect(new Set(all.filter((s) => ![200, 402, 503].includes(s)))).toEqual(new Set());
  // Identification kept answering while Redis was down (on the nodes' local allowance).
  expect(duringOutage.filter((s) => s === 200).length).toBeGreaterThan(0);

  // After recovery (journals replayed), used credits equal the charged answers the clients saw.
  for (const { id } of customers) {
    const answered = seen.get(id)!.filter((s) => s === 200).length + (id === 'outage-tight' ? 20 : 0);
    expect({ id, used: await usedOnceSettled(id, answered) }).toEqual({ id, used: answered });
  }
  const tight = await c.used('outage-tight');
  expect(Math.max(0, tight.identification - 25)).toBeLessThanOrEqual(ALLOWANCE * NODES);
});

it('redis-server stopped (SIGSTOP, the connection stays open) for 10 s under load from two nodes: every request answered within 2.5 s, credits equal the 200s', async () => {
  const customers = ['stall-a', 'stall-b'];
  const tokens = new Map<string, string>();
  for (const id of customers) {
    await c.customer({ id, packages: ['platform'], identification_credits: 100_000 });
    tokens.set(id, await c.token(id, 'identification'));
  }
  // Each node has authenticated every token before the stall (a token first seen during it answers 503).
  for (let i = 0; i < 6; i++) for (const id of customers) expect((await lookup(c.url, tokens.get(id)!, IPS.northwind)).status).toBe(200);
  const before = new Map<string, number>();
  for (const id of customers) before.set(id, (await c.used(id)).identification);

  const ok = new Map<string, number>(customers.map((id) => [id, 0]));
  const statuses: number[] = [];
  let slowest = 0;
  let gaveUp = 0;
  let running = true;
  const worker = async (customer: string) => {
    while (running) {
      const start = Date.now();
      try {
        // A client gives up after 3 s, as the did: such a request must not be charged.
        const res = await fetch(`${c.url}/v3/company/details?ip=${IPS.northwind}`, {
          headers: { authorization: `Token ${tokens.get(customer)}`, 'user-agent': 'python-requests/2.32.3' },
          signal: AbortSignal.timeout(3000),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
        if (res.status === 200) ok.set(customer, ok.get(customer)! + 1);
        else await sleep(20);
      } catch {
        gaveUp++;
      }
      slowest = Math.max(slowest, Date.now() - start);
    }
  };
  const load = Promise.all(customers.flatMap((id) => [worker(id), worker(id), worker(id)]));
  await sleep(1000);
  c.redis.killNow('SIGSTOP');
  await sleep(10_000);
  c.redis.killNow('SIGCONT');
  await sleep(3000);
  running = false;
  await load;

  // Printed for the record (the bound below is the issue's; the figure varies with the machine's load).
  console.log(
    `SIGSTOP 10 s: ${statuses.length} answers (${statuses.filter((s) => s === 200).length} × 200, ${statuses.filter((s) => s === 503).length} × 503), slowest ${slowest} ms, ${gaveUp} gave up`,
  );
  expect(gaveUp).toBe(0);
  expect(slowest).toBeLessThan(2500);
  expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  // After Redis answers again and the journals are replayed: used credits equal the 200s clients got.
  for (const id of customers) {
    const answered = before.get(id)! + ok.get(id)!;
    expect({ id, used: await usedOnceSettled(id, answered) }).toEqual({ id, used: answered });
  }
});

// Last in this file: it empties the cluster's Redis.
it('Redis flushed under the nodes (as after a restart without persistence): readiness fails and every state route answers 503, never 401', async () => {
  await c.customer({ id: 'flushed', packages: ['platform'], identification_credits: 1000 });
  const token = await c.token('flushed', 'identification');
  expect((await lookup(c.url, token, IPS.northwind)).status).toBe(200);
  const { createClient } = await import('@redis/client');
  const admin = createClient({ url: c.redisUrl });
  await admin.connect();
  try {
    await admin.flushAll();
  } finally {
    await admin.close();
  }
  for (const node of c.nodes) {
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${node.port}/readyz`)).status, { timeout: 10_000, interval: 100 }).toBe(503);
    const body = (await (await fetch(`http://127.0.0.1:${node.port}/readyz`)).json()) as { message: string };
    expect(body.message).toMatch(/Redis holds none of this deployment's data/);
  }
  for (let i = 0; i < 4; i++) expect((await lookup(c.url, token, IPS.northwind)).status).toBe(503);
  const list = await fetch(`${c.url}/admin/api/customers`, { headers: { authorization: `Bearer ${c.adminToken}` } });
  expect(list.status).toBe(503);
});
