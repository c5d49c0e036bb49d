import { describe, expect, it } from 'vitest';
import { BACKEND_NAMES, concernNodes } from '../../testing/concern-nodes.ts';
import { StateError } from '../errors.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { EngagementEntry } from './entries.ts';
import { RedisEngagementStore } from './redis.ts';
import { SqliteEngagementStore } from './sqlite.ts';
import {
  compareRowKeys,
  ENGAGED_PATHS_PER_ACCOUNT_DAY,
  type EngagementRow,
  type EngagementStore,
  EVENT_NAMES_PER_ACCOUNT_DAY,
  MAX_ENGAGED_MS_PER_BEACON,
  OTHER_KEY,
  RECENT_EVENTS_PER_ACCOUNT,
} from './store.ts';

const NAMES = BACKEND_NAMES;
const { nodes } = concernNodes<EngagementStore>('engagement', (s) =>
  s instanceof SqliteStateStore ? new SqliteEngagementStore(s.sqlite) : new RedisEngagementStore(s.redis),
);

const dayOffset = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const TODAY = dayOffset(0);
const YESTERDAY = dayOffset(1);
const time = (company_id: string, path: string, ms: number, day = TODAY) => ({ customer_id: 'acme', company_id, day, path, ms });
const event = (company_id: string, name: string, properties = {}, at = new Date().toISOString()) => ({
  customer_id: 'acme',
  company_id,
  at,
  name,
  path: '/pricing',
  properties,
});

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

