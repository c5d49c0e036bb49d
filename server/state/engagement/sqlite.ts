/**
 * The engagement store in the SQLite state file (tables from the one migration list, sqlite/schema.ts), on
 * the process's one connection (sqlite/db.ts). Each write is one IMMEDIATE transaction that reads the
 * day's keys and applies the bound (store.ts boundedKey), so processes sharing the file never pass it
 * together; beacons are recorded after their answer went, so writes go in the background lane. Days past
 * the retention are deleted with a customer's first write of each day (per process).
 */
import type { RecentEvent } from '../../../core/engagement-records.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import type { EngagementEntry } from './entries.ts';
import { type EngagementPort, type EventCountInput, keptFrom } from './port.ts';
import { EngagementService } from './service.ts';
import {
  boundedKey,
  ENGAGED_PATHS_PER_ACCOUNT_DAY,
  ENGAGEMENT_RETENTION_DAYS,
  type EngagedTimeInput,
  type EngagementRow,
  type EngagementRowQuery,
  EVENT_NAMES_PER_ACCOUNT_DAY,
  OTHER_KEY,
  RECENT_EVENTS_PER_ACCOUNT,
} from './store.ts';

/**
 * Both aggregates as rows of one shape (@customer, the days @from to @to; @company when `oneAccount`):
 * one account's read goes by the primary key (customer, company, day), every account's by the day index.
 */
const rowsSql = (oneAccount: boolean) => {
  const account = oneAccount ? ' AND company_id = @company' : '';
  return `
  SELECT day, company_id, 'engaged' AS kind, path AS key, ms AS value FROM engaged_time
   WHERE customer_id = @customer AND day BETWEEN @from AND @to${account}
  UNION ALL
  SELECT day, company_id, 'event' AS kind, name AS key, count AS value FROM engagement_events
   WHERE customer_id = @customer AND day BETWEEN @from AND @to${account}`;
};

export interface SqliteEngagementOptions {
  /** Days kept (ENGAGEMENT_RETENTION_DAYS). */
  retentionDays?: number;
}

export class SqliteEngagementStorage implements EngagementPort {
  private readonly sqlite: SqliteStateDb;
  private readonly retentionDays: number;
  private closed = false;
  /** Per customer: the first kept day its old days were last deleted for (once a day per process is enough). */
  private readonly pruned = new Map<string, string>();

  constructor(source: string | SqliteStateDb, options: SqliteEngagementOptions = {}) {
    this.sqlite = holdStateDb(source);
    this.retentionDays = options.retentionDays ?? ENGAGEMENT_RETENTION_DAYS;
  }

  private sql(source: string) {
    return this.sqlite.sql(source);
  }

  /** Inside a write: deletes the customer's days past the retention, at most once a day per process. */
  private prune(customerId: string): void {
    const from = keptFrom(new Date().toISOString().slice(0, 10), this.retentionDays);
    if (this.pruned.get(customerId) === from) return;
    this.sql('DELETE FROM engaged_time WHERE customer_id = ? AND day < ?').run(customerId, from);
    this.sql('DELETE FROM engagement_events WHERE customer_id = ? AND day < ?').run(customerId, from);
    this.sql('DELETE FROM engagement_recent WHERE customer_id = ? AND at < ?').run(customerId, from);
    this.pruned.set(customerId, from);
  }

  private addTimeNow(t: EngagedTimeInput): void {
    const where = 'customer_id = ? AND company_id = ? AND day = ?';
    const held = this.sql(`SELECT 1 FROM engaged_time WHERE ${where} AND path = ?`).get(t.customer_id, t.company_id, t.day, t.path) !== undefined;
    const others = held
      ? 0
      : (this.sql(`SELECT count(*) FROM engaged_time WHERE ${where} AND path <> ?`).pluck().get(t.customer_id, t.company_id, t.day, OTHER_KEY) as number);
    const path = boundedKey(t.path, held, others, ENGAGED_PATHS_PER_ACCOUNT_DAY);
    this.sql('INSERT INTO engaged_time (customer_id, company_id, day, path, ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET ms = ms + excluded.ms').run(
      t.customer_id,
      t.company_id,
      t.day,
      path,
      t.ms,
    );
  }

  private addEventNow(e: EventCountInput): void {
    const where = 'customer_id = ? AND company_id = ? AND day = ?';
    const held = this.sql(`SELECT 1 FROM engagement_events WHERE ${where} AND name = ?`).get(e.customer_id, e.company_id, e.day, e.name) !== undefined;
    const others = held
      ? 0
      : (this.sql(`SELECT count(*) FROM engagement_events WHERE ${where} AND name <> ?`).pluck().get(e.customer_id, e.company_id, e.day, OTHER_KEY) as number);
    const name = boundedKey(e.name, held, others, EVENT_NAMES_PER_ACCOUNT_DAY);
    this.sql(
      'INSERT INTO engagement_events (customer_id, company_id, day, name, count) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET count = count + excluded.count',
    ).run(e.customer_id, e.company_id, e.day, name, e.count);
    if (e.recent) this.keepRecent(e.customer_id, e.company_id, e.recent);
  }

