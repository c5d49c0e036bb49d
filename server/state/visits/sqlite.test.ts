import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStateDb, type WriteLane } from '../sqlite/db.ts';
import { SqliteVisitStore } from './sqlite.ts';
import { daysBetween, type PageViewCount, retainedFrom, SESSIONS_PER_ACCOUNT_DAY } from './store.ts';

let dir: string;
let file: string;
let store: SqliteVisitStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-visits-'));
  file = join(dir, 'svc.db');
  store = new SqliteVisitStore(file);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
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

describe('SqliteVisitStore', () => {
  it('keeps session ids only a day deep: a session seen again days later counts as a new session of that day', async () => {
    await store.recordPageView(view({ day: '2026-11-18', at: '2026-11-18T10:00:00.000Z' }));
    await store.recordPageView(view({ day: '2026-11-20' }));
    await store.recordPageView(view({ day: '2026-11-20', path: '/x' }));
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT day FROM visit_sessions').all()).toEqual([{ day: '2026-11-20' }]);
    db.close();
    expect((await store.accountVisits('acme', '2026-11-18', '2026-11-20'))[0]).toMatchObject({ page_views: 3, sessions: 2 });
  });

  it('daysBetween lists inclusive UTC days across month ends', () => {
    expect(daysBetween('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(daysBetween('2026-03-02', '2026-03-01')).toEqual([]);
  });
});

describe('SqliteVisitStore account pages (read once, then from memory while unchanged)', () => {
  const turn = () => new Promise((r) => setImmediate(r));

  it('a view recorded through the store counts in the very next read', async () => {
    expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([]);
    await store.recordPageView(view());
    expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([{ day: '2026-11-20', path: '/', page_views: 1 }]);
    await store.recordPageView(view());
    expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([{ day: '2026-11-20', path: '/', page_views: 2 }]);
  });

  it('a view another process recorded counts from the next event-loop turn on', async () => {
    const other = new SqliteVisitStore(file);
    try {
      expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([]);
      await turn();
      await other.recordPageView(view({ path: '/pricing' }));
      await turn();
      expect(await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20')).toEqual([{ day: '2026-11-20', path: '/pricing', page_views: 1 }]);
      // Anonymous views touch no account's pages; an account view of another account still refreshes.
      await other.recordPageView(view({ company_id: '900002' }));
      await turn();
      expect(await store.accountPages('acme', '900002', '2026-11-20', '2026-11-20')).toEqual([{ day: '2026-11-20', path: '/', page_views: 1 }]);
    } finally {
      await other.close();
    }
  });

  it('a view recorded through the store drops only its own account from memory', async () => {
    const read = (company: string) => store.accountPages('acme', company, '2026-11-20', '2026-11-20');
    await store.recordPageView(view({ company_id: '900002' }));
    expect(await read('900001')).toEqual([]);
    expect(await read('900002')).toEqual([{ day: '2026-11-20', path: '/', page_views: 1 }]);
    // A write behind the store's back (no version bump) shows what is still served from memory.
    const raw = new Database(file);
    raw.prepare("UPDATE visit_pages SET page_views = 99 WHERE company_id = '900002'").run();
    raw.close();
    await store.recordPageView(view({ company_id: '900001' }));
    expect(await read('900001')).toEqual([{ day: '2026-11-20', path: '/', page_views: 1 }]);
    expect(await read('900002')).toEqual([{ day: '2026-11-20', path: '/', page_views: 1 }]);
  });

  it('a view another process recorded in between empties the memory when this store records one, even within the turn', async () => {
    const other = new SqliteVisitStore(file);
    try {
      const read = (company: string) => store.accountPages('acme', company, '2026-11-20', '2026-11-20');
      expect(await read('900002')).toEqual([]);
      await other.recordPageView(view({ company_id: '900002' }));
      await store.recordPageView(view({ company_id: '900001' }));
      expect(await read('900002')).toEqual([{ day: '2026-11-20', path: '/', page_views: 1 }]);
    } finally {
      await other.close();
    }
  });

  it('answers are frozen: a caller cannot change what the next one reads', async () => {
    await store.recordPageView(view());
    const rows = await store.accountPages('acme', '900001', '2026-11-20', '2026-11-20');
    expect(Object.isFrozen(rows) && Object.isFrozen(rows[0])).toBe(true);
  });
});

describe('SqliteVisitStore bounds', () => {
  const count = (sql: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare(sql).pluck().get() as number;
    } finally {
      db.close();
    }
  };

  it('stores at most SESSIONS_PER_ACCOUNT_DAY session ids per account-day', async () => {
    for (let i = 0; i < SESSIONS_PER_ACCOUNT_DAY + 5; i++) await store.recordPageView(view({ session_id: `session-${i}` }));
    await store.recordPageView(view({ company_id: '900002', session_id: 'session-x' }));
    expect(count("SELECT count(*) FROM visit_sessions WHERE company_id = '900001'")).toBe(SESSIONS_PER_ACCOUNT_DAY);
    expect(count("SELECT count(*) FROM visit_sessions WHERE company_id = '900002'")).toBe(1);
  });

  it('keeps 400 days of aggregates: 2026-11-20 keeps 2025-10-16 on, older days go', () => {
    expect(retainedFrom('2026-11-20')).toBe('2025-10-16');
  });

  describe('retention prune', () => {
    let db: SqliteStateDb;
    let pruning: SqliteVisitStore;
    const lanes: WriteLane[] = [];
    beforeEach(() => {
      db = new SqliteStateDb(file, { log: () => {} });
      const write = db.write.bind(db);
      db.write = (fn, lane) => {
        lanes.push(lane ?? 'request');
        return write(fn, lane);
      };
      pruning = new SqliteVisitStore(db, { pruneBatchRows: 10 });
    });
    afterEach(async () => {
      lanes.length = 0;
      await pruning.close();
    });

    /** Three customers, each with 12 accounts on a day past the retention and one on its first kept day. */
    async function seed() {
      for (const customer_id of ['a', 'b', 'c']) {
        for (let i = 0; i < 12; i++)
          await pruning.recordPageView(view({ customer_id, day: '2025-10-15', at: '2025-10-15T10:00:00.000Z', company_id: `9000${i}` }));
        await pruning.recordPageView(view({ customer_id, day: '2025-10-15', at: '2025-10-15T10:00:00.000Z', company_id: null }));
        await pruning.recordPageView(view({ customer_id, day: '2025-10-16', at: '2025-10-16T10:00:00.000Z' }));
        await pruning.recordPageView(view({ customer_id, day: '2025-10-16', at: '2025-10-16T10:00:00.000Z', company_id: null }));
      }
    }
    const rows = (day: string) => ['visit_accounts', 'visit_pages', 'visit_anonymous'].map((t) => count(`SELECT count(*) FROM ${t} WHERE day = '${day}'`));

    it('deletes the days past the retention in bounded batches on the background lane, and keeps the rest', async () => {
      await seed();
      expect(rows('2025-10-15')).toEqual([36, 36, 3]);
      lanes.length = 0;
      const journeys = (before: string) => count(`SELECT count(*) FROM visit_journeys WHERE last_seen < '${before}'`);
      expect(journeys('2025-10-16')).toBe(36);
      // 75 aggregate rows, Home's rollup of the day (a row of it and one of its gaps per customer) and the 36
      // journeys whose latest view was on the day that goes.
      expect(await pruning.pruneAggregates('2026-11-20')).toBe(75 + 6 + 36);
      expect(rows('2025-10-15')).toEqual([0, 0, 0]);
      expect(rows('2025-10-16')).toEqual([3, 3, 3]);
      expect(journeys('2025-10-16')).toBe(0);
      expect(count(`SELECT count(*) FROM visit_journeys`)).toBe(3);
      // 117 rows, at most 10 per write.
      expect(lanes.length).toBeGreaterThanOrEqual(12);
      expect(new Set(lanes)).toEqual(new Set(['background']));
    });

    it('lets timers and I/O run between two batches, not only after the whole pass', async () => {
      await seed();
      const writesBefore = lanes.length;
      let writesAtImmediate = -1;
      const pass = pruning.pruneAggregates('2026-11-20');
      setImmediate(() => (writesAtImmediate = lanes.length - writesBefore));
      await pass;
      // 117 rows in writes of at most 10: a macrotask queued as the pass started runs after its first write.
      expect(writesAtImmediate).toBeGreaterThan(0);
      expect(writesAtImmediate).toBeLessThan(lanes.length - writesBefore);
    });

    it('starts by itself with the first view of a new day', async () => {
      await seed();
      await pruning.recordPageView(view({ customer_id: 'a', day: '2026-11-20' }));
      await pruning.pruned();
      expect(rows('2025-10-15')).toEqual([0, 0, 0]);
      expect(rows('2025-10-16')).toEqual([3, 3, 3]);
    });

    it('account pages read before no longer show the days it deleted', async () => {
      await seed();
      expect(await pruning.accountPages('a', '90000', '2025-10-15', '2025-10-15')).toEqual([{ day: '2025-10-15', path: '/', page_views: 1 }]);
      await pruning.pruneAggregates('2026-11-20');
      expect(await pruning.accountPages('a', '90000', '2025-10-15', '2025-10-15')).toEqual([]);
    });
  });
});
