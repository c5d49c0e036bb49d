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
 * retention are deleted at start and once an hour.
 */
import { appendFile, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CustomerId } from '../../core/customer-records.ts';

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.ndjson$/;
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

interface FileQueue {
  lines: string[];
  /** Bytes of the queued lines. */
  pending: number;
  /** Bytes of the file on disk (read when this process first writes it, then counted), or null before. */
  written: number | null;
  writing: Promise<void> | null;
  stuck: boolean;
}

export function createEventLog({
  dir,
  retentionDays,
  maxDayBytes = DEFAULT_DAY_BYTES,
  maxTotalBytes = DEFAULT_TOTAL_BYTES,
  writeDeadlineMs = WRITE_DEADLINE_MS,
  onError = () => {},
  onDrop = () => {},
}: EventLogOptions): EventLog {
  const files = new Map<string, FileQueue>();
  let inFlight = 0;
  const dropped = new Map<DropReason, number>();
  let bytesSincePrune = 0;
  let pruning: Promise<number> | null = null;

  const drop = (reason: DropReason) => {
    dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
    onDrop(reason);
  };

  const reportDrops = () => {
    if (dropped.size === 0) return;
    const parts = [...dropped].map(([reason, n]) => `${n} (${reason.replace('_', ' ')})`);
    dropped.clear();
    onError(new Error(`event log: page views not written: ${parts.join(', ')}`));
  };

  const write = (file: string, q: FileQueue) => {
    const lines = q.lines;
    q.lines = [];
    q.pending = 0;
    const done = (async () => {
      await mkdir(join(file, '..'), { recursive: true });
      // What earlier processes wrote today counts against the day's cap too.
      q.written ??= await stat(file).then(
        (s) => s.size,
        () => 0,
      );
      let text = '';
      for (const line of lines) {
        if (q.written + text.length + line.length > maxDayBytes) drop('daily_cap');
        else text += line;
      }
      if (text === '') return;
      await appendFile(file, text);
      q.written += text.length;
    })().catch((e: Error) => onError(e));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        q.stuck = true;
        onError(new Error(`event log: writing ${file} has taken over ${writeDeadlineMs} ms; its new page views are dropped until it completes`));
        resolve();
      }, writeDeadlineMs);
      timer.unref();
    });
    q.writing = Promise.race([done, deadline]);
    void done.then(() => {
      clearTimeout(timer);
      inFlight -= lines.length;
      q.stuck = false;
      q.writing = null;
      reportDrops();
      if (q.lines.length > 0) write(file, q);
      // A past day's file gets no more lines: forgotten, so the map holds about one file per customer.
      else if (file.slice(-17, -7) < today()) files.delete(file);
      if (bytesSincePrune > maxTotalBytes / 10) {
        bytesSincePrune = 0;
        void runPrune();
      }
    });
  };

  const schedule = (file: string, q: FileQueue) => {
    if (q.writing || q.lines.length !== 1) return;
    // Lines appended in the same turn share one write.
    q.writing = new Promise<void>((resolve) =>
      setImmediate(() => {
        q.writing = null;
        write(file, q);
        resolve();
      }),
    );
  };

  const prune = async (now = new Date()): Promise<number> => {
    const oldest = new Date(now.getTime() - retentionDays * 86_400_000).toISOString().slice(0, 10);
    let removed = 0;
    let customers: string[];
    try {
      customers = await readdir(dir);
    } catch {
      return 0; // nothing written yet
    }
    const kept: { path: string; day: string; size: number }[] = [];
    for (const customer of customers) {
      let names: string[];
      try {
        names = await readdir(join(dir, customer));
      } catch {
        continue;
      }
      for (const f of names) {
        const m = DAY_FILE.exec(f);
        if (!m) continue;
        const path = join(dir, customer, f);
        if (m[1] < oldest) {
          await rm(path, { force: true });
          removed++;
        } else {
          kept.push({
            path,
            day: m[1],
            size: await stat(path).then(
              (s) => s.size,
              () => 0,
            ),
          });
        }
      }
    }
    // Over the disk budget: whole oldest days go first (today's files last), so what is kept is recent.
    let total = kept.reduce((sum, f) => sum + f.size, 0);
    if (total > maxTotalBytes) {
      kept.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : b.size - a.size));
      for (const f of kept) {
        if (total <= maxTotalBytes) break;
        await rm(f.path, { force: true });
        total -= f.size;
        removed++;
        files.delete(f.path);
      }
      onError(new Error(`event log: over its disk budget of ${maxTotalBytes} bytes: the oldest page-view files were deleted`));
    }
    return removed;
  };

  const runPrune = (now?: Date): Promise<number> => {
    pruning ??= prune(now).finally(() => (pruning = null));
    return pruning;
  };

  const timer = setInterval(() => void runPrune().catch((e: Error) => onError(e)), PRUNE_EVERY_MS);
  timer.unref();
  void runPrune().catch((e: Error) => onError(e));

  const flush = async () => {
    await new Promise((r) => setImmediate(r));
    for (;;) {
      const pending = [...files.values()].flatMap((q) => (q.writing && !q.stuck ? [q.writing] : []));
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  };

  return {
    append(customerId, day, event) {
      // Both become path segments: never trusted because a record held them.
      if (!CustomerId.safeParse(customerId).success || !DAY.test(day)) return drop('invalid_customer');
      if (inFlight >= MAX_LINES_IN_FLIGHT) return drop('queue_full');
      const file = join(dir, customerId, `${day}.ndjson`);
      let q = files.get(file);
      if (q === undefined) {
        q = { lines: [], pending: 0, written: null, writing: null, stuck: false };
        files.set(file, q);
      }
      if (q.stuck || q.lines.length >= MAX_LINES_PER_FILE) return drop('stuck_file');
      const line = JSON.stringify(event) + '\n';
      // Checked again at write time, against the file's size on disk.
      if ((q.written ?? 0) + q.pending + line.length > maxDayBytes) return drop('daily_cap');
      q.lines.push(line);
      q.pending += line.length;
      bytesSincePrune += line.length;
      inFlight++;
      schedule(file, q);
    },
    flush,
    prune: runPrune,
    async close() {
      clearInterval(timer);
      await flush();
      reportDrops();
    },
  };
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
