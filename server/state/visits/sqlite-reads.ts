/** The SQLite visit store's report reads (sqlite.ts): sums over the per-day aggregates of a range, and Home's counts. */
import type { DailyTotals } from '../../../core/visit-records.ts';
import type { SqliteStateDb } from '../sqlite/db.ts';
import { type AccountTotals, type AccountVisits, daysBetween, TOP_PAGES } from './store.ts';

type Row = Record<string, unknown>;

/** The per-day account aggregates of a range summed per account, most page views first. */
export function readAccountTotals(sqlite: SqliteStateDb, customerId: string, from: string, to: string): AccountTotals[] {
  return sqlite
    .sql(
      `SELECT company_id, sum(page_views) AS page_views, sum(sessions) AS sessions, min(first_seen) AS first_seen, max(last_seen) AS last_seen
       FROM visit_accounts WHERE customer_id = ? AND day BETWEEN ? AND ?
       GROUP BY company_id ORDER BY page_views DESC, company_id`,
    )
    .all(customerId, from, to) as AccountTotals[];
}

export function readAccountVisits(sqlite: SqliteStateDb, customerId: string, from: string, to: string): AccountVisits[] {
  const accounts = readAccountTotals(sqlite, customerId, from, to);
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

/** Accounts whose first day seen (the customer's, ever) is in the range. */
export function readNewAccounts(sqlite: SqliteStateDb, customerId: string, from: string, to: string): number {
  return sqlite.sql('SELECT count(*) FROM visit_account_first WHERE customer_id = ? AND day BETWEEN ? AND ?').pluck().get(customerId, from, to) as number;
}

/** Each company's first day seen, in the order asked (null: never seen). */
export function readFirstSeenDays(sqlite: SqliteStateDb, customerId: string, companyIds: readonly string[]): (string | null)[] {
  const rows = sqlite
    .sql('SELECT company_id, day FROM visit_account_first WHERE customer_id = ? AND company_id IN (SELECT value FROM json_each(?))')
    .all(customerId, JSON.stringify(companyIds)) as { company_id: string; day: string }[];
  const byId = new Map(rows.map((r) => [r.company_id, r.day]));
  return companyIds.map((id) => byId.get(id) ?? null);
}

/** Segment entries counted in the range. */
export function readSegmentEntries(sqlite: SqliteStateDb, customerId: string, from: string, to: string): number {
  return sqlite
    .sql('SELECT coalesce(sum(entries), 0) FROM visit_segment_entries WHERE customer_id = ? AND day BETWEEN ? AND ?')
    .pluck()
    .get(customerId, from, to) as number;
}
