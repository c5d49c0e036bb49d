/**
 * Raw page views as newline-delimited JSON, one file per customer and UTC day
 * (`<dir>/<customer>/<YYYY-MM-DD>.ndjson`), for analytics teams to load into their warehouse.
 *
 * Writes never block a response: lines are queued and appended in the background, one `appendFile`
 * (O_APPEND) per file and flush, so several processes can append to the same file without tearing lines.
 * Files older than the retention are deleted at start and once an hour.
 */
import { appendFile, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.ndjson$/;
const PRUNE_EVERY_MS = 3_600_000;
/** Lines held in memory before new ones are dropped (and counted): a stuck disk must not grow the heap. */
const MAX_QUEUED_LINES = 100_000;

export interface EventLog {
  append(customerId: string, day: string, event: object): void;
  /** Resolves when everything appended so far is on disk (tests, shutdown). */
  flush(): Promise<void>;
  /** Deletes day files older than the retention; returns how many. */
  prune(now?: Date): Promise<number>;
  close(): Promise<void>;
}

export interface EventLogOptions {
  dir: string;
  retentionDays: number;
  onError?: (error: Error) => void;
}

export function createEventLog({ dir, retentionDays, onError = () => {} }: EventLogOptions): EventLog {
  let queue = new Map<string, string[]>();
  let queued = 0;
  let writing: Promise<void> = Promise.resolve();
  let scheduled = false;
  let dropped = 0;

  const write = async (batch: Map<string, string[]>) => {
    for (const [file, lines] of batch) {
      try {
        await mkdir(join(file, '..'), { recursive: true });
        await appendFile(file, lines.join(''));
      } catch (e) {
        onError(e as Error);
      }
    }
    if (dropped > 0) {
      onError(new Error(`event log: ${dropped} page views were not written (queue full)`));
      dropped = 0;
    }
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const batch = queue;
      queue = new Map();
      queued = 0;
      writing = writing.then(() => write(batch));
    });
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
    for (const customer of customers) {
      let files: string[];
      try {
        files = await readdir(join(dir, customer));
      } catch {
        continue;
      }
      for (const f of files) {
        const m = DAY_FILE.exec(f);
        if (m && m[1] < oldest) {
          await rm(join(dir, customer, f), { force: true });
          removed++;
        }
      }
    }
    return removed;
  };

  const timer = setInterval(() => void prune().catch((e: Error) => onError(e)), PRUNE_EVERY_MS);
  timer.unref();
  void prune().catch((e: Error) => onError(e));

  return {
    append(customerId, day, event) {
      if (queued >= MAX_QUEUED_LINES) {
        dropped++;
        return;
      }
      // Customer ids are [A-Za-z0-9_-] (CustomerSeed) and days YYYY-MM-DD: safe as path segments.
      const file = join(dir, customerId, `${day}.ndjson`);
      const lines = queue.get(file) ?? [];
      lines.push(JSON.stringify(event) + '\n');
      queue.set(file, lines);
      queued++;
      schedule();
    },
    async flush() {
      await new Promise((r) => setImmediate(r));
      await writing;
    },
    prune,
    async close() {
      clearInterval(timer);
      await this.flush();
    },
  };
}
