/**
 * The SQLite visit store's reads (sqlite.ts): sums over the per-day aggregates of a range, Home's counts,
 * the pages of every account, an account's sessions, kept raw views and tag sightings. Reads take no lock
 * in WAL mode: they run directly (the store wraps them in io(), which only turns a rare failure into a 503).
 */
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import type { SqliteStateDb } from '../sqlite/db.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  daysBetween,
  formatRawViewId,
  inViewOrder,
  type KeptRawView,
  parseSighting,
  type RawViewId,
  type RawViewQuery,
  type RawViewScan,
  SESSIONS_PER_ACCOUNT,
  TOP_PAGES,
} from './store.ts';

/** Kept raw views one read of an export takes at most (a keyset page: memory stays bounded whatever the range). */
const RAW_VIEW_PAGE = 1_000;

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

export function readAccountsPages(sqlite: SqliteStateDb, customerId: string, from: string, to: string): AccountPagePerDay[] {
  return sqlite
    .sql('SELECT company_id, day, path, page_views FROM visit_pages WHERE customer_id = ? AND day BETWEEN ? AND ? ORDER BY company_id, day, path')
    .all(customerId, from, to) as AccountPagePerDay[];
}

export function readSessions(sqlite: SqliteStateDb, customerId: string, companyId: string, kept: string): AccountSession[] {
  const rows = sqlite
    .sql(
      `SELECT session_id, first_seen, last_seen, page_views, pages FROM visit_journeys
       WHERE customer_id = ? AND company_id = ? AND last_seen >= ? ORDER BY last_seen DESC, session_id DESC LIMIT ${SESSIONS_PER_ACCOUNT}`,
    )
    .all(customerId, companyId, kept) as { session_id: string; first_seen: string; last_seen: string; page_views: number; pages: string }[];
  return rows.map((r) => ({ ...r, pages: inViewOrder((JSON.parse(r.pages) as [string, string][]).map(([at, path]) => ({ at, path }))) }));
}

export async function* readRawViews(sqlite: SqliteStateDb, customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView> {
  const page = sqlite.sql(
    'SELECT ms, n, view FROM visit_events WHERE customer_id = ? AND (ms, n) > (?, ?) AND ms < ? AND day BETWEEN ? AND ? ORDER BY ms, n LIMIT ?',
  );
  // An inclusive start is exclusive of the id just before it.
  let after: RawViewId = scan.startExclusive ? scan.start : { ms: scan.start.ms, n: scan.start.n - 1 };
  // Pages, not one open iterator: the connection is shared (see sqlite-transfer.ts).
  for (let left = q.limit; left > 0; ) {
    const want = Math.min(RAW_VIEW_PAGE, left);
    const rows = sqlite.io(() => page.all(customerId, after.ms, after.n, scan.endMs, q.from, q.to, want)) as { ms: number; n: number; view: string }[];
    for (const r of rows) yield { id: formatRawViewId(r), text: r.view };
    if (rows.length < want) return;
    left -= rows.length;
    after = rows[rows.length - 1]!;
  }
}

export function readTagSightings(sqlite: SqliteStateDb, tagIds: readonly string[]): TagSighting[] {
  const rows = sqlite.db
    .prepare(`SELECT tag_id, origin, last_seen_at FROM tag_sightings WHERE tag_id IN (${tagIds.map(() => '?').join(',')}) ORDER BY tag_id, last_seen_at DESC`)
    .all(...tagIds) as TagSighting[];
  return rows.map((r) => ({ tag_id: r.tag_id, origin: r.origin, last_seen_at: parseSighting(r.last_seen_at).last_seen_at }));
}
