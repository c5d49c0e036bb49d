/**
 * The per-day rollup on SQLite (rollup.ts): `visit_days` (identified views and accounts first seen per
 * customer and day), `visit_day_gaps` (the day's visiting accounts per gap) and the index ranking each
 * day's accounts by views (`visit_accounts_rank`, top-accounts.ts), an account's days in order
 * (`visit_accounts_company`: its neighbours when a day is added). Written on the connection's open
 * transaction — the page view's own (sqlite.ts), an import batch's (sqlite-transfer.ts) — so it never
 * drifts from the aggregates; the migration that created it filled it from them (sqlite/schema.ts), so
 * every day of a SQLite file is covered. Pruned with the aggregates (sqlite-prune.ts).
 */
import type Database from 'better-sqlite3';
import type { SqliteStateDb } from '../sqlite/db.ts';
import { dayNumber, type RollupDay, visitGap } from './rollup.ts';
import type { AccountTotals } from './store.ts';
import { daysBetween } from './store.ts';
import type { RankedPage, RankedRead } from './top-accounts.ts';

/**
 * Counts `added` views of an account-day in the rollup, on the open transaction. `firstOfDay`: the
 * account-day did not exist before (its first view, or an imported day): its first day seen (the store's
 * `visit_account_first`, which this keeps too), the day's new accounts and its gap, and the gap of the
 * account's next visiting day when this one comes between (a late view).
 */
export function rollupCounter(db: Database.Database): (customerId: string, day: string, companyId: string, added: number, firstOfDay: boolean) => void {
  const q = {
    views: db.prepare('INSERT INTO visit_days VALUES (?, ?, ?, 0) ON CONFLICT (customer_id, day) DO UPDATE SET page_views = page_views + excluded.page_views'),
    newAccounts: db.prepare(
      'INSERT INTO visit_days VALUES (?, ?, 0, ?) ON CONFLICT (customer_id, day) DO UPDATE SET new_accounts = new_accounts + excluded.new_accounts',
    ),
    gap: db.prepare('INSERT INTO visit_day_gaps VALUES (?, ?, ?, ?) ON CONFLICT (customer_id, day, gap) DO UPDATE SET accounts = accounts + excluded.accounts'),
    firstGet: db.prepare('SELECT day FROM visit_account_first WHERE customer_id = ? AND company_id = ?').pluck(),
    // The earliest day wins: a late view of an earlier day moves it back.
    firstSet: db.prepare('INSERT INTO visit_account_first VALUES (?, ?, ?) ON CONFLICT (customer_id, company_id) DO UPDATE SET day = min(day, excluded.day)'),
    // The account's neighbouring days: one seek each in the index of an account's days.
    prev: db.prepare('SELECT max(day) FROM visit_accounts INDEXED BY visit_accounts_company WHERE customer_id = ? AND company_id = ? AND day < ?').pluck(),
    next: db.prepare('SELECT min(day) FROM visit_accounts INDEXED BY visit_accounts_company WHERE customer_id = ? AND company_id = ? AND day > ?').pluck(),
  };
  return (customerId, day, companyId, added, firstOfDay) => {
    if (added !== 0) q.views.run(customerId, day, added);
    if (!firstOfDay) return;
    const first = (q.firstGet.get(customerId, companyId) as string | undefined) ?? null;
    q.firstSet.run(customerId, companyId, day);
    if (first === null || first > day) {
      q.newAccounts.run(customerId, day, 1);
      if (first !== null) q.newAccounts.run(customerId, first, -1);
    }
    // Days before the first have no views: no neighbour to look for before it, and the first is the next.
    const seenBefore = first !== null && first < day;
    const prevDay = seenBefore ? ((q.prev.get(customerId, companyId, day) as string | null) ?? null) : null;
    const nextDay = seenBefore ? ((q.next.get(customerId, companyId, day) as string | null) ?? null) : first;
    const d = dayNumber(day);
    const prev = prevDay === null ? null : dayNumber(prevDay);
    q.gap.run(customerId, day, visitGap(d, prev), 1);
    if (nextDay === null) return;
    const n = dayNumber(nextDay);
    const [before, after] = [visitGap(n, prev), visitGap(n, d)];
    if (before === after) return;
    q.gap.run(customerId, nextDay, before, -1);
    q.gap.run(customerId, nextDay, after, 1);
  };
}

