/**
 * The visit store on SQLite: the state file's tables of page views and tag sightings (created by the one
 * migration list, sqlite-schema.ts), on the process's one connection (sqlite-db.ts), one IMMEDIATE
 * transaction per page view so several processes count exactly. Its writes are background work (after
 * the view's 204, beside a tag lookup): behind another process's lock they wait on a timer, never on
 * the event loop. Per-day aggregates past the retention are deleted in bounded batches, each a write of
 * the background lane, once a day (the first view of a new UTC day starts it: sqlite-prune.ts); so are
 * kept raw views (`visit_events`, for the export) past theirs. A raw view known before its count is inserted in the
 * count's transaction: no second write per view.
 */
import type Database from 'better-sqlite3';
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import { deepFreeze } from '../access/auth-cache.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import type { VisitImportWriter, VisitPort, VisitRetention } from './port.ts';
import { VisitService, type VisitStoreOptions, visitRetention } from './service.ts';
import { PRUNE_BATCH_ROWS, SqliteVisitPrune } from './sqlite-prune.ts';
import { readAccountTotals, readAccountVisits, readDailyTotals, readFirstSeenDays, readNewAccounts, readSegmentEntries } from './sqlite-reads.ts';
import { exportVisitRows, visitRowsEmpty, visitRowsImporter } from './sqlite-transfer.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  enteredCount,
  formatRawViewId,
  formatSighting,
  inViewOrder,
  type KeptRawView,
  nextRawViewId,
  ORIGINS_PER_TAG,
  OTHER_PATHS,
  PAGES_PER_SESSION,
  PATHS_PER_ACCOUNT_DAY,
  type PagePerDay,
  type PageViewCount,
  parseSighting,
  type RawPageView,
  type RawViewId,
  type RawViewQuery,
  type RawViewScan,
  rawViewText,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  type SightingBounds,
  seenAgain,
  sightingVictim,
  type UncountedPageView,
} from './store.ts';

export { PRUNE_BATCH_ROWS } from './sqlite-prune.ts';

const ACCOUNT_PAGES_LIMIT = 50_000;
/** Kept raw views one read of an export takes at most (a keyset page: memory stays bounded whatever the range). */
const RAW_VIEW_PAGE = 1_000;

