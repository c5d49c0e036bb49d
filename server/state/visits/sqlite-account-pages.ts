/**
 * The SQLite visit store's cache of account pages (sqlite.ts accountPages): one account's page views per
 * (day, path) over a window, as every scored Match reads them.
 *
 * Why: every scored Match reads its account's pages (the first-party intent of the scores), and the read —
 * a statement with four bound strings, nearly always answering no rows — was ~4% of a tag-mode lookup's
 * CPU (--cpu-prof under `npm run bench -- identification`), more than the whole scoring model. Exact,
 * like the auth cache (access/sqlite.ts syncAuth): every account view bumps visit_version in its own
 * transaction, a view recorded through this store drops its account's entry at once (the whole cache when
 * the version shows another writer in between), and the version is read once per event-loop turn, so a
 * view another process (worker) committed is seen from the next turn on — the order in which requests of
 * one turn and that commit are answered is a valid one. Bounded: cleared past ACCOUNT_PAGES_LIMIT keys.
 */
import type Database from 'better-sqlite3';
import { deepFreeze } from '../access/auth-cache.ts';
import type { SqliteStateDb } from '../sqlite/db.ts';
import type { PagePerDay } from './store.ts';

const ACCOUNT_PAGES_LIMIT = 50_000;

export class AccountPagesCache {
  /** Prepared once: preparing it per call cost ~50 µs of every scored enrichment request and ~15% of a scored tag-mode lookup (profiled). */
  private readonly query: Database.Statement;
  private readonly versionQuery: Database.Statement;
  /** Per customer, then per company (no key string built per request); one window per account. */
  private readonly byCustomer = new Map<string, Map<string, { from: string; to: string; rows: PagePerDay[] }>>();
  private cached = 0;
  private version = -1;
  private versionChecked = false;
  private readonly endVersionTurn = () => {
    this.versionChecked = false;
  };

  constructor(private readonly sqlite: SqliteStateDb) {
    this.query = sqlite.db.prepare(
      'SELECT day, path, page_views FROM visit_pages WHERE customer_id = ? AND company_id = ? AND day BETWEEN ? AND ? ORDER BY day, path',
    );
    this.versionQuery = sqlite.db.prepare('SELECT version FROM visit_version WHERE id = 1').pluck();
  }

  read(customerId: string, companyId: string, from: string, to: string): PagePerDay[] {
    if (!this.versionChecked) {
      const version = this.sqlite.io(() => this.versionQuery.get()) as number;
      if (version !== this.version) {
        this.clear();
        this.version = version;
      }
      this.versionChecked = true;
      setImmediate(this.endVersionTurn);
    }
    let byCompany = this.byCustomer.get(customerId);
    const hit = byCompany?.get(companyId);
    if (hit !== undefined && hit.from === from && hit.to === to) return hit.rows;
    // Shared by later answers: frozen, so no caller can change what the next one reads.
    const rows = deepFreeze(this.sqlite.io(() => this.query.all(customerId, companyId, from, to)) as PagePerDay[]);
    if (this.cached >= ACCOUNT_PAGES_LIMIT) this.clear();
    if (byCompany === undefined || this.cached === 0) {
      byCompany = new Map();
      this.byCustomer.set(customerId, byCompany);
    }
    if (!byCompany.has(companyId)) this.cached++;
    byCompany.set(companyId, { from, to, rows });
    return rows;
  }

  /**
   * After this process committed an account view that left visit_version at `bumped`: when it was the only
   * change since the cache was last known current, that account alone is forgotten (a site's page-view
   * beacons do not empty the cache for every other account); any other change in between (another
   * process) empties it.
   */
  viewed(bumped: number, customerId: string, companyId: string): void {
    if (bumped === this.version + 1) {
      if (this.byCustomer.get(customerId)?.delete(companyId)) this.cached--;
    } else this.clear();
    this.version = bumped;
  }

  clear(): void {
    this.byCustomer.clear();
    this.cached = 0;
  }
}
