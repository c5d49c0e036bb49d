/**
 * The visit store on SQLite: the state file's tables of page views and tag sightings (created by the one
 * migration list, sqlite-schema.ts), on the process's one connection (sqlite-db.ts), one IMMEDIATE
 * transaction per page view so several processes count exactly. Its writes are background work (after
 * the view's 204, beside a tag lookup): behind another process's lock they wait on a timer, never on
 * the event loop. Per-day aggregates past the retention are deleted in bounded batches, each a write of
 * the background lane, once a day (the first view of a new UTC day starts it); so are kept raw views
 * (`visit_events`, for the export) past theirs. A raw view known before its count is inserted in the
 * count's transaction: no second write per view.
 */
import type Database from 'better-sqlite3';
import { deepFreeze } from './auth-cache.ts';
import { DailyPasses } from './daily-passes.ts';
import { StateError } from './errors.ts';
import { holdStateDb, type SqliteStateDb } from './sqlite-db.ts';
import { VisitEntry } from './transfer.ts';
import {
  type AccountPagePerDay,
  type AccountSession,
  type AccountVisits,
  type DailyTotals,
  daysBetween,
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
  RAW_VIEW_RETENTION_DAYS,
  type RawPageView,
  type RawViewId,
  type RawViewQuery,
  rawViewScan,
  rawViewText,
  retainedFrom,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  seenAgain,
  sightingVictim,
  type TagSighting,
  TOP_PAGES,
  type UncountedPageView,
  VISIT_RETENTION_DAYS,
  type VisitStore,
} from './visits.ts';

type Row = Record<string, unknown>;

const ACCOUNT_PAGES_LIMIT = 50_000;
/**
 * Rows one write of the retention prune deletes at most, and customers it looks at: each batch holds the
 * file's write lock, which other processes' metering waits for, so it stays a few milliseconds long.
 */
export const PRUNE_BATCH_ROWS = 1_000;
const PRUNE_BATCH_CUSTOMERS = 100;
/**
 * The tables the retention prune goes through, each with the column whose day (or time: an ISO time of a
 * day sorts after the day itself) it ages by: the per-day aggregates, keyed (customer_id, day, …), so one
 * customer's old days are one range; the journeys by their latest view (an index on (customer_id, last_seen));
 * the kept raw views by their id's milliseconds (keyed (customer_id, ms, n)) and their own retention.
 */
const DAY_TABLES = [
  ['visit_pages', 'day', 'aggregates'],
  ['visit_accounts', 'day', 'aggregates'],
  ['visit_anonymous', 'day', 'aggregates'],
  ['visit_journeys', 'last_seen', 'aggregates'],
  ['visit_account_segments', 'updated_at', 'aggregates'],
  ['visit_events', 'ms', 'raw'],
] as const;

/** The first values each retention keeps: a day (or ISO time) for the aggregates, epoch ms for raw views. */
interface PruneBounds {
  aggregates: string;
  raw: number;
}

/** Kept raw views one read of an export takes at most (a keyset page: memory stays bounded whatever the range). */
const RAW_VIEW_PAGE = 1_000;

/**
 * Rows an export reads per query (keyset pages, so a big file is never read into memory at once) and
 * entries an import writes per transaction (each holds the file's write lock, which a live server's
 * metering waits for).
 */
const TRANSFER_PAGE = 500;

/** Where the retention prune goes on: a table of DAY_TABLES, and the customers of it already done. */
interface PruneCursor {
  table: number;
  after: string;
}

export interface SqliteVisitStoreOptions {
  /** Days of per-day aggregates kept (VISIT_RETENTION_DAYS). */
  retentionDays?: number;
  /** Days of raw views kept for the export (RAW_VIEW_RETENTION_DAYS; a server passes SVC_EVENTS_RETENTION_DAYS). */
  rawRetentionDays?: number;
  /** Rows deleted per write of the retention prune (PRUNE_BATCH_ROWS). */
  pruneBatchRows?: number;
}

