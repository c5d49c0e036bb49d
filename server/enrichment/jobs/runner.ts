/**
 * The console upload's jobs on this node: each uploaded file is a job (./job-store.ts) run in the
 * background by the file job `svc enrich` runs (./file-job.ts), in this process, with bounded concurrency:
 * at most MAX_RUNNING jobs at once on the machine (all worker processes together) and one per customer, the
 * others queued in upload order. Rows are answered CHUNK_ROWS at a time, so the event loop keeps serving
 * requests between chunks.
 *
 * A job's files: `<dir>/<customer>/<job>/input.csv` (the upload), `result.csv` and, while it runs,
 * `result.csv.progress` (the file job's checkpoint). A server stop checkpoints and puts the job back in the
 * queue; a crash leaves its claim to go stale (or its process gone): either way the next server to start
 * on the folder resumes it from the checkpoint, the re-answered rows free (the month's dedup), so the
 * result and the credits are an uninterrupted run's.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { SourceError } from '../../../data/sources/read.ts';
import { loadConfig } from '../../config.ts';
import type { StateStore } from '../../state/store.ts';
import type { AccountSources } from '../account-sources.ts';
import { type JobCatalog, JobRefusedError, progressFileOf, runFileJob } from './file-job.ts';
import { type ClaimedJob, type EnrichJob, JobStore, type NewJob } from './job-store.ts';
import { admit, freeBytesOf, type JobLimits, jobLimits, mb, type Room, realStatfs, reservedBytes, type StatFs } from './limits.ts';

/** Jobs running at once on one machine. */
export const MAX_RUNNING = 2;
/** Rows per metering call: ≈ 10 ms of answers, then the event loop serves requests again. */
const CHUNK_ROWS = 200;
/** A transient failure (the state store unreachable) is retried this much later, at most MAX_ATTEMPTS runs in all. */
const RETRY_MS = 30_000;
const MAX_ATTEMPTS = 5;
const HEARTBEAT_MS = 2_000;

export interface EnrichJobsDeps {
  /** SVC_JOBS_DIR. */
  dir: string;
  store: StateStore;
  /** The current data snapshot (asked per chunk: a reload applies from the next chunk on). */
  catalog: () => JobCatalog;
  /** The visit, engagement and CRM stores the segments' facts are read from, as the API's answers read them. */
  accounts: Omit<AccountSources, 'catalog'>;
  log: { info(message: string): void; error(message: string): void };
  maxRunning?: number;
  now?: () => number;
  /** What the jobs may hold (SVC_JOBS_*, ./limits.ts); the configuration's defaults when absent. */
  limits?: JobLimits;
  /** Free space of a folder's filesystem (fs.statfsSync; injected by tests). */
  statfs?: StatFs;
}

class Stop extends Error {}
/** A job stopped because the disk's free space fell under SVC_JOBS_MIN_FREE_MB: failed, not retried. */
class DiskFull extends JobRefusedError {
  constructor(minFree: number) {
    super(`stopped: the node's disk fell under the ${mb(minFree)} kept free for the server; delete finished jobs, then upload the file again`);
  }
}
const STOPPING = () => new Stop('the server is stopping');
const REMOVED = () => new Stop('the job was removed');

export class EnrichJobs {
  readonly jobs: JobStore;
  /** The node that holds these jobs (docs/console.md: a job lives on the node that took its upload). */
  readonly node = hostname();
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;
  /** The pump under way (its writes are async): another call asks it for one more round instead of overlapping it. */
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private readonly now: () => number;
  readonly limits: JobLimits;
  /** Free space of the jobs' filesystem: read before each upload is admitted and after each chunk a job writes. */
  statfs: StatFs;

  constructor(private readonly deps: EnrichJobsDeps) {
    this.now = deps.now ?? Date.now;
    this.limits = deps.limits ?? jobLimits(loadConfig({}));
    this.statfs = deps.statfs ?? realStatfs;
    this.jobs = new JobStore(deps.dir, this.now, {
      log: (m, level) => (level === 'info' ? deps.log.info : deps.log.error)(`enrichment jobs: ${m}`),
    });
  }

