/**
 * Retention passes of a SQLite store (the visit store's aggregates, the audit log): once per UTC day, a
 * pass deletes in steps, each step one write of the background lane, with a macrotask between two so
 * requests and I/O run between two batches, not after the whole pass. Passes run one after the other; a
 * failed pass unmarks its day, so that day's next call tries again. Stops at the step after `closed()`.
 */
import type { SqliteStateDb } from './db.ts';

/** One step of a pass: what it deleted and where the next starts (null: the pass is done). */
export interface PassStep<C> {
  next: C | null;
  deleted: number;
}

export class DailyPasses {
  private day = '';
  private last: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly sqlite: SqliteStateDb,
    private readonly closed: () => boolean,
  ) {}

  /** The UTC day of the latest pass started ('' before the first, or when that day's pass failed). */
  get startedFor(): string {
    return this.day;
  }

  /** The latest pass (resolves with the rows it deleted). */
  get latest(): Promise<number> {
    return this.last;
  }

  /** Starts a pass for `day` after the passes before it: steps from `first` until a step has no next. */
  start<C>(day: string, first: C, step: (cursor: C) => PassStep<C>): Promise<number> {
    if (day > this.day) this.day = day;
    const run = this.last
      .catch(() => 0)
      .then(async () => {
        let deleted = 0;
        try {
          for (let cursor: C | null = first; cursor !== null && !this.closed(); ) {
            const at: C = cursor;
            const done = await this.sqlite.write(() => step(at), 'background');
            deleted += done.deleted;
            cursor = done.next;
            if (cursor !== null) await new Promise((resolve) => setImmediate(resolve));
          }
        } catch (e) {
          if (this.day === day) this.day = '';
          throw e;
        }
        return deleted;
      });
    this.last = run;
    return run;
  }

  /** Resolves when the passes started so far are done (failed ones included). */
  async settled(): Promise<void> {
    await this.last.catch(() => 0);
  }
}
