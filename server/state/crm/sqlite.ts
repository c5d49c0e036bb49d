/**
 * The CRM store in the SQLite state file (tables from the one migration list, sqlite/schema.ts, step 14),
 * on the process's one connection (sqlite/db.ts). Each write is one statement or one `IMMEDIATE`
 * transaction, so processes sharing the file never both take a lease or both keep a later time. Behind
 * another process's lock every write waits on a timer, never on the event loop: connection changes in the
 * request lane (a console call gets its 503 soon), what a sync writes as it runs — its lease, pending
 * accounts, runs, account records — in the background lane (nobody waits on it, and a run should outwait a
 * CLI write rather than fail for it). Records are
 * kept as their JSON, the shapes living in core/ alone; what the store orders or matches by is a column.
 */
import { CrmAccountRecord, CrmConnectionRecord, type CrmPendingItem, type CrmProvider, CrmRunRecord } from '../../../core/crm-records.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import type { CrmConnectionChange, CrmImportStep, CrmImportWriter, CrmPort } from './port.ts';
import { CrmService } from './service.ts';

const connectionOf = (raw: unknown): CrmConnectionRecord => CrmConnectionRecord.parse(JSON.parse(raw as string));
const runOf = (raw: unknown): CrmRunRecord => CrmRunRecord.parse(JSON.parse(raw as string));
const accountOf = (raw: unknown): CrmAccountRecord => CrmAccountRecord.parse(JSON.parse(raw as string));

const WHERE_CONN = 'customer_id = @c AND provider = @p';

