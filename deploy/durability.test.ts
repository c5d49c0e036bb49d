/**
 * Durability of the recommended Redis configuration (deploy/redis.conf: AOF, appendfsync always): a
 * local cluster (two nodes, nginx, redis-server in a temp folder) answers concurrent metered lookups;
 * right after the last answer redis-server is killed with SIGKILL (a crash, no final fsync), restarted
 * from its AOF, and the ledger and balances equal exactly what the clients were told.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { IPS } from '../server/testing/test-server.ts';
import { lookup, startTestCluster, type TestCluster } from './testing/cluster-fixture.ts';

// Real processes on a shared, busy machine: generous time per test.
vi.setConfig({ testTimeout: 180_000 });

let c: TestCluster;

beforeAll(async () => {
  c = await startTestCluster({ nodes: 2, state: 'redis' });
}, 300_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

/** Retries while the nodes reconnect to the restarted Redis (admin reads answer 503 until then). */
async function settled<T>(read: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await read();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

it('N acknowledged charges survive kill -9 of redis-server: ledger and balances equal what the clients were told', async () => {
  await c.customer({ id: 'durable', packages: ['platform'], identification_credits: 300 });
  await c.customer({ id: 'roomy', packages: ['platform'], identification_credits: 100_000 });
  const tight = await c.token('durable', 'identification');
  const roomy = await c.token('roomy', 'identification');
  const results = await Promise.all([
    ...Array.from({ length: 400 }, () => lookup(c.url, tight, IPS.northwind).then((r) => ['durable', r.status] as const)),
    ...Array.from({ length: 237 }, () => lookup(c.url, roomy, IPS.northwind).then((r) => ['roomy', r.status] as const)),
  ]);
  // The crash, right after the last acknowledged answer.
  c.redis.killNow('SIGKILL');
  await c.redis.waitForExit();

  const told = (customer: string, status: number) => results.filter(([who, s]) => who === customer && s === status).length;
  expect(told('durable', 200)).toBe(300);
  expect(told('durable', 402)).toBe(100);
  expect(told('roomy', 200)).toBe(237);

  await c.startRedis();
  const durable = await settled(() => c.used('durable'));
  const roomyUsed = await settled(() => c.used('roomy'));
  expect(durable.identification).toBe(300);
  expect(roomyUsed.identification).toBe(237);

  // The ledger (usage per API and month, counted from the recorded charges) says the same.
  const report = await settled(async () => {
    const res = await fetch(`${c.url}/admin/api/customers/roomy/credits`, { headers: { authorization: `Bearer ${c.adminToken}` } });
    if (!res.ok) throw new Error(`credits: ${res.status}`);
    return (await res.json()) as { usage: { api: string; charges: number }[]; balances: { pool: string; remaining: number }[] };
  });
  expect(report.usage.filter((u) => u.api === 'identification').reduce((n, u) => n + u.charges, 0)).toBe(237);
  expect(report.balances.find((b) => b.pool === 'identification')?.remaining).toBe(100_000 - 237);

  // And the restarted Redis keeps metering exactly: the exhausted customer stays exhausted.
  expect((await lookup(c.url, tight, IPS.northwind)).status).toBe(402);
});
