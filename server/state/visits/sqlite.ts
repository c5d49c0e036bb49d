/**
 * The visit store on SQLite: the state file's tables of page views and tag sightings (created by the one
 * migration list, sqlite/schema.ts), on the process's one connection (sqlite/db.ts), one IMMEDIATE
 * transaction per page view so several processes count exactly. Its writes are background work (after
 * the view's 204, beside a tag lookup): behind another process's lock they wait on a timer, never on
 * the event loop. Per-day aggregates past the retention are deleted in bounded batches, each a write of
 * the background lane, once a day (the first view of a new UTC day starts it: sqlite-prune.ts); so are
 * kept raw views (`visit_events`, for the export) past theirs. A raw view known before its count is inserted in the
 * count's transaction: no second write per view; so is Home's per-day rollup (sqlite-rollup.ts).
 *
 * Here: the count of a view and the storage's wiring. The other writes are sqlite-writes.ts, the reads
 * sqlite-reads.ts and sqlite-rollup.ts, the account-pages cache sqlite-account-pages.ts, export and import
 * sqlite-transfer.ts.
 */
import type Database from 'better-sqlite3';
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import type { VisitImportWriter, VisitPort, VisitRetention } from './port.ts';
import type { RollupDay } from './rollup.ts';
import { VisitService, type VisitStoreOptions, visitRetention } from './service.ts';
import { AccountPagesCache } from './sqlite-account-pages.ts';
import { anonymousCounter, SqliteCoverage } from './sqlite-coverage.ts';
import { PRUNE_BATCH_ROWS, SqliteVisitPrune } from './sqlite-prune.ts';
import {
  readAccountsPages,
  readAccountTotals,
  readAccountVisits,
  readDailyTotals,
  readFirstSeenDays,
  readNewAccounts,
  readRawViews,
  readSegmentEntries,
  readSessions,
  readTagSightings,
} from './sqlite-reads.ts';
import { readAccountDayViews, readAccountsTotals, readRankedAccounts, readRollupDays, rollupCounter } from './sqlite-rollup.ts';
import { exportVisitRows, visitRowsEmpty, visitRowsImporter } from './sqlite-transfer.ts';
import { rawKeeper, segmentsSwapper, sightingWriter } from './sqlite-writes.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  type KeptRawView,
  OTHER_PATHS,
  PAGES_PER_SESSION,
  PATHS_PER_ACCOUNT_DAY,
  type PagePerDay,
  type PageViewCount,
  type RawPageView,
  type RawViewQuery,
  type RawViewScan,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  type SightingBounds,
  type UncountedPageView,
} from './store.ts';
import type { RankedPage, RankedRead } from './top-accounts.ts';

export { PRUNE_BATCH_ROWS } from './sqlite-prune.ts';

