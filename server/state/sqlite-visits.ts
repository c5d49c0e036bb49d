/**
 * The visit store on SQLite: the state file's tables of page views and tag sightings (created by the one
 * migration list, sqlite-schema.ts), on the process's one connection (sqlite-db.ts), one IMMEDIATE
 * transaction per page view so several processes count exactly. Its writes are background work (after
 * the view's 204, beside a tag lookup): behind another process's lock they wait on a timer, never on
 * the event loop.
 */
import type Database from 'better-sqlite3';
import { deepFreeze } from './auth-cache.ts';
import { holdStateDb, type SqliteStateDb } from './sqlite-db.ts';
import {
  daysBetween, ORIGINS_PER_TAG, OTHER_PATHS, PATHS_PER_ACCOUNT_DAY, TOP_PAGES,
  type AccountVisits, type DailyTotals, type PagePerDay, type PageViewCount, type TagSighting, type VisitStore,
} from './visits.ts';

type Row = Record<string, unknown>;

const ACCOUNT_PAGES_LIMIT = 50_000;

export class SqliteVisitStore implements VisitStore {
  private readonly sqlite: SqliteStateDb;
  private readonly db: Database.Database;
  private readonly record: (view: PageViewCount) => boolean;
  private readonly sight: (tagId: string, origin: string, at: string) => void;
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
  constructor(source: string | SqliteStateDb) {
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
      anonymous: this.db.prepare(
        `INSERT INTO visit_anonymous VALUES (?, ?, 1) ON CONFLICT (customer_id, day) DO UPDATE SET page_views = page_views + 1`,
      ),
      account: this.db.prepare(
        `INSERT INTO visit_accounts VALUES (@customer_id, @day, @company_id, 1, @new_session, @at, @at)
         ON CONFLICT (customer_id, day, company_id) DO UPDATE SET page_views = page_views + 1, sessions = sessions + @new_session,
           first_seen = min(first_seen, @at), last_seen = max(last_seen, @at)
         RETURNING page_views`,
      ),
      session: this.db.prepare('INSERT OR IGNORE INTO visit_sessions VALUES (?, ?, ?, ?)'),
      pageExists: this.db.prepare('SELECT 1 FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ? AND path = ?'),
      pathCount: this.db.prepare('SELECT count(*) AS n FROM visit_pages WHERE customer_id = ? AND day = ? AND company_id = ?'),
      page: this.db.prepare(
        `INSERT INTO visit_pages VALUES (?, ?, ?, ?, 1) ON CONFLICT (customer_id, day, company_id, path) DO UPDATE SET page_views = page_views + 1`,
      ),
      sightingExists: this.db.prepare('SELECT 1 FROM tag_sightings WHERE tag_id = ? AND origin = ?'),
      sightingCount: this.db.prepare('SELECT count(*) AS n FROM tag_sightings WHERE tag_id = ?'),
      oldestSighting: this.db.prepare('DELETE FROM tag_sightings WHERE tag_id = ? AND origin = (SELECT origin FROM tag_sightings WHERE tag_id = ? ORDER BY last_seen_at LIMIT 1)'),
      sighting: this.db.prepare(
        `INSERT INTO tag_sightings VALUES (?, ?, ?) ON CONFLICT (tag_id, origin) DO UPDATE SET last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
      ),
    };

    const record = this.db.transaction((v: PageViewCount): boolean => {
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
        const newSession = q.session.run(v.customer_id, v.day, v.company_id, v.session_id).changes;
        const { page_views } = q.account.get({ customer_id: v.customer_id, day: v.day, company_id: v.company_id, new_session: newSession, at: v.at }) as { page_views: number };
        // Bounded: past PATHS_PER_ACCOUNT_DAY distinct paths an account's further paths share one row.
        const known = q.pageExists.get(v.customer_id, v.day, v.company_id, v.path) !== undefined;
        const full = !known && (q.pathCount.get(v.customer_id, v.day, v.company_id) as { n: number }).n >= PATHS_PER_ACCOUNT_DAY;
        q.page.run(v.customer_id, v.day, v.company_id, full ? OTHER_PATHS : v.path);
        return page_views === 1;
      });
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
        if (q.sightingExists.get(tagId, origin) === undefined && (q.sightingCount.get(tagId) as { n: number }).n >= ORIGINS_PER_TAG) {
          q.oldestSighting.run(tagId, tagId);
        }
        q.sighting.run(tagId, origin, at);
      });
    this.sight = (tagId, origin, at) => sight.immediate(tagId, origin, at);
  }

  async recordPageView(view: PageViewCount): Promise<{ first_of_day_for_account: boolean }> {
    return { first_of_day_for_account: await this.sqlite.write(() => this.record(view), 'background') };
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
      (this.sqlite.sql('SELECT day, sum(page_views) AS n FROM visit_accounts WHERE customer_id = ? AND day BETWEEN ? AND ? GROUP BY day').all(customerId, from, to) as Row[]).map(
        (r) => [r.day as string, r.n as number],
      ),
    );
    const anonymous = new Map(
      (this.sqlite.sql('SELECT day, page_views AS n FROM visit_anonymous WHERE customer_id = ? AND day BETWEEN ? AND ?').all(customerId, from, to) as Row[]).map((r) => [
        r.day as string,
        r.n as number,
      ]),
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

  private forgetAccountPages(customerId: string, companyId: string): void {
    if (this.accountPagesCache.get(customerId)?.delete(companyId)) this.accountPagesCached--;
  }

  private clearAccountPages(): void {
    this.accountPagesCache.clear();
    this.accountPagesCached = 0;
  }

  async recordTagSighting(tagId: string, origin: string, at: string): Promise<void> {
    await this.sqlite.write(() => this.sight(tagId, origin, at), 'background');
  }

  async tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    if (tagIds.length === 0) return [];
    return this.sqlite.io(
      () =>
        this.db
          .prepare(`SELECT tag_id, origin, last_seen_at FROM tag_sightings WHERE tag_id IN (${tagIds.map(() => '?').join(',')}) ORDER BY tag_id, last_seen_at DESC`)
          .all(...tagIds) as TagSighting[],
    );
  }

  private closed = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}