  private freeBytes = () => freeBytesOf(this.statfs, this.deps.dir);

  /**
   * Before an upload is read: the customer may queue another job and there is room for one (else 409, 413
   * or 503, ./limits.ts); the room its body may take.
   */
  admitUpload(customerId: string): Room {
    return admit(this.limits, this.jobs.usage(customerId), 0, this.freeBytes());
  }

  /** After the file is checked: inserts the job if its whole reservation still fits (atomically with the other workers' inserts). */
  insertAdmitted(job: NewJob): Promise<EnrichJob> {
    const need = reservedBytes(job.input_bytes, job.rows_total);
    // The input is on disk already: the free space read now no longer counts it as room.
    const free = this.freeBytes() + job.input_bytes;
    return this.jobs.insertIf(job, (usage) => void admit(this.limits, usage, need, free));
  }

  /** Resumes what an earlier process left, then looks for work every `pollMs` (uploads of other workers, stale claims). */
  start(pollMs = 1_000): void {
    this.timers.push(setInterval(() => void this.pump(), pollMs).unref());
    this.timers.push(
      setInterval(
        () => void this.jobs.heartbeat(this.owner).catch((e: Error) => this.deps.log.error(`enrichment jobs: heartbeat: ${e.message}`)),
        HEARTBEAT_MS,
      ).unref(),
    );
    void this.pump();
  }

  folderOf(customerId: string, jobId: string): string {
    return join(this.deps.dir, encodeURIComponent(customerId), jobId);
  }
  inputOf = (customerId: string, jobId: string) => join(this.folderOf(customerId, jobId), 'input.csv');
  resultOf = (customerId: string, jobId: string) => join(this.folderOf(customerId, jobId), 'result.csv');

  /** Whether the claim's process is known to be gone (a process of this machine that no longer exists). */
  private isDead = (owner: string): boolean => {
    const [host, pid] = owner.split(':');
    if (host !== hostname() || owner === this.owner) return false;
    const n = Number(pid);
    if (!Number.isInteger(n) || n === process.pid) return false;
    try {
      process.kill(n, 0);
      return false;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };

  /** Starts what may run now; deletes what was removed or expired. Never rejects: a failure is logged. */
  pump(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.pumping !== null) {
      this.pumpAgain = true;
      return this.pumping;
    }
    // `.finally` on the loop's promise runs after `pumping` is assigned, whatever the loop does before its
    // first await (the webhook dispatcher's claim stalled for good on a `finally` that ran first).
    this.pumping = this.pumpLoop().finally(() => {
      this.pumping = null;
    });
    return this.pumping;
  }

  private async pumpLoop(): Promise<void> {
    do {
      this.pumpAgain = false;
      await this.pumpOnce();
    } while (this.pumpAgain && !this.stopping);
  }

  private async pumpOnce(): Promise<void> {
    try {
      for (const gone of this.jobs.sweepable(new Date(this.now() - this.limits.retentionMs).toISOString(), this.isDead)) {
        if (this.running.has(gone.id)) continue;
        rmSync(this.folderOf(gone.customer_id, gone.id), { recursive: true, force: true });
        await this.jobs.delete(gone.id);
      }
      while (!this.stopping) {
        const job = await this.jobs.claim(this.owner, this.deps.maxRunning ?? MAX_RUNNING, this.isDead);
        if (job === null) break;
        this.run(job);
      }
    } catch (e) {
      this.deps.log.error(`enrichment jobs: ${(e as Error).message}`);
    }
  }

