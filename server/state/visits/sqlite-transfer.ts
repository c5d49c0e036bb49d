/**
 * Moving the SQLite visit store's rows (`svc state export/import`, transfer.ts VisitEntry). Keyset pages
 * both ways: an export never reads a big file into memory at once, and each import batch is one
 * transaction (it holds the file's write lock, which a live server's metering waits for).
 */
import type { SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import { VisitEntry } from '../transfer/transfer.ts';
import type { VisitImportWriter } from './port.ts';
import { visitImportErrors } from './service.ts';
import { rollupCounter } from './sqlite-rollup.ts';
import { formatRawViewId, formatSighting, ORIGINS_PER_TAG, parseSighting, rawViewText, SESSIONS_PER_ACCOUNT } from './store.ts';

type Row = Record<string, unknown>;

export async function* exportVisitRows(sqlite: SqliteStateDb): AsyncIterable<VisitEntry> {
  const accounts = sqlite.sql(
    `SELECT * FROM visit_accounts WHERE (customer_id, day, company_id) > (?, ?, ?) ORDER BY customer_id, day, company_id LIMIT ${TRANSFER_PAGE}`,
  );
  const pages = sqlite.sql('SELECT path, page_views FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ? ORDER BY path');
  const sessions = sqlite.sql('SELECT session_id FROM visit_sessions WHERE customer_id = ? AND day = ? AND company_id = ? ORDER BY session_id').pluck();
  // Pages, not one open iterator: the connection is shared, and a statement left iterating across the
  // consumer's awaits would keep every other statement of the process off it.
  for (let after = ['', '', '']; ; ) {
    const rows = sqlite.io(() => accounts.all(...after)) as Row[];
    for (const r of rows) {
      const key = [r.customer_id, r.day, r.company_id];
      yield VisitEntry.parse({
        type: 'visit_account',
        ...r,
        pages: sqlite.io(() => pages.all(...key)),
        session_ids: sqlite.io(() => sessions.all(...key)),
      });
    }
    if (rows.length < TRANSFER_PAGE) break;
    const last = rows[rows.length - 1]!;
    after = [last.customer_id as string, last.day as string, last.company_id as string];
  }
  const journeys = sqlite.sql(
    `SELECT * FROM visit_journeys WHERE (customer_id, company_id, session_id) > (?, ?, ?) ORDER BY customer_id, company_id, session_id LIMIT ${TRANSFER_PAGE}`,
  );
  for (let after = ['', '', '']; ; ) {
    const rows = sqlite.io(() => journeys.all(...after)) as Row[];
    for (const r of rows) {
      const pages = (JSON.parse(r.pages as string) as [string, string][]).map(([at, path]) => ({ at, path }));
      yield VisitEntry.parse({ type: 'visit_session', ...r, pages });
    }
    if (rows.length < TRANSFER_PAGE) break;
    const last = rows[rows.length - 1]!;
    after = [last.customer_id as string, last.company_id as string, last.session_id as string];
  }
  const segments = sqlite.sql(
    `SELECT * FROM visit_account_segments WHERE (customer_id, company_id) > (?, ?) ORDER BY customer_id, company_id LIMIT ${TRANSFER_PAGE}`,
  );
  for (let after = ['', '']; ; ) {
    const rows = sqlite.io(() => segments.all(...after)) as { customer_id: string; company_id: string; segment_ids: string; updated_at: string }[];
    for (const r of rows) yield VisitEntry.parse({ type: 'visit_account_segments', ...r, segment_ids: JSON.parse(r.segment_ids) });
    if (rows.length < TRANSFER_PAGE) break;
    after = [rows[rows.length - 1]!.customer_id, rows[rows.length - 1]!.company_id];
  }
  const entries = sqlite.sql(`SELECT * FROM visit_segment_entries WHERE (customer_id, day) > (?, ?) ORDER BY customer_id, day LIMIT ${TRANSFER_PAGE}`);
  for (let after = ['', '']; ; ) {
    const rows = sqlite.io(() => entries.all(...after)) as Row[];
    for (const r of rows) yield VisitEntry.parse({ type: 'visit_segment_entries', ...r });
    if (rows.length < TRANSFER_PAGE) break;
    after = [rows[rows.length - 1]!.customer_id as string, rows[rows.length - 1]!.day as string];
  }
  const anonymous = sqlite.sql(`SELECT * FROM visit_anonymous WHERE (customer_id, day) > (?, ?) ORDER BY customer_id, day LIMIT ${TRANSFER_PAGE}`);
  for (let after = ['', '']; ; ) {
    const rows = sqlite.io(() => anonymous.all(...after)) as Row[];
    for (const r of rows) yield VisitEntry.parse({ type: 'visit_anonymous', ...r });
    if (rows.length < TRANSFER_PAGE) break;
    after = [rows[rows.length - 1]!.customer_id as string, rows[rows.length - 1]!.day as string];
  }
  const sightings = sqlite.sql(`SELECT * FROM tag_sightings WHERE (tag_id, origin) > (?, ?) ORDER BY tag_id, origin LIMIT ${TRANSFER_PAGE}`);
  for (let after = ['', '']; ; ) {
    const rows = sqlite.io(() => sightings.all(...after)) as { tag_id: string; origin: string; last_seen_at: string }[];
    for (const r of rows) yield VisitEntry.parse({ type: 'tag_sighting', tag_id: r.tag_id, origin: r.origin, ...parseSighting(r.last_seen_at) });
    if (rows.length < TRANSFER_PAGE) break;
    after = [rows[rows.length - 1]!.tag_id, rows[rows.length - 1]!.origin];
  }
  const raw = sqlite.sql(
    `SELECT customer_id, ms, n, view FROM visit_events WHERE (customer_id, ms, n) > (?, ?, ?) ORDER BY customer_id, ms, n LIMIT ${TRANSFER_PAGE}`,
  );
  for (let after: [string, number, number] = ['', 0, 0]; ; ) {
    const rows = sqlite.io(() => raw.all(...after)) as { customer_id: string; ms: number; n: number; view: string }[];
    for (const r of rows) yield VisitEntry.parse({ type: 'visit_event', id: formatRawViewId(r), view: JSON.parse(r.view) });
    if (rows.length < TRANSFER_PAGE) break;
    const last = rows[rows.length - 1]!;
    after = [last.customer_id, last.ms, last.n];
  }
}

export function visitRowsEmpty(sqlite: SqliteStateDb): boolean {
  const any = sqlite.io(() =>
    sqlite
      .sql(
        'SELECT EXISTS (SELECT 1 FROM visit_accounts) OR EXISTS (SELECT 1 FROM visit_pages) OR EXISTS (SELECT 1 FROM visit_anonymous) OR EXISTS (SELECT 1 FROM tag_sightings) OR EXISTS (SELECT 1 FROM visit_journeys) OR EXISTS (SELECT 1 FROM visit_events) OR EXISTS (SELECT 1 FROM visit_account_segments) OR EXISTS (SELECT 1 FROM visit_segment_entries)',
      )
      .pluck()
      .get(),
  );
  return any === 0;
}

/** One import's writer; `imported` runs after each batch (the store's cache of account pages). */
export function visitRowsImporter(sqlite: SqliteStateDb, imported: () => void): VisitImportWriter {
  // A row given twice is written once (the last wins): a Redis export may list a key twice (SCAN).
  const q = {
    account: sqlite.sql('INSERT OR REPLACE INTO visit_accounts VALUES (?, ?, ?, ?, ?, ?, ?)'),
    accountViews: sqlite.sql('SELECT page_views FROM visit_accounts WHERE customer_id = ? AND day = ? AND company_id = ?').pluck(),
    page: sqlite.sql('INSERT OR REPLACE INTO visit_pages VALUES (?, ?, ?, ?, ?)'),
    session: sqlite.sql('INSERT OR IGNORE INTO visit_sessions VALUES (?, ?, ?, ?)'),
    anonymous: sqlite.sql('INSERT OR REPLACE INTO visit_anonymous VALUES (?, ?, ?)'),
    journey: sqlite.sql('INSERT OR REPLACE INTO visit_journeys VALUES (?, ?, ?, ?, ?, ?, ?)'),
    journeys: sqlite.sql('SELECT count(*) FROM visit_journeys WHERE customer_id = ? AND company_id = ?').pluck(),
    sighting: sqlite.sql('INSERT OR REPLACE INTO tag_sightings VALUES (?, ?, ?)'),
    origins: sqlite.sql('SELECT count(*) FROM tag_sightings WHERE tag_id = ?').pluck(),
    bump: sqlite.sql('UPDATE visit_version SET version = version + 1 WHERE id = 1'),
    raw: sqlite.sql('INSERT OR REPLACE INTO visit_events (customer_id, ms, n, day, view) VALUES (?, ?, ?, ?, ?)'),
    segments: sqlite.sql('INSERT OR REPLACE INTO visit_account_segments (customer_id, company_id, segment_ids, updated_at) VALUES (?, ?, ?, ?)'),
    entries: sqlite.sql('INSERT OR REPLACE INTO visit_segment_entries VALUES (?, ?, ?)'),
  };
  // Not exported: an account's first day (the earliest of its days that moved) and Home's rollup are
  // derived from the account-days as counting them live would have left them.
  const rollup = rollupCounter(sqlite.db);
  const write = sqlite.db.transaction((batch: VisitEntry[]) => {
    for (const e of batch) {
      switch (e.type) {
        case 'visit_account': {
          const had = q.accountViews.get(e.customer_id, e.day, e.company_id) as number | undefined;
          q.account.run(e.customer_id, e.day, e.company_id, e.page_views, e.sessions, e.first_seen, e.last_seen);
          rollup(e.customer_id, e.day, e.company_id, e.page_views - (had ?? 0), had === undefined);
          for (const p of e.pages) q.page.run(e.customer_id, e.day, e.company_id, p.path, p.page_views);
          for (const id of e.session_ids) q.session.run(e.customer_id, e.day, e.company_id, id);
          break;
        }
        case 'visit_anonymous':
          q.anonymous.run(e.customer_id, e.day, e.page_views);
          break;
        case 'visit_segment_entries':
          q.entries.run(e.customer_id, e.day, e.entries);
          break;
        case 'visit_session':
          q.journey.run(e.customer_id, e.company_id, e.session_id, e.first_seen, e.last_seen, e.page_views, JSON.stringify(e.pages.map((p) => [p.at, p.path])));
          if ((q.journeys.get(e.customer_id, e.company_id) as number) > SESSIONS_PER_ACCOUNT) {
            throw visitImportErrors.tooManySessions(e.company_id, e.customer_id, SESSIONS_PER_ACCOUNT);
          }
          break;
        case 'visit_account_segments':
          q.segments.run(e.customer_id, e.company_id, JSON.stringify(e.segment_ids), e.updated_at);
          break;
        case 'visit_event': {
          const { first_of_day_for_account: first, ...view } = e.view;
          const [ms, n] = e.id.split('-').map(Number) as [number, number];
          q.raw.run(view.customer_id, ms, n, view.day, rawViewText(view, first));
          break;
        }
        case 'tag_sighting':
          q.sighting.run(e.tag_id, e.origin, formatSighting({ last_seen_at: e.last_seen_at, hits: e.hits }));
          if ((q.origins.get(e.tag_id) as number) > ORIGINS_PER_TAG) throw visitImportErrors.tooManyOrigins(e.tag_id, ORIGINS_PER_TAG);
          break;
      }
    }
    // Account pages another process read before the import are not what it holds now.
    q.bump.run();
  });
  return {
    batchSize: TRANSFER_PAGE,
    async write(batch) {
      // The background lane's deadline: a CLI import outwaits a live server's short writes.
      await sqlite.write(() => write.immediate(batch), 'background');
      imported();
    },
  };
}