/** Every day of the range: its rollup, the day's anonymous views and segment entries (zeros for a day without). */
export function readRollupDays(sqlite: SqliteStateDb, customerId: string, from: string, to: string): RollupDay[] {
  const range = [customerId, from, to];
  const days = new Map(
    (
      sqlite.sql('SELECT day, page_views, new_accounts FROM visit_days WHERE customer_id = ? AND day BETWEEN ? AND ?').all(...range) as {
        day: string;
        page_views: number;
        new_accounts: number;
      }[]
    ).map((r) => [r.day, r]),
  );
  const gaps = new Map<string, Map<number, number>>();
  for (const r of sqlite.sql('SELECT day, gap, accounts FROM visit_day_gaps WHERE customer_id = ? AND day BETWEEN ? AND ? AND accounts != 0').all(...range) as {
    day: string;
    gap: number;
    accounts: number;
  }[]) {
    let m = gaps.get(r.day);
    if (m === undefined) gaps.set(r.day, (m = new Map()));
    m.set(r.gap, r.accounts);
  }
  const perDay = (sql: string) => new Map((sqlite.sql(sql).all(...range) as { day: string; n: number }[]).map((r) => [r.day, r.n]));
  const anonymous = perDay('SELECT day, page_views AS n FROM visit_anonymous WHERE customer_id = ? AND day BETWEEN ? AND ?');
  const entries = perDay('SELECT day, entries AS n FROM visit_segment_entries WHERE customer_id = ? AND day BETWEEN ? AND ?');
  return daysBetween(from, to).map((day) => ({
    day,
    identified: days.get(day)?.page_views ?? 0,
    anonymous: anonymous.get(day) ?? 0,
    new_accounts: days.get(day)?.new_accounts ?? 0,
    segment_entries: entries.get(day) ?? 0,
    gaps: gaps.get(day) ?? new Map(),
    complete: true,
  }));
}

/**
 * Each read's page of the day's accounts by views (the rank index: a seek and a walk of `offset + limit`
 * entries), as two JSON arrays per read: thousands of rows as objects cost more than the walk.
 */
export function readRankedAccounts(sqlite: SqliteStateDb, customerId: string, reads: readonly RankedRead[]): RankedPage[] {
  const page = sqlite
    .sql(
      `SELECT json_group_array(company_id) AS companies, json_group_array(page_views) AS views FROM (
         SELECT company_id, page_views FROM visit_accounts WHERE customer_id = ? AND day = ? ORDER BY page_views DESC, company_id LIMIT ? OFFSET ?)`,
    )
    .raw();
  return reads.map((r) => {
    const [companies, views] = page.get(customerId, r.day, r.limit, r.offset) as [string, string];
    return { companies: JSON.parse(companies) as string[], views: JSON.parse(views) as number[] };
  });
}

/** The views of each (account, day): per day, one primary-key seek per account. */
export function readAccountDayViews(sqlite: SqliteStateDb, customerId: string, pairs: readonly { company_id: string; day: string }[]): number[] {
  const ofDay = sqlite
    .sql(
      `SELECT json_group_object(company_id, page_views) FROM visit_accounts
       WHERE customer_id = ? AND day = ? AND company_id IN (SELECT value FROM json_each(?))`,
    )
    .pluck();
  const byDay = new Map<string, string[]>();
  for (const p of pairs) {
    const ids = byDay.get(p.day);
    if (ids === undefined) byDay.set(p.day, [p.company_id]);
    else ids.push(p.company_id);
  }
  const views = new Map<string, Record<string, number>>();
  for (const [day, ids] of byDay) views.set(day, JSON.parse(ofDay.get(customerId, day, JSON.stringify(ids)) as string) as Record<string, number>);
  return pairs.map((p) => views.get(p.day)![p.company_id] ?? 0);
}

/** The accounts' totals over the days (as readAccountTotals sums them): one primary-key seek per account and day. */
export function readAccountsTotals(sqlite: SqliteStateDb, customerId: string, companyIds: readonly string[], days: readonly string[]): AccountTotals[] {
  if (companyIds.length === 0) return [];
  return sqlite
    .sql(
      `SELECT a.company_id, sum(a.page_views) AS page_views, sum(a.sessions) AS sessions, min(a.first_seen) AS first_seen, max(a.last_seen) AS last_seen
       FROM json_each(?) c CROSS JOIN json_each(?) d CROSS JOIN visit_accounts a
       WHERE a.customer_id = ? AND a.day = d.value AND a.company_id = c.value GROUP BY a.company_id`,
    )
    .all(JSON.stringify(companyIds), JSON.stringify(days), customerId) as AccountTotals[];
}