/** Storage only (port.ts): the statements, the account-pages cache, the daily prune. */
export class SqliteVisitStorage implements VisitPort {
  readonly sqlite: SqliteStateDb;
  private readonly db: Database.Database;
  private readonly record: (view: PageViewCount) => boolean;
  private readonly sightNow: (tagId: string, origin: string, at: string, bounds: SightingBounds) => boolean;
  private readonly swapNow: (customerId: string, companyId: string, ids: string, at: string) => string | undefined;
  private readonly keepRawNow: (view: UncountedPageView, first: boolean) => void;
  readonly prune: SqliteVisitPrune;
  /** Prepared once: preparing it per call cost ~50 µs of every scored enrichment request and ~15% of a scored tag-mode lookup (profiled). */
  private readonly accountPagesQuery: Database.Statement;
  /** The day this process last dropped session ids of earlier days. */
  private sessionsPrunedFor = '';
  private readonly versionQuery: Database.Statement;
  /**
   * Account pages already read, valid while the visit tables are unchanged. Why: every scored Match reads
   * its account's pages (the first-party intent of the scores), and the read — a statement with four
   * bound strings, nearly always answering no rows — was ~4% of a tag-mode lookup's CPU (--cpu-prof under
   * `npm run bench -- identification`), more than the whole scoring model. Exact, like the auth cache
   * (access/sqlite.ts syncAuth): every account view bumps visit_version in its own transaction, a view
   * recorded through this store drops its account's entry at once (the whole cache when the version shows
   * another writer in between), and the version is read once per event-loop turn, so a
   * view another process (worker) committed is seen from the next turn on — the order in which requests
   * of one turn and that commit are answered is a valid one. Bounded: cleared past ACCOUNT_PAGES_LIMIT keys.
   */
  private readonly accountPagesCache = new Map<string, Map<string, { from: string; to: string; rows: PagePerDay[] }>>();
  private accountPagesCached = 0;
  private accountPagesVersion = -1;
  private versionChecked = false;
  private readonly endVersionTurn = () => {
    this.versionChecked = false;
  };

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, retention: VisitRetention, pruneBatchRows = PRUNE_BATCH_ROWS) {
    this.sqlite = holdStateDb(source);
    this.db = this.sqlite.db;

    // Session ids only deduplicate within their day: older ones are dropped, so the table stays one day deep.
    const pruneSessions = this.db.prepare('DELETE FROM visit_sessions WHERE day < ?');
    this.accountPagesQuery = this.db.prepare(
      'SELECT day, path, page_views FROM visit_pages WHERE customer_id = ? AND company_id = ? AND day BETWEEN ? AND ? ORDER BY day, path',
    );
    this.versionQuery = this.db.prepare('SELECT version FROM visit_version WHERE id = 1').pluck();
    const bumpVersion = this.db.prepare('UPDATE visit_version SET version = version + 1 WHERE id = 1 RETURNING version').pluck();
    /** The version an account view's transaction left (read inside it, so exact). */
    let bumped = -1;
    const q = {
      anonymous: this.db.prepare(`INSERT INTO visit_anonymous VALUES (?, ?, 1) ON CONFLICT (customer_id, day) DO UPDATE SET page_views = page_views + 1`),
      account: this.db.prepare(
        `INSERT INTO visit_accounts VALUES (@customer_id, @day, @company_id, 1, @new_session, @at, @at)
         ON CONFLICT (customer_id, day, company_id) DO UPDATE SET page_views = page_views + 1, sessions = sessions + @new_session,
           first_seen = min(first_seen, @at), last_seen = max(last_seen, @at)
         RETURNING page_views`,
      ),
      session: this.db.prepare('INSERT OR IGNORE INTO visit_sessions VALUES (?, ?, ?, ?)'),
      // The earliest day wins: a late view of an earlier day moves it back.
      first: this.db.prepare(
        'INSERT INTO visit_account_first VALUES (?, ?, ?) ON CONFLICT (customer_id, company_id) DO UPDATE SET day = min(day, excluded.day)',
      ),
      accountSessions: this.db.prepare('SELECT sessions FROM visit_accounts WHERE customer_id = ? AND day = ? AND company_id = ?').pluck(),
      pageExists: this.db.prepare('SELECT 1 FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ? AND path = ?'),
      pathCount: this.db.prepare('SELECT count(*) AS n FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ?'),
      page: this.db.prepare(
        `INSERT INTO visit_pages VALUES (?, ?, ?, ?, 1) ON CONFLICT (customer_id, day, company_id, path) DO UPDATE SET page_views = page_views + 1`,
      ),
      // last_seen_at holds `<time>|<hits>` (visits.ts SightingCell): the hits need no column of their own,
      // and ordering by it still orders by the time it starts with.
      sightingGet: this.db.prepare('SELECT last_seen_at FROM tag_sightings WHERE tag_id = ? AND origin = ?').pluck(),
      sightingSet: this.db.prepare('UPDATE tag_sightings SET last_seen_at = ? WHERE tag_id = ? AND origin = ?'),
      sightingCount: this.db.prepare('SELECT count(*) FROM tag_sightings WHERE tag_id = ?').pluck(),
      sightingsOf: this.db.prepare('SELECT origin, last_seen_at FROM tag_sightings WHERE tag_id = ?'),
      sightingDelete: this.db.prepare('DELETE FROM tag_sightings WHERE tag_id = ? AND origin = ?'),
      sightingAdd: this.db.prepare('INSERT INTO tag_sightings VALUES (?, ?, ?)'),
      // The session's pages: a JSON array of [at, path], appended while shorter than PAGES_PER_SESSION.
      journey: this.db.prepare(
        `INSERT INTO visit_journeys VALUES (@customer_id, @company_id, @session_id, @at, @at, 1, json_array(json_array(@at, @path)))
         ON CONFLICT (customer_id, company_id, session_id) DO UPDATE SET first_seen = min(first_seen, @at), last_seen = max(last_seen, @at),
           page_views = page_views + 1,
           pages = CASE WHEN json_array_length(pages) < ${PAGES_PER_SESSION} THEN json_insert(pages, '$[#]', json_array(@at, @path)) ELSE pages END
         RETURNING page_views`,
      ),
      // A new session past the bound: the account's sessions seen longest ago go.
      journeyEvict: this.db.prepare(
        `DELETE FROM visit_journeys WHERE customer_id = @customer_id AND company_id = @company_id AND session_id IN (
           SELECT session_id FROM visit_journeys WHERE customer_id = @customer_id AND company_id = @company_id
           ORDER BY last_seen DESC, session_id DESC LIMIT -1 OFFSET ${SESSIONS_PER_ACCOUNT})`,
      ),
    };
    const lastRawId = this.db.prepare('SELECT ms, n FROM visit_events WHERE customer_id = ? ORDER BY ms DESC, n DESC LIMIT 1');
    const addRaw = this.db.prepare('INSERT INTO visit_events (customer_id, ms, n, day, view) VALUES (?, ?, ?, ?, ?)');
    /** Inside a write transaction: the customer's latest id is read under the lock, so ids only grow. */
    const keepRaw = (view: UncountedPageView, first: boolean) => {
      const id = nextRawViewId((lastRawId.get(view.customer_id) as RawViewId | undefined) ?? null, Date.parse(view.at), Date.now());
      addRaw.run(view.customer_id, id.ms, id.n, view.day, rawViewText(view, first));
    };
    const keepRawAlone = this.db.transaction(keepRaw);
    this.keepRawNow = (view, first) => keepRawAlone.immediate(view, first);
    this.prune = new SqliteVisitPrune(
      this.sqlite,
      retention,
      pruneBatchRows,
      bumpVersion,
      () => this.clearAccountPages(),
      () => this.closed,
    );

    const record = this.db.transaction((v: PageViewCount): boolean => {
      const first = count(v);
      if (v.raw !== undefined) keepRaw(v.raw, first);
      return first;
    });
    const count = (v: PageViewCount): boolean => {
      if (v.day > this.sessionsPrunedFor) {
        // Yesterday's ids are kept: views of a late request may still arrive for that day.
        pruneSessions.run(new Date(Date.parse(`${v.day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10));
      }
      if (v.company_id === null) {
        q.anonymous.run(v.customer_id, v.day);
        return false;
      }
      // Anonymous views change no account's pages: only account views invalidate read account pages.
      bumped = bumpVersion.get() as number;
      // The account's session count bounds the ids stored for its day (it is never below them: ids of
      // past days are pruned, counts are not), so no count of the ids is needed.
      const sessions = (q.accountSessions.get(v.customer_id, v.day, v.company_id) as number | undefined) ?? 0;
      const newSession = sessions < SESSIONS_PER_ACCOUNT_DAY ? q.session.run(v.customer_id, v.day, v.company_id, v.session_id).changes : 0;
      const { page_views } = q.account.get({ customer_id: v.customer_id, day: v.day, company_id: v.company_id, new_session: newSession, at: v.at }) as {
        page_views: number;
      };
      // Bounded: past PATHS_PER_ACCOUNT_DAY distinct paths an account's further paths share one row.
      const known = q.pageExists.get(v.customer_id, v.day, v.company_id, v.path) !== undefined;
      const full = !known && (q.pathCount.get(v.customer_id, v.day, v.company_id) as { n: number }).n >= PATHS_PER_ACCOUNT_DAY;
      q.page.run(v.customer_id, v.day, v.company_id, full ? OTHER_PATHS : v.path);
      // Once per account-day, not per view: the account's first day seen (newAccounts).
      if (page_views === 1) q.first.run(v.customer_id, v.company_id, v.day);
      const journey = { customer_id: v.customer_id, company_id: v.company_id, session_id: v.session_id, at: v.at, path: v.path };
      if ((q.journey.get(journey) as { page_views: number }).page_views === 1) q.journeyEvict.run(journey);
      return page_views === 1;
    };
    // Runs as one write of the connection's queue: the cache is kept in step with the commit it follows.
    this.record = (v) => {
      const first = record.immediate(v);
      if (v.day > this.sessionsPrunedFor) this.sessionsPrunedFor = v.day;
      if (v.company_id !== null) {
        // Our own view was the only change since the cache was last known current: forget that account
        // alone (a site's page-view beacons do not empty the cache for every other account). Any other
        // change in between (another process) empties it.
        if (bumped === this.accountPagesVersion + 1) this.forgetAccountPages(v.customer_id, v.company_id);
        else this.clearAccountPages();
        this.accountPagesVersion = bumped;
      }
      return first;
    };

    const sight = this.db.transaction((tagId: string, origin: string, at: string, bounds: SightingBounds) => {
      const seen = q.sightingGet.get(tagId, origin) as string | undefined;
      if (seen !== undefined) {
        q.sightingSet.run(formatSighting(seenAgain(parseSighting(seen), at)), tagId, origin);
        return false;
      }
      if ((q.sightingCount.get(tagId) as number) >= ORIGINS_PER_TAG) {
        const cells = (q.sightingsOf.all(tagId) as { origin: string; last_seen_at: string }[]).map((r) => [r.origin, parseSighting(r.last_seen_at)] as const);
        const victim = sightingVictim(cells, bounds);
        if (victim === null) return false;
        q.sightingDelete.run(tagId, victim);
      }
      q.sightingAdd.run(tagId, origin, formatSighting({ last_seen_at: at, hits: 1 }));
      return true;
    });
    this.sightNow = (tagId, origin, at, bounds) => sight.immediate(tagId, origin, at, bounds);
    const segmentsGet = this.db.prepare('SELECT segment_ids FROM visit_account_segments WHERE customer_id = ? AND company_id = ?').pluck();
    const segmentsSet = this.db.prepare(
      `INSERT INTO visit_account_segments (customer_id, company_id, segment_ids, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (customer_id, company_id) DO UPDATE SET segment_ids = excluded.segment_ids, updated_at = excluded.updated_at`,
    );
    const entriesAdd = this.db.prepare(
      'INSERT INTO visit_segment_entries VALUES (?, ?, ?) ON CONFLICT (customer_id, day) DO UPDATE SET entries = entries + excluded.entries',
    );
    const swap = this.db.transaction((customerId: string, companyId: string, ids: string, at: string) => {
      const before = segmentsGet.get(customerId, companyId) as string | undefined;
      segmentsSet.run(customerId, companyId, ids, at);
      const entered = enteredCount(before === undefined ? null : (JSON.parse(before) as number[]), JSON.parse(ids) as number[]);
      if (entered > 0) entriesAdd.run(customerId, at.slice(0, 10), entered);
      return before;
    });
    this.swapNow = (customerId, companyId, ids, at) => swap.immediate(customerId, companyId, ids, at);
  }

  async count(view: PageViewCount): Promise<boolean> {
    const first = await this.sqlite.write(() => this.record(view), 'background');
    // A failed prune is tried again by the next view (its day's marker is reset); nobody waits on it.
    if (view.day > this.prune.startedFor) this.prune.start(view.day).catch(() => {});
    return first;
  }

  // Reads take no lock in WAL mode: they run directly (io() only turns a rare failure into a 503).
  async accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    return this.sqlite.io(() => readAccountVisits(this.sqlite, customerId, from, to));
  }

  async accountTotals(customerId: string, from: string, to: string): Promise<AccountTotals[]> {
    return this.sqlite.io(() => readAccountTotals(this.sqlite, customerId, from, to));
  }

  async newAccounts(customerId: string, from: string, to: string): Promise<number> {
    return this.sqlite.io(() => readNewAccounts(this.sqlite, customerId, from, to));
  }

  async firstSeenDays(customerId: string, companyIds: readonly string[]): Promise<(string | null)[]> {
    return this.sqlite.io(() => readFirstSeenDays(this.sqlite, customerId, companyIds));
  }

  async segmentEntries(customerId: string, from: string, to: string): Promise<number> {
    return this.sqlite.io(() => readSegmentEntries(this.sqlite, customerId, from, to));
  }

  async dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]> {
    return this.sqlite.io(() => readDailyTotals(this.sqlite, customerId, from, to));
  }

  async accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
    if (!this.versionChecked) {
      const version = this.sqlite.io(() => this.versionQuery.get()) as number;
      if (version !== this.accountPagesVersion) {
        this.clearAccountPages();
        this.accountPagesVersion = version;
      }
      this.versionChecked = true;
      setImmediate(this.endVersionTurn);
    }
    // Per customer, then per company (no key string built per request); one window per account.
    let byCompany = this.accountPagesCache.get(customerId);
    const hit = byCompany?.get(companyId);
    if (hit !== undefined && hit.from === from && hit.to === to) return hit.rows;
    // Shared by later answers: frozen, so no caller can change what the next one reads.
    const rows = deepFreeze(this.sqlite.io(() => this.accountPagesQuery.all(customerId, companyId, from, to)) as PagePerDay[]);
    if (this.accountPagesCached >= ACCOUNT_PAGES_LIMIT) this.clearAccountPages();
    if (byCompany === undefined || this.accountPagesCached === 0) {
      byCompany = new Map();
      this.accountPagesCache.set(customerId, byCompany);
    }
    if (!byCompany.has(companyId)) this.accountPagesCached++;
    byCompany.set(companyId, { from, to, rows });
    return rows;
  }

  async accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]> {
    return this.sqlite.io(
      () =>
        this.sqlite
          .sql('SELECT company_id, day, path, page_views FROM visit_pages WHERE customer_id = ? AND day BETWEEN ? AND ? ORDER BY company_id, day, path')
          .all(customerId, from, to) as AccountPagePerDay[],
    );
  }

  async sessions(customerId: string, companyId: string, kept: string): Promise<AccountSession[]> {
    const rows = this.sqlite.io(() =>
      this.sqlite
        .sql(
          `SELECT session_id, first_seen, last_seen, page_views, pages FROM visit_journeys
           WHERE customer_id = ? AND company_id = ? AND last_seen >= ? ORDER BY last_seen DESC, session_id DESC LIMIT ${SESSIONS_PER_ACCOUNT}`,
        )
        .all(customerId, companyId, kept),
    ) as { session_id: string; first_seen: string; last_seen: string; page_views: number; pages: string }[];
    return rows.map((r) => ({ ...r, pages: inViewOrder((JSON.parse(r.pages) as [string, string][]).map(([at, path]) => ({ at, path }))) }));
  }

  private forgetAccountPages(customerId: string, companyId: string): void {
    if (this.accountPagesCache.get(customerId)?.delete(companyId)) this.accountPagesCached--;
  }

  private clearAccountPages(): void {
    this.accountPagesCache.clear();
    this.accountPagesCached = 0;
  }

  sight(tagId: string, origin: string, at: string, bounds: SightingBounds): Promise<boolean> {
    return this.sqlite.write(() => this.sightNow(tagId, origin, at, bounds), 'background');
  }

  async swapSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null> {
    const before = await this.sqlite.write(() => this.swapNow(customerId, companyId, JSON.stringify(segmentIds), at), 'background');
    return before === undefined ? null : (JSON.parse(before) as number[]);
  }

  async keepRaw(view: RawPageView): Promise<void> {
    const { first_of_day_for_account: first, ...raw } = view;
    await this.sqlite.write(() => this.keepRawNow(raw, first), 'background');
  }

  async *rawViews(customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView> {
    const page = this.sqlite.sql(
      'SELECT ms, n, view FROM visit_events WHERE customer_id = ? AND (ms, n) > (?, ?) AND ms < ? AND day BETWEEN ? AND ? ORDER BY ms, n LIMIT ?',
    );
    // An inclusive start is exclusive of the id just before it.
    let after: RawViewId = scan.startExclusive ? scan.start : { ms: scan.start.ms, n: scan.start.n - 1 };
    // Pages, not one open iterator: the connection is shared (see sqlite-transfer.ts).
    for (let left = q.limit; left > 0; ) {
      const want = Math.min(RAW_VIEW_PAGE, left);
      const rows = this.sqlite.io(() => page.all(customerId, after.ms, after.n, scan.endMs, q.from, q.to, want)) as { ms: number; n: number; view: string }[];
      for (const r of rows) yield { id: formatRawViewId(r), text: r.view };
      if (rows.length < want) return;
      left -= rows.length;
      after = rows[rows.length - 1]!;
    }
  }

  async tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    const rows = this.sqlite.io(
      () =>
        this.db
          .prepare(
            `SELECT tag_id, origin, last_seen_at FROM tag_sightings WHERE tag_id IN (${tagIds.map(() => '?').join(',')}) ORDER BY tag_id, last_seen_at DESC`,
          )
          .all(...tagIds) as TagSighting[],
    );
    return rows.map((r) => ({ tag_id: r.tag_id, origin: r.origin, last_seen_at: parseSighting(r.last_seen_at).last_seen_at }));
  }

  exportEntries(): AsyncIterable<VisitEntry> {
    return exportVisitRows(this.sqlite);
  }

  async isEmpty(): Promise<boolean> {
    return visitRowsEmpty(this.sqlite);
  }

  importer(): VisitImportWriter {
    return visitRowsImporter(this.sqlite, () => this.clearAccountPages());
  }

  private closed = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}

export interface SqliteVisitStoreOptions extends VisitStoreOptions {
  /** Rows deleted per write of the retention prune (PRUNE_BATCH_ROWS). */
  pruneBatchRows?: number;
}

/** The visit store on SQLite: the service over this storage. */
export class SqliteVisitStore extends VisitService {
  /** The connection it stores on (the state store's, or its own). */
  readonly sqlite: SqliteStateDb;
  private readonly storage: SqliteVisitStorage;

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, options: SqliteVisitStoreOptions = {}) {
    const retention = visitRetention(options);
    const storage = new SqliteVisitStorage(source, retention, options.pruneBatchRows);
    super(storage, retention);
    this.storage = storage;
    this.sqlite = storage.sqlite;
  }

  /**
   * Deletes per-day aggregates (accounts, pages, anonymous views) of days before `today` less the
   * retention, and raw views past theirs, in writes of at most PRUNE_BATCH_ROWS rows on the background
   * lane; resolves with the rows deleted. Runs after the prunes started before it (the first view of
   * each UTC day starts one).
   */
  pruneAggregates(today: string): Promise<number> {
    return this.storage.prune.start(today);
  }

  /** Resolves when the prunes started so far are done (failed ones included). */
  pruned(): Promise<void> {
    return this.storage.prune.settled();
  }
}
