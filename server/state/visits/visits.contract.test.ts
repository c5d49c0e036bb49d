import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisCluster } from '../../testing/redis-cluster.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { StoreUnavailableError } from '../errors.ts';
import { openRedis } from '../redis/connection.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import { RedisVisitStore, visitKeys } from './redis.ts';
import { SqliteVisitStore } from './sqlite.ts';
import {
  type KeptRawView,
  ORIGINS_PER_TAG,
  OTHER_PATHS,
  PAGES_PER_SESSION,
  PATHS_PER_ACCOUNT_DAY,
  type PageViewCount,
  parseRawViewId,
  parseSighting,
  RAW_VIEW_ID_SLACK_MS,
  type RawViewQuery,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  type UncountedPageView,
  VISIT_RETENTION_DAYS,
  type VisitStore,
} from './store.ts';

/** A backend: `open()` gives another store on the same state (another process or node). */
interface Backend {
  name: string;
  start(): Promise<{ open(): Promise<VisitStore>; reset(): Promise<void>; close(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'sqlite',
    async start() {
      let dir = mkdtempSync(join(tmpdir(), 'svc-visits-'));
      return {
        open: async () => new SqliteVisitStore(join(dir, 'svc.db')),
        async reset() {
          rmSync(dir, { recursive: true, force: true });
          dir = mkdtempSync(join(tmpdir(), 'svc-visits-'));
        },
        async close() {
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'redis',
    async start() {
      const redis: RedisServer = await startRedisServer();
      return {
        open: () => RedisVisitStore.open(redis.url),
        async reset() {
          const c = createClient({ url: redis.url });
          await c.connect();
          await c.flushAll();
          await c.close();
        },
        close: () => redis.close(),
      };
    },
  },
  {
    // The same store on a real Redis Cluster (3 primaries + replicas) through the cluster client.
    name: 'redis-cluster',
    async start() {
      const cluster = await startRedisCluster();
      const clients: RedisClientType[] = [];
      const closeClients = async () => {
        for (const c of clients.splice(0)) await c.close();
      };
      return {
        async open() {
          const client = openRedis({ url: cluster.url, cluster: true });
          await client.connect();
          clients.push(client);
          return RedisVisitStore.open(client);
        },
        async reset() {
          await closeClients();
          await cluster.flush();
        },
        async close() {
          await closeClients();
          await cluster.close();
        },
      };
    },
  },
];

describe.each(BACKENDS)('visit store contract: $name', (backend) => {
  let fx: Awaited<ReturnType<Backend['start']>>;
  let store: VisitStore;
  const opened: VisitStore[] = [];
  const open = async () => {
    const s = await fx.open();
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    fx = await backend.start();
  }, 20_000);
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
    day: '2026-11-20',
    company_id: '900001',
    path: '/',
    session_id: 'session-aaaa',
    at: '2026-11-20T10:00:00.000Z',
    ...over,
  });
  /** The raw view of a count, as the recorder builds it (server/visits/recorder.ts RecordedPageView less the store's answer). */
  const rawOf = (v: PageViewCount): UncountedPageView => ({
    customer_id: v.customer_id,
    tag_id: 'acme-tag',
    at: v.at,
    day: v.day,
    company_id: v.company_id,
    path: v.path,
    referrer_host: 'news.example',
    session_id: v.session_id,
    origin: 'https://www.acme.test',
    segment_ids: v.company_id === null ? [] : [3, 1],
    hot_account: false,
    excluded: false,
  });
  const withRaw = (over: Partial<PageViewCount> = {}): PageViewCount => {
    const v = view(over);
    return { ...v, raw: rawOf(v) };
  };
  const rawViews = async (s: VisitStore, customer: string, q: Partial<RawViewQuery> = {}): Promise<KeptRawView[]> => {
    const out: KeptRawView[] = [];
    for await (const r of s.rawPageViews(customer, { from: '2026-11-20', to: '2026-11-21', after: null, limit: 100_000, ...q })) out.push(r);
    return out;
  };

  it('keeps a raw view in its count’s step, with the count’s first-of-day answer, as the NDJSON log’s line text', async () => {
    const first = withRaw({ path: '/pricing?utm_source="x"' });
    expect(await store.recordPageView(first)).toEqual({ first_of_day_for_account: true });
    await store.recordPageView(withRaw({ at: '2026-11-20T10:00:01.000Z' }));
    await store.recordPageView(withRaw({ company_id: null, at: '2026-11-20T10:00:02.000Z' }));
    await store.recordPageView(view({ at: '2026-11-20T10:00:03.000Z' })); // counted, no raw view given
    await store.recordPageView(withRaw({ customer_id: 'other', at: '2026-11-20T10:00:04.000Z' }));

    const kept = await rawViews(store, 'acme');
    // The recorder's view object, in its field order: JSON.stringify of it is the NDJSON line.
    const line = (v: PageViewCount, firstOfDay: boolean) => {
      const { segment_ids, hot_account, excluded, ...head } = rawOf(v);
      return JSON.stringify({ ...head, first_of_day_for_account: firstOfDay, segment_ids, hot_account, excluded });
    };
    expect(kept).toEqual([
      { id: `${Date.parse('2026-11-20T10:00:00.000Z')}-0`, text: line(first, true) },
      { id: `${Date.parse('2026-11-20T10:00:01.000Z')}-0`, text: line(view({ at: '2026-11-20T10:00:01.000Z' }), false) },
      { id: `${Date.parse('2026-11-20T10:00:02.000Z')}-0`, text: line(view({ company_id: null, at: '2026-11-20T10:00:02.000Z' }), false) },
    ]);
    expect(JSON.parse(kept[0]!.text)).toMatchObject({ path: '/pricing?utm_source="x"', first_of_day_for_account: true, segment_ids: [3, 1] });
    expect((await rawViews(store, 'other')).map((r) => JSON.parse(r.text).customer_id)).toEqual(['other']);
  });

  it('lists raw views of from..to in id order (a view dated before the latest comes after it), resumes after a cursor, stops at the limit', async () => {
    const t = (time: string) => `2026-11-20T${time}.000Z`;
    await store.recordPageView(withRaw({ at: t('10:00:00') }));
    await store.recordPageView(withRaw({ at: t('10:00:00'), path: '/same-ms' }));
    await store.recordPageView(withRaw({ day: '2026-11-21', at: '2026-11-21T00:05:00.000Z', path: '/next-day' }));
    // Late (another node's clock behind): its id follows the latest, never goes before it.
    await store.keepRawPageView({ ...rawOf(view({ at: t('09:00:00'), path: '/late' })), first_of_day_for_account: false });
    await store.recordPageView(withRaw({ day: '2026-11-19', at: '2026-11-19T23:59:59.999Z', path: '/day-before' }));

    const paths = (rows: KeptRawView[]) => rows.map((r) => JSON.parse(r.text).path);
    const all = await rawViews(store, 'acme', { from: '2026-11-19' });
    const next = Date.parse('2026-11-21T00:05:00.000Z');
    expect(all.map((r) => r.id)).toEqual([`${Date.parse(t('10:00:00'))}-0`, `${Date.parse(t('10:00:00'))}-1`, `${next}-0`, `${next}-1`, `${next}-2`]);
    expect(paths(all)).toEqual(['/', '/same-ms', '/next-day', '/late', '/day-before']);
    expect(paths(await rawViews(store, 'acme', { to: '2026-11-20' }))).toEqual(['/', '/same-ms', '/late']);
    expect(paths(await rawViews(store, 'acme', { from: '2026-11-21' }))).toEqual(['/next-day']);
    // Listed by a range up to its id's day: past the slack after the end of its own day (RAW_VIEW_ID_SLACK_MS).
    expect(paths(await rawViews(store, 'acme', { from: '2026-11-19', to: '2026-11-19' }))).toEqual([]);
    expect(paths(all)).toContain('/day-before');

    // Resumed after each page's last id: exactly the rest, whatever the page size.
    const pages: string[][] = [];
    for (let after: string | null = null; ; ) {
      const page = await rawViews(store, 'acme', { from: '2026-11-19', after: after === null ? null : parseRawViewId(after), limit: 2 });
      if (page.length === 0) break;
      pages.push(paths(page));
      after = page[page.length - 1]!.id;
    }
    expect(pages).toEqual([['/', '/same-ms'], ['/next-day', '/late'], ['/day-before']]);
    expect(await rawViews(store, 'acme', { after: parseRawViewId(all[4]!.id) })).toEqual([]);
  });

  it('never gives a raw view an id far past the store’s clock: a node whose clock runs ahead does not carry later ids with it', async () => {
    const ahead = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await store.keepRawPageView({ ...rawOf(view({ day: ahead.slice(0, 10), at: ahead })), first_of_day_for_account: false });
    const now = new Date().toISOString();
    await store.keepRawPageView({ ...rawOf(view({ day: now.slice(0, 10), at: now })), first_of_day_for_account: false });
    const ids = (await rawViews(store, 'acme', { from: now.slice(0, 10), to: ahead.slice(0, 10) })).map((r) => parseRawViewId(r.id)!);
    expect(ids).toHaveLength(2);
    expect(ids[0]!.ms).toBeLessThanOrEqual(Date.now() + RAW_VIEW_ID_SLACK_MS);
    expect(ids[1]).toEqual({ ms: ids[0]!.ms, n: 1 });
  });

  it('aggregates page views per account and day: views, distinct sessions, first and last seen, top pages', async () => {
    expect(await store.recordPageView(view())).toEqual({ first_of_day_for_account: true });
    expect(await store.recordPageView(view({ path: '/pricing', at: '2026-11-20T11:00:00.000Z' }))).toEqual({ first_of_day_for_account: false });
    await store.recordPageView(view({ path: '/pricing', session_id: 'session-bbbb', at: '2026-11-20T09:00:00.000Z' }));
    expect(await store.recordPageView(view({ day: '2026-11-21', at: '2026-11-21T08:00:00.000Z' }))).toEqual({ first_of_day_for_account: true });
    await store.recordPageView(view({ company_id: '900002' }));
    await store.recordPageView(view({ customer_id: 'other' }));

    expect(await store.accountVisits('acme', '2026-11-20', '2026-11-21')).toEqual([
      {
        company_id: '900001',
        page_views: 4,
        sessions: 3,
        first_seen: '2026-11-20T09:00:00.000Z',
        last_seen: '2026-11-21T08:00:00.000Z',
        top_pages: [
          { path: '/', page_views: 2 },
          { path: '/pricing', page_views: 2 },
        ],
      },
      {
        company_id: '900002',
        page_views: 1,
        sessions: 1,
        first_seen: '2026-11-20T10:00:00.000Z',
        last_seen: '2026-11-20T10:00:00.000Z',
        top_pages: [{ path: '/', page_views: 1 }],
      },
    ]);
    expect((await store.accountVisits('acme', '2026-11-21', '2026-11-21')).map((a) => [a.company_id, a.page_views])).toEqual([['900001', 1]]);
    expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([
      { day: '2026-11-20', path: '/', page_views: 1 },
      { day: '2026-11-20', path: '/pricing', page_views: 2 },
    ]);
  });

  it('lists the page views of every account per day and path in a range (what segment rules read over the catalog), ordered by company, day and path', async () => {
    await store.recordPageView(view({ path: '/pricing' }));
    await store.recordPageView(view({ path: '/pricing', at: '2026-11-20T10:05:00.000Z' }));
    await store.recordPageView(view({ path: '/', day: '2026-11-21', at: '2026-11-21T08:00:00.000Z' }));
    await store.recordPageView(view({ company_id: '10', path: '/blog/a', day: '2026-11-19', at: '2026-11-19T08:00:00.000Z' }));
    await store.recordPageView(view({ company_id: null, path: '/anonymous' }));
    await store.recordPageView(view({ customer_id: 'other', path: '/theirs' }));
    expect(await store.accountsPages('acme', '2026-11-19', '2026-11-21')).toEqual([
      { company_id: '10', day: '2026-11-19', path: '/blog/a', page_views: 1 },
      { company_id: '900001', day: '2026-11-20', path: '/pricing', page_views: 2 },
      { company_id: '900001', day: '2026-11-21', path: '/', page_views: 1 },
    ]);
    expect(await store.accountsPages('acme', '2026-11-20', '2026-11-20')).toEqual([
      { company_id: '900001', day: '2026-11-20', path: '/pricing', page_views: 2 },
    ]);
    expect(await store.accountsPages('acme', '2026-11-22', '2026-11-30')).toEqual([]);
    expect(await store.accountsPages('nobody', '2026-11-19', '2026-11-21')).toEqual([]);
    // Another store on the same state (another process or node) reads the same.
    expect(await (await open()).accountsPages('acme', '2026-11-21', '2026-11-21')).toEqual([
      { company_id: '900001', day: '2026-11-21', path: '/', page_views: 1 },
    ]);
  });

  it('counts anonymous views per day only, and fills every day of the range', async () => {
    await store.recordPageView(view({ company_id: null }));
    await store.recordPageView(view({ company_id: null }));
    await store.recordPageView(view());
    expect(await store.dailyTotals('acme', '2026-11-19', '2026-11-21')).toEqual([
      { day: '2026-11-19', identified: 0, anonymous: 0 },
      { day: '2026-11-20', identified: 1, anonymous: 2 },
      { day: '2026-11-21', identified: 0, anonymous: 0 },
    ]);
    expect(await store.accountVisits('acme', '2026-11-19', '2026-11-21')).toHaveLength(1);
  });

  it('stays bounded: past the path limit an account-day counts further paths under one row', async () => {
    for (let i = 0; i < PATHS_PER_ACCOUNT_DAY + 5; i++) await store.recordPageView(view({ path: `/p${i}` }));
    await store.recordPageView(view({ path: '/p0' }));
    const pages = await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20');
    expect(pages).toHaveLength(PATHS_PER_ACCOUNT_DAY + 1);
    expect(pages.find((p) => p.path === OTHER_PATHS)?.page_views).toBe(5);
    expect(pages.find((p) => p.path === '/p0')?.page_views).toBe(2);
  });

  // Journeys are read against today's retention: recent times.
  const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
  const recent = (minutes: number) => new Date(base + Math.round(minutes * 60_000)).toISOString();
  const journeyView = (session: string, path: string, minutes: number, over: Partial<PageViewCount> = {}) =>
    view({ session_id: session, path, at: recent(minutes), day: recent(minutes).slice(0, 10), ...over });

  it('keeps each session of an account with its pages in the order viewed, latest session first', async () => {
    await store.recordPageView(journeyView('session-a', '/', 0));
    await store.recordPageView(journeyView('session-a', '/pricing?utm_source=news', 1));
    await store.recordPageView(journeyView('session-b', '/blog', 2));
    // A late beacon of the first session: listed where it was viewed, not where it arrived.
    await store.recordPageView(journeyView('session-a', '/features', 0.5));
    await store.recordPageView(journeyView('session-a', '/demo', 3));
    await store.recordPageView(journeyView('session-c', '/elsewhere', 4, { company_id: '900002' }));
    await store.recordPageView(journeyView('session-d', '/other-customer', 4, { customer_id: 'other' }));
    await store.recordPageView(journeyView('session-e', '/anonymous', 4, { company_id: null }));
    const second = await open();
    expect(await second.accountSessions('acme', '900001')).toEqual([
      {
        session_id: 'session-a',
        first_seen: recent(0),
        last_seen: recent(3),
        page_views: 4,
        pages: [
          { at: recent(0), path: '/' },
          { at: recent(0.5), path: '/features' },
          { at: recent(1), path: '/pricing?utm_source=news' },
          { at: recent(3), path: '/demo' },
        ],
      },
      { session_id: 'session-b', first_seen: recent(2), last_seen: recent(2), page_views: 1, pages: [{ at: recent(2), path: '/blog' }] },
    ]);
    expect((await store.accountSessions('acme', '900002')).map((s) => s.session_id)).toEqual(['session-c']);
    expect(await store.accountSessions('acme', '900003')).toEqual([]);
  });

  it('bounds the journeys: SESSIONS_PER_ACCOUNT sessions (the longest unseen go), PAGES_PER_SESSION pages each', async () => {
    for (let i = 0; i < PAGES_PER_SESSION + 3; i++) await store.recordPageView(journeyView('session-long', `/p${i}`, i / 100));
    for (let i = 0; i < SESSIONS_PER_ACCOUNT + 2; i++) await store.recordPageView(journeyView(`session-${String(i).padStart(3, '0')}`, '/', 1 + i / 100));
    const sessions = await store.accountSessions('acme', '900001');
    expect(sessions).toHaveLength(SESSIONS_PER_ACCOUNT);
    expect(sessions[0]!.session_id).toBe(`session-${String(SESSIONS_PER_ACCOUNT + 1).padStart(3, '0')}`);
    expect(sessions.map((s) => s.session_id)).not.toContain('session-long');
    expect(sessions.map((s) => s.session_id)).not.toContain('session-000');
    expect(sessions.map((s) => s.session_id)).toContain('session-002');

    await fx.reset();
    const fresh = await open();
    for (let i = 0; i < PAGES_PER_SESSION + 3; i++) await fresh.recordPageView(journeyView('session-long', `/p${i}`, i / 100));
    const [long] = await fresh.accountSessions('acme', '900001');
    expect(long).toMatchObject({ page_views: PAGES_PER_SESSION + 3, last_seen: recent((PAGES_PER_SESSION + 2) / 100) });
    expect(long!.pages).toHaveLength(PAGES_PER_SESSION);
    expect(long!.pages.at(-1)!.path).toBe(`/p${PAGES_PER_SESSION - 1}`);
  });

  it('lists no session whose latest view is past the retention', async () => {
    const old = new Date(Date.now() - (VISIT_RETENTION_DAYS + 2) * 86_400_000).toISOString();
    await store.recordPageView(view({ session_id: 'session-old', at: old, day: old.slice(0, 10) }));
    await store.recordPageView(journeyView('session-new', '/', 0));
    expect((await store.accountSessions('acme', '900001')).map((s) => s.session_id)).toEqual(['session-new']);
  });

  it('keeps the latest sighting of each tag origin, shared with another store on the same state', async () => {
    await store.recordTagSighting('t1', 'https://www.acme.test', '2026-11-20T10:00:00.000Z');
    await store.recordTagSighting('t1', 'https://www.acme.test', '2026-11-20T09:00:00.000Z');
    const second = await open();
    await second.recordTagSighting('t1', 'http://localhost:3000', '2026-11-21T10:00:00.000Z');
    await second.recordTagSighting('t2', 'https://b.test', '2026-11-21T10:00:00.000Z');
    expect(await store.tagSightings(['t1'])).toEqual([
      { tag_id: 't1', origin: 'http://localhost:3000', last_seen_at: '2026-11-21T10:00:00.000Z' },
      { tag_id: 't1', origin: 'https://www.acme.test', last_seen_at: '2026-11-20T10:00:00.000Z' },
    ]);
    expect(await store.tagSightings([])).toEqual([]);
  });

  it('says whether a sighting is the first of its origin for the tag (tag.installed), for any store on the same state', async () => {
    expect(await store.recordTagSighting('t9', 'https://www.acme.test', '2026-11-20T10:00:00.000Z')).toEqual({ first: true });
    expect(await store.recordTagSighting('t9', 'https://www.acme.test', '2026-11-20T10:05:00.000Z')).toEqual({ first: false });
    const second = await open();
    expect(await second.recordTagSighting('t9', 'https://www.acme.test', '2026-11-21T10:00:00.000Z')).toEqual({ first: false });
    expect(await second.recordTagSighting('t9', 'https://shop.acme.test', '2026-11-21T10:00:00.000Z')).toEqual({ first: true });
  });

  it('swaps an account’s remembered segments atomically: none at first, then the previous view’s (segment.entered)', async () => {
    expect(await store.swapAccountSegments('acme', '900001', [101], '2026-11-20T10:00:00.000Z')).toBeNull();
    expect(await store.swapAccountSegments('acme', '900001', [101, 102], '2026-11-20T10:01:00.000Z')).toEqual([101]);
    expect(await store.swapAccountSegments('acme', '900002', [], '2026-11-20T10:01:00.000Z')).toBeNull();
    expect(await store.swapAccountSegments('other', '900001', [7], '2026-11-20T10:01:00.000Z')).toBeNull();
    // Views of one account recorded at once by two stores (two nodes): each sees one previous set, never the same one twice.
    const second = await open();
    const seen = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? store : second).swapAccountSegments('acme', '900001', [1000 + i], '2026-11-20T10:02:00.000Z')),
    );
    const previous = seen.map((p) => JSON.stringify(p));
    expect(new Set(previous).size).toBe(previous.length);
    expect(previous).toContain(JSON.stringify([101, 102]));
  });

  it('sums the per-day account aggregates of a range like accountVisits, without its top pages', async () => {
    await store.recordPageView(view());
    await store.recordPageView(view({ path: '/pricing', session_id: 'session-bbbb', at: '2026-11-20T11:00:00.000Z' }));
    await store.recordPageView(view({ day: '2026-11-21', at: '2026-11-21T09:00:00.000Z' }));
    await store.recordPageView(view({ company_id: '900002', at: '2026-11-20T12:00:00.000Z' }));
    await store.recordPageView(view({ company_id: null }));
    const visits = await store.accountVisits('acme', '2026-11-20', '2026-11-21');
    const totals = await store.accountTotals('acme', '2026-11-20', '2026-11-21');
    expect(totals).toEqual(visits.map(({ top_pages: _, ...a }) => a));
    expect(totals.map((a) => [a.company_id, a.page_views])).toEqual([
      ['900001', 3],
      ['900002', 1],
    ]);
    expect(await store.accountTotals('acme', '2026-11-22', '2026-11-23')).toEqual([]);
  });

  it('remembers each account’s first day seen (a late view of an earlier day moves it back) and counts the accounts first seen in a range', async () => {
    await store.recordPageView(view({ day: '2026-11-20', at: '2026-11-20T10:00:00.000Z' }));
    await store.recordPageView(view({ day: '2026-11-21', at: '2026-11-21T10:00:00.000Z' }));
    await store.recordPageView(view({ company_id: '900002', day: '2026-11-21', at: '2026-11-21T11:00:00.000Z' }));
    await store.recordPageView(view({ company_id: '900002', day: '2026-11-22', at: '2026-11-22T11:00:00.000Z' }));
    await store.recordPageView(view({ company_id: null, day: '2026-11-22', at: '2026-11-22T11:00:00.000Z' }));
    await store.recordPageView(view({ customer_id: 'other', company_id: '900003', day: '2026-11-22', at: '2026-11-22T11:00:00.000Z' }));
    expect(await store.firstSeenDays('acme', ['900002', '900001', '900003'])).toEqual(['2026-11-21', '2026-11-20', null]);
    expect(await store.newAccounts('acme', '2026-11-21', '2026-11-22')).toBe(1);
    expect(await store.newAccounts('acme', '2026-11-20', '2026-11-22')).toBe(2);
    expect(await store.newAccounts('acme', '2026-11-22', '2026-11-22')).toBe(0);
    // A view of an earlier day arriving late (a delayed beacon): that day is the first.
    await store.recordPageView(view({ company_id: '900002', day: '2026-11-19', at: '2026-11-19T23:59:00.000Z' }));
    expect(await store.firstSeenDays('acme', ['900002'])).toEqual(['2026-11-19']);
    expect(await store.newAccounts('acme', '2026-11-21', '2026-11-22')).toBe(0);
    expect(await store.firstSeenDays('acme', [])).toEqual([]);
  });

  it('an import remembers first days from the account-days it moves', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await store.recordPageView(view({ day: yesterday, at: `${yesterday}T10:00:00.000Z` }));
    await store.recordPageView(view({ day: today, at: `${today}T00:10:00.000Z` }));
    await store.recordPageView(view({ day: today, company_id: '900002', at: `${today}T00:20:00.000Z` }));
    const exported: VisitEntry[] = [];
    for await (const e of store.exportEntries()) exported.push(e);
    await fx.reset();
    const moved = await open();
    await moved.importEntries(exported);
    expect(await moved.firstSeenDays('acme', ['900001', '900002'])).toEqual([yesterday, today]);
    expect(await moved.newAccounts('acme', today, today)).toBe(1);
  });

  it('counts the segments entered per day of the swaps: new ids against the remembered ones, every id when none were', async () => {
    await store.swapAccountSegments('acme', '900001', [1, 2], '2026-11-20T10:00:00.000Z');
    await store.swapAccountSegments('acme', '900001', [1, 2], '2026-11-20T11:00:00.000Z');
    await store.swapAccountSegments('acme', '900001', [2, 3], '2026-11-21T10:00:00.000Z');
    await store.swapAccountSegments('acme', '900001', [1, 2, 3], '2026-11-21T11:00:00.000Z');
    await store.swapAccountSegments('acme', '900002', [], '2026-11-21T11:00:00.000Z');
    await store.swapAccountSegments('other', '900001', [7], '2026-11-21T11:00:00.000Z');
    expect(await store.segmentEntries('acme', '2026-11-20', '2026-11-20')).toBe(2);
    expect(await store.segmentEntries('acme', '2026-11-21', '2026-11-21')).toBe(2);
    expect(await store.segmentEntries('acme', '2026-11-20', '2026-11-21')).toBe(4);
    expect(await store.segmentEntries('acme', '2026-11-22', '2026-11-30')).toBe(0);
    expect(await store.segmentEntries('other', '2026-11-20', '2026-11-21')).toBe(1);
  });

  it('keeps at most ORIGINS_PER_TAG origins per tag, dropping the longest unseen', async () => {
    for (let i = 0; i <= ORIGINS_PER_TAG; i++) await store.recordTagSighting('t1', `https://o${i}.test`, `2026-11-20T10:${String(i).padStart(2, '0')}:00.000Z`);
    const origins = (await store.tagSightings(['t1'])).map((s) => s.origin);
    expect(origins).toHaveLength(ORIGINS_PER_TAG);
    expect(origins).not.toContain('https://o0.test');
    expect(origins[0]).toBe(`https://o${ORIGINS_PER_TAG}.test`);
  });

  it('bounds the session ids of an account-day: past SESSIONS_PER_ACCOUNT_DAY views still count, new sessions do not', async () => {
    for (let i = 0; i < SESSIONS_PER_ACCOUNT_DAY + 5; i++) await store.recordPageView(view({ session_id: `session-${i}` }));
    await store.recordPageView(view({ session_id: 'session-0' }));
    await store.recordPageView(view({ day: '2026-11-21', at: '2026-11-21T08:00:00.000Z', session_id: 'session-new' }));
    expect(await store.accountVisits('acme', '2026-11-20', '2026-11-20')).toMatchObject([
      { page_views: SESSIONS_PER_ACCOUNT_DAY + 6, sessions: SESSIONS_PER_ACCOUNT_DAY },
    ]);
    expect(await store.accountVisits('acme', '2026-11-21', '2026-11-21')).toMatchObject([{ page_views: 1, sessions: 1 }]);
  });

  // One sighting per origin and minute, as the recorder writes them.
  const minute = (m: number, s = 0) => new Date(Date.UTC(2026, 10, 20, 10, m, s)).toISOString();
  const listed = async () => (await store.tagSightings(['t1'])).map((s) => s.origin);

  it('a flood of one-off forged origins does not push out the origins that real traffic keeps seeing', async () => {
    const real = Array.from({ length: ORIGINS_PER_TAG }, (_, i) => `https://site${i}.example.com`);
    for (const m of [0, 1, 2]) for (const o of real) await store.recordTagSighting('t1', o, minute(m, 30));
    // `*.example.com` admits any sub-domain: each forged Origin is sent once, later than every real one.
    for (let i = 0; i < 500; i++) await store.recordTagSighting('t1', `https://a${i}.example.com`, minute(10 + Math.floor(i / 60), i % 60));
    expect((await listed()).sort()).toEqual([...real].sort());
  });

  it('a new origin takes the place of a one-off seen more than a minute before; two sightings in one minute are one', async () => {
    const kept = Array.from({ length: ORIGINS_PER_TAG - 1 }, (_, i) => `https://kept${i}.test`);
    for (const o of kept) {
      await store.recordTagSighting('t1', o, minute(0));
      await store.recordTagSighting('t1', o, minute(1));
    }
    await store.recordTagSighting('t1', 'https://once.test', minute(2, 0));
    await store.recordTagSighting('t1', 'https://once.test', minute(2, 59));
    await store.recordTagSighting('t1', 'https://early.test', minute(3, 30));
    expect(await listed()).not.toContain('https://early.test');
    await store.recordTagSighting('t1', 'https://later.test', minute(3, 59));
    const origins = await listed();
    expect(origins).toContain('https://later.test');
    expect(origins).not.toContain('https://once.test');
    expect(origins).toHaveLength(ORIGINS_PER_TAG);
  });

  it('an origin not seen for 30 days makes room first, however often it was seen before', async () => {
    for (let i = 0; i < ORIGINS_PER_TAG; i++) {
      await store.recordTagSighting('t1', `https://o${i}.test`, minute(0));
      await store.recordTagSighting('t1', `https://o${i}.test`, minute(i < 2 ? 1 : 5));
    }
    await store.recordTagSighting('t1', 'https://new.test', '2026-12-21T10:00:00.000Z');
    const origins = await listed();
    expect(origins).toHaveLength(ORIGINS_PER_TAG);
    expect(origins[0]).toBe('https://new.test');
    expect(origins).not.toContain('https://o0.test');
    expect(origins).toContain('https://o1.test');
  });

  it('exports every aggregate and sighting, and an empty store that imports them reads the same (a non-empty one refuses)', async () => {
    // Recent days: a store keeps (and Redis lets live) only days within the retention.
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const at = (day: string, time: string) => `${day}T${time}.000Z`;
    await store.recordPageView(withRaw({ day: yesterday, at: at(yesterday, '10:00:00') }));
    await store.recordPageView(view({ day: yesterday, path: '/pricing', session_id: 'session-bbbb', at: at(yesterday, '11:00:00') }));
    await store.recordPageView(view({ day: today, path: '/docs', at: at(today, '00:10:00') }));
    await store.recordPageView(view({ day: today, company_id: '900002', at: at(today, '00:20:00') }));
    await store.recordPageView(withRaw({ day: today, company_id: null, at: at(today, '00:30:00') }));
    await store.keepRawPageView({ ...rawOf(view({ day: today, at: at(today, '00:30:00') })), first_of_day_for_account: true });
    await store.recordPageView(view({ customer_id: 'other', day: yesterday, company_id: null, at: at(yesterday, '12:00:00') }));
    await store.recordTagSighting('t1', 'https://www.acme.test', at(yesterday, '10:00:00'));
    await store.recordTagSighting('t1', 'https://www.acme.test', at(yesterday, '10:05:00'));
    await store.recordTagSighting('t2', 'https://b.test', at(today, '00:00:00'));
    // Remembered segments (segment.entered): an account in two, one in none, one of another customer.
    await store.swapAccountSegments('acme', '900001', [3, 1], at(today, '00:10:00'));
    await store.swapAccountSegments('acme', '900002', [], at(today, '00:20:00'));
    await store.swapAccountSegments('other', '900001', [7], at(today, '00:20:00'));
    const read = async (s: VisitStore) => ({
      accounts: await s.accountVisits('acme', yesterday, today),
      daily: [await s.dailyTotals('acme', yesterday, today), await s.dailyTotals('other', yesterday, today)],
      // Segments entered per day moved too (Home's figure).
      entries: [await s.segmentEntries('acme', yesterday, today), await s.segmentEntries('other', yesterday, today)],
      pages: await s.accountPages('acme', '900001', yesterday, today),
      sightings: await s.tagSightings(['t1', 't2']),
      sessions: await s.accountSessions('acme', '900001'),
      // Under the same ids: a cursor of an export resumes on the other store.
      raw: await rawViews(s, 'acme', { from: yesterday, to: today }),
    });
    const before = await read(store);
    const exported: VisitEntry[] = [];
    for await (const e of store.exportEntries()) exported.push(e);
    expect(new Set(exported.map((e) => e.type))).toEqual(
      new Set(['visit_account', 'visit_session', 'visit_account_segments', 'visit_segment_entries', 'visit_anonymous', 'tag_sighting', 'visit_event']),
    );
    const segments = exported.flatMap((e) => (e.type === 'visit_account_segments' ? [e] : []));
    expect(segments.map(({ customer_id, company_id, segment_ids }) => ({ customer_id, company_id, segment_ids }))).toEqual(
      expect.arrayContaining([
        { customer_id: 'acme', company_id: '900001', segment_ids: [3, 1] },
        { customer_id: 'acme', company_id: '900002', segment_ids: [] },
        { customer_id: 'other', company_id: '900001', segment_ids: [7] },
      ]),
    );
    expect(segments).toHaveLength(3);
    // SQLite keeps the view's time; Redis derives it from the key's TTL (written just now).
    for (const e of segments) expect(Math.abs(Date.parse(e.updated_at) - Date.now())).toBeLessThan(2 * 86_400_000);
    expect(before.raw).toHaveLength(3);
    expect(exported).toContainEqual({ type: 'tag_sighting', tag_id: 't1', origin: 'https://www.acme.test', last_seen_at: at(yesterday, '10:05:00'), hits: 2 });

    expect(await store.isEmpty()).toBe(false);
    await expect(store.importEntries(exported)).rejects.toThrow(/already holds page views/);

    await fx.reset();
    const moved = await open();
    expect(await moved.isEmpty()).toBe(true);
    expect(await moved.importEntries(exported)).toBe(exported.length);
    expect(await read(moved)).toEqual(before);
    const again: VisitEntry[] = [];
    for await (const e of moved.exportEntries()) again.push(e);
    const sorted = (entries: VisitEntry[]) => entries.map((e) => JSON.stringify(e)).sort();
    expect(sorted(again)).toEqual(sorted(exported));
    // The day's session ids moved too: the same visitor's next view is not a new session.
    await moved.recordPageView(view({ day: today, path: '/docs', at: at(today, '00:40:00') }));
    expect((await moved.accountVisits('acme', today, today)).find((a) => a.company_id === '900001')).toMatchObject({ page_views: 2, sessions: 1 });
    // So did the remembered segments: the next view of an account enters none it was in before the move.
    expect(await moved.swapAccountSegments('acme', '900001', [3, 1], at(today, '00:40:00'))).toEqual([3, 1]);
    expect(await moved.swapAccountSegments('acme', '900002', [3], at(today, '00:40:00'))).toEqual([]);
    expect(await moved.swapAccountSegments('other', '900001', [7], at(today, '00:40:00'))).toEqual([7]);
  });

  it('imports remembered segments to expire as they would have: one past the retention is not kept', async () => {
    const recent = new Date(Date.now() - 86_400_000).toISOString();
    const old = new Date(Date.now() - (VISIT_RETENTION_DAYS + 2) * 86_400_000).toISOString();
    expect(
      await store.importEntries([
        { type: 'visit_account_segments', customer_id: 'acme', company_id: '900001', segment_ids: [5], updated_at: recent },
        { type: 'visit_account_segments', customer_id: 'acme', company_id: '900002', segment_ids: [6], updated_at: old },
      ]),
    ).toBe(2);
    // A store holding only remembered segments is not empty: a second import would merge into them.
    expect(await store.isEmpty()).toBe(false);
    expect(await store.swapAccountSegments('acme', '900001', [5], new Date().toISOString())).toEqual([5]);
    if (backend.name === 'sqlite') return;
    // Redis: the key lives (retention + 1) days from its time, as a live swap then would have let it.
    expect(await store.swapAccountSegments('acme', '900002', [6], new Date().toISOString())).toBeNull();
  });

  it('refuses remembered segments that are not segment ids (nothing written)', async () => {
    const bad = { type: 'visit_account_segments', customer_id: 'acme', company_id: '900001', segment_ids: [0], updated_at: '2026-11-20T10:00:00.000Z' };
    await expect(store.importEntries([bad as VisitEntry])).rejects.toThrow();
    await expect(store.importEntries([{ ...bad, segment_ids: [1], updated_at: 'yesterday' } as VisitEntry])).rejects.toThrow();
    expect(await store.isEmpty()).toBe(true);
  });

  it('refuses an import past a bound of the store (origins per tag)', async () => {
    const entries: VisitEntry[] = Array.from({ length: ORIGINS_PER_TAG + 1 }, (_, i) => ({
      type: 'tag_sighting',
      tag_id: 't1',
      origin: `https://o${i}.test`,
      last_seen_at: '2026-11-20T10:00:00.000Z',
      hits: 1,
    }));
    await expect(store.importEntries(entries)).rejects.toThrow(`tag t1: more than ${ORIGINS_PER_TAG} origins`);
  });
});

