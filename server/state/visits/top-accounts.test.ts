import { describe, expect, it } from 'vitest';
import { distinctAccounts, type RollupDay, visitGap } from './rollup.ts';
import type { AccountTotals } from './store.ts';
import { byActivity, type RankedRead, type TopAccountReads, topAccounts } from './top-accounts.ts';

/** Views per day per account, in memory: what a store's ranked reads answer (ties in a shuffled order, as Redis may give them). */
function memoryReads(byDay: Map<string, Map<string, number>>, seed: number) {
  let s = seed;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const ranked = new Map(
    [...byDay].map(([day, accounts]) => {
      const list = [...accounts].map(([company_id, page_views]) => ({ company_id, page_views, r: rnd() }));
      return [day, list.sort((a, b) => b.page_views - a.page_views || a.r - b.r).map(({ r: _, ...a }) => a)];
    }),
  );
  const stats = { rankedRows: 0, dayViews: 0, rounds: 0 };
  const reads: TopAccountReads = {
    async ranked(rs: RankedRead[]) {
      stats.rounds++;
      return rs.map((r) => {
        const rows = (ranked.get(r.day) ?? []).slice(r.offset, r.offset + r.limit);
        stats.rankedRows += rows.length;
        return { companies: rows.map((a) => a.company_id), views: rows.map((a) => a.page_views) };
      });
    },
    async dayViews(pairs) {
      stats.dayViews += pairs.length;
      return pairs.map((p) => byDay.get(p.day)?.get(p.company_id) ?? 0);
    },
    async totals(ids) {
      return ids.flatMap((company_id): AccountTotals[] => {
        const views = [...byDay.values()].reduce((n, m) => n + (m.get(company_id) ?? 0), 0);
        return views > 0 ? [{ company_id, page_views: views, sessions: 1, first_seen: '', last_seen: '' }] : [];
      });
    },
  };
  return { reads, stats };
}

/** The answer by summing every account: what topAccounts must equal. */
function bruteForce(byDay: Map<string, Map<string, number>>, n: number): string[] {
  const sums = new Map<string, number>();
  for (const m of byDay.values()) for (const [c, v] of m) sums.set(c, (sums.get(c) ?? 0) + v);
  return [...sums]
    .map(([company_id, page_views]) => ({ company_id, page_views }))
    .sort(byActivity)
    .slice(0, n)
    .map((a) => a.company_id);
}

const DAYS = ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'];

describe('the most active accounts of a range (threshold algorithm over per-day rankings)', () => {
  it('equals the sum over every account, ties by company id, whatever the distribution, the page size or the order of ties', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      let s = seed;
      const rnd = () => (s = (Math.imul(s, 22695477) + 1) >>> 0) / 2 ** 32;
      const accounts = 5 + Math.floor(rnd() * 200);
      // Skewed on some seeds (a few accounts take most views), flat on others (ties everywhere).
      const skew = seed % 3 === 0 ? 1 : 1 + Math.floor(rnd() * 4);
      const byDay = new Map(
        DAYS.map((day) => {
          const m = new Map<string, number>();
          for (let i = 0; i < accounts; i++) if (rnd() < 0.5) m.set(`c${Math.floor(rnd() ** skew * accounts)}`, 1 + Math.floor(rnd() ** skew * 6));
          return [day, m];
        }),
      );
      for (const n of [1, 3, 10, 50]) {
        for (const page of [1, 2, 7, 256]) {
          const { reads } = memoryReads(byDay, seed * 7 + page);
          const top = await topAccounts(DAYS, n, reads, page);
          expect(
            top.map((a) => a.company_id),
            `seed ${seed}, n ${n}, page ${page}`,
          ).toEqual(bruteForce(byDay, n));
        }
      }
    }
  });

  it('reads a small part of each day when a few accounts take most views (as bench/home.ts seeds them), not every account', async () => {
    // 30,000 accounts a day, a third of them new each day, 100,000 views: one each, the rest ~ u³ (as bench/home.ts seeds them).
    let s = 12345;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const byDay = new Map(
      DAYS.map((day, d) => {
        const m = new Map<string, number>();
        for (let k = 0; k < 30_000; k++) m.set(`c${d * 10_000 + k}`, 1);
        for (let i = 0; i < 70_000; i++) {
          const id = `c${d * 10_000 + Math.floor(rnd() ** 3 * 30_000)}`;
          m.set(id, m.get(id)! + 1);
        }
        return [day, m];
      }),
    );
    const { reads, stats } = memoryReads(byDay, 1);
    const top = await topAccounts(DAYS, 200, reads);
    expect(top.map((a) => a.company_id)).toEqual(bruteForce(byDay, 200));
    const all = [...byDay.values()].reduce((n, m) => n + m.size, 0);
    // About 16,000 of 210,000 account-days.
    expect(stats.rankedRows + stats.dayViews).toBeLessThan(all / 10);
  });

  it('answers nothing for no days or no accounts asked', async () => {
    const { reads } = memoryReads(new Map(), 1);
    expect(await topAccounts([], 10, reads)).toEqual([]);
    expect(await topAccounts(DAYS, 0, reads)).toEqual([]);
    expect(await topAccounts(DAYS, 10, reads)).toEqual([]);
  });
});

describe('distinct accounts from the per-day gaps', () => {
  const day = (d: string, gaps: [number, number][]): RollupDay => ({
    day: d,
    identified: 0,
    anonymous: 0,
    new_accounts: 0,
    segment_entries: 0,
    gaps: new Map(gaps),
    complete: true,
  });

  it('counts an account once, on its first day in the range: a gap larger than the day’s offset, or none', () => {
    // A: days 14, 16, 20. B: days 15, 16. C: day 20, seen 100 days before (gap past the span: 0).
    const days = [
      day('2026-11-14', [[0, 1]]),
      day('2026-11-15', [[0, 1]]),
      day('2026-11-16', [
        [2, 1],
        [1, 1],
      ]),
      day('2026-11-17', []),
      day('2026-11-18', []),
      day('2026-11-19', []),
      day('2026-11-20', [
        [4, 1],
        [0, 1],
      ]),
    ];
    expect(distinctAccounts(days, '2026-11-14')).toBe(3);
    expect(distinctAccounts(days.slice(2), '2026-11-16')).toBe(3);
    expect(distinctAccounts(days.slice(3), '2026-11-17')).toBe(2);
    expect(distinctAccounts(days.slice(1, 3), '2026-11-15')).toBe(2);
    expect(distinctAccounts(days.slice(6), '2026-11-20')).toBe(2);
  });

  it('keeps a gap exactly below the span and folds longer ones into none', () => {
    expect(visitGap(100, 99)).toBe(1);
    expect(visitGap(100, 9)).toBe(91);
    expect(visitGap(100, 8)).toBe(0);
    expect(visitGap(100, null)).toBe(0);
  });
});
