/**
 * The SQLite state file as one process holds it: one connection shared by the access/metering store, the
 * visit store and the webhook outbox, one schema (schema.ts, keyed by `user_version`) and one lock
 * policy. Why one: three connections had three policies (busy_timeout 0, 5000 and 200 ms), and SQLite's
 * busy wait is a sleep on the event loop — a tag sighting behind another process's 3 s lock stalled every
 * request of the node for 3 s. Here no write waits on the loop: a write that finds the file locked is
 * queued and retried on a timer until its lane's deadline. A node's enrichment jobs file is opened the same
 * way (its own connection and migration list, the same lock policy): enrichment/jobs/job-store.ts.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StateError, type StateLog, StoreUnavailableError } from '../errors.ts';
import { type MigrationList, migrate, STATE_MIGRATIONS } from './schema.ts';

/**
 * How long a write may wait for another process's lock. `request`: a client waits for the answer, so it
 * gets a 503 + Retry-After soon (metering, auth changes, `last_used_at`, endpoint changes, a poll's claim
 * — the next poll tries again). `background`: nobody waits (page views after their 204, tag sightings,
 * outbox entries and attempt results), so it outlasts an ordinary CLI write rather than lose the record.
 */
export const LOCK_DEADLINE_MS = { request: 400, background: 10_000 } as const;
export type WriteLane = keyof typeof LOCK_DEADLINE_MS;
/** Writes of the background lane held in memory at most while the file is locked; past it they fail at once. */
export const BACKGROUND_WAITING_LIMIT = 10_000;
/** Growing, small: a lock is mostly held for milliseconds (a worker's batch), seldom for seconds (a CLI import). */
export const retryDelay = (attempt: number) => Math.min(2 ** attempt, 25);
/** Writes queued behind a lock run in slices of at most this long per event-loop turn once it is gone. */
const DRAIN_SLICE_MS = 10;