/** Storage only (port.ts): the statements, the account-pages cache, the daily prune. */
export class SqliteVisitStorage implements VisitPort {
  readonly sqlite: SqliteStateDb;
  private readonly db: Database.Database;
  private readonly record: (view: PageViewCount) => boolean;
  private readonly sightNow: (tagId: string, origin: string, at: string, bounds: SightingBounds) => boolean;
  private readonly swapNow: (customerId: string, companyId: string, ids: string, at: string) => string | undefined;
  private readonly keepRawNow: (view: UncountedPageView, first: boolean) => void;
  readonly prune: SqliteVisitPrune;
  private readonly accountPagesCache: AccountPagesCache;
  /** The day this process last dropped session ids of earlier days. */
  private sessionsPrunedFor = '';

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, retention: VisitRetention, pruneBatchRows = PRUNE_BATCH_ROWS) {
    this.sqlite = holdStateDb(source);
    this.db = this.sqlite.db;
    this.accountPagesCache = new AccountPagesCache(this.sqlite);

    // Session ids only deduplicate within their day: older ones are dropped, so the table stays one day deep.
    const pruneSessions = this.db.prepare('DELETE FROM visit_sessions WHERE day < ?');
    const bumpVersion = this.db.prepare('UPDATE visit_version SET version = version + 1 WHERE id = 1 RETURNING version').pluck();
    /** The version an account view's transaction left (read inside it, so exact). */
    let bumped = -1;
    const q = {
      anonymous: anonymousCounter(this.db),
      account: this.db.prepare(
        `INSERT INTO visit_accounts VALUES (@customer_id, @day, @company_id, 1, @new_session, @at, @at)
         ON CONFLICT (customer_id, day, company_id) DO UPDATE SET page_views = page_views + 1, sessions = sessions + @new_session,
           first_seen = min(first_seen, @at), last_seen = max(last_seen, @at)
         RETURNING page_views`,
      ),
      session: this.db.prepare('INSERT OR IGNORE INTO visit_sessions VALUES (?, ?, ?, ?)'),
      accountSessions: this.db.prepare('SELECT sessions FROM visit_accounts WHERE customer_id = ? AND day = ? AND company_id = ?').pluck(),
      pageExists: this.db.prepare('SELECT 1 FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ? AND path = ?'),
      pathCount: this.db.prepare('SELECT count(*) AS n FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ?'),
      page: this.db.prepare(
        `INSERT INTO visit_pages VALUES (?, ?, ?, ?, 1) ON CONFLICT (customer_id, day, company_id, path) DO UPDATE SET page_views = page_views + 1`,
      ),
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
    const rollup = rollupCounter(this.db);
    const keepRaw = rawKeeper(this.db);
    const keepRawAlone = this.db.transaction(keepRaw);
    this.keepRawNow = (view, first) => keepRawAlone.immediate(view, first);
    this.prune = new SqliteVisitPrune(
      this.sqlite,
      retention,
      pruneBatchRows,
      bumpVersion,
      () => this.accountPagesCache.clear(),
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
        q.anonymous(v);
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
      // Home's per-day rollup; once per account-day, the account's first day seen (newAccounts) with it.
      rollup(v.customer_id, v.day, v.company_id, 1, page_views === 1);
      const journey = { customer_id: v.customer_id, company_id: v.company_id, session_id: v.session_id, at: v.at, path: v.path };
      if ((q.journey.get(journey) as { page_views: number }).page_views === 1) q.journeyEvict.run(journey);
      return page_views === 1;
    };
    // Runs as one write of the connection's queue: the cache is kept in step with the commit it follows.
    this.record = (v) => {
      const first = record.immediate(v);
      if (v.day > this.sessionsPrunedFor) this.sessionsPrunedFor = v.day;
      if (v.company_id !== null) this.accountPagesCache.viewed(bumped, v.customer_id, v.company_id);
      return first;
    };
    this.sightNow = sightingWriter(this.db);
    this.swapNow = segmentsSwapper(this.db);
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

  async rollupDays(customerId: string, from: string, to: string): Promise<RollupDay[]> {
    return this.sqlite.io(() => readRollupDays(this.sqlite, customerId, from, to));
  }

  async rankedAccounts(customerId: string, reads: readonly RankedRead[]): Promise<RankedPage[]> {
    return this.sqlite.io(() => readRankedAccounts(this.sqlite, customerId, reads));
  }

  async accountDayViews(customerId: string, pairs: readonly { company_id: string; day: string }[]): Promise<number[]> {
    return this.sqlite.io(() => readAccountDayViews(this.sqlite, customerId, pairs));
  }

  async accountsTotals(customerId: string, companyIds: readonly string[], days: readonly string[]): Promise<AccountTotals[]> {
    return this.sqlite.io(() => readAccountsTotals(this.sqlite, customerId, companyIds, days));
  }

  async accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
    return this.accountPagesCache.read(customerId, companyId, from, to);
  }

  async accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]> {
    return this.sqlite.io(() => readAccountsPages(this.sqlite, customerId, from, to));
  }

  async sessions(customerId: string, companyId: string, kept: string): Promise<AccountSession[]> {
    return this.sqlite.io(() => readSessions(this.sqlite, customerId, companyId, kept));
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

  rawViews(customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView> {
    return readRawViews(this.sqlite, customerId, q, scan);
  }

  async tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    return this.sqlite.io(() => readTagSightings(this.sqlite, tagIds));
  }

  exportEntries(): AsyncIterable<VisitEntry> {
    return exportVisitRows(this.sqlite);
  }

  async isEmpty(): Promise<boolean> {
    return visitRowsEmpty(this.sqlite);
  }

  importer(): VisitImportWriter {
    return visitRowsImporter(this.sqlite, () => this.accountPagesCache.clear());
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
    super(storage, retention, new SqliteCoverage(storage.sqlite));
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
