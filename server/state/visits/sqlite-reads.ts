/** The SQLite visit store's report reads (sqlite.ts): sums over the per-day aggregates of a range. */
import type { DailyTotals } from '../../../core/visit-records.ts';
import type { SqliteStateDb } from '../sqlite/db.ts';
import { type AccountVisits, daysBetween, TOP_PAGES } from './store.ts';

type Row = Record<string, unknown>;

export function readAccountVisits(sqlite: SqliteStateDb, customerId: string, from: string, to: string): AccountVisits[] {
  const accounts = sqlite
    .sql(
      `SELECT company_id, sum(page_views) AS page_views, sum(sessions) AS sessions, min(first_seen) AS first_seen, max(last_seen) AS last_seen
       FROM visit_accounts WHERE customer_id = ? AND day BETWEEN ? AND ?
       GROUP BY company_id ORDER BY page_views DESC, company_id`,
    )
    .all(customerId, from, to) as Omit<AccountVisits, 'top_pages'>[];
  const pages = sqlite
    .sql(
      `SELECT company_id, path, sum(page_views) AS page_views FROM visit_pages WHERE customer_id = ? AND day BETWEEN ? AND ?
       GROUP BY company_id, path ORDER BY company_id, page_views DESC, path`,
    )
    .all(customerId, from, to) as { company_id: string; path: string; page_views: number }[];
  const top = new Map<string, AccountVisits['top_pages']>();
  for (const p of pages) {
    const list = top.get(p.company_id) ?? [];
    if (list.length < TOP_PAGES) list.push({ path: p.path, page_views: p.page_views });
    top.set(p.company_id, list);
  }
  return accounts.map((a) => ({ ...a, top_pages: top.get(a.company_id) ?? [] }));
}

export function readDailyTotals(sqlite: SqliteStateDb, customerId: string, from: string, to: string): DailyTotals[] {
  const identified = new Map(
    (
      sqlite
        .sql('SELECT day, sum(page_views) AS n FROM visit_accounts WHERE customer_id = ? AND day BETWEEN ? AND ? GROUP BY day')
        .all(customerId, from, to) as Row[]
    ).map((r) => [r.day as string, r.n as number]),
  );
  const anonymous = new Map(
    (sqlite.sql('SELECT day, page_views AS n FROM visit_anonymous WHERE customer_id = ? AND day BETWEEN ? AND ?').all(customerId, from, to) as Row[]).map(
      (r) => [r.day as string, r.n as number],
    ),
  );
  return daysBetween(from, to).map((day) => ({ day, identified: identified.get(day) ?? 0, anonymous: anonymous.get(day) ?? 0 }));
}