// Reopens the store with other retention options from its connection's URL: one Redis only.
describe.each(BACKENDS.filter((b) => b.name !== 'redis-cluster'))('raw views past their retention: $name', (backend) => {
  it('are gone from the store (SQLite: the daily prune; Redis: MINID on the next write, and the stream expires)', async () => {
    const fx = await backend.start();
    try {
      const store = await fx.open();
      // A retention of 2 days: the views of 5 days ago are past it today (Redis trims by its own clock).
      const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
      const [old, today] = [dayAgo(5), dayAgo(0)];
      const short =
        store instanceof SqliteVisitStore
          ? new SqliteVisitStore(join((store as unknown as { sqlite: { db: { name: string } } }).sqlite.db.name), { rawRetentionDays: 2 })
          : await RedisVisitStore.open((store as unknown as { connection: { options: { url: string } } }).connection.options.url, { rawRetentionDays: 2 });
      const raw = (day: string, i: number): UncountedPageView => ({
        customer_id: 'acme',
        tag_id: 'acme-tag',
        at: `${day}T10:00:00.${String(i % 1000).padStart(3, '0')}Z`,
        day,
        company_id: null,
        path: `/${i}`,
        referrer_host: null,
        session_id: 'session-aaaa',
        origin: null,
        segment_ids: [],
        hot_account: false,
        excluded: false,
      });
      const count = (r: UncountedPageView) => ({ customer_id: 'acme', day: r.day, company_id: null, path: r.path, session_id: r.session_id, at: r.at, raw: r });
      // Redis trims whole stream nodes (`MINID ~`, 100 entries each): enough old views to fill some.
      for (let i = 0; i < 250; i++) await short.recordPageView(count(raw(old, i)));
      await short.recordPageView(count(raw(today, 0)));
      if (short instanceof SqliteVisitStore) await short.pruneAggregates(today);
      const left: KeptRawView[] = [];
      for await (const r of short.rawPageViews('acme', { from: old, to: today, after: null, limit: 1000 })) left.push(r);
      if (short instanceof SqliteVisitStore) expect(left.map((r) => JSON.parse(r.text).day)).toEqual([today]);
      else {
        expect(left.length).toBeLessThanOrEqual(101);
        expect(left.at(-1)!.text).toContain(`"day":"${today}"`);
        const c = createClient({ url: (short as unknown as { connection: { options: { url: string } } }).connection.options.url });
        await c.connect();
        const ttl = await c.ttl(visitKeys.rawViews('acme'));
        await c.close();
        expect(ttl).toBeGreaterThan(2 * 86_400);
        expect(ttl).toBeLessThanOrEqual(3 * 86_400);
      }
      await short.close();
      await store.close();
    } finally {
      await fx.close();
    }
  }, 30_000);
});

