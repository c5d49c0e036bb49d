/**
 * What the "Enrich a file" page shows, as pure functions: the columns of the chosen file (read from its
 * first line in the browser, so the column can be picked before anything is sent), the default column (the
 * server's own rule, core/enrich-columns.ts), a job's progress in words, and an upload's refusal in
 * words a marketer can act on.
 */
import { defaultColumn } from '../../core/enrich-columns.ts';
import type { EnrichJob } from '../enrichment/jobs/job-store.ts';

/** Largest file the page sends (the server's MAX_UPLOAD_BYTES): a bigger one is refused before uploading. */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

/**
 * The header row of a CSV text's beginning (RFC 4180: quoted fields with `,`, `""` and line breaks; a
 * leading BOM skipped); null when no complete first line is in `text`.
 */
export function csvHeader(text: string): string[] | null {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      fields.push(field);
      return fields;
    } else field += c;
  }
  return null;
}

/** The column the job reads by default (email, else domain), or null when the header has neither. */
export function defaultColumnOf(header: readonly string[]): string | null {
  const i = defaultColumn(header);
  return i < 0 ? null : header[i]!;
}

/** Why the file cannot be sent as it is (too large, not CSV by its name, no header line), or null. */
export function fileProblem(file: { name: string; size: number }, header: string[] | null): string | null {
  if (file.size > MAX_UPLOAD_BYTES)
    return `${file.name} is ${formatBytes(file.size)}: the largest file is ${formatBytes(MAX_UPLOAD_BYTES)}. Split it into smaller files.`;
  if (file.size === 0) return `${file.name} is empty.`;
  if (header === null) return `${file.name} does not start with a CSV header line.`;
  return null;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** What to tell a marketer when the server refused the upload (its message says which line or why). */
export function uploadError(status: number, message: string): string {
  switch (status) {
    case 402:
      return `No Enrichment credits left, so nothing was uploaded: ${message}`;
    case 413:
      return `The file is too big: ${message}`;
    case 422:
      return `The file cannot be enriched as it is: ${message}`;
    case 403:
      return `You may not enrich files here: ${message}`;
    default:
      return `The upload failed: ${message}`;
  }
}

/** Seconds as `1 h 5 min`, `4 min 10 s`, `12 s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

const count = (n: number) => n.toLocaleString('en-US');

export interface JobProgress {
  /** 0–100, whole. */
  percent: number;
  /** `1,200 of 3,000 rows`. */
  rows: string;
  /** `850 rows/s`, or '' before there is a rate. */
  rate: string;
  /** `about 2 min left`, or '' when not running. */
  left: string;
  /** `Queued`, `Running`, `Done`, `Failed`. */
  status: string;
}

export function jobProgress(job: Pick<EnrichJob, 'status' | 'rows_done' | 'rows_total' | 'rows_per_second' | 'seconds_left'>): JobProgress {
  const percent = job.status === 'done' ? 100 : job.rows_total > 0 ? Math.min(99, Math.floor((job.rows_done / job.rows_total) * 100)) : 0;
  return {
    percent,
    rows: `${count(job.rows_done)} of ${count(job.rows_total)} rows`,
    rate: job.rows_per_second ? `${count(job.rows_per_second)} rows/s` : '',
    left: job.status === 'running' && job.seconds_left !== null ? `about ${formatDuration(job.seconds_left)} left` : '',
    status: { queued: 'Queued', running: 'Running', done: 'Done', failed: 'Failed' }[job.status],
  };
}

const STATUS_WORDS: Record<string, string> = { '200': 'found', '404': 'no company', '422': 'invalid value', '402': 'no credit left' };

/** The rows per status in words, most common first: `2,871 found · 100 no company · 29 invalid value`. */
export function statusSummary(statuses: Readonly<Record<string, number>>): string {
  return Object.entries(statuses)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([s, n]) => `${count(n)} ${STATUS_WORDS[s] ?? `status ${s}`}`)
    .join(' · ');
}

/** Whether the page should keep asking for progress (a job is queued or running). */
export const needsPolling = (jobs: readonly Pick<EnrichJob, 'status'>[]): boolean => jobs.some((j) => j.status === 'queued' || j.status === 'running');

/** The result's file name as the server names it. */
export const resultFileName = (fileName: string) => `${fileName.replace(/\.csv$/i, '')}-enriched.csv`;
