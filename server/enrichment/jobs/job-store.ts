/**
 * The enrichment jobs of this machine: one small SQLite file (`<SVC_JOBS_DIR>/jobs.db`) beside the jobs'
 * folders, shared by the processes of one machine (`serve --workers N`): any of them lists and reads the
 * jobs, and a job is run by the one process that claimed it (owner + heartbeat). A claim whose owner
 * stopped heartbeating — or whose process is gone — is taken over, which is how a job interrupted by a
 * crash resumes when a server starts again.
 *
 * Not the state store: a job's files live on the disk of the node that took the upload, so its record
 * lives there too (docs/console.md "Enrich a file"). But opened as the state file is (state/sqlite/db.ts):
 * its schema a migration list keyed by `user_version` (JOBS_MIGRATIONS), and no write waits on the event
 * loop — one that meets another worker's lock is queued and retried on a timer, so writes are async.
 */
import { join } from 'node:path';
import { z } from 'zod';
import type { StateLog } from '../../state/errors.ts';
import { SqliteStateDb } from '../../state/sqlite/db.ts';
import { JOBS_MIGRATIONS } from '../../state/sqlite/schema.ts';
import { type JobUsage, RESULT_ROW_BYTES } from './limits.ts';

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A job as the API answers it. */
export const EnrichJob = z.object({
  id: z.string(),
  customer_id: z.string(),
  status: z.enum(JOB_STATUSES),
  /** The uploaded file's name (as the console sent it), for the list and the result's name. */
  file_name: z.string(),
  /** The column asked for (`?column=`), null for the default (email, else domain). */
  column: z.string().nullable(),
  /** The column the job reads (as the file's header spells it). */
  column_used: z.string(),
  input_bytes: z.number().int(),
  /** Data rows of the file (counted when it was uploaded). */
  rows_total: z.number().int(),
  rows_done: z.number().int(),
  /** Credits the job spent (companies already charged this month are free). */
  credits: z.number().int(),
  /** Rows answered per status (200 found, 404 no company, 422 invalid value, 402 no credit left). */
  statuses: z.record(z.string(), z.number().int()),
  /** Rows per second of the current (or last) run; null before it starts. */
  rows_per_second: z.number().nullable(),
  /** Seconds left at that rate while running; null otherwise. */
  seconds_left: z.number().nullable(),
  /** Why it failed (or, while queued again after a transient failure, the last error). */
  error: z.string().nullable(),
  /** Who uploaded it (a user's email, or `operator`). */
  created_by: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  updated_at: z.string(),
  /** The node (host name) whose disk holds the job: only it runs it and serves its result. */
  node: z.string(),
});
export type EnrichJob = z.infer<typeof EnrichJob>;

/** A claim goes stale when its owner has not heartbeaten for this long (a hung or killed process). */
export const STALE_MS = 20_000;

interface Row {
  id: string;
  customer_id: string;
  status: JobStatus;
  file_name: string;
  column_req: string | null;
  column_used: string;
  input_bytes: number;
  rows_total: number;
  rows_done: number;
  credits: number;
  statuses: string;
  rate: number | null;
  error: string | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  node: string;
  owner: string | null;
  heartbeat_ms: number | null;
  removed: number;
  attempts: number;
  retry_at_ms: number;
}

export interface NewJob {
  id: string;
  customer_id: string;
  file_name: string;
  column: string | null;
  column_used: string;
  input_bytes: number;
  rows_total: number;
  created_by: string;
  node: string;
}

/** A job as its runner sees it: the record and the claim's bookkeeping. */
export type ClaimedJob = EnrichJob & { attempts: number };

const toJob = (r: Row): EnrichJob => {
  const rate = r.status === 'queued' ? null : r.rate;
  return {
    id: r.id,
    customer_id: r.customer_id,
    status: r.status,
    file_name: r.file_name,
    column: r.column_req,
    column_used: r.column_used,
    input_bytes: r.input_bytes,
    rows_total: r.rows_total,
    rows_done: r.rows_done,
    credits: r.credits,
    statuses: JSON.parse(r.statuses) as Record<string, number>,
    rows_per_second: rate,
    seconds_left: r.status === 'running' && rate ? Math.ceil(Math.max(0, r.rows_total - r.rows_done) / rate) : null,
    error: r.error,
    created_by: r.created_by,
    created_at: r.created_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    updated_at: r.updated_at,
    node: r.node,
  };
};

export class JobStore {
  private readonly sqlite: SqliteStateDb;

