/**
 * Raw page views as newline-delimited JSON, one file per customer and UTC day
 * (`<dir>/<customer>/<YYYY-MM-DD>.ndjson`), for analytics teams to load into their warehouse.
 *
 * Writes never block a response: lines are queued per file and appended in the background, one
 * `appendFile` (O_APPEND) per file and flush, so several processes can append to the same file without
 * tearing lines. Every file has its own queue and at most one write in flight, so a file whose write
 * hangs (a stuck disk or mount) holds back only its own lines; each write has a deadline after which
 * the file counts as stuck and its new lines are dropped until the write settles.
 *
 * Bounded three ways, each drop counted (`onDrop`) and reported: lines held in memory (queued or being
 * written, across all files), bytes per customer and day (one address sending beacons all day must not
 * fill the disk), and a total disk budget (the oldest day files go first). Files older than the
 * retention are deleted at start and once an hour (./event-log-prune.ts).
 */
import { appendFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CustomerId } from '../../core/customer-records.ts';
import { pruneDayFiles } from './event-log-prune.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const PRUNE_EVERY_MS = 3_600_000;
/** Lines held in memory, queued or being written, before new ones are dropped: a stuck disk must not grow the heap. */
export const MAX_LINES_IN_FLIGHT = 100_000;
/** Lines one file may hold in memory: one stuck file cannot take every customer's share. */
const MAX_LINES_PER_FILE = 20_000;
export const DEFAULT_DAY_BYTES = 256 * 1024 * 1024;
export const DEFAULT_TOTAL_BYTES = 20 * 1024 * 1024 * 1024;
const WRITE_DEADLINE_MS = 10_000;

export type DropReason = 'queue_full' | 'daily_cap' | 'stuck_file' | 'invalid_customer';

export interface EventLog {
  append(customerId: string, day: string, event: object): void;
  /** Resolves when everything appended so far is on disk, or (a stuck file) when its write's deadline passed. */
  flush(): Promise<void>;
  /** Deletes day files older than the retention, then the oldest days while over the disk budget; returns how many. */
  prune(now?: Date): Promise<number>;
  close(): Promise<void>;
}

export interface EventLogOptions {
  dir: string;
  retentionDays: number;
  /** Bytes of one customer's file per day; lines past it are dropped. */
  maxDayBytes?: number;
  /** Bytes of all day files together; past it the oldest days are deleted. */
  maxTotalBytes?: number;
  /** A write not done within this makes its file count as stuck. */
  writeDeadlineMs?: number;
  onError?: (error: Error) => void;
  /** Called per dropped line (metrics). */
  onDrop?: (reason: DropReason) => void;
}

export function createEventLog(options: EventLogOptions): EventLog {
  return new NdjsonEventLog(options);
}

/** One day file's lines waiting in memory and its write state. */
interface FileQueue {
  lines: string[];
  /** Bytes of the queued lines. */
  pending: number;
  /** Bytes of the file on disk (read when this process first writes it, then counted), or null before. */
  written: number | null;
  writing: Promise<void> | null;
  stuck: boolean;
}

/** Dropped lines: each told to `onDrop` at once, and reported together (by reason) after the next write. */
class Drops {
  private readonly counts = new Map<DropReason, number>();
  constructor(
    private readonly onDrop: (reason: DropReason) => void,
    private readonly onError: (error: Error) => void,
  ) {}
  drop(reason: DropReason): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    this.onDrop(reason);
  }
  report(): void {
    if (this.counts.size === 0) return;
    const parts = [...this.counts].map(([reason, n]) => `${n} (${reason.replace('_', ' ')})`);
    this.counts.clear();
    this.onError(new Error(`event log: page views not written: ${parts.join(', ')}`));
  }
}

class NdjsonEventLog implements EventLog {
  private readonly dir: string;
  private readonly retentionDays: number;
  private readonly maxDayBytes: number;
  private readonly maxTotalBytes: number;
  private readonly writeDeadlineMs: number;
  private readonly onError: (error: Error) => void;
  private readonly drops: Drops;
  private readonly files = new Map<string, FileQueue>();
  private inFlight = 0;
  private bytesSincePrune = 0;
  private pruning: Promise<number> | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor({
    dir,
    retentionDays,
    maxDayBytes = DEFAULT_DAY_BYTES,
    maxTotalBytes = DEFAULT_TOTAL_BYTES,
    writeDeadlineMs = WRITE_DEADLINE_MS,
    onError = () => {},
    onDrop = () => {},
  }: EventLogOptions) {
    this.dir = dir;
    this.retentionDays = retentionDays;
    this.maxDayBytes = maxDayBytes;
    this.maxTotalBytes = maxTotalBytes;
    this.writeDeadlineMs = writeDeadlineMs;
    this.onError = onError;
    this.drops = new Drops(onDrop, onError);
    this.timer = setInterval(() => void this.prune().catch((e: Error) => onError(e)), PRUNE_EVERY_MS);
    this.timer.unref();
    void this.prune().catch((e: Error) => onError(e));
  }

