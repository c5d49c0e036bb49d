/**
 * What the console's enrichment jobs may hold on a node's disk — the disk that also holds the state file,
 * the logs and the journal. A small upload can grow a huge result (a 485 KB gzip of 7.4 M short rows is a
 * 200 MB input and a ≈ 2.5 GB result, for one credit), so an upload is admitted against:
 *   - the customer's unfinished jobs (queued or running)         SVC_JOBS_MAX_QUEUED        → 409 conflict
 *   - the upload's decoded size, and for gzip its ratio           SVC_JOBS_MAX_UPLOAD_MB,
 *                                                                  SVC_JOBS_MAX_GZIP_RATIO    → 413 too_large
 *   - the bytes the customer's jobs hold (kept results included)  SVC_JOBS_MAX_CUSTOMER_MB   → 413 too_large
 *   - the bytes all jobs of the node hold                         SVC_JOBS_MAX_TOTAL_MB      → 503 unavailable
 *   - the free space the jobs leave on the disk (statfs)          SVC_JOBS_MIN_FREE_MB       → 503 unavailable
 * A customer can act on a 409 or 413 (wait, delete a job, send less); a 503 is the node's (Retry-After: another
 * node behind the balancer, or later, may take it). Bytes are counted as each job's reservation: its input,
 * its result's copy of the input, and RESULT_ROW_BYTES per row for the added columns — known once the file
 * is checked, so the budget is enforced while the body streams (on the input alone) and again, atomically
 * with the job's insert, on the whole reservation.
 */
import { statfsSync } from 'node:fs';
import { ApiError } from '../../../core/error-codes.ts';
import type { Config } from '../../config.ts';

export interface JobLimits {
  /** Largest upload, decoded. */
  maxUploadBytes: number;
  /** A gzip upload may decode to at most this many times its compressed bytes (plus GZIP_SLACK_BYTES). */
  maxGzipRatio: number;
  /** Unfinished (queued or running) jobs per customer on the node. */
  maxQueued: number;
  /** Reserved bytes of one customer's jobs on the node. */
  maxCustomerBytes: number;
  /** Reserved bytes of all jobs on the node. */
  maxTotalBytes: number;
  /** Free bytes the jobs leave on SVC_JOBS_DIR's filesystem. */
  minFreeBytes: number;
  /** Finished (done or failed) jobs and their files are deleted this long after they finish. */
  retentionMs: number;
}

/** The added columns of one result row (the v3 company's fields, segments, status), as reserved: generous. */
export const RESULT_ROW_BYTES = 1024;
/** A gzip body decodes to at least this much whatever its ratio: a small file's header and rows compress well. */
export const GZIP_SLACK_BYTES = 1024 * 1024;
/** How long a node-side refusal (budget, free space) asks the client to wait. */
const RETRY_AFTER_S = 600;

const MB = 1024 * 1024;
export const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

export function jobLimits(
  c: Pick<
    Config,
    | 'SVC_JOBS_MAX_UPLOAD_MB'
    | 'SVC_JOBS_MAX_GZIP_RATIO'
    | 'SVC_JOBS_MAX_QUEUED'
    | 'SVC_JOBS_MAX_CUSTOMER_MB'
    | 'SVC_JOBS_MAX_TOTAL_MB'
    | 'SVC_JOBS_MIN_FREE_MB'
    | 'SVC_JOBS_RETENTION_DAYS'
  >,
): JobLimits {
  return {
    maxUploadBytes: c.SVC_JOBS_MAX_UPLOAD_MB * MB,
    maxGzipRatio: c.SVC_JOBS_MAX_GZIP_RATIO,
    maxQueued: c.SVC_JOBS_MAX_QUEUED,
    maxCustomerBytes: c.SVC_JOBS_MAX_CUSTOMER_MB * MB,
    maxTotalBytes: c.SVC_JOBS_MAX_TOTAL_MB * MB,
    minFreeBytes: c.SVC_JOBS_MIN_FREE_MB * MB,
    retentionMs: c.SVC_JOBS_RETENTION_DAYS * 86_400_000,
  };
}

/** The disk a job holds at most: its input, the result's copy of it, the added columns. */
export const reservedBytes = (inputBytes: number, rows: number): number => 2 * inputBytes + rows * RESULT_ROW_BYTES;

/** What the jobs of a node hold now. */
export interface JobUsage {
  /** The customer's queued or running jobs. */
  unfinished: number;
  /** Reserved bytes of the customer's jobs (every job whose files are on disk). */
  customerBytes: number;
  /** Reserved bytes of all jobs of the node. */
  totalBytes: number;
  /** Reserved bytes of unfinished jobs (what their results may still write). */
  pendingBytes: number;
}

export type StatFs = (dir: string) => { bavail: number; bsize: number };
export const freeBytesOf = (statfs: StatFs, dir: string): number => {
  const s = statfs(dir);
  return Number(s.bavail) * Number(s.bsize);
};
export const realStatfs: StatFs = (dir) => statfsSync(dir);

const tooMany = (l: JobLimits, u: JobUsage) =>
  new ApiError(
    'conflict',
    `${u.unfinished} enrichment jobs of this customer are queued or running on this node (at most ${l.maxQueued}): wait for one to finish, or delete one, then upload again`,
  );
const customerFull = (l: JobLimits, u: JobUsage, need: string) =>
  new ApiError(
    'too_large',
    `this customer's enrichment jobs hold ${mb(u.customerBytes)} of the ${mb(l.maxCustomerBytes)} they may keep on this node, and this file needs ${need} (its upload and result): download and delete finished jobs, or send a smaller file`,
  );
const nodeFull = (why: string) =>
  new ApiError('unavailable', `this node cannot take an enrichment file now: ${why}; retry later (or run svc enrich on the server)`, {
    'Retry-After': String(RETRY_AFTER_S),
  });

/** How much more a body may be, and the refusal when it is more. */
export interface Room {
  bytes: number;
  refusal: () => ApiError;
}

/**
 * Refuses a job needing `need` more bytes (0 before the body is read: is there room at all?) with the
 * refusal the situation calls for; otherwise the room left for the input (half of what is left: a result
 * copies its input) and whose refusal it would be to pass it.
 */
export function admit(l: JobLimits, u: JobUsage, need: number, freeBytes: number): Room {
  if (u.unfinished >= l.maxQueued) throw tooMany(l, u);
  const asked = Math.max(need, 1);
  if (u.customerBytes + asked > l.maxCustomerBytes) throw customerFull(l, u, need > 0 ? mb(need) : 'room');
  if (u.totalBytes + asked > l.maxTotalBytes)
    throw nodeFull(`its enrichment jobs hold ${mb(u.totalBytes)} of their ${mb(l.maxTotalBytes)} budget (SVC_JOBS_MAX_TOTAL_MB)`);
  const free = freeBytes - u.pendingBytes - l.minFreeBytes;
  if (free < asked) throw nodeFull(`its disk has ${mb(freeBytes)} free, and ${mb(l.minFreeBytes)} stays free for the server (SVC_JOBS_MIN_FREE_MB)`);
  const customer = l.maxCustomerBytes - u.customerBytes;
  const node = Math.min(l.maxTotalBytes - u.totalBytes, free);
  return customer <= node
    ? { bytes: Math.floor(customer / 2), refusal: () => customerFull(l, u, `more than the ${mb(customer)} left`) }
    : { bytes: Math.floor(node / 2), refusal: () => nodeFull(`the file does not fit in the disk left to enrichment jobs (${mb(node)})`) };
}