export class SqliteVisitStore implements VisitStore {
  private readonly sqlite: SqliteStateDb;
  private readonly db: Database.Database;
  private readonly record: (view: PageViewCount) => boolean;
  private readonly sight: (tagId: string, origin: string, at: string) => boolean;
  private readonly swapSegments: (customerId: string, companyId: string, ids: string, at: string) => string | undefined;
  private readonly pruneStep: (cursor: PruneCursor, before: PruneBounds) => { next: PruneCursor | null; deleted: number };
  private readonly keepRaw: (view: UncountedPageView, first: boolean) => void;
  private readonly retentionDays: number;
  private readonly rawRetentionDays: number;
  /** The retention prunes this process started, one after the other (the first view of each UTC day starts one). */
  private readonly pruning: DailyPasses;
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
   * (sqlite-store.ts syncAuth): every account view bumps visit_version in its own transaction, a view
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
  constructor(source: string | SqliteStateDb, options: SqliteVisitStoreOptions = {}) {
    this.sqlite = holdStateDb(source);
    this.pruning = new DailyPasses(this.sqlite, () => this.closed);
    this.db = this.sqlite.db;
    this.retentionDays = options.retentionDays ?? VISIT_RETENTION_DAYS;
    this.rawRetentionDays = options.rawRetentionDays ?? RAW_VIEW_RETENTION_DAYS;
    const pruneBatchRows = options.pruneBatchRows ?? PRUNE_BATCH_ROWS;

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
    this.keepRaw = (view, first) => keepRawAlone.immediate(view, first);
    const prune = DAY_TABLES.map(([table, column]) => ({
      // One index seek per customer (no scan of the whole table to find the next one).
      nextCustomer: this.db.prepare(`SELECT customer_id FROM ${table} WHERE customer_id > ? ORDER BY customer_id LIMIT 1`).pluck(),
      deleteOld: this.db.prepare(`DELETE FROM ${table} WHERE customer_id = ? AND ${column} < ? LIMIT ?`),
    }));

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

    const sight = this.db.transaction((tagId: string, origin: string, at: string) => {
      const seen = q.sightingGet.get(tagId, origin) as string | undefined;
      if (seen !== undefined) {
        q.sightingSet.run(formatSighting(seenAgain(parseSighting(seen), at)), tagId, origin);
        return false;
      }
      if ((q.sightingCount.get(tagId) as number) >= ORIGINS_PER_TAG) {
        const cells = (q.sightingsOf.all(tagId) as { origin: string; last_seen_at: string }[]).map((r) => [r.origin, parseSighting(r.last_seen_at)] as const);
        const victim = sightingVictim(cells, at);
        if (victim === null) return false;
        q.sightingDelete.run(tagId, victim);
      }
      q.sightingAdd.run(tagId, origin, formatSighting({ last_seen_at: at, hits: 1 }));
      return true;
    });
    this.sight = (tagId, origin, at) => sight.immediate(tagId, origin, at);
    const segmentsGet = this.db.prepare('SELECT segment_ids FROM visit_account_segments WHERE customer_id = ? AND company_id = ?').pluck();
    const segmentsSet = this.db.prepare(
      `INSERT INTO visit_account_segments (customer_id, company_id, segment_ids, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (customer_id, company_id) DO UPDATE SET segment_ids = excluded.segment_ids, updated_at = excluded.updated_at`,
    );
    const swap = this.db.transaction((customerId: string, companyId: string, ids: string, at: string) => {
      const before = segmentsGet.get(customerId, companyId) as string | undefined;
      segmentsSet.run(customerId, companyId, ids, at);
      return before;
    });
    this.swapSegments = (customerId, companyId, ids, at) => swap.immediate(customerId, companyId, ids, at);

    const pruneStep = this.db.transaction((cursor: PruneCursor, bounds: PruneBounds) => {
      let budget = pruneBatchRows;
      let deleted = 0;
      let pagesDeleted = false;
      let done = false;
      for (let looked = 0; looked < PRUNE_BATCH_CUSTOMERS; looked++) {
        const table = prune[cursor.table];
        if (table === undefined) {
          done = true;
          break;
        }
        const customer = table.nextCustomer.get(cursor.after) as string | undefined;
        if (customer === undefined) {
          cursor = { table: cursor.table + 1, after: '' };
          continue;
        }
        const n = table.deleteOld.run(customer, bounds[DAY_TABLES[cursor.table]![2]], budget).changes;
        if (n > 0 && DAY_TABLES[cursor.table]![0] === 'visit_pages') pagesDeleted = true;
        deleted += n;
        budget -= n;
        // The budget used up: this customer may have more old rows, so the next batch starts at it again.
        if (budget === 0) break;
        cursor = { table: cursor.table, after: customer };
      }
      // Account pages read before may hold days deleted now: every process's next read sees the version moved.
      if (pagesDeleted) bumpVersion.get();
      return { next: done ? null : cursor, deleted, pagesDeleted };
    });
    this.pruneStep = (cursor, before) => {
      const { next, deleted, pagesDeleted } = pruneStep.immediate(cursor, before);
      if (pagesDeleted) this.clearAccountPages();
      return { next, deleted };
    };
  }

