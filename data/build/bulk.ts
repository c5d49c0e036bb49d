/**
 * What every bulk load of `data build` shares: how a throwaway SQLite build file is opened, how rows go
 * in (batched transactions), and how a build worker thread is started.
 */
import { existsSync } from 'node:fs';
import { parentPort, Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SourceError } from '../sources/read.ts';

/** Opens (creating) a SQLite file that is being bulk-loaded and is deleted if the build fails. */
export function openBuildDatabase(file: string): Database.Database {
  const db = new Database(file);
  // A throwaway file being bulk-loaded: durability per statement buys nothing; we fsync once at the end.
  // (journal_mode = OFF is silently refused in better-sqlite3's defensive mode; MEMORY keeps the journal
  // off the disk, which is what we want: a failed build deletes the file anyway.)
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  // Bulk load: keyed inserts and the index builds at the end stay in memory instead of spilling to disk.
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  db.pragma('locking_mode = EXCLUSIVE');
  return db;
}

/** Inserts inside transactions of ≥ 50k rows (one per row would be ~100× slower), read in batches of rows. */
export async function inBatches<T>(
  db: Database.Database,
  batches: AsyncIterable<T[]>,
  tick: ((n: number) => void) | undefined,
  each: (row: T) => void,
): Promise<number> {
  let n = 0;
  let uncommitted = 0;
  db.exec('BEGIN');
  for await (const rows of batches) {
    for (const row of rows) each(row);
    n += rows.length;
    tick?.(n);
    uncommitted += rows.length;
    if (uncommitted >= 50_000) {
      db.exec('COMMIT; BEGIN');
      uncommitted = 0;
    }
  }
  db.exec('COMMIT');
  return n;
}

/** A build worker's last message: its result, or the error that ended it. */
export type WorkerAnswer<R> = { ok: true; result: R } | { ok: false; message: string; source: boolean };

/**
 * Young generation of the build workers: they make millions of short-lived row objects; with V8's
 * default (16 MiB semi-spaces) scavenges promote many of them, and at 5 million networks the garbage
 * collector took ≈ 22% of the worker's CPU. 64 MiB semi-spaces cut its CPU by ≈ 16% (measured with
 * --max-semi-space-size on the 1M-company sources). A worker's limit is set for the whole young
 * generation, which V8 sizes at 3 × the semi-space (two semi-spaces and the new large-object space):
 * 192 MB = 3 × 64 MiB.
 */
const WORKER_YOUNG_GENERATION_MB = 192;

/**
 * Starts the worker thread `entry` (a module beside this one). Run from TypeScript sources (tsx,
 * vitest), the worker registers tsx before loading its .ts entry. `onMessage` gets the worker's other
 * messages (progress); `result` settles with its answer (a SourceError stays a SourceError).
 */
export function startBuildWorker<R>(
  entry: URL,
  workerData: unknown,
  opts: { onMessage?: (m: unknown) => void } = {},
): { worker: Worker; result: Promise<R>; stop(): Promise<void> } {
  const options = { workerData, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } };
  // In the production bundle (server/build.ts) `new URL('./x.ts', import.meta.url)` names dist/server/x.ts,
  // which is not there: esbuild wrote the worker as x.js beside main.js.
  if (entry.href.endsWith('.ts') && !existsSync(entry)) entry = new URL(entry.href.replace(/\.ts$/, '.js'));
  const worker = entry.href.endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`,
        { eval: true, ...options },
      )
    : new Worker(entry, options);
  const result = new Promise<R>((resolve, reject) => {
    worker.on('message', (m: WorkerAnswer<R> | { progress: unknown }) => {
      if ('ok' in m) {
        if (m.ok) resolve(m.result);
        else reject(m.source ? new SourceError(m.message) : new Error(m.message));
      } else {
        opts.onMessage?.(m);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`build worker ${entry.pathname.split('/').pop()} exited (${code}) without an answer`)));
  });
  result.catch(() => {}); // awaited by the caller; a failure must not go unhandled meanwhile
  return { worker, result, stop: async () => void (await worker.terminate()) };
}

/** Worker side: runs `work` and posts its answer to the thread that started the worker. */
export async function answer<R>(work: () => Promise<R>): Promise<void> {
  const post = (m: WorkerAnswer<R>) => parentPort!.postMessage(m);
  try {
    post({ ok: true, result: await work() });
  } catch (e) {
    post({ ok: false, message: (e as Error).message, source: e instanceof SourceError });
  }
}