  private keepRecent(customerId: string, companyId: string, r: RecentEvent): void {
    this.sql('INSERT INTO engagement_recent (customer_id, company_id, at, name, path, properties) VALUES (?, ?, ?, ?, ?, ?)').run(
      customerId,
      companyId,
      r.at,
      r.name,
      r.path,
      JSON.stringify(r.properties),
    );
    this.sql(
      `DELETE FROM engagement_recent WHERE customer_id = @customer AND company_id = @company AND id <= (
         SELECT id FROM engagement_recent WHERE customer_id = @customer AND company_id = @company ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    ).run({ customer: customerId, company: companyId, keep: RECENT_EVENTS_PER_ACCOUNT });
  }

  addTime(t: EngagedTimeInput): Promise<void> {
    return this.sqlite.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            this.prune(t.customer_id);
            this.addTimeNow(t);
          })
          .immediate(),
      'background',
    );
  }

  addEvent(e: EventCountInput): Promise<void> {
    return this.sqlite.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            this.prune(e.customer_id);
            this.addEventNow(e);
          })
          .immediate(),
      'background',
    );
  }

  async rows(customerId: string, q: EngagementRowQuery): Promise<EngagementRow[]> {
    const a = q.after ?? null;
    const one = q.company_id !== undefined;
    const after = a ? ' WHERE (day, company_id, kind, key) > (@day, @after_company, @kind, @key)' : '';
    const params = {
      customer: customerId,
      from: q.from,
      to: q.to,
      limit: q.limit ?? -1,
      ...(one ? { company: q.company_id } : {}),
      ...(a ? { day: a.day, after_company: a.company_id, kind: a.kind, key: a.key } : {}),
    };
    return this.sqlite.io(
      () => this.sql(`SELECT * FROM (${rowsSql(one)})${after} ORDER BY day, company_id, kind, key LIMIT @limit`).all(params) as EngagementRow[],
    );
  }

  async accountsRows(customerId: string, from: string, to: string): Promise<EngagementRow[]> {
    return this.sqlite.io(() => this.sql(`${rowsSql(false)} ORDER BY company_id, day, kind, key`).all({ customer: customerId, from, to }) as EngagementRow[]);
  }

  async recent(customerId: string, companyId: string): Promise<RecentEvent[]> {
    const rows = this.sqlite.io(() =>
      this.sql('SELECT at, name, path, properties FROM engagement_recent WHERE customer_id = ? AND company_id = ? ORDER BY id DESC LIMIT ?').all(
        customerId,
        companyId,
        RECENT_EVENTS_PER_ACCOUNT,
      ),
    ) as { at: string; name: string; path: string; properties: string }[];
    return rows.map((r) => ({ at: r.at, name: r.name, path: r.path, properties: JSON.parse(r.properties) }));
  }

  async *exportEntries(): AsyncIterable<EngagementEntry> {
    const customers = this.sqlite.io(
      () =>
        this.sql(
          'SELECT customer_id FROM engaged_time UNION SELECT customer_id FROM engagement_events UNION SELECT customer_id FROM engagement_recent ORDER BY 1',
        )
          .pluck()
          .all() as string[],
    );
    for (const c of customers) {
      let after: EngagementRow | null = null;
      for (;;) {
        const page = await this.rows(c, { from: '0000-00-00', to: '9999-99-99', after, limit: TRANSFER_PAGE });
        for (const r of page) {
          yield r.kind === 'engaged'
            ? { type: 'engaged_time', customer_id: c, company_id: r.company_id, day: r.day, path: r.key, ms: r.value }
            : { type: 'event_count', customer_id: c, company_id: r.company_id, day: r.day, name: r.key, count: r.value };
        }
        if (page.length < TRANSFER_PAGE) break;
        after = page[page.length - 1]!;
      }
      // Oldest first per account (an import keeps them in this order), a keyset page at a time.
      for (let afterId = 0; ; ) {
        const page = this.sqlite.io(() =>
          this.sql('SELECT id, company_id, at, name, path, properties FROM engagement_recent WHERE customer_id = ? AND id > ? ORDER BY id LIMIT ?').all(
            c,
            afterId,
            TRANSFER_PAGE,
          ),
        ) as { id: number; company_id: string; at: string; name: string; path: string; properties: string }[];
        for (const r of page)
          yield { type: 'recent_event', customer_id: c, company_id: r.company_id, at: r.at, name: r.name, path: r.path, properties: JSON.parse(r.properties) };
        if (page.length < TRANSFER_PAGE) break;
        afterId = page[page.length - 1]!.id;
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    return (
      this.sqlite.io(() =>
        this.sql('SELECT EXISTS (SELECT 1 FROM engaged_time) OR EXISTS (SELECT 1 FROM engagement_events) OR EXISTS (SELECT 1 FROM engagement_recent)')
          .pluck()
          .get(),
      ) === 0
    );
  }

  async importPage(entries: EngagementEntry[]): Promise<void> {
    const page = this.sqlite.db.transaction(() => {
      for (const e of entries) {
        if (e.type === 'engaged_time') this.addTimeNow(e);
        else if (e.type === 'event_count') this.addEventNow({ ...e, recent: null });
        else this.keepRecent(e.customer_id, e.company_id, e);
      }
    });
    await this.sqlite.write(() => page.immediate(), 'background');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}

/** The engagement store on SQLite: the rules (service.ts) over this storage. */
export class SqliteEngagementStore extends EngagementService {
  constructor(source: string | SqliteStateDb, options: SqliteEngagementOptions = {}) {
    super(new SqliteEngagementStorage(source, options));
  }
}
