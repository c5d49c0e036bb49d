/**
 * A Redis Cluster primary killed under a flood of charges from two nodes (stores), with WAIT 1, a short
 * command deadline and a small outage allowance, so that many charges are in flight or held by the
 * cluster client when their shard goes and most requests of that shard's customers are refused (503)
 * until its replica is promoted. Once the old primary is back (as a replica) and the journals are
 * replayed, each customer's credits equal the answers given as charged — identification and enrichment,
 * none for a 503, none twice — and stay so. Real cluster: 3 primaries (a failover needs a majority of them), 1 replica each.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { enrichmentCharge, identificationCharge, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisCluster, startRedisCluster } from '../testing/redis-cluster.ts';
import { StoreUnavailableError } from './errors.ts';
import type { ChargeRequest } from './metering/service.ts';
import { slotOf } from './redis/connection.ts';
import { RedisStateStore } from './redis/store.ts';

const TIMEOUT_MS = 300;
const ALLOWANCE = 5;
const QUOTA = 1_000_000;
let cluster: RedisCluster;
let dir: string;
const stores: RedisStateStore[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-failover-charges-'));
  cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
  for (let i = 0; i < 2; i++) {
    stores.push(
      await RedisStateStore.open({
        url: cluster.url,
        cluster: true,
        waitReplicas: 1,
        journalDir: join(dir, `node-${i}`),
        outageAllowance: ALLOWANCE,
        commandTimeoutMs: TIMEOUT_MS,
        log: () => {},
      }),
    );
  }
}, 120_000);
afterAll(async () => {
  for (const s of stores) await s.close();
  await cluster?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('a primary killed under charges from two nodes: after recovery every customer is charged exactly the answers given as charged', async () => {
  const victim = (await cluster.nodes()).find((n) => n.role === 'master' && n.slots.length > 0)!;
  const onVictim = (id: string) => {
    const slot = slotOf(`{cust:${id}}`);
    return victim.slots.some((r) => {
      const [from, to = from] = r.split('-').map(Number) as [number, number?];
      return from <= slot && slot <= to;
    });
  };
  // Three customers on the shard that fails over, one on the other.
  const ids: string[] = [];
  for (let i = 0; ids.filter(onVictim).length < 3 || ids.every(onVictim); i++) {
    const id = `fo${i}`;
    if (onVictim(id) ? ids.filter(onVictim).length < 3 : ids.every(onVictim)) ids.push(id);
  }
  for (const id of ids) await stores[0]!.importCustomer({ ...TEST_CUSTOMER, id, name: id, tags: [], identification_credits: QUOTA, enrichment_credits: QUOTA });

  const charged = new Map(ids.map((id) => [id, { identification: 0, enrichment: 0 }]));
  const statuses = new Map<string, number>();
  let n = 0;
  let running = true;
  const worker = async (w: number) => {
    const store = stores[w % 2]!;
    while (running) {
      const id = ids[n % ids.length]!;
      const i = n++;
      const pool = w % 4 === 3 ? 'enrichment' : 'identification';
      const req: ChargeRequest =
        pool === 'enrichment'
          ? { ...enrichmentCharge, customer_id: id, record: `r${i}`, dedupe_key: `${id}|v3|r${i}|2026-11`, quota: QUOTA }
          : { ...identificationCharge(i, '10.8.0'), customer_id: id, quota: QUOTA };
      const status = await store.charge(req).then(
        (o) => (o.outcome === 'charged' ? 200 : o.outcome === 'free' ? 201 : 402),
        (e: unknown) => (e instanceof StoreUnavailableError ? 503 : 500),
      );
      statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
      if (status === 200) charged.get(id)![pool]++;
      if (status === 503) await sleep(5);
    }
  };
  const load = Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
  await sleep(500);
  await cluster.kill(victim.port);
  await cluster.settled(30_000);
  await sleep(1_000);
  running = false;
  await load;
  // The old primary comes back as the new one's replica: a command a node still held for it goes out now.
  await cluster.start(victim.port);

  console.log(`primary killed under charges: ${statuses.get('200')} answered as charged, ${statuses.get('503')} × 503`);
  // Only answers as charged and 503s (the shard's customers past the allowance while it fails over).
  expect([...statuses.keys()].sort()).toEqual(['200', '503']);
  const usedOf = async (id: string) => {
    const b = (pool: 'identification' | 'enrichment') => stores[1]!.balance(id, pool, 'year-0', QUOTA).then((x) => x.used);
    return { identification: await b('identification'), enrichment: await b('enrichment') };
  };
  for (const id of ids) {
    await expect.poll(() => usedOf(id).catch(() => null), { timeout: 30_000, interval: 250 }).toEqual(charged.get(id));
  }
  await expect.poll(() => readdirSync(join(dir, 'node-0')).length + readdirSync(join(dir, 'node-1')).length, { timeout: 10_000 }).toBe(0);
  // Nothing lands later.
  await sleep(2_000);
  for (const id of ids) expect({ id, ...(await usedOf(id)) }).toEqual({ id, ...charged.get(id) });
}, 120_000);
