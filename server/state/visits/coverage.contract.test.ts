/**
 * The visit store's coverage counts (coverage.ts) on every backend — SQLite, Redis and a real Redis
 * Cluster: each anonymous view's reason is counted in the view's own atomic step (on a cluster, in the
 * one slot of the customer's keys), so a day's reasons add up to its anonymous page views, under bursts
 * from several nodes too; they move with `svc state export/import` and go with the retention.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNIDENTIFIED_REASONS, type UnidentifiedReason } from '../../../core/vocabulary.ts';
import { startRedisCluster } from '../../testing/redis-cluster.ts';
import { startRedisServer } from '../../testing/redis-server.ts';
import { openRedis } from '../redis/connection.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import { RedisVisitStore, visitKeys } from './redis.ts';
import { SqliteVisitStore } from './sqlite.ts';
import type { PageViewCount, VisitStore } from './store.ts';

interface Fixture {
  /** Another store on the same state (another process or node); `retentionDays` its aggregates' retention. */
  open(retentionDays?: number): Promise<VisitStore>;
  /** The key's TTL in seconds (Redis backends only). */
  ttl?(key: string): Promise<number>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const BACKENDS: { name: string; start(): Promise<Fixture> }[] = [
  {
    name: 'sqlite',
    async start() {
      let dir = mkdtempSync(join(tmpdir(), 'svc-coverage-'));
      return {
        open: async (retentionDays) => new SqliteVisitStore(join(dir, 'svc.db'), { retentionDays }),
        async reset() {
          rmSync(dir, { recursive: true, force: true });
          dir = mkdtempSync(join(tmpdir(), 'svc-coverage-'));
        },
        close: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'redis',
    async start() {
      const redis = await startRedisServer();
      const admin = createClient({ url: redis.url });
      await admin.connect();
      return {
        open: (retentionDays) => RedisVisitStore.open(redis.url, { retentionDays }),
        ttl: (key) => admin.ttl(key),
        reset: async () => void (await admin.flushAll()),
        async close() {
          await admin.close();
          await redis.close();
        },
      };
    },
  },
  {
    // The same store on a real Redis Cluster (3 primaries + replicas) through the cluster client.
    name: 'redis-cluster',
    async start() {
      const cluster = await startRedisCluster();
      const clients: RedisClientType[] = [];
      const client = async () => {
        const c = openRedis({ url: cluster.url, cluster: true });
        await c.connect();
        clients.push(c);
        return c;
      };
      const admin = await client();
      return {
        open: async (retentionDays) => RedisVisitStore.open(await client(), { retentionDays }),
        ttl: (key) => admin.ttl(key),
        reset: () => cluster.flush(),
        async close() {
          for (const c of clients.splice(0)) await c.close();
          await cluster.close();
        },
      };
    },
  },
];

const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe.each(BACKENDS)('coverage counts: $name', (backend) => {
  let fx: Fixture;
  let store: VisitStore;
  const opened: VisitStore[] = [];
  const open = async (retentionDays?: number) => {
    const s = await fx.open(retentionDays);
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    fx = await backend.start();
  }, 30_000);
  afterAll(async () => fx?.close());
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await fx.reset();
  });

  const view = (over: Partial<PageViewCount> = {}): PageViewCount => ({
    customer_id: 'acme',
    day: today,
    company_id: null,
    path: '/',
    session_id: 'session-aaaa',
    at: `${today}T10:00:00.000Z`,
    ...over,
  });
  const reasonsOf = async (s: VisitStore, day = today, customer = 'acme') =>
    (await s.unidentifiedPageViews(customer, day, day))[0]!.reasons as Record<UnidentifiedReason, number>;
  const sum = (r: Record<string, number>) => Object.values(r).reduce((n, v) => n + v, 0);

  it('counts each anonymous view under its reason with the anonymous total; a Match and a view without a reason count none', async () => {
    // Each reason i + 1 times.
    for (const [i, reason] of UNIDENTIFIED_REASONS.entries()) {
      for (let k = 0; k <= i; k++) await store.recordPageView(view({ unidentified_reason: reason, at: `${today}T10:00:0${k}.000Z` }));
    }
    await store.recordPageView(view({ company_id: '900001' }));
    await store.recordPageView(view()); // anonymous, no reason told
    const reasons = await reasonsOf(store);
    expect(reasons).toEqual(Object.fromEntries(UNIDENTIFIED_REASONS.map((r, i) => [r, i + 1])));
    const [daily] = await store.dailyTotals('acme', today, today);
    expect(daily).toEqual({ day: today, identified: 1, anonymous: sum(reasons) + 1 });
    // Every day of a range, zeros included; another customer's views are its own.
    expect(await store.unidentifiedPageViews('acme', yesterday, today)).toEqual([
      { day: yesterday, reasons: Object.fromEntries(UNIDENTIFIED_REASONS.map((r) => [r, 0])) },
      { day: today, reasons },
    ]);
    expect(sum(await reasonsOf(store, today, 'other'))).toBe(0);
  });

  it('adds up to the anonymous page views under a burst from several nodes at once', async () => {
    const nodes = [store, await open(), await open()];
    const reasons: UnidentifiedReason[] = ['isp', 'hosting', 'bot', 'vpn', 'no_data'];
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        nodes[i % 3]!.recordPageView(view({ unidentified_reason: reasons[i % reasons.length], session_id: `session-${i}`, at: `${today}T11:00:00.000Z` })),
      ),
    );
    const counted = await reasonsOf(nodes[1]!);
    expect(counted).toMatchObject({ isp: 60, hosting: 60, bot: 60, vpn: 60, no_data: 60, proxy: 0, tor: 0, relay: 0, other: 0 });
    expect((await nodes[2]!.dailyTotals('acme', today, today))[0]!.anonymous).toBe(sum(counted));
  });

  it('moves with state export/import: an empty store that imports them reads the same split', async () => {
    await store.recordPageView(view({ unidentified_reason: 'vpn' }));
    await store.recordPageView(view({ unidentified_reason: 'vpn', day: yesterday, at: `${yesterday}T09:00:00.000Z` }));
    await store.recordPageView(view({ unidentified_reason: 'relay', customer_id: 'other' }));
    await store.recordPageView(view({ company_id: '900001' }));
    const exported: VisitEntry[] = [];
    for await (const e of store.exportEntries()) exported.push(e);
    const counts = exported.filter((e) => e.type === 'visit_unidentified');
    expect(counts).toEqual(
      expect.arrayContaining([
        { type: 'visit_unidentified', customer_id: 'acme', day: yesterday, reason: 'vpn', page_views: 1 },
        { type: 'visit_unidentified', customer_id: 'acme', day: today, reason: 'vpn', page_views: 1 },
        { type: 'visit_unidentified', customer_id: 'other', day: today, reason: 'relay', page_views: 1 },
      ]),
    );
    expect(counts).toHaveLength(3);
    const before = [await store.unidentifiedPageViews('acme', yesterday, today), await store.unidentifiedPageViews('other', yesterday, today)];

    await fx.reset();
    const moved = await open();
    expect(await moved.isEmpty()).toBe(true);
    expect(await moved.importEntries(exported)).toBe(exported.length);
    expect([await moved.unidentifiedPageViews('acme', yesterday, today), await moved.unidentifiedPageViews('other', yesterday, today)]).toEqual(before);
    // Counting goes on from what moved.
    await moved.recordPageView(view({ unidentified_reason: 'vpn' }));
    expect((await reasonsOf(moved)).vpn).toBe(2);
    // A store holding only coverage counts is not empty: a second import would merge into them.
    await fx.reset();
    const only = await open();
    await only.importEntries(counts);
    expect(await only.isEmpty()).toBe(false);
    await expect(only.importEntries(counts)).rejects.toThrow(/already holds page views/);
  });

  it('goes with the per-day aggregates’ retention', async () => {
    const short = await open(2);
    const old = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    await short.recordPageView(view({ unidentified_reason: 'tor', day: old, at: `${old}T10:00:00.000Z` }));
    await short.recordPageView(view({ unidentified_reason: 'tor' }));
    if (short instanceof SqliteVisitStore) {
      await short.pruneAggregates(today);
      expect((await reasonsOf(short, old)).tor).toBe(0);
    } else {
      // The day's key lives as the day's other aggregates: the retention plus a day after its last write.
      const ttl = await fx.ttl!(visitKeys.unidentified('acme', today));
      expect(ttl).toBeGreaterThan(2 * 86_400);
      expect(ttl).toBeLessThanOrEqual(3 * 86_400);
    }
    expect((await reasonsOf(short)).tor).toBe(1);
  });
});
