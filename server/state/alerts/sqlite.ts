/**
 * The alerts' state in the SQLite state file (tables from the one migration list, sqlite/schema.ts, step
 * 17), on the process's one connection (sqlite/db.ts). Replacing an owners list and setting stage marks are
 * each one `IMMEDIATE` transaction, so processes sharing the file never both set the same mark. Uploads in
 * the request lane; marks (set while a page view is planned, never waited on by a client) in the background.
 */
import { OwnerRow, TerritoryRule } from '../../../core/alert-records.ts';
import { StateError } from '../errors.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import { AlertEntry } from '../transfer/transfer.ts';
import { type AlertStateStore, type OwnersDocument, STAGE_MARK_KEEP_MS, type StageMark } from './store.ts';

/** Mail marks older than this many days are pruned (a mark matters for its UTC day only). */
const MAIL_MARK_DAYS = 2;

export class SqliteAlertStateStore implements AlertStateStore {
  readonly sqlite: SqliteStateDb;
  private closed = false;
  /** The day mail marks were last pruned for (once a day per process is enough). */
  private prunedFor = '';

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb) {
    this.sqlite = holdStateDb(source);
  }

  private sql(source: string) {
    return this.sqlite.sql(source);
  }

  private putOwnersNow(customerId: string, doc: { owners: readonly OwnerRow[]; territories: readonly TerritoryRule[]; updated_at: string }): void {
    this.sql('DELETE FROM alert_owners WHERE customer_id = ?').run(customerId);
    const put = this.sql('INSERT OR REPLACE INTO alert_owners (customer_id, key, row) VALUES (?, ?, ?)');
    for (const row of doc.owners) put.run(customerId, row.key, JSON.stringify(row));
    this.sql('INSERT OR REPLACE INTO alert_territories (customer_id, rules, updated_at) VALUES (?, ?, ?)').run(
      customerId,
      JSON.stringify(doc.territories),
      doc.updated_at,
    );
  }

  async putOwners(customerId: string, doc: { owners: readonly OwnerRow[]; territories: readonly TerritoryRule[]; updated_at: string }): Promise<void> {
    await this.sqlite.write(() => this.sqlite.db.transaction(() => this.putOwnersNow(customerId, doc)).immediate());
  }

  async getOwners(customerId: string): Promise<OwnersDocument> {
    return this.sqlite.io(() => {
      const rows = this.sql('SELECT row FROM alert_owners WHERE customer_id = ? ORDER BY key').pluck().all(customerId) as string[];
      const t = this.sql('SELECT rules, updated_at FROM alert_territories WHERE customer_id = ?').get(customerId) as
        | { rules: string; updated_at: string }
        | undefined;
      return {
        owners: rows.map((r) => OwnerRow.parse(JSON.parse(r))),
        territories: t ? TerritoryRule.array().parse(JSON.parse(t.rules)) : [],
        updated_at: t?.updated_at ?? null,
      };
    });
  }

  async ownerRows(customerId: string, keys: readonly string[]): Promise<OwnerRow[]> {
    if (keys.length === 0) return [];
    return this.sqlite.io(() => {
      const get = this.sql('SELECT row FROM alert_owners WHERE customer_id = ? AND key = ?').pluck();
      return keys.flatMap((k) => {
        const raw = get.get(customerId, k) as string | undefined;
        return raw === undefined ? [] : [OwnerRow.parse(JSON.parse(raw))];
      });
    });
  }

  async territories(customerId: string): Promise<TerritoryRule[]> {
    const raw = this.sqlite.io(() => this.sql('SELECT rules FROM alert_territories WHERE customer_id = ?').pluck().get(customerId)) as string | undefined;
    return raw === undefined ? [] : TerritoryRule.array().parse(JSON.parse(raw));
  }

  async markStages(customerId: string, companyId: string, marks: readonly StageMark[], atMs: number): Promise<StageMark[]> {
    if (marks.length === 0) return [];
    return this.sqlite.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            // A mark set longer ago than it is kept counts as not set: the account reaches the stage again.
            this.sql('DELETE FROM alert_stages WHERE customer_id = ? AND company_id = ? AND at_ms < ?').run(customerId, companyId, atMs - STAGE_MARK_KEEP_MS);
            const set = this.sql('INSERT OR IGNORE INTO alert_stages (customer_id, company_id, product, stage, at_ms) VALUES (?, ?, ?, ?, ?)');
            return marks.filter((m) => set.run(customerId, companyId, m.product, m.stage, atMs).changes > 0);
          })
          .immediate(),
      'background',
    );
  }

  async claimMail(customerId: string, recipient: string, companyId: string, day: string, holder: string): Promise<boolean> {
    return this.sqlite.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            if (this.prunedFor !== day) {
              const before = new Date(Date.parse(`${day}T00:00:00Z`) - MAIL_MARK_DAYS * 86_400_000).toISOString().slice(0, 10);
              this.sql('DELETE FROM alert_mail_marks WHERE day < ?').run(before);
              this.prunedFor = day;
            }
            this.sql('INSERT OR IGNORE INTO alert_mail_marks (customer_id, recipient, company_id, day, holder) VALUES (?, ?, ?, ?, ?)').run(
              customerId,
              recipient,
              companyId,
              day,
              holder,
            );
            const held = this.sql('SELECT holder FROM alert_mail_marks WHERE customer_id = ? AND day = ? AND recipient = ? AND company_id = ?')
              .pluck()
              .get(customerId, day, recipient, companyId);
            return held === holder;
          })
          .immediate(),
      'background',
    );
  }

  async *exportEntries(): AsyncIterable<AlertEntry> {
    const customers = this.sqlite.io(
      () =>
        this.sql('SELECT customer_id FROM alert_territories UNION SELECT customer_id FROM alert_owners UNION SELECT customer_id FROM alert_stages ORDER BY 1')
          .pluck()
          .all() as string[],
    );
    for (const c of customers) {
      const doc = await this.getOwners(c);
      if (doc.updated_at !== null) yield AlertEntry.parse({ type: 'alert_territories', customer_id: c, rules: doc.territories, updated_at: doc.updated_at });
      for (const row of doc.owners) yield AlertEntry.parse({ type: 'alert_owner', customer_id: c, row });
      for (let after = ''; ; ) {
        const page = this.sqlite.io(
          () =>
            this.sql(
              "SELECT company_id, product, stage, at_ms FROM alert_stages WHERE customer_id = ? AND company_id || '|' || product || '|' || stage > ? ORDER BY company_id || '|' || product || '|' || stage LIMIT ?",
            ).all(c, after, TRANSFER_PAGE) as { company_id: string; product: string; stage: string; at_ms: number }[],
        );
        for (const m of page)
          yield AlertEntry.parse({ type: 'alert_stage', customer_id: c, company_id: m.company_id, product: m.product, stage: m.stage, at: m.at_ms });
        if (page.length < TRANSFER_PAGE) break;
        const last = page[page.length - 1]!;
        after = `${last.company_id}|${last.product}|${last.stage}`;
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    return this.sqlite.io(
      () =>
        this.sql('SELECT EXISTS (SELECT 1 FROM alert_owners) OR EXISTS (SELECT 1 FROM alert_territories) OR EXISTS (SELECT 1 FROM alert_stages)')
          .pluck()
          .get() === 0,
    );
  }

  async importEntries(entries: AsyncIterable<AlertEntry> | Iterable<AlertEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds alert owners or stage marks: import into an empty state', 'conflict');
    let n = 0;
    // Owners rows one by one (no delete: the store was empty), the rules as their own row, a page per transaction.
    const owner = this.sql('INSERT OR REPLACE INTO alert_owners (customer_id, key, row) VALUES (?, ?, ?)');
    const rules = this.sql('INSERT OR REPLACE INTO alert_territories (customer_id, rules, updated_at) VALUES (?, ?, ?)');
    const stage = this.sql('INSERT OR IGNORE INTO alert_stages (customer_id, company_id, product, stage, at_ms) VALUES (?, ?, ?, ?, ?)');
    let page: AlertEntry[] = [];
    const flush = async () => {
      const p = page;
      page = [];
      if (p.length === 0) return;
      await this.sqlite.write(() =>
        this.sqlite.db
          .transaction(() => {
            for (const e of p) {
              if (e.type === 'alert_owner') owner.run(e.customer_id, e.row.key, JSON.stringify(e.row));
              else if (e.type === 'alert_territories') rules.run(e.customer_id, JSON.stringify(e.rules), e.updated_at);
              else stage.run(e.customer_id, e.company_id, e.product, e.stage, e.at);
            }
          })
          .immediate(),
      );
    };
    for await (const raw of entries) {
      page.push(AlertEntry.parse(raw));
      n++;
      if (page.length >= TRANSFER_PAGE) await flush();
    }
    await flush();
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}