describe('tag sighting cells', () => {
  it('reads a bare time (written before hits were kept) as one hit', () => {
    expect(parseSighting('2026-11-20T10:00:00.000Z')).toEqual({ last_seen_at: '2026-11-20T10:00:00.000Z', hits: 1 });
    expect(parseSighting('2026-11-20T10:00:00.000Z|7')).toEqual({ last_seen_at: '2026-11-20T10:00:00.000Z', hits: 7 });
  });
});

describe('RedisVisitStore keys', () => {
  let redis: RedisServer;
  let raw: ReturnType<typeof createClient>;
  let store: RedisVisitStore;
  beforeAll(async () => {
    redis = await startRedisServer();
    raw = createClient({ url: redis.url });
    await raw.connect();
  }, 20_000);
  afterAll(async () => {
    await raw?.close();
    await redis?.close();
  });
  beforeEach(async () => {
    store = await RedisVisitStore.open(redis.url);
  });
  afterEach(async () => {
    await store.close();
    await raw.flushAll();
  });

  const view = (over: Partial<PageViewCount> = {}): PageViewCount => ({
    customer_id: 'acme',
    day: '2026-11-20',
    company_id: '900001',
    path: '/',
    session_id: 'session-aaaa',
    at: '2026-11-20T10:00:00.000Z',
    ...over,
  });
  const dayTtl = (VISIT_RETENTION_DAYS + 1) * 86_400;

  it('expire a day past the retention, keys written before the rule included (at their next write)', async () => {
    await raw.hSet(visitKeys.account('acme', '2026-11-20'), '900001:views', '3');
    await raw.hSet(visitKeys.pages('acme', '2026-11-20', '900001'), '/', '3');
    expect(await raw.ttl(visitKeys.account('acme', '2026-11-20'))).toBe(-1);
    await store.recordPageView(view());
    await store.recordPageView(view({ company_id: '900002' }));
    await store.recordPageView(view({ company_id: null }));
    for (const key of [
      visitKeys.account('acme', '2026-11-20'),
      visitKeys.pages('acme', '2026-11-20', '900001'),
      visitKeys.pages('acme', '2026-11-20', '900002'),
      visitKeys.anonymous('acme'),
    ]) {
      const ttl = await raw.ttl(key);
      expect(ttl, key).toBeGreaterThan(dayTtl - 60);
      expect(ttl, key).toBeLessThanOrEqual(dayTtl);
    }
  });

  it('keep at most SESSIONS_PER_ACCOUNT_DAY session ids per account-day', async () => {
    for (let i = 0; i < SESSIONS_PER_ACCOUNT_DAY + 5; i++) await store.recordPageView(view({ session_id: `session-${i}` }));
    expect(await raw.sCard(visitKeys.sessions('acme', '2026-11-20', '900001'))).toBe(SESSIONS_PER_ACCOUNT_DAY);
  });

  it('drop anonymous days past the retention from the one hash, on the first anonymous view of a day', async () => {
    await raw.hSet(visitKeys.anonymous('acme'), { '2025-10-15': '4', '2025-10-16': '5' });
    await store.recordPageView(view({ company_id: null }));
    expect(await raw.hGetAll(visitKeys.anonymous('acme'))).toEqual({ '2025-10-16': '5', '2026-11-20': '1' });
  });

  it('a stalled Redis fails a command at its deadline instead of holding it for ever', async () => {
    const impatient = await RedisVisitStore.open(redis.url, { commandTimeoutMs: 200 });
    redis.pause();
    try {
      await expect(impatient.recordPageView(view())).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(impatient.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      redis.resume();
      await impatient.close();
    }
  });
});