describe.each(NAMES)('engagement store on %s', (name) => {
  it('sums engaged time per account, day and path, whichever node writes; other accounts and customers apart', async () => {
    const { stores, close } = await nodes(name, 2);
    const [a, b] = stores as [EngagementStore, EngagementStore];
    try {
      await a.addEngagedTime(time('100', '/pricing', 1500));
      await b.addEngagedTime(time('100', '/pricing', 2500.4));
      await a.addEngagedTime(time('100', '/docs', 700, YESTERDAY));
      await b.addEngagedTime(time('200', '/pricing', 9000));
      await a.addEngagedTime({ ...time('100', '/pricing', 5000), customer_id: 'other' });
      // Nothing visible: nothing kept.
      await a.addEngagedTime(time('100', '/zero', 0));
      const got = await b.accountEngagement('acme', '100', YESTERDAY, TODAY);
      expect(got.time).toEqual([
        { day: YESTERDAY, path: '/docs', ms: 700 },
        { day: TODAY, path: '/pricing', ms: 4000 },
      ]);
      expect(got.events).toEqual([]);
      expect((await a.accountEngagement('acme', '100', TODAY, TODAY)).time).toEqual([{ day: TODAY, path: '/pricing', ms: 4000 }]);
      expect((await a.accountEngagement('other', '100', TODAY, TODAY)).time).toEqual([{ day: TODAY, path: '/pricing', ms: 5000 }]);
    } finally {
      await close();
    }
  });

  it('adds at most MAX_ENGAGED_MS_PER_BEACON per beacon and refuses what is not engaged time', async () => {
    const { stores, close } = await nodes(name, 1);
    const [a] = stores as [EngagementStore];
    try {
      await a.addEngagedTime(time('100', '/left-open', 10 * MAX_ENGAGED_MS_PER_BEACON));
      expect((await a.accountEngagement('acme', '100', TODAY, TODAY)).time).toEqual([{ day: TODAY, path: '/left-open', ms: MAX_ENGAGED_MS_PER_BEACON }]);
      await expect(a.addEngagedTime(time('100', '/x', -1))).rejects.toThrow(StateError);
      await expect(a.addEngagedTime({ ...time('100', '/x', 1), day: 'today' })).rejects.toThrow(/day/);
      await expect(a.addEngagedTime({ ...time('100', '/x', 1), customer_id: 'no spaces' })).rejects.toThrow(/customer_id/);
      await expect(a.addEvent(event('100', 'Bad Name'))).rejects.toThrow(/name/);
    } finally {
      await close();
    }
  });

  it('counts custom events per name and day and keeps the latest with their properties, newest first', async () => {
    const { stores, close } = await nodes(name, 2);
    const [a, b] = stores as [EngagementStore, EngagementStore];
    try {
      const t0 = Date.now() - 60_000;
      for (let i = 0; i < RECENT_EVENTS_PER_ACCOUNT + 5; i++) {
        const store = i % 2 ? a : b;
        await store.addEvent(event('100', i % 3 ? 'demo_requested' : 'signup', { n: i, plan: 'pro', trial: true }, new Date(t0 + i).toISOString()));
      }
      const got = await a.accountEngagement('acme', '100', TODAY, TODAY);
      const total = RECENT_EVENTS_PER_ACCOUNT + 5;
      const signups = Math.ceil(total / 3);
      expect(got.events).toEqual([
        { day: TODAY, name: 'demo_requested', count: total - signups },
        { day: TODAY, name: 'signup', count: signups },
      ]);
      const recent = await b.recentEvents('acme', '100');
      expect(recent).toHaveLength(RECENT_EVENTS_PER_ACCOUNT);
      expect(recent[0]).toEqual({
        at: new Date(t0 + total - 1).toISOString(),
        name: (total - 1) % 3 ? 'demo_requested' : 'signup',
        path: '/pricing',
        properties: { n: total - 1, plan: 'pro', trial: true },
      });
      expect(recent.at(-1)!.properties.n).toBe(5);
      expect(await a.recentEvents('acme', '200')).toEqual([]);
    } finally {
      await close();
    }
  });

  it('holds the per-day bounds when two nodes race past them: the rest under (other), nothing lost', async () => {
    const { stores, close } = await nodes(name, 2);
    const [a, b] = stores as [EngagementStore, EngagementStore];
    try {
      const paths = ENGAGED_PATHS_PER_ACCOUNT_DAY + 40;
      await Promise.all(Array.from({ length: paths }, (_, i) => (i % 2 ? a : b).addEngagedTime(time('100', `/p/${i}`, 10))));
      const names = EVENT_NAMES_PER_ACCOUNT_DAY + 7;
      await Promise.all(Array.from({ length: names }, (_, i) => (i % 2 ? b : a).addEvent(event('100', `e_${i}`))));
      const got = await a.accountEngagement('acme', '100', TODAY, TODAY);
      expect(got.time.filter((t) => t.path !== OTHER_KEY)).toHaveLength(ENGAGED_PATHS_PER_ACCOUNT_DAY);
      expect(got.time.find((t) => t.path === OTHER_KEY)?.ms).toBe(40 * 10);
      expect(got.time.reduce((n, t) => n + t.ms, 0)).toBe(paths * 10);
      expect(got.events.filter((e) => e.name !== OTHER_KEY)).toHaveLength(EVENT_NAMES_PER_ACCOUNT_DAY);
      expect(got.events.find((e) => e.name === OTHER_KEY)?.count).toBe(7);
      // A kept path still adds to itself once the day is full.
      const kept = got.time.find((t) => t.path !== OTHER_KEY)!;
      await b.addEngagedTime(time('100', kept.path, 5));
      expect((await a.accountEngagement('acme', '100', TODAY, TODAY)).time.find((t) => t.path === kept.path)?.ms).toBe(kept.ms + 5);
    } finally {
      await close();
    }
  });

  it('sums a burst of beacons from two nodes exactly', async () => {
    const { stores, close } = await nodes(name, 2);
    const [a, b] = stores as [EngagementStore, EngagementStore];
    try {
      await Promise.all(
        Array.from({ length: 400 }, (_, i) =>
          i % 4 === 3
            ? (i % 2 ? a : b).addEvent(event(String(100 + (i % 5)), 'demo_requested'))
            : (i % 2 ? a : b).addEngagedTime(time(String(100 + (i % 5)), '/pricing', 1000)),
        ),
      );
      const rows = await a.accountsEngagement('acme', TODAY, TODAY);
      expect(rows.filter((r) => r.kind === 'engaged').reduce((n, r) => n + r.value, 0)).toBe(300 * 1000);
      expect(rows.filter((r) => r.kind === 'event').reduce((n, r) => n + r.value, 0)).toBe(100);
      expect(new Set(rows.map((r) => r.company_id))).toEqual(new Set(['100', '101', '102', '103', '104']));
      // Ordered by company, then day, kind and key.
      expect(rows.map((r) => r.company_id)).toEqual([...rows.map((r) => r.company_id)].sort());
    } finally {
      await close();
    }
  });

  it('lists rows in the export order, a page after a row answering exactly the rows past it', async () => {
    const { stores, close } = await nodes(name, 1);
    const [a] = stores as [EngagementStore];
    try {
      for (const day of [YESTERDAY, TODAY])
        for (const c of ['300', '100', '200']) {
          await a.addEngagedTime(time(c, '/b', 1000, day));
          await a.addEngagedTime(time(c, '/a', 2000, day));
          await a.addEvent(event(c, 'signup', {}, `${day}T12:00:00.000Z`));
        }
      const all = await collect(a.engagementRows('acme', { from: YESTERDAY, to: TODAY }));
      expect(all).toHaveLength(18);
      expect([...all].sort(compareRowKeys)).toEqual(all);
      expect(all[0]).toEqual({ day: YESTERDAY, company_id: '100', kind: 'engaged', key: '/a', value: 2000 });
      expect(all[2]).toEqual({ day: YESTERDAY, company_id: '100', kind: 'event', key: 'signup', value: 1 });
      const pages: EngagementRow[] = [];
      for (let after: EngagementRow | null = null; ; ) {
        const page: EngagementRow[] = await collect(a.engagementRows('acme', { from: YESTERDAY, to: TODAY, after, limit: 5 }));
        pages.push(...page);
        if (page.length < 5) break;
        after = page[page.length - 1]!;
      }
      expect(pages).toEqual(all);
      expect(await collect(a.engagementRows('acme', { from: TODAY, to: TODAY, company_id: '200' }))).toEqual(
        all.filter((r) => r.day === TODAY && r.company_id === '200'),
      );
    } finally {
      await close();
    }
  });

  it.each(NAMES)('moves everything to %s with export and import, and refuses a target that holds some', async (target) => {
    const from = await nodes(name, 1);
    const [source] = from.stores as [EngagementStore];
    let entries: EngagementEntry[] = [];
    try {
      await source.addEngagedTime(time('100', '/pricing', 4200));
      await source.addEngagedTime(time('200', '/docs', 1100, YESTERDAY));
      await source.addEvent(event('100', 'demo_requested', { plan: 'pro' }, new Date(Date.now() - 2000).toISOString()));
      await source.addEvent(event('100', 'signup', { seats: 5 }, new Date(Date.now() - 1000).toISOString()));
      entries = await collect(source.exportEntries());
      expect(entries.map((e) => e.type).sort()).toEqual(['engaged_time', 'engaged_time', 'event_count', 'event_count', 'recent_event', 'recent_event']);
      const before = {
        rows: await collect(source.engagementRows('acme', { from: YESTERDAY, to: TODAY })),
        recent: await source.recentEvents('acme', '100'),
      };
      // Into another backend of the same kind if the target is the source's: a fresh one first.
      await from.close();
      const to = await nodes(target, 1);
      const [dest] = to.stores as [EngagementStore];
      try {
        expect(await dest.isEmpty()).toBe(true);
        expect(await dest.importEntries(entries)).toBe(entries.length);
        expect(await dest.isEmpty()).toBe(false);
        expect(await collect(dest.engagementRows('acme', { from: YESTERDAY, to: TODAY }))).toEqual(before.rows);
        expect(await dest.recentEvents('acme', '100')).toEqual(before.recent);
        await expect(dest.importEntries(entries)).rejects.toThrow(/already holds engaged time or custom events/);
      } finally {
        await to.close();
      }
    } catch (e) {
      await from.close().catch(() => {});
      throw e;
    }
  });
});