export const isBusy = (e: unknown) => {
  const code = (e as { code?: string } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code?.startsWith('SQLITE_BUSY_') === true;
};

/** A StoreUnavailableError because another connection holds the lock (retrying may succeed). */
const lockedOut = (e: unknown) => e instanceof StoreUnavailableError && isBusy(e.cause);

interface Waiting {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  deadline: number;
  /** What the last attempt threw: the answer when the deadline passes. */
  error: unknown;
}

export interface SqliteStateDbOptions {
  /** Where operational problems are reported (state file replaced, writes refused). */
  log?: StateLog;
  /** Other deadlines than LOCK_DEADLINE_MS (tests of the background lane's give-up). */
  lockDeadlineMs?: Partial<Record<WriteLane, number>>;
  /** The file's schema: the state file's unless given (a node's jobs file: JOBS_MIGRATIONS). */
  migrations?: MigrationList;
}

export class SqliteStateDb {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly log: StateLog;
  /** The state file's identity at open (device, inode): writes stop if the path no longer names it. */
  private readonly identity: { dev: number; ino: number } | null;
  private replaced: string | null = null;
  /** Stores using the connection; the last one to let go closes it. */
  private holders = 0;
  private closed = false;
  /** Writes that met the lock, per lane, in arrival order; the request lane goes first when it is free. */
  private readonly waiting: Record<WriteLane, Waiting[]> = { request: [], background: [] };
  private wake: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private attempt = 0;
  private readonly deadlineMs: Record<WriteLane, number>;
  /** The file as errors name it ("the state file", "the jobs file"). */
  private readonly kind: string;

  constructor(
    readonly file: string,
    options: SqliteStateDbOptions = {},
  ) {
    this.log = options.log ?? ((m) => process.stderr.write(`svc state: ${m}\n`));
    this.deadlineMs = { ...LOCK_DEADLINE_MS, ...options.lockDeadlineMs };
    const migrations = options.migrations ?? STATE_MIGRATIONS;
    this.kind = migrations.file;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    // Opening (and migrating) may wait for another process, before anything is served; serving never does.
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    // WAL + NORMAL: a commit survives a process crash; only an OS crash may lose the last transactions.
    this.db.pragma('synchronous = NORMAL');
    try {
      migrate(this.db, migrations);
    } catch (e) {
      this.db.close();
      throw e;
    }
    this.db.pragma('busy_timeout = 0');
    this.identity = file === ':memory:' ? null : (({ dev, ino }) => ({ dev, ino }))(statSync(file));
  }

  /** Takes a share of the connection; every holder calls `release` once. */
  retain(): this {
    this.holders++;
    return this;
  }

  /** Gives a share back; the last one closes the connection (queued writes get one more try, then fail). */
  release(): void {
    if (--this.holders > 0 || this.closed) return;
    this.closed = true;
    this.clearWake();
    for (const lane of [this.waiting.request, this.waiting.background]) {
      for (const w of lane.splice(0)) {
        try {
          w.resolve(this.writeNow(w.fn));
        } catch (e) {
          w.reject(e);
        }
      }
    }
    this.db.close();
  }

  /** A prepared statement, prepared once per connection (preparing costs more than most of our queries). */
  sql(source: string): Database.Statement {
    let st = this.statements.get(source);
    if (st === undefined) {
      st = this.db.prepare(source);
      this.statements.set(source, st);
    }
    return st;
  }

  /**
   * Every SQLite failure that is not the caller's fault (locked by another process, I/O error, disk
   * full …) becomes StoreUnavailableError: the HTTP layer answers 503 + Retry-After, never 500.
   */
  io<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof StateError || e instanceof StoreUnavailableError) throw e;
      if (e instanceof Database.SqliteError && e.code.startsWith('SQLITE_CONSTRAINT')) throw e;
      throw new StoreUnavailableError(isBusy(e) ? `${this.kind} is locked by another process` : `state store error: ${(e as Error).message}`, 1, {
        cause: e,
      });
    }
  }

  /**
   * A write (one statement, or a transaction begun IMMEDIATE so the lock is taken before anything is
   * read) that never waits on the event loop: tried at once when nothing is queued; when the file is
   * locked it joins the queue, retried on a timer with a growing delay, and fails with
   * StoreUnavailableError (its cause SQLITE_BUSY) once its lane's deadline has passed. Writes already
   * queued go first, so a new one is not tried ahead of them while the lock is known to be held.
   */
  write<T>(fn: () => T, lane: WriteLane = 'request'): Promise<T> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('the state store is closed', 1));
    let error: unknown;
    if (this.waiting.request.length === 0 && this.waiting.background.length === 0) {
      try {
        return Promise.resolve(this.writeNow(fn));
      } catch (e) {
        if (!lockedOut(e)) return Promise.reject(e);
        error = e;
      }
    } else {
      error = new StoreUnavailableError(`${this.kind} is locked by another process`, 1, {
        cause: Object.assign(new Error('queued behind a lock'), { code: 'SQLITE_BUSY' }),
      });
    }
    if (lane === 'background' && this.waiting.background.length >= BACKGROUND_WAITING_LIMIT) return Promise.reject(error);
    return new Promise<T>((resolve, reject) => {
      this.waiting[lane].push({ fn, resolve: resolve as (v: unknown) => void, reject, deadline: Date.now() + this.deadlineMs[lane], error });
      if (this.wake === null) this.retryLater();
    });
  }

  /** A write tried once, now: refused while the state file is not the one opened; SQLite failures → unavailable. */
  private writeNow<T>(fn: () => T): T {
    this.checkIdentity();
    return this.io(fn);
  }

  private retryLater(): void {
    this.wake = setTimeout(this.drain, retryDelay(this.attempt++));
  }

  private clearWake(): void {
    if (this.wake === null) return;
    clearTimeout(this.wake as NodeJS.Timeout);
    clearImmediate(this.wake as NodeJS.Immediate);
    this.wake = null;
  }

  /** Runs queued writes in order until one meets the lock again (then later) or the slice is used up. */
  private readonly drain = () => {
    this.wake = null;
    const started = performance.now();
    for (;;) {
      const now = Date.now();
      for (const lane of [this.waiting.request, this.waiting.background]) {
        // Deadlines grow with arrival within a lane: the expired ones are at the front.
        while (lane.length > 0 && lane[0].deadline <= now) {
          const expired = lane.shift()!;
          expired.reject(expired.error);
        }
      }
      const lane = this.waiting.request.length > 0 ? this.waiting.request : this.waiting.background;
      const next = lane[0];
      if (next === undefined) {
        this.attempt = 0;
        return;
      }
      try {
        const value = this.writeNow(next.fn);
        lane.shift();
        this.attempt = 0;
        next.resolve(value);
      } catch (e) {
        if (lockedOut(e)) {
          next.error = e;
          this.retryLater();
          return;
        }
        lane.shift();
        next.reject(e);
      }
      if (performance.now() - started >= DRAIN_SLICE_MS) {
        this.wake = setImmediate(this.drain);
        return;
      }
    }
  };

  /**
   * Notices a state file deleted or replaced under the running server (a restore copied over it, a
   * cleanup removed it): this connection would keep writing into the old inode, which nobody reads. Writes
   * are refused (503) and the log says why, until the server is restarted on the right file.
   */
  private checkIdentity(): void {
    if (this.identity === null) return;
    if (this.replaced === null) {
      let problem: string | null = null;
      try {
        const st = statSync(this.file);
        if (st.ino !== this.identity.ino || st.dev !== this.identity.dev) problem = 'was replaced by another file';
      } catch {
        problem = 'was deleted';
      }
      if (problem !== null) {
        this.replaced = `${this.kind} ${this.file} ${problem} while the server ran; writes are refused until the server restarts`;
        this.log(this.replaced);
      }
    }
    if (this.replaced !== null) throw new StoreUnavailableError(this.replaced, 30);
  }
}

/** A store's connection: the shared one it is given (retained), or its own on `file` (another process, in tests). */
export function holdStateDb(source: string | SqliteStateDb, options?: SqliteStateDbOptions): SqliteStateDb {
  return (typeof source === 'string' ? new SqliteStateDb(source, options) : source).retain();
}