  async recordPageView(view: PageViewCount): Promise<{ first_of_day_for_account: boolean }> {
    const first = await this.sqlite.write(() => this.record(view), 'background');
    // A failed prune is tried again by the next view (its day's marker is reset); nobody waits on it.
    if (view.day > this.pruning.startedFor) this.pruneAggregates(view.day).catch(() => {});
    return { first_of_day_for_account: first };
  }

  /**
   * Deletes per-day aggregates (accounts, pages, anonymous views) of days before `today` less the
   * retention, in writes of at most PRUNE_BATCH_ROWS rows on the background lane (daily-passes.ts: the
   * event loop free between two); resolves with the rows deleted. Runs after the prunes started before it
   * (the first view of each UTC day starts one).
   */
  pruneAggregates(today: string): Promise<number> {
    const before: PruneBounds = {
      aggregates: retainedFrom(today, this.retentionDays),
      raw: Date.parse(`${retainedFrom(today, this.rawRetentionDays)}T00:00:00Z`),
    };
    return this.pruning.start<PruneCursor>(today, { table: 0, after: '' }, (cursor) => this.pruneStep(cursor, before));
  }

  /** Resolves when the prunes started so far are done (failed ones included). */
  async pruned(): Promise<void> {
    await this.pruning.settled();
  }