  constructor(
    dir: string,
    private readonly now: () => number = Date.now,
    options: { log?: StateLog } = {},
  ) {
    this.sqlite = new SqliteStateDb(join(dir, 'jobs.db'), { migrations: JOBS_MIGRATIONS, log: options.log }).retain();
  }

  private iso = () => new Date(this.now()).toISOString();
  private sql = (source: string) => this.sqlite.sql(source);

  /**
   * Writes whose caller waits (an upload, a removal, a poll's claim: the next poll tries again) take the
   * request lane; a runner's bookkeeping (progress, heartbeat, settle, sweep) the background lane.
   */
  private write<T>(fn: () => T, lane: 'request' | 'background'): Promise<T> {
    return this.sqlite.write(fn, lane);
  }

  private insertNow(job: NewJob): void {
    const at = this.iso();
    this.sql(
      `INSERT INTO enrich_jobs (id, customer_id, status, file_name, column_req, column_used, input_bytes, rows_total, created_by, created_at, updated_at, node)
       VALUES (@id, @customer_id, 'queued', @file_name, @column, @column_used, @input_bytes, @rows_total, @created_by, @at, @at, @node)`,
    ).run({ ...job, at });
  }

  async insert(job: NewJob): Promise<EnrichJob> {
    await this.write(() => this.insertNow(job), 'request');
    return this.get(job.id)!;
  }

  /**
   * What the jobs hold now (./limits.ts): the customer's unfinished jobs, and the reserved bytes of every
   * job whose files are on disk (removed ones too, until their files go).
   */
  usage(customerId: string): JobUsage {
    return this.sqlite.io(
      () =>
        this.sql(
          `SELECT
             coalesce(sum(CASE WHEN customer_id = @c AND removed = 0 AND status IN ('queued', 'running') THEN 1 ELSE 0 END), 0) AS unfinished,
             coalesce(sum(CASE WHEN customer_id = @c THEN 2 * input_bytes + rows_total * @row ELSE 0 END), 0) AS customerBytes,
             coalesce(sum(2 * input_bytes + rows_total * @row), 0) AS totalBytes,
             coalesce(sum(CASE WHEN status IN ('queued', 'running') THEN 2 * input_bytes + rows_total * @row ELSE 0 END), 0) AS pendingBytes
           FROM enrich_jobs`,
        ).get({ c: customerId, row: RESULT_ROW_BYTES }) as JobUsage,
    );
  }

  /**
   * Inserts the job if `admit` (given what the jobs hold, read in the same transaction) does not throw; what
   * it throws is the answer (a refusal is the caller's error, not the store's: it does not become a 503).
   */
  async insertIf(job: NewJob, admit: (usage: JobUsage) => void): Promise<EnrichJob> {
    const outcome = await this.write(
      () =>
        this.sqlite.db
          .transaction((): { refused: unknown } | null => {
            try {
              admit(this.usage(job.customer_id));
            } catch (refused) {
              return { refused };
            }
            this.insertNow(job);
            return null;
          })
          .immediate(),
      'request',
    );
    if (outcome !== null) throw outcome.refused;
    return this.get(job.id)!;
  }

  /** A job that is not being removed. */
  get(id: string): EnrichJob | null {
    const row = this.sqlite.io(() => this.sql('SELECT * FROM enrich_jobs WHERE id = ? AND removed = 0').get(id) as Row | undefined);
    return row ? toJob(row) : null;
  }

  /** A customer's jobs, newest first. */
  list(customerId: string): EnrichJob[] {
    return this.sqlite
      .io(() => this.sql('SELECT * FROM enrich_jobs WHERE customer_id = ? AND removed = 0 ORDER BY created_at DESC, id').all(customerId) as Row[])
      .map(toJob);
  }

  /**
   * Claims the oldest job that may run now for `owner`: queued (and past its retry time), or running under
   * a claim that is stale or whose owner `isDead`; never a second one of a customer with a live job, never
   * past `maxRunning` live jobs on this machine. Atomic across the machine's processes.
   */
  claim(owner: string, maxRunning: number, isDead: (owner: string) => boolean): Promise<ClaimedJob | null> {
    return this.write(
      () =>
        this.sqlite.db
          .transaction((): ClaimedJob | null => {
            const nowMs = this.now();
            const rows = this.sql("SELECT * FROM enrich_jobs WHERE removed = 0 AND status IN ('queued', 'running') ORDER BY created_at, id").all() as Row[];
            const live = (r: Row) => r.status === 'running' && r.owner !== null && nowMs - (r.heartbeat_ms ?? 0) < STALE_MS && !isDead(r.owner);
            const running = rows.filter(live);
            if (running.length >= maxRunning) return null;
            const busy = new Set(running.map((r) => r.customer_id));
            const next = rows.find((r) => !live(r) && !busy.has(r.customer_id) && r.retry_at_ms <= nowMs);
            if (!next) return null;
            const at = this.iso();
            this.sql(
              "UPDATE enrich_jobs SET status = 'running', owner = ?, heartbeat_ms = ?, started_at = coalesce(started_at, ?), attempts = attempts + 1, updated_at = ? WHERE id = ?",
            ).run(owner, nowMs, at, at, next.id);
            const claimed = this.sql('SELECT * FROM enrich_jobs WHERE id = ?').get(next.id) as Row;
            return { ...toJob(claimed), attempts: claimed.attempts };
          })
          .immediate(),
      'request',
    );
  }

