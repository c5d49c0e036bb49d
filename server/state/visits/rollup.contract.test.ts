/**
 * Home's per-day rollup (rollup.ts) on every backend — SQLite, Redis and a real Redis Cluster: what
 * periodSummary reads from it (daily totals, distinct accounts, accounts first seen, segment entries, the
 * most active accounts) is what the aggregates give for the same range — for any range, views recorded in
 * any order (late beacons), across month and year ends, past the first page of each day's ranking; a day
 * recorded before the rollup existed is read from the aggregates (Redis) or filled by the migration
 * (SQLite); the rollup moves with `svc state export/import` and goes with the day's aggregates.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisCluster } from '../../testing/redis-cluster.ts';
import { startRedisServer } from '../../testing/redis-server.ts';
import { openRedis } from '../redis/connection.ts';
import { STATE_MIGRATIONS } from '../sqlite/schema.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import { RedisVisitStore, visitKeys } from './redis.ts';
import { ROLLUP_SPAN_DAYS } from './rollup.ts';
import { SqliteVisitStore } from './sqlite.ts';
import { daysBetween, type PageViewCount, type VisitStore } from './store.ts';

interface Fixture {
  /** Another store on the same state (another process or node). */
  open(retentionDays?: number): Promise<VisitStore>;
  /** A client on the same Redis (Redis backends): what a store recorded before the rollup existed is emulated by deleting its keys. */
  admin?: RedisClientType;
  /** The state file (SQLite). */
  file?(): string;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const BACKENDS: { name: string; start(): Promise<Fixture> }[] = [
  {
    name: 'sqlite',
    async start() {
      let dir = mkdtempSync(join(tmpdir(), 'svc-rollup-'));
      return {
        open: async (retentionDays) => new SqliteVisitStore(join(dir, 'svc.db'), { retentionDays }),
        file: () => join(dir, 'svc.db'),
        async reset() {
          rmSync(dir, { recursive: true, force: true });
          dir = mkdtempSync(join(tmpdir(), 'svc-rollup-'));
        },
        close: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'redis',
    async start() {
      const redis = await startRedisServer();
      const admin = createClient({ url: redis.url }) as RedisClientType;
      await admin.connect();
      return {
        open: (retentionDays) => RedisVisitStore.open(redis.url, { retentionDays }),
        admin,
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
        admin,
        reset: () => cluster.flush(),
        async close() {
          for (const c of clients.splice(0)) await c.close();
          await cluster.close();
        },
      };
    },
  },
];

const DAY_MS = 86_400_000;
const dayAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const random = (seed: number) => {
  let s = seed;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
};

describe.each(BACKENDS)('Home rollup: $name', (backend) => {
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

  const view = (day: string, company_id: string | null, n = 0, customer_id = 'acme'): PageViewCount => ({
    customer_id,
    day,
    company_id,
    path: ['/', '/pricing', '/docs'][n % 3]!,
    session_id: `s-${company_id}-${day}-${n % 2}`,
    at: new Date(Date.parse(`${day}T08:00:00.000Z`) + n * 60_000).toISOString(),
  });
  /** Records views with a few in flight at once (as a busy node does). */
  const record = async (s: VisitStore, views: PageViewCount[]) => {
    for (let i = 0; i < views.length; i += 50) await Promise.all(views.slice(i, i + 50).map((v) => s.recordPageView(v)));
  };
  /** What the aggregates give for the range: what periodSummary must answer. */
  const fromAggregates = async (s: VisitStore, from: string, to: string, top: number, customer = 'acme') => {
    const [accounts, daily, fresh, entries] = await Promise.all([
      s.accountTotals(customer, from, to),
      s.dailyTotals(customer, from, to),
      s.newAccounts(customer, from, to),
      s.segmentEntries(customer, from, to),
    ]);
    return { daily, accounts: accounts.length, new_accounts: fresh, segment_entries: entries, top: accounts.slice(0, top) };
  };
  const expectAgrees = async (s: VisitStore, from: string, to: string, top = 5, source = 'rollup') => {
    const summary = await s.periodSummary('acme', from, to, top);
    expect(summary, `${from}..${to}`).toEqual({ ...(await fromAggregates(s, from, to, top)), source });
    return summary;
  };
  /** A few weeks of views of 25 accounts, anonymous ones and another customer's, in a shuffled order (late beacons). */
  const someViews = (days: string[], seed: number) => {
    const rnd = random(seed);
    const views: PageViewCount[] = [];
    for (const day of days) {
      for (let c = 0; c < 25; c++) {
        if (rnd() < 0.35) for (let n = 0, k = 1 + Math.floor(rnd() * 4); n < k; n++) views.push(view(day, `c${String(c).padStart(2, '0')}`, n));
      }
      if (rnd() < 0.7) views.push(view(day, null, 0));
      if (rnd() < 0.3) views.push(view(day, 'c01', 0, 'other'));
    }
    return views
      .map((v) => [rnd(), v] as const)
      .sort(([a], [b]) => a - b)
      .map(([, v]) => v);
  };

  it('answers any range with the aggregates’ figures: daily totals, distinct accounts, accounts first seen, segment entries, the most active accounts', async () => {
    // Across a month's end; every view recorded in a shuffled order.
    const days = daysBetween('2026-02-24', '2026-03-07');
    await record(store, someViews(days, 7));
    for (const [i, day] of days.entries()) {
      if (i % 3 === 0) await store.swapAccountSegments('acme', 'c01', i % 2 ? [1, 2] : [2, 3], `${day}T12:00:00.000Z`);
    }
    for (const [i, from] of days.entries()) for (const to of days.slice(i)) await expectAgrees(store, from, to);
    // Another store on the same state (another process or node) reads the same.
    expect(await (await open()).periodSummary('acme', days[0]!, days.at(-1)!, 5)).toEqual(await store.periodSummary('acme', days[0]!, days.at(-1)!, 5));
  });

  it('counts an account once however its days arrive: a late view of an earlier day moves the gap of its next one, and its first day', async () => {
    const d = daysBetween('2026-11-10', '2026-11-16');
    // c1 on the 12th and 16th; then a late beacon of the 14th, one of the 10th (its first day moves back), one of the 11th.
    await record(store, [view(d[2]!, 'c1'), view(d[6]!, 'c1')]);
    await expectAgrees(store, d[0]!, d[6]!);
    for (const late of [d[4]!, d[0]!, d[1]!]) {
      await store.recordPageView(view(late, 'c1', 1));
      for (const [i, from] of d.entries()) for (const to of d.slice(i)) await expectAgrees(store, from, to);
    }
    expect((await store.periodSummary('acme', d[0]!, d[6]!, 5)).accounts).toBe(1);
    expect((await store.periodSummary('acme', d[3]!, d[6]!, 5)).accounts).toBe(1);
    expect((await store.periodSummary('acme', d[3]!, d[3]!, 5)).accounts).toBe(0);
  });

  it('counts distinct accounts over a year’s end and over the longest range, gaps up to the span and past it', async () => {
    const views = ['2025-12-30', '2026-01-02', '2026-03-31', '2026-04-01'].map((day) => view(day, 'c1'));
    // c2: gaps of exactly the span less one and the span (kept as none).
    const c2 = ['2025-12-31', '2026-04-01'];
    const at = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
    views.push(view(c2[0]!, 'c2'), view(at(c2[0]!, ROLLUP_SPAN_DAYS - 1), 'c2'), view(at(c2[0]!, ROLLUP_SPAN_DAYS), 'c2'));
    await record(store, views);
    const from = '2025-12-30';
    for (const to of ['2025-12-31', '2026-01-02', '2026-03-31', at(from, ROLLUP_SPAN_DAYS - 1)]) await expectAgrees(store, from, to);
    for (const [f, t] of [
      ['2026-01-01', '2026-04-01'],
      ['2026-01-03', at('2026-01-03', ROLLUP_SPAN_DAYS - 1)],
      ['2026-03-31', '2026-04-02'],
    ] as const) {
      await expectAgrees(store, f, t);
    }
    // Longer than the span: read from the aggregates.
    await expectAgrees(store, from, at(from, ROLLUP_SPAN_DAYS), 5, 'aggregates');
  });

  it('ranks the most active accounts exactly past the first page of each day’s ranking, ties by company id', async () => {
    // Each day: a heavy account of its own (30 views), 290 accounts of its own with one view, and x with one.
    const days = daysBetween('2026-11-14', '2026-11-20');
    const views: PageViewCount[] = [];
    for (const [d, day] of days.entries()) {
      for (let n = 0; n < 30; n++) views.push(view(day, `h${d}`, n));
      for (let k = 0; k < 290; k++) views.push(view(day, `t${d}-${String(k).padStart(3, '0')}`));
      views.push(view(day, 'x'));
    }
    await record(store, views);
    // The heavy ones tie at 30 (the smallest ids first); x has 7, then the ties at 1 by id.
    const top10 = await expectAgrees(store, days[0]!, days[6]!, 10);
    expect(top10.top.map((a) => a.company_id)).toEqual(['h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'x', 't0-000', 't0-001']);
    expect(top10.accounts).toBe(7 * 292 - 6);
    await expectAgrees(store, days[0]!, days[6]!, 3);
    await expectAgrees(store, days[2]!, days[4]!, 250);
  });

  it('moves with state export/import: derived from the account-days moved, in any order; segment entries move', async () => {
    const days = daysBetween(dayAgo(12), dayAgo(0));
    await record(store, someViews(days, 11));
    await store.swapAccountSegments('acme', 'c02', [4, 5], `${days[3]}T12:00:00.000Z`);
    await store.swapAccountSegments('acme', 'c02', [5, 6], `${days[8]}T12:00:00.000Z`);
    const ranges = [
      [days[0]!, days[12]!],
      [days[6]!, days[12]!],
      [days[0]!, days[5]!],
      [days[4]!, days[4]!],
    ] as const;
    const before = await Promise.all(ranges.map(([f, t]) => expectAgrees(store, f, t)));
    const exported: VisitEntry[] = [];
    for await (const e of store.exportEntries()) exported.push(e);
    expect(exported.filter((e) => e.type === 'visit_segment_entries')).toHaveLength(2);
    // Account-days in a shuffled order: a day's neighbours may come after it.
    const rnd = random(5);
    const shuffled = exported
      .map((e) => [rnd(), e] as const)
      .sort(([a], [b]) => a - b)
      .map(([, e]) => e);
    await fx.reset();
    const moved = await open();
    await moved.importEntries(shuffled);
    for (const [i, [f, t]] of ranges.entries()) expect(await moved.periodSummary('acme', f, t, 5)).toEqual(before[i]);
    // Counting goes on from what moved: a view of an account seen the day before is not a new account.
    const seen = before[0]!.top[0]!.company_id;
    await moved.recordPageView(view(days[12]!, seen, 9));
    await expectAgrees(moved, days[0]!, days[12]!);
  });

  it('reads a day recorded before the rollup existed from the aggregates (Redis), or fills it when the file is migrated (SQLite)', async () => {
    const days = daysBetween(dayAgo(6), dayAgo(0));
    await record(store, someViews(days, 3));
    const rollup = await expectAgrees(store, days[0]!, days[6]!);
    if (fx.admin) {
      // Days 0–2 as a store before the rollup left them; day 3 upgraded during the day (its rollup misses the views before).
      await fx.admin.del(days.slice(0, 4).flatMap((d) => [visitKeys.rollup('acme', d), visitKeys.rank('acme', d)]));
      await store.recordPageView(view(days[3]!, 'c03', 7));
      await expectAgrees(store, days[0]!, days[6]!, 5, 'aggregates');
      await expectAgrees(store, days[2]!, days[3]!, 5, 'aggregates');
      // Days recorded whole through the rollup read from it; a day without account views needs none.
      await expectAgrees(store, days[4]!, days[6]!);
      expect(await store.periodSummary('acme', dayAgo(30), dayAgo(20), 5)).toMatchObject({ accounts: 0, source: 'rollup' });
      return;
    }
    // SQLite: a file as this version's predecessor left it (no rollup tables), opened again: the migration fills them.
    for (const s of opened.splice(0)) await s.close();
    const db = new Database(fx.file!());
    const step = STATE_MIGRATIONS.steps.findIndex((m) => String(m).includes('visit_day_gaps'));
    db.exec('DROP TABLE visit_days; DROP TABLE visit_day_gaps; DROP INDEX visit_accounts_rank; DROP INDEX visit_accounts_company');
    db.pragma(`user_version = ${step}`);
    db.close();
    const migrated = await open();
    expect(await expectAgrees(migrated, days[0]!, days[6]!)).toEqual(rollup);
    for (const from of days) await expectAgrees(migrated, from, days[6]!);
  });

  it('goes with the day’s aggregates: the retention deletes (SQLite) or expires (Redis) a day’s rollup with them', async () => {
    const short = await open(5);
    await record(short, [view(dayAgo(9), 'c1'), view(dayAgo(9), 'c2'), view(dayAgo(1), 'c1'), view(dayAgo(0), 'c3')]);
    if (fx.admin) {
      const ttl = (key: string) => fx.admin!.ttl(key);
      for (const day of [dayAgo(9), dayAgo(0)]) {
        const acct = await ttl(visitKeys.account('acme', day));
        expect(acct).toBeGreaterThan(5 * 86_400);
        for (const key of [visitKeys.rollup('acme', day), visitKeys.rank('acme', day)]) expect(Math.abs((await ttl(key)) - acct)).toBeLessThanOrEqual(2);
      }
      return;
    }
    await (short as SqliteVisitStore).pruneAggregates(dayAgo(0));
    const old = await short.periodSummary('acme', dayAgo(9), dayAgo(9), 5);
    expect(old).toMatchObject({ accounts: 0, new_accounts: 0, top: [], daily: [{ day: dayAgo(9), identified: 0, anonymous: 0 }] });
    await expectAgrees(short, dayAgo(4), dayAgo(0));
  });
});