/** Storage only (port.ts). */
export class SqliteCrmStorage implements CrmPort {
  readonly sqlite: SqliteStateDb;
  private closed = false;

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb) {
    this.sqlite = holdStateDb(source);
  }

  private sql(source: string) {
    return this.sqlite.sql(source);
  }

  private exists(c: string, p: CrmProvider): boolean {
    return this.sql(`SELECT 1 FROM crm_connections WHERE ${WHERE_CONN}`).pluck().get({ c, p }) !== undefined;
  }

  // The steps, synchronous: each public write runs one in a transaction, an import runs a page of them in one.

  private putConnectionNow(record: CrmConnectionRecord, secret: string): void {
    this.sql(
      `INSERT INTO crm_connections (customer_id, provider, record, secret) VALUES (@c, @p, @record, @secret)
       ON CONFLICT (customer_id, provider) DO UPDATE SET record = excluded.record, secret = excluded.secret`,
    ).run({ c: record.customer_id, p: record.provider, record: JSON.stringify(record), secret });
  }

  private markPendingNow(c: string, p: CrmProvider, items: readonly CrmPendingItem[]): void {
    if (!this.exists(c, p)) return;
    const mark = this.sql(
      `INSERT INTO crm_pending (customer_id, provider, company_id, at, forced) VALUES (@c, @p, @company, @at, @forced)
       ON CONFLICT (customer_id, provider, company_id) DO UPDATE SET at = max(at, excluded.at), forced = forced | excluded.forced`,
    );
    for (const item of items) mark.run({ c, p, company: item.company_id, at: item.at, forced: item.force ? 1 : 0 });
  }

  private putRunNow(run: CrmRunRecord, keep: number): void {
    const c = run.customer_id;
    const p = run.provider;
    if (!this.exists(c, p)) return;
    this.sql('INSERT OR REPLACE INTO crm_runs (customer_id, provider, id, started_at, run) VALUES (@c, @p, @id, @started, @run)').run({
      c,
      p,
      id: run.id,
      started: run.started_at,
      run: JSON.stringify(run),
    });
    // Older than the keep-th newest (none when there are fewer: the comparison with no row is NULL).
    this.sql(
      `DELETE FROM crm_runs WHERE ${WHERE_CONN} AND (started_at, id) < (
         SELECT started_at, id FROM crm_runs WHERE ${WHERE_CONN} ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET @skip)`,
    ).run({ c, p, skip: keep - 1 });
  }

  private putAccountsNow(c: string, p: CrmProvider, rows: readonly CrmAccountRecord[]): void {
    if (!this.exists(c, p)) return;
    const put = this.sql('INSERT OR REPLACE INTO crm_accounts (customer_id, provider, company_id, record) VALUES (@c, @p, @company, @record)');
    for (const row of rows) put.run({ c, p, company: row.company_id, record: JSON.stringify(row) });
  }

  private step(s: CrmImportStep): void {
    if (s.kind === 'connection') this.putConnectionNow(s.record, s.secret);
    else if (s.kind === 'pending') this.markPendingNow(s.customerId, s.provider, s.items);
    else if (s.kind === 'accounts') this.putAccountsNow(s.customerId, s.provider, s.rows);
    else this.putRunNow(s.run, s.keep);
  }

  async putConnection(record: CrmConnectionRecord, secret: string): Promise<void> {
    await this.sqlite.write(() => this.putConnectionNow(record, secret));
  }

  async updateConnection(c: string, p: CrmProvider, change: CrmConnectionChange): Promise<CrmConnectionRecord | null> {
    const written = await this.sqlite.write(() =>
      this.sqlite.db
        .transaction(() => {
          const raw = this.sql(`SELECT record FROM crm_connections WHERE ${WHERE_CONN}`).pluck().get({ c, p });
          if (raw === undefined) return null;
          const next = JSON.stringify({ ...JSON.parse(raw as string), ...change });
          this.sql(`UPDATE crm_connections SET record = @next WHERE ${WHERE_CONN}`).run({ c, p, next });
          return next;
        })
        .immediate(),
    );
    return written === null ? null : connectionOf(written);
  }

  async getConnection(c: string, p: CrmProvider): Promise<CrmConnectionRecord | null> {
    const raw = this.sqlite.io(() => this.sql(`SELECT record FROM crm_connections WHERE ${WHERE_CONN}`).pluck().get({ c, p }));
    return raw === undefined ? null : connectionOf(raw);
  }

  async connectionSecret(c: string, p: CrmProvider): Promise<string | null> {
    const secret = this.sqlite.io(() => this.sql(`SELECT secret FROM crm_connections WHERE ${WHERE_CONN}`).pluck().get({ c, p }));
    return typeof secret === 'string' ? secret : null;
  }

  async listConnections(c: string): Promise<CrmConnectionRecord[]> {
    return this.sqlite.io(() => this.sql('SELECT record FROM crm_connections WHERE customer_id = ?').pluck().all(c)).map(connectionOf);
  }

  async allConnections(): Promise<CrmConnectionRecord[]> {
    return this.sqlite.io(() => this.sql('SELECT record FROM crm_connections').pluck().all()).map(connectionOf);
  }

  deleteConnection(c: string, p: CrmProvider): Promise<boolean> {
    return this.sqlite.write(() =>
      this.sqlite.db
        .transaction(() => {
          const removed = this.sql(`DELETE FROM crm_connections WHERE ${WHERE_CONN}`).run({ c, p }).changes > 0;
          for (const table of ['crm_pending', 'crm_leases', 'crm_runs', 'crm_accounts']) this.sql(`DELETE FROM ${table} WHERE ${WHERE_CONN}`).run({ c, p });
          return removed;
        })
        .immediate(),
    );
  }

  async markPending(c: string, p: CrmProvider, items: readonly CrmPendingItem[]): Promise<void> {
    await this.sqlite.write(() => this.sqlite.db.transaction(() => this.markPendingNow(c, p, items)).immediate(), 'background');
  }

  async pending(c: string, p: CrmProvider, limit: number, after?: Pick<CrmPendingItem, 'company_id' | 'at'>): Promise<CrmPendingItem[]> {
    const rows = this.sqlite.io(() =>
      after === undefined
        ? this.sql(`SELECT company_id, at, forced FROM crm_pending WHERE ${WHERE_CONN} ORDER BY at, company_id LIMIT @limit`).all({ c, p, limit })
        : this.sql(
            `SELECT company_id, at, forced FROM crm_pending WHERE ${WHERE_CONN} AND (at, company_id) > (@at, @company) ORDER BY at, company_id LIMIT @limit`,
          ).all({ c, p, limit, at: after.at, company: after.company_id }),
    ) as { company_id: string; at: number; forced: number }[];
    return rows.map((r) => ({ company_id: r.company_id, at: r.at, force: r.forced === 1 }));
  }

  async pendingCount(c: string, p: CrmProvider): Promise<number> {
    return this.sqlite.io(() => this.sql(`SELECT count(*) FROM crm_pending WHERE ${WHERE_CONN}`).pluck().get({ c, p })) as number;
  }

  async ackPending(c: string, p: CrmProvider, items: readonly Pick<CrmPendingItem, 'company_id' | 'at'>[]): Promise<void> {
    const ack = this.sql(`DELETE FROM crm_pending WHERE ${WHERE_CONN} AND company_id = @company AND at <= @at`);
    await this.sqlite.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            for (const item of items) ack.run({ c, p, company: item.company_id, at: item.at });
          })
          .immediate(),
      'background',
    );
  }

  acquireLease(c: string, p: CrmProvider, owner: string, nowMs: number, untilMs: number): Promise<boolean> {
    // One statement: the connection's existence, the holder's check and the write in one step.
    return this.sqlite.write(
      () =>
        this.sql(
          `INSERT INTO crm_leases (customer_id, provider, owner, until_ms)
           SELECT @c, @p, @owner, @until WHERE EXISTS (SELECT 1 FROM crm_connections WHERE ${WHERE_CONN})
           ON CONFLICT (customer_id, provider) DO UPDATE SET owner = excluded.owner, until_ms = excluded.until_ms
           WHERE crm_leases.owner = excluded.owner OR crm_leases.until_ms <= @now`,
        ).run({ c, p, owner, until: untilMs, now: nowMs }).changes > 0,
      'background',
    );
  }

  async releaseLease(c: string, p: CrmProvider, owner: string): Promise<void> {
    await this.sqlite.write(() => this.sql(`DELETE FROM crm_leases WHERE ${WHERE_CONN} AND owner = @owner`).run({ c, p, owner }), 'background');
  }

  async putRun(run: CrmRunRecord, keep: number): Promise<void> {
    await this.sqlite.write(() => this.sqlite.db.transaction(() => this.putRunNow(run, keep)).immediate(), 'background');
  }

  async listRuns(c: string, p: CrmProvider, limit: number): Promise<CrmRunRecord[]> {
    return this.sqlite
      .io(() => this.sql(`SELECT run FROM crm_runs WHERE ${WHERE_CONN} ORDER BY started_at DESC, id DESC LIMIT @limit`).pluck().all({ c, p, limit }))
      .map(runOf);
  }

  async getRun(c: string, p: CrmProvider, id: string): Promise<CrmRunRecord | null> {
    const raw = this.sqlite.io(() => this.sql(`SELECT run FROM crm_runs WHERE ${WHERE_CONN} AND id = @id`).pluck().get({ c, p, id }));
    return raw === undefined ? null : runOf(raw);
  }

  async putAccounts(c: string, p: CrmProvider, rows: readonly CrmAccountRecord[]): Promise<void> {
    await this.sqlite.write(() => this.sqlite.db.transaction(() => this.putAccountsNow(c, p, rows)).immediate(), 'background');
  }

  async getAccounts(c: string, p: CrmProvider, companyIds: readonly string[]): Promise<CrmAccountRecord[]> {
    const rows = this.sqlite.io(() =>
      this.sql(`SELECT record FROM crm_accounts WHERE ${WHERE_CONN} AND company_id IN (SELECT value FROM json_each(@ids))`)
        .pluck()
        .all({ c, p, ids: JSON.stringify(companyIds) }),
    );
    return rows.map(accountOf);
  }

  async listAccounts(c: string, p: CrmProvider, limit: number, afterCompanyId?: string): Promise<CrmAccountRecord[]> {
    const rows = this.sqlite.io(() =>
      this.sql(`SELECT record FROM crm_accounts WHERE ${WHERE_CONN} AND company_id > @after ORDER BY company_id LIMIT @limit`)
        .pluck()
        // '' sorts before every company id (none is empty).
        .all({ c, p, limit, after: afterCompanyId ?? '' }),
    );
    return rows.map(accountOf);
  }

  async isEmpty(): Promise<boolean> {
    const any = this.sqlite.io(() =>
      this.sql(
        `SELECT EXISTS (SELECT 1 FROM crm_connections) OR EXISTS (SELECT 1 FROM crm_pending) OR EXISTS (SELECT 1 FROM crm_runs)
           OR EXISTS (SELECT 1 FROM crm_accounts)`,
      )
        .pluck()
        .get(),
    );
    return any === 0;
  }

  importer(): CrmImportWriter {
    const sqlite = this.sqlite;
    const page = sqlite.db.transaction((steps: CrmImportStep[]) => {
      for (const s of steps) this.step(s);
    });
    return {
      async write(steps) {
        // The background lane's deadline: a CLI import outwaits a live server's short writes.
        await sqlite.write(() => page.immediate(steps), 'background');
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}

/** The CRM store on SQLite: the rules (service.ts) over this storage. */
export class SqliteCrmStore extends CrmService {
  /** The state store's connection (what a server passes: backend.ts), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb) {
    super(new SqliteCrmStorage(source));
  }
}