  /** Progress of a claimed job; false when the claim is lost or the job is being removed (the runner stops). */
  progress(id: string, owner: string, p: { rows_done: number; credits: number; statuses: Record<string, number>; rate: number | null }): Promise<boolean> {
    const statuses = JSON.stringify(p.statuses);
    return this.write(
      () =>
        this.sql(
          'UPDATE enrich_jobs SET rows_done = ?, credits = ?, statuses = ?, rate = ?, heartbeat_ms = ?, updated_at = ? WHERE id = ? AND owner = ? AND removed = 0',
        ).run(p.rows_done, p.credits, statuses, p.rate, this.now(), this.iso(), id, owner).changes === 1,
      'background',
    );
  }

  async heartbeat(owner: string): Promise<void> {
    await this.write(() => this.sql("UPDATE enrich_jobs SET heartbeat_ms = ? WHERE owner = ? AND status = 'running'").run(this.now(), owner), 'background');
  }

  /** The end of a run: done, failed, or back in the queue (a stop, or a transient failure to retry at `retryAtMs`). */
  async settle(id: string, owner: string, s: { status: JobStatus; error?: string | null; retryAtMs?: number }): Promise<void> {
    await this.write(
      () =>
        this.sql(
          `UPDATE enrich_jobs SET status = @status, error = @error, owner = NULL, heartbeat_ms = NULL, retry_at_ms = @retry,
             finished_at = CASE WHEN @status IN ('done', 'failed') THEN @at ELSE NULL END, updated_at = @at WHERE id = @id AND owner = @owner`,
        ).run({ id, owner, status: s.status, error: s.error ?? null, retry: s.retryAtMs ?? 0, at: this.iso() }),
      'background',
    );
  }

  /**
   * Marks a job removed (it disappears from the API at once) and answers who runs it now: null when
   * nobody does (its files may be deleted now), else the owner, whose runner deletes them.
   */
  markRemoved(id: string, isDead: (owner: string) => boolean): Promise<{ owner: string | null; customer_id: string } | null> {
    return this.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            const row = this.sql('SELECT * FROM enrich_jobs WHERE id = ? AND removed = 0').get(id) as Row | undefined;
            if (!row) return null;
            this.sql('UPDATE enrich_jobs SET removed = 1, updated_at = ? WHERE id = ?').run(this.iso(), id);
            const live = row.status === 'running' && row.owner !== null && this.now() - (row.heartbeat_ms ?? 0) < STALE_MS && !isDead(row.owner);
            return { owner: live ? row.owner : null, customer_id: row.customer_id };
          })
          .immediate(),
      'request',
    );
  }

  /** Removed jobs nobody runs any longer, and finished ones older than `finishedBefore` (ISO): their files go. */
  sweepable(finishedBefore: string, isDead: (owner: string) => boolean): { id: string; customer_id: string }[] {
    const nowMs = this.now();
    const rows = this.sqlite.io(
      () => this.sql("SELECT * FROM enrich_jobs WHERE removed = 1 OR (status IN ('done', 'failed') AND finished_at < ?)").all(finishedBefore) as Row[],
    );
    return rows
      .filter((r) => r.owner === null || nowMs - (r.heartbeat_ms ?? 0) >= STALE_MS || isDead(r.owner) || r.status !== 'running')
      .map((r) => ({ id: r.id, customer_id: r.customer_id }));
  }

  async delete(id: string, lane: 'request' | 'background' = 'background'): Promise<void> {
    await this.write(() => this.sql('DELETE FROM enrich_jobs WHERE id = ?').run(id), lane);
  }

  /** Closes the file; writes still queued behind a lock get one more try. */
  close(): void {
    this.sqlite.release();
  }
}
