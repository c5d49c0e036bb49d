/**
 * What a connection's metering batches last wrote — rate-limit counters, credit balances, dedupe keys
 * charged — so that the next batch reads them from memory instead of the tables. Valid only while no
 * other connection has committed to the file: SQLite's `PRAGMA data_version`, read inside the batch's
 * IMMEDIATE transaction (the write lock held), changes on another connection's commit and never on this
 * connection's own. In one process (`npm start`) that is every batch after a counter's first hit; a
 * worker or CLI process writing the file empties it, and a batch that failed (its transaction rolled
 * back) empties it too. Measured in `npm run bench -- metering`: the visitor counter's read was a fifth
 * of a tag-mode lookup's metering.
 */
import { BoundedCache, weakMemo } from '../../cache/bounded-cache.ts';

/** Entries per kind: visitor counters of a busy minute, the dedupe keys of a month's repeats. */
const LIMIT = 100_000;

interface CachedCounter {
  windowStart: number;
  count: number;
}

export class MeteringCache {
  private dataVersion = -1;
  private counters = new BoundedCache<string, CachedCounter>(LIMIT);
  private balances = new BoundedCache<string, number>(LIMIT);
  private charged = new BoundedCache<string, true>(LIMIT);

  /**
   * Called first in each batch, inside its transaction, with `PRAGMA data_version`: empties the cache if
   * another connection committed since the last batch.
   */
  check(version: number): void {
    if (version !== this.dataVersion) {
      this.clear();
      this.dataVersion = version;
    }
  }

  /** Forgets everything (a failed batch, an import on this connection). */
  clear(): void {
    this.dataVersion = -1;
    this.counters = new BoundedCache(LIMIT);
    this.balances = new BoundedCache(LIMIT);
    this.charged = new BoundedCache(LIMIT);
  }

  counter(key: string): CachedCounter | undefined {
    return this.counters.get(key);
  }

  setCounter(key: string, windowStart: number, count: number): void {
    this.counters.set(key, { windowStart, count });
  }

  balance(key: string): number | undefined {
    return this.balances.get(key);
  }

  setBalance(key: string, used: number): void {
    this.balances.set(key, used);
  }

  /** True when the dedupe key is known charged; unknown keys must be read from the ledger. */
  isCharged(dedupeKey: string): boolean {
    return this.charged.get(dedupeKey) === true;
  }

  setCharged(dedupeKey: string): void {
    this.charged.set(dedupeKey, true);
  }
}

/** The cache of a connection, shared by every store on it. */
export const meteringCacheOf: (connection: object) => MeteringCache = weakMemo(() => new MeteringCache());
