/**
 * The SQLite visit store's retention prune: per-day aggregates, journeys and remembered segments past the
 * retention, and kept raw views past theirs, deleted in bounded batches, each one IMMEDIATE write of the
 * background lane (daily-passes.ts runs the batches, once a UTC day). Redis needs none: its keys expire.
 */
import type Database from 'better-sqlite3';
import { DailyPasses } from '../sqlite/daily-passes.ts';
import type { SqliteStateDb } from '../sqlite/db.ts';
import type { VisitRetention } from './port.ts';
import { retainedFrom } from './store.ts';

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
  ['visit_segment_entries', 'day', 'aggregates'],
  ['visit_days', 'day', 'aggregates'],
  ['visit_day_gaps', 'day', 'aggregates'],
  ['visit_unidentified', 'day', 'aggregates'],
  ['visit_events', 'ms', 'raw'],
] as const;

/** The first values each retention keeps: a day (or ISO time) for the aggregates, epoch ms for raw views. */
interface PruneBounds {
  aggregates: string;
  raw: number;
}

/** Where the retention prune goes on: a table of DAY_TABLES, and the customers of it already done. */
interface PruneCursor {
  table: number;
  after: string;
}

export class SqliteVisitPrune {
  /** The retention prunes this process started, one after the other (the first view of each UTC day starts one). */
  private readonly passes: DailyPasses;
  private readonly step: (cursor: PruneCursor, bounds: PruneBounds) => { next: PruneCursor | null; deleted: number; pagesDeleted: boolean };

  /**
   * `bumpVersion` moves visit_version (inside the batch's transaction); `onPagesDeleted` runs after a batch
   * that deleted account pages (the store's cache of them).
   */
  constructor(
    sqlite: SqliteStateDb,
    private readonly retention: VisitRetention,
    batchRows: number,
    bumpVersion: Database.Statement,
    private readonly onPagesDeleted: () => void,
    closed: () => boolean,
  ) {
    this.passes = new DailyPasses(sqlite, closed);
    const db = sqlite.db;
    const prune = DAY_TABLES.map(([table, column]) => ({
      // One index seek per customer (no scan of the whole table to find the next one).
      nextCustomer: db.prepare(`SELECT customer_id FROM ${table} WHERE customer_id > ? ORDER BY customer_id LIMIT 1`).pluck(),
      deleteOld: db.prepare(`DELETE FROM ${table} WHERE customer_id = ? AND ${column} < ? LIMIT ?`),
    }));
    const step = db.transaction((cursor: PruneCursor, bounds: PruneBounds) => {
      let budget = batchRows;
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
    this.step = (cursor, bounds) => step.immediate(cursor, bounds);
  }

  /** The UTC day of the latest pass started ('' before the first, or when that day's pass failed). */
  get startedFor(): string {
    return this.passes.startedFor;
  }

  /**
   * Deletes what is past the retentions on `today`, in writes of at most the batch's rows on the background
   * lane (the event loop free between two); resolves with the rows deleted. Runs after the prunes started before it.
   */
  start(today: string): Promise<number> {
    const before: PruneBounds = {
      aggregates: retainedFrom(today, this.retention.days),
      raw: Date.parse(`${retainedFrom(today, this.retention.rawDays)}T00:00:00Z`),
    };
    return this.passes.start<PruneCursor>(today, { table: 0, after: '' }, (cursor) => {
      const { next, deleted, pagesDeleted } = this.step(cursor, before);
      if (pagesDeleted) this.onPagesDeleted();
      return { next, deleted };
    });
  }

  /** Resolves when the prunes started so far are done (failed ones included). */
  async settled(): Promise<void> {
    await this.passes.settled();
  }
}
