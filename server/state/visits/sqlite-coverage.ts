/**
 * The coverage counts on SQLite (coverage.ts): `visit_unidentified`, one row per (customer, UTC day, reason),
 * written by the anonymous view's counter inside the page view's own IMMEDIATE transaction (sqlite.ts),
 * pruned with the other per-day aggregates (sqlite-prune.ts), moved by `svc state export/import` in keyset
 * pages as the other visit rows are (sqlite-transfer.ts).
 */
import type Database from 'better-sqlite3';
import type { SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import type { CoveragePort, UnidentifiedEntry, UnidentifiedRow } from './coverage.ts';
import type { PageViewCount } from './store.ts';

/**
 * Counts an anonymous view on the connection's open transaction: the day's anonymous total and, when the
 * recorder said why, the day's count of that reason — one step, so the split never drifts from the total.
 */
export function anonymousCounter(db: Database.Database): (v: PageViewCount) => void {
  const total = db.prepare('INSERT INTO visit_anonymous VALUES (?, ?, 1) ON CONFLICT (customer_id, day) DO UPDATE SET page_views = page_views + 1');
  const reason = db.prepare(
    'INSERT INTO visit_unidentified VALUES (?, ?, ?, 1) ON CONFLICT (customer_id, day, reason) DO UPDATE SET page_views = page_views + 1',
  );
  return (v) => {
    total.run(v.customer_id, v.day);
    if (v.unidentified_reason !== undefined) reason.run(v.customer_id, v.day, v.unidentified_reason);
  };
}

export class SqliteCoverage implements CoveragePort {
  constructor(private readonly sqlite: SqliteStateDb) {}

  // Reads take no lock in WAL mode: they run directly (io() only turns a rare failure into a 503).
  async unidentified(customerId: string, from: string, to: string): Promise<UnidentifiedRow[]> {
    return this.sqlite.io(
      () =>
        this.sqlite
          .sql('SELECT day, reason, page_views FROM visit_unidentified WHERE customer_id = ? AND day BETWEEN ? AND ?')
          .all(customerId, from, to) as UnidentifiedRow[],
    );
  }

  async *exportEntries(): AsyncIterable<UnidentifiedEntry> {
    const page = this.sqlite.sql(
      `SELECT customer_id, day, reason, page_views FROM visit_unidentified WHERE (customer_id, day, reason) > (?, ?, ?)
       ORDER BY customer_id, day, reason LIMIT ${TRANSFER_PAGE}`,
    );
    // Pages, not one open iterator: the connection is shared (see sqlite-transfer.ts).
    for (let after = ['', '', '']; ; ) {
      const rows = this.sqlite.io(() => page.all(...after)) as Omit<UnidentifiedEntry, 'type'>[];
      for (const r of rows) yield { type: 'visit_unidentified', ...r };
      if (rows.length < TRANSFER_PAGE) return;
      const last = rows[rows.length - 1]!;
      after = [last.customer_id, last.day, last.reason];
    }
  }

  async isEmpty(): Promise<boolean> {
    return this.sqlite.io(() => this.sqlite.sql('SELECT NOT EXISTS (SELECT 1 FROM visit_unidentified)').pluck().get()) === 1;
  }

  importer(): { batchSize: number; write(batch: UnidentifiedEntry[]): Promise<void> } {
    // A row given twice is written once (the last wins), as the other visit rows.
    const put = this.sqlite.sql('INSERT OR REPLACE INTO visit_unidentified VALUES (?, ?, ?, ?)');
    const write = this.sqlite.db.transaction((batch: UnidentifiedEntry[]) => {
      for (const e of batch) put.run(e.customer_id, e.day, e.reason, e.page_views);
    });
    return {
      batchSize: TRANSFER_PAGE,
      // The background lane's deadline: a CLI import outwaits a live server's short writes.
      write: (batch) => this.sqlite.write(() => write.immediate(batch), 'background'),
    };
  }
}