  private run(job: ClaimedJob): void {
    const abort = new AbortController();
    const input = this.inputOf(job.customer_id, job.id);
    const output = this.resultOf(job.customer_id, job.id);
    const done = (async () => {
      // A run that died before its first checkpoint left an output without a progress file (nothing charged yet): start over.
      if (!existsSync(progressFileOf(output)) && existsSync(output)) unlinkSync(output);
      let from = job.rows_done;
      let started = Date.now();
      let last = { rows: job.rows_done, credits: job.credits, statuses: job.statuses };
      const record = () => {
        const seconds = (Date.now() - started) / 1000;
        const rate = seconds > 0 && last.rows > from ? Math.round((last.rows - from) / seconds) : null;
        return this.jobs.progress(job.id, this.owner, { rows_done: last.rows, credits: last.credits, statuses: { ...last.statuses }, rate });
      };
      try {
        await runFileJob({
          input,
          output,
          column: job.column ?? undefined,
          customerId: job.customer_id,
          store: this.deps.store,
          catalog: this.deps.catalog,
          accounts: this.deps.accounts,
          chunkRows: CHUNK_ROWS,
          startCredits: job.credits,
          signal: abort.signal,
          fixAdvice: ': fix the file and upload it again',
          onStart({ resumedFrom }) {
            from = resumedFrom;
            started = Date.now();
          },
          onChunk: async (p) => {
            last = { rows: p.rows, credits: p.credits, statuses: p.statuses };
            if (!(await record())) abort.abort(this.jobs.get(job.id) === null ? REMOVED() : STOPPING());
            // Whatever filled the disk (another job, the logs), a job never eats the space kept for the server.
            else if (this.freeBytes() < this.limits.minFreeBytes) abort.abort(new DiskFull(this.limits.minFreeBytes));
          },
        });
        await record();
        await this.jobs.settle(job.id, this.owner, { status: 'done' });
      } catch (e) {
        await this.settleFailed(job, e, input);
      } finally {
        this.running.delete(job.id);
      }
      if (this.jobs.get(job.id) === null) await this.forget(job);
      else void this.pump();
    })().catch((e: Error) => this.deps.log.error(`enrichment job ${job.id} of ${job.customer_id}: ${e.message}`));
    this.running.set(job.id, { abort, done });
  }

  private async settleFailed(job: ClaimedJob, e: unknown, input: string): Promise<void> {
    if (e instanceof Stop) {
      await this.jobs.settle(job.id, this.owner, { status: 'queued' });
      return;
    }
    // The job's own paths mean nothing to the user: the file is the one they uploaded.
    const message = (e as Error).message.replaceAll(input, job.file_name);
    if (e instanceof DiskFull) {
      // Its partial result is of no use and holds the disk: gone now, not after the retention.
      rmSync(this.resultOf(job.customer_id, job.id), { force: true });
      rmSync(progressFileOf(this.resultOf(job.customer_id, job.id)), { force: true });
    }
    if (e instanceof JobRefusedError || e instanceof SourceError) {
      await this.jobs.settle(job.id, this.owner, { status: 'failed', error: message });
    } else if (job.attempts < MAX_ATTEMPTS) {
      this.deps.log.error(`enrichment job ${job.id} of ${job.customer_id}: ${message}; retrying in ${RETRY_MS / 1000} s`);
      await this.jobs.settle(job.id, this.owner, { status: 'queued', error: message, retryAtMs: this.now() + RETRY_MS });
    } else {
      this.deps.log.error(`enrichment job ${job.id} of ${job.customer_id} failed: ${message}`);
      await this.jobs.settle(job.id, this.owner, { status: 'failed', error: message });
    }
  }

  private async forget(job: { id: string; customer_id: string }, lane: 'request' | 'background' = 'background'): Promise<void> {
    rmSync(this.folderOf(job.customer_id, job.id), { recursive: true, force: true });
    await this.jobs.delete(job.id, lane);
  }

  /**
   * Removes a job: gone from the API at once; a job running here stops after its current chunk, one running
   * in another process of this machine when that process records its next chunk. False when there is none.
   */
  async remove(id: string): Promise<boolean> {
    const removed = await this.jobs.markRemoved(id, this.isDead);
    if (removed === null) return false;
    const mine = this.running.get(id);
    if (mine) {
      mine.abort.abort(REMOVED());
      await mine.done;
      return true;
    }
    if (removed.owner === null) await this.forget({ id, customer_id: removed.customer_id }, 'request');
    return true;
  }

  /** A server stop: running jobs checkpoint and go back to the queue (the next start resumes them). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    // A pump under way may still claim (and start) a job: it is stopped with the others below.
    await this.pumping;
    for (const r of this.running.values()) r.abort.abort(STOPPING());
    await Promise.all([...this.running.values()].map((r) => r.done));
    this.jobs.close();
  }
}