  append(customerId: string, day: string, event: object): void {
    // Both become path segments: never trusted because a record held them.
    if (!CustomerId.safeParse(customerId).success || !DAY.test(day)) return this.drops.drop('invalid_customer');
    if (this.inFlight >= MAX_LINES_IN_FLIGHT) return this.drops.drop('queue_full');
    const file = join(this.dir, customerId, `${day}.ndjson`);
    let q = this.files.get(file);
    if (q === undefined) {
      q = { lines: [], pending: 0, written: null, writing: null, stuck: false };
      this.files.set(file, q);
    }
    if (q.stuck || q.lines.length >= MAX_LINES_PER_FILE) return this.drops.drop('stuck_file');
    const line = JSON.stringify(event) + '\n';
    // Checked again at write time, against the file's size on disk.
    if ((q.written ?? 0) + q.pending + line.length > this.maxDayBytes) return this.drops.drop('daily_cap');
    q.lines.push(line);
    q.pending += line.length;
    this.bytesSincePrune += line.length;
    this.inFlight++;
    this.schedule(file, q);
  }

  async flush(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    for (;;) {
      const pending = [...this.files.values()].flatMap((q) => (q.writing && !q.stuck ? [q.writing] : []));
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  prune(now?: Date): Promise<number> {
    this.pruning ??= this.pruneNow(now ?? new Date()).finally(() => (this.pruning = null));
    return this.pruning;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    this.drops.report();
  }

  private async pruneNow(now: Date): Promise<number> {
    const { removed, overBudget } = await pruneDayFiles(this.dir, this.retentionDays, this.maxTotalBytes, now, (path) => this.files.delete(path));
    if (overBudget) this.onError(new Error(`event log: over its disk budget of ${this.maxTotalBytes} bytes: the oldest page-view files were deleted`));
    return removed;
  }

  private schedule(file: string, q: FileQueue): void {
    if (q.writing || q.lines.length !== 1) return;
    // Lines appended in the same turn share one write.
    q.writing = new Promise<void>((resolve) =>
      setImmediate(() => {
        q.writing = null;
        this.write(file, q);
        resolve();
      }),
    );
  }

  private write(file: string, q: FileQueue): void {
    const lines = q.lines;
    q.lines = [];
    q.pending = 0;
    const done = this.writeLines(file, q, lines).catch((e: Error) => this.onError(e));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        q.stuck = true;
        this.onError(new Error(`event log: writing ${file} has taken over ${this.writeDeadlineMs} ms; its new page views are dropped until it completes`));
        resolve();
      }, this.writeDeadlineMs);
      timer.unref();
    });
    q.writing = Promise.race([done, deadline]);
    void done.then(() => {
      clearTimeout(timer);
      this.inFlight -= lines.length;
      q.stuck = false;
      q.writing = null;
      this.drops.report();
      if (q.lines.length > 0) this.write(file, q);
      // A past day's file gets no more lines: forgotten, so the map holds about one file per customer.
      else if (file.slice(-17, -7) < today()) this.files.delete(file);
      if (this.bytesSincePrune > this.maxTotalBytes / 10) {
        this.bytesSincePrune = 0;
        void this.prune();
      }
    });
  }

  /** One append of `lines` to the file, within the day's cap (what earlier processes wrote today counts too). */
  private async writeLines(file: string, q: FileQueue, lines: string[]): Promise<void> {
    await mkdir(join(file, '..'), { recursive: true });
    q.written ??= await stat(file).then(
      (s) => s.size,
      () => 0,
    );
    let text = '';
    for (const line of lines) {
      if (q.written + text.length + line.length > this.maxDayBytes) this.drops.drop('daily_cap');
      else text += line;
    }
    if (text === '') return;
    await appendFile(file, text);
    q.written += text.length;
  }
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