  // Reads take no lock in WAL mode: they run directly (io() only turns a rare failure into a 503).
  async accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    return this.sqlite.io(() => this.readAccountVisits(customerId, from, to));
  }

  private readAccountVisits(customerId: string, from: string, to: string): AccountVisits[] {
    const accounts = this.sqlite
      .sql(
        `SELECT company_id, sum(page_views) AS page_views, sum(sessions) AS sessions, min(first_seen) AS first_seen, max(last_seen) AS last_seen
         FROM visit_accounts WHERE customer_id = ? AND day BETWEEN ? AND ?
         GROUP BY company_id ORDER BY page_views DESC, company_id`,
      )
      .all(customerId, from, to) as Omit<AccountVisits, 'top_pages'>[];
    const pages = this.sqlite
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

  async dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]> {
    return this.sqlite.io(() => this.readDailyTotals(customerId, from, to));
  }

  private readDailyTotals(customerId: string, from: string, to: string): DailyTotals[] {
    const identified = new Map(
      (
        this.sqlite
          .sql('SELECT day, sum(page_views) AS n FROM visit_accounts WHERE customer_id = ? AND day BETWEEN ? AND ? GROUP BY day')
          .all(customerId, from, to) as Row[]
      ).map((r) => [r.day as string, r.n as number]),
    );
    const anonymous = new Map(
      (
        this.sqlite.sql('SELECT day, page_views AS n FROM visit_anonymous WHERE customer_id = ? AND day BETWEEN ? AND ?').all(customerId, from, to) as Row[]
      ).map((r) => [r.day as string, r.n as number]),
    );
    return daysBetween(from, to).map((day) => ({ day, identified: identified.get(day) ?? 0, anonymous: anonymous.get(day) ?? 0 }));
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

  async accountSessions(customerId: string, companyId: string): Promise<AccountSession[]> {
    const kept = retainedFrom(new Date().toISOString().slice(0, 10), this.retentionDays);
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

  async recordTagSighting(tagId: string, origin: string, at: string): Promise<{ first: boolean }> {
    return { first: await this.sqlite.write(() => this.sight(tagId, origin, at), 'background') };
  }

  async swapAccountSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null> {
    const before = await this.sqlite.write(() => this.swapSegments(customerId, companyId, JSON.stringify(segmentIds), at), 'background');
    return before === undefined ? null : (JSON.parse(before) as number[]);
  }

  async keepRawPageView(view: RawPageView): Promise<void> {
    const { first_of_day_for_account: first, ...raw } = view;
    await this.sqlite.write(() => this.keepRaw(raw, first), 'background');
  }

  async *rawPageViews(customerId: string, q: RawViewQuery): AsyncIterable<KeptRawView> {
    const scan = rawViewScan(q);
    const page = this.sqlite.sql(
      'SELECT ms, n, view FROM visit_events WHERE customer_id = ? AND (ms, n) > (?, ?) AND ms < ? AND day BETWEEN ? AND ? ORDER BY ms, n LIMIT ?',
    );
    // An inclusive start is exclusive of the id just before it.
    let after: RawViewId = scan.startExclusive ? scan.start : { ms: scan.start.ms, n: scan.start.n - 1 };
    // Pages, not one open iterator: the connection is shared (see exportEntries).
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
    if (tagIds.length === 0) return [];
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

  async *exportEntries(): AsyncIterable<VisitEntry> {
    const accounts = this.sqlite.sql(
      `SELECT * FROM visit_accounts WHERE (customer_id, day, company_id) > (?, ?, ?) ORDER BY customer_id, day, company_id LIMIT ${TRANSFER_PAGE}`,
    );
    const pages = this.sqlite.sql('SELECT path, page_views FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ? ORDER BY path');
    const sessions = this.sqlite.sql('SELECT session_id FROM visit_sessions WHERE customer_id = ? AND day = ? AND company_id = ? ORDER BY session_id').pluck();
    // Pages, not one open iterator: the connection is shared, and a statement left iterating across the
    // consumer's awaits would keep every other statement of the process off it.
    for (let after = ['', '', '']; ; ) {
      const rows = this.sqlite.io(() => accounts.all(...after)) as Row[];
      for (const r of rows) {
        const key = [r.customer_id, r.day, r.company_id];
        yield VisitEntry.parse({
          type: 'visit_account',
          ...r,
          pages: this.sqlite.io(() => pages.all(...key)),
          session_ids: this.sqlite.io(() => sessions.all(...key)),
        });
      }
      if (rows.length < TRANSFER_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = [last.customer_id as string, last.day as string, last.company_id as string];
    }
    const journeys = this.sqlite.sql(
      `SELECT * FROM visit_journeys WHERE (customer_id, company_id, session_id) > (?, ?, ?) ORDER BY customer_id, company_id, session_id LIMIT ${TRANSFER_PAGE}`,
    );
    for (let after = ['', '', '']; ; ) {
      const rows = this.sqlite.io(() => journeys.all(...after)) as Row[];
      for (const r of rows) {
        const pages = (JSON.parse(r.pages as string) as [string, string][]).map(([at, path]) => ({ at, path }));
        yield VisitEntry.parse({ type: 'visit_session', ...r, pages });
      }
      if (rows.length < TRANSFER_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = [last.customer_id as string, last.company_id as string, last.session_id as string];
    }
    const segments = this.sqlite.sql(
      `SELECT * FROM visit_account_segments WHERE (customer_id, company_id) > (?, ?) ORDER BY customer_id, company_id LIMIT ${TRANSFER_PAGE}`,
    );
    for (let after = ['', '']; ; ) {
      const rows = this.sqlite.io(() => segments.all(...after)) as { customer_id: string; company_id: string; segment_ids: string; updated_at: string }[];
      for (const r of rows) yield VisitEntry.parse({ type: 'visit_account_segments', ...r, segment_ids: JSON.parse(r.segment_ids) });
      if (rows.length < TRANSFER_PAGE) break;
      after = [rows[rows.length - 1]!.customer_id, rows[rows.length - 1]!.company_id];
    }
    const anonymous = this.sqlite.sql(`SELECT * FROM visit_anonymous WHERE (customer_id, day) > (?, ?) ORDER BY customer_id, day LIMIT ${TRANSFER_PAGE}`);
    for (let after = ['', '']; ; ) {
      const rows = this.sqlite.io(() => anonymous.all(...after)) as Row[];
      for (const r of rows) yield VisitEntry.parse({ type: 'visit_anonymous', ...r });
      if (rows.length < TRANSFER_PAGE) break;
      after = [rows[rows.length - 1]!.customer_id as string, rows[rows.length - 1]!.day as string];
    }
    const sightings = this.sqlite.sql(`SELECT * FROM tag_sightings WHERE (tag_id, origin) > (?, ?) ORDER BY tag_id, origin LIMIT ${TRANSFER_PAGE}`);
    for (let after = ['', '']; ; ) {
      const rows = this.sqlite.io(() => sightings.all(...after)) as { tag_id: string; origin: string; last_seen_at: string }[];
      for (const r of rows) yield VisitEntry.parse({ type: 'tag_sighting', tag_id: r.tag_id, origin: r.origin, ...parseSighting(r.last_seen_at) });
      if (rows.length < TRANSFER_PAGE) break;
      after = [rows[rows.length - 1]!.tag_id, rows[rows.length - 1]!.origin];
    }
    const raw = this.sqlite.sql(
      `SELECT customer_id, ms, n, view FROM visit_events WHERE (customer_id, ms, n) > (?, ?, ?) ORDER BY customer_id, ms, n LIMIT ${TRANSFER_PAGE}`,
    );
    for (let after: [string, number, number] = ['', 0, 0]; ; ) {
      const rows = this.sqlite.io(() => raw.all(...after)) as { customer_id: string; ms: number; n: number; view: string }[];
      for (const r of rows) yield VisitEntry.parse({ type: 'visit_event', id: formatRawViewId(r), view: JSON.parse(r.view) });
      if (rows.length < TRANSFER_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = [last.customer_id, last.ms, last.n];
    }
  }

  async isEmpty(): Promise<boolean> {
    const any = this.sqlite.io(() =>
      this.sqlite
        .sql(
          'SELECT EXISTS (SELECT 1 FROM visit_accounts) OR EXISTS (SELECT 1 FROM visit_pages) OR EXISTS (SELECT 1 FROM visit_anonymous) OR EXISTS (SELECT 1 FROM tag_sightings) OR EXISTS (SELECT 1 FROM visit_journeys) OR EXISTS (SELECT 1 FROM visit_events) OR EXISTS (SELECT 1 FROM visit_account_segments)',
        )
        .pluck()
        .get(),
    );
    return any === 0;
  }

  async importEntries(entries: AsyncIterable<VisitEntry> | Iterable<VisitEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds page views or tag sightings: import into an empty state', 'conflict');
    // A row given twice is written once (the last wins): a Redis export may list a key twice (SCAN).
    const q = {
      account: this.sqlite.sql('INSERT OR REPLACE INTO visit_accounts VALUES (?, ?, ?, ?, ?, ?, ?)'),
      page: this.sqlite.sql('INSERT OR REPLACE INTO visit_pages VALUES (?, ?, ?, ?, ?)'),
      session: this.sqlite.sql('INSERT OR IGNORE INTO visit_sessions VALUES (?, ?, ?, ?)'),
      anonymous: this.sqlite.sql('INSERT OR REPLACE INTO visit_anonymous VALUES (?, ?, ?)'),
      journey: this.sqlite.sql('INSERT OR REPLACE INTO visit_journeys VALUES (?, ?, ?, ?, ?, ?, ?)'),
      journeys: this.sqlite.sql('SELECT count(*) FROM visit_journeys WHERE customer_id = ? AND company_id = ?').pluck(),
      sighting: this.sqlite.sql('INSERT OR REPLACE INTO tag_sightings VALUES (?, ?, ?)'),
      origins: this.sqlite.sql('SELECT count(*) FROM tag_sightings WHERE tag_id = ?').pluck(),
      bump: this.sqlite.sql('UPDATE visit_version SET version = version + 1 WHERE id = 1'),
      raw: this.sqlite.sql('INSERT OR REPLACE INTO visit_events (customer_id, ms, n, day, view) VALUES (?, ?, ?, ?, ?)'),
      segments: this.sqlite.sql('INSERT OR REPLACE INTO visit_account_segments (customer_id, company_id, segment_ids, updated_at) VALUES (?, ?, ?, ?)'),
    };
    const write = this.db.transaction((batch: VisitEntry[]) => {
      for (const e of batch) {
        switch (e.type) {
          case 'visit_account':
            q.account.run(e.customer_id, e.day, e.company_id, e.page_views, e.sessions, e.first_seen, e.last_seen);
            for (const p of e.pages) q.page.run(e.customer_id, e.day, e.company_id, p.path, p.page_views);
            for (const id of e.session_ids) q.session.run(e.customer_id, e.day, e.company_id, id);
            break;
          case 'visit_anonymous':
            q.anonymous.run(e.customer_id, e.day, e.page_views);
            break;
          case 'visit_session':
            q.journey.run(
              e.customer_id,
              e.company_id,
              e.session_id,
              e.first_seen,
              e.last_seen,
              e.page_views,
              JSON.stringify(e.pages.map((p) => [p.at, p.path])),
            );
            if ((q.journeys.get(e.customer_id, e.company_id) as number) > SESSIONS_PER_ACCOUNT) {
              throw new StateError(`account ${e.company_id} of ${e.customer_id}: more than ${SESSIONS_PER_ACCOUNT} sessions`);
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
            if ((q.origins.get(e.tag_id) as number) > ORIGINS_PER_TAG) throw new StateError(`tag ${e.tag_id}: more than ${ORIGINS_PER_TAG} origins`);
            break;
        }
      }
      // Account pages another process read before the import are not what it holds now.
      q.bump.run();
    });
    let n = 0;
    let batch: VisitEntry[] = [];
    const flush = async () => {
      const b = batch;
      batch = [];
      // The background lane's deadline: a CLI import outwaits a live server's short writes.
      if (b.length > 0) await this.sqlite.write(() => write.immediate(b), 'background');
    };
    for await (const raw of entries) {
      batch.push(VisitEntry.parse(raw));
      n++;
      if (batch.length >= TRANSFER_PAGE) await flush();
    }
    await flush();
    this.clearAccountPages();
    return n;
  }

  private closed = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}
