import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../testing/redis-server.ts';
import { RedisVisitStore } from './redis-visits.ts';
import { SqliteVisitStore } from './sqlite-visits.ts';
import { daysBetween, OTHER_PATHS, PATHS_PER_ACCOUNT_DAY, type PageViewCount, type VisitStore } from './visits.ts';

/** One contract, both backends: a SQLite state file and a real redis-server (`open` = another node). */
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.close();
});

const backends: Array<[string, () => Promise<{ open(): Promise<VisitStore>; cleanup(): Promise<void> }>]> = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-visits-'));
      return { open: async () => new SqliteVisitStore(join(dir, 'svc.db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'Redis',
    async () => {
      const admin = createClient({ url: redis.url });
      await admin.connect();
      await admin.flushAll();
      await admin.close();
      return { open: () => RedisVisitStore.open(redis.url), cleanup: async () => {} };
    },
  ],
];

describe.each(backends)('visit store contract: %s', (_name, backend) => {
  let store: VisitStore;
  let openAnother: () => Promise<VisitStore>;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const made = await backend();
    openAnother = made.open;
    cleanup = made.cleanup;
    store = await made.open();
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  const view = (over: Partial<PageViewCount> = {}): PageViewCount => ({
    customer_id: 'acme', day: '2026-11-20', company_id: '900001', path: '/', session_id: 'session-aaaa', at: '2026-11-20T10:00:00.000Z', ...over,
  });

  describe('aggregates', () => {
    it('aggregates page views per account and day: views, distinct sessions, first and last seen, top pages', async () => {
      expect(await store.recordPageView(view())).toEqual({ first_of_day_for_account: true });
      expect(await store.recordPageView(view({ path: '/pricing', at: '2026-11-20T11:00:00.000Z' }))).toEqual({ first_of_day_for_account: false });
      await store.recordPageView(view({ path: '/pricing', session_id: 'session-bbbb', at: '2026-11-20T09:00:00.000Z' }));
      expect(await store.recordPageView(view({ day: '2026-11-21', at: '2026-11-21T08:00:00.000Z' }))).toEqual({ first_of_day_for_account: true });
      await store.recordPageView(view({ company_id: '900002' }));
      await store.recordPageView(view({ customer_id: 'other' }));

      expect(await store.accountVisits('acme', '2026-11-20', '2026-11-21')).toEqual([
        {
          company_id: '900001', page_views: 4, sessions: 3, first_seen: '2026-11-20T09:00:00.000Z', last_seen: '2026-11-21T08:00:00.000Z',
          top_pages: [{ path: '/', page_views: 2 }, { path: '/pricing', page_views: 2 }],
        },
        { company_id: '900002', page_views: 1, sessions: 1, first_seen: '2026-11-20T10:00:00.000Z', last_seen: '2026-11-20T10:00:00.000Z', top_pages: [{ path: '/', page_views: 1 }] },
      ]);
      expect((await store.accountVisits('acme', '2026-11-21', '2026-11-21')).map((a) => [a.company_id, a.page_views])).toEqual([['900001', 1]]);
      expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([
        { day: '2026-11-20', path: '/', page_views: 1 },
        { day: '2026-11-20', path: '/pricing', page_views: 2 },
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

    it('keeps the latest sighting of each tag origin, shared with another connection to the same file', async () => {
      await store.recordTagSighting('t1', 'https://www.acme.test', '2026-11-20T10:00:00.000Z');
      await store.recordTagSighting('t1', 'https://www.acme.test', '2026-11-20T09:00:00.000Z');
      const second = await openAnother();
      await second.recordTagSighting('t1', 'http://localhost:3000', '2026-11-21T10:00:00.000Z');
      await second.recordTagSighting('t2', 'https://b.test', '2026-11-21T10:00:00.000Z');
      await second.close();
      expect(await store.tagSightings(['t1'])).toEqual([
        { tag_id: 't1', origin: 'http://localhost:3000', last_seen_at: '2026-11-21T10:00:00.000Z' },
        { tag_id: 't1', origin: 'https://www.acme.test', last_seen_at: '2026-11-20T10:00:00.000Z' },
      ]);
      expect(await store.tagSightings([])).toEqual([]);
    });

    it('daysBetween lists inclusive UTC days across month ends', () => {
      expect(daysBetween('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
      expect(daysBetween('2026-03-02', '2026-03-01')).toEqual([]);
    });
  });

    it('two nodes counting the same account at once: exactly one sees the first view of the day', async () => {
      const other = await openAnother();
      try {
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? store : other).recordPageView(view({ session_id: `s${i % 4}` }))));
        expect(results.filter((r) => r.first_of_day_for_account)).toHaveLength(1);
        expect(await store.accountVisits('acme', '2026-11-20', '2026-11-20')).toMatchObject([{ company_id: '900001', page_views: 40, sessions: 4 }]);
      } finally {
        await other.close();
      }
    });
});
