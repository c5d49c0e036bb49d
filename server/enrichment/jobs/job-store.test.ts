/**
 * The jobs' claims: at most `maxRunning` live jobs on the machine and one per customer, in upload order;
 * a stale claim or one whose process is gone is taken over (a crash resumes); a removed job leaves the
 * API at once and is deleted by whoever runs it, or at once when nobody does. The file is opened as the
 * state file is: a migration list keyed by `user_version`, and writes that never wait on the event loop.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../state/errors.ts';
import { JOBS_MIGRATIONS } from '../../state/sqlite/schema.ts';
import { JobStore, type NewJob, STALE_MS } from './job-store.ts';

let dir: string;
let clock: number;
let store: JobStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-jobs-'));
  clock = Date.parse('2026-11-25T10:00:00Z');
  store = new JobStore(dir, () => clock);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const job = (customer: string): NewJob => {
  clock += 1; // upload order is creation order
  return {
    id: `ej_${++seq}`,
    customer_id: customer,
    file_name: 'f.csv',
    column: null,
    column_used: 'email',
    input_bytes: 10,
    rows_total: 100,
    created_by: 'operator',
    node: 'n1',
  };
};
const alive = () => false;

describe('the jobs of a machine', () => {
  it('runs at most maxRunning jobs at once and one per customer, in upload order', async () => {
    const a1 = await store.insert(job('a'));
    const a2 = await store.insert(job('a'));
    const b1 = await store.insert(job('b'));
    const c1 = await store.insert(job('c'));
    expect((await store.claim('w1', 2, alive))?.id).toBe(a1.id);
    // a's second job waits for its first: b is next.
    expect((await store.claim('w2', 2, alive))?.id).toBe(b1.id);
    expect(await store.claim('w1', 2, alive)).toBeNull();
    await store.settle(a1.id, 'w1', { status: 'done' });
    expect((await store.claim('w1', 2, alive))?.id).toBe(a2.id);
    await store.settle(b1.id, 'w2', { status: 'failed', error: 'line 3: bad' });
    expect((await store.claim('w2', 2, alive))?.id).toBe(c1.id);
    expect(store.get(b1.id)).toMatchObject({ status: 'failed', error: 'line 3: bad', rows_per_second: null });
    expect(store.list('a').map((j) => j.id)).toEqual([a2.id, a1.id]);
  });

  it('takes over a claim that went stale or whose process is gone, and never a live one', async () => {
    const j = await store.insert(job('a'));
    expect((await store.claim('host:1:x', 2, alive))?.id).toBe(j.id);
    expect(await store.progress(j.id, 'host:1:x', { rows_done: 40, credits: 3, statuses: { '200': 40 }, rate: 20 })).toBe(true);
    expect(store.get(j.id)).toMatchObject({ status: 'running', rows_done: 40, credits: 3, rows_per_second: 20, seconds_left: 3 });
    expect(await store.claim('host:2:y', 2, alive)).toBeNull();
    // Its process is gone: taken over at once, the progress kept for the resume.
    expect(await store.claim('host:2:y', 2, (owner) => owner === 'host:1:x')).toMatchObject({ id: j.id, rows_done: 40, credits: 3, attempts: 2 });
    // The old owner's progress no longer counts (it stops).
    expect(await store.progress(j.id, 'host:1:x', { rows_done: 50, credits: 4, statuses: {}, rate: 1 })).toBe(false);
    clock += STALE_MS;
    expect((await store.claim('host:3:z', 2, alive))?.id).toBe(j.id);
  });

  it('a stopped job goes back to the queue; a transient failure waits for its retry time', async () => {
    const j = await store.insert(job('a'));
    await store.claim('w', 2, alive);
    await store.settle(j.id, 'w', { status: 'queued', error: 'state store unavailable', retryAtMs: clock + 30_000 });
    expect(store.get(j.id)).toMatchObject({ status: 'queued', error: 'state store unavailable' });
    expect(await store.claim('w', 2, alive)).toBeNull();
    clock += 30_000;
    expect((await store.claim('w', 2, alive))?.id).toBe(j.id);
  });

  it('a removed job leaves the API at once; its runner is named when one is live', async () => {
    const idle = await store.insert(job('a'));
    const busy = await store.insert(job('b'));
    await store.claim('w', 2, alive);
    await store.claim('w', 2, alive);
    await store.settle(idle.id, 'w', { status: 'done' });
    expect(await store.markRemoved(idle.id, alive)).toEqual({ owner: null, customer_id: 'a' });
    expect(await store.markRemoved(busy.id, alive)).toEqual({ owner: 'w', customer_id: 'b' });
    expect(store.get(idle.id)).toBeNull();
    expect(store.list('b')).toEqual([]);
    expect(await store.markRemoved(busy.id, alive)).toBeNull();
    // The runner sees it on its next chunk.
    expect(await store.progress(busy.id, 'w', { rows_done: 1, credits: 0, statuses: {}, rate: null })).toBe(false);
    expect(store.sweepable('2000-01-01T00:00:00Z', alive).map((r) => r.id)).toEqual([idle.id]);
  });
});

/** The table as the job store created it before the file was versioned (IF NOT EXISTS at every open). */
const UNVERSIONED = `CREATE TABLE IF NOT EXISTS enrich_jobs (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, file_name TEXT NOT NULL,
  column_req TEXT, column_used TEXT NOT NULL, input_bytes INTEGER NOT NULL, rows_total INTEGER NOT NULL,
  rows_done INTEGER NOT NULL DEFAULT 0, credits INTEGER NOT NULL DEFAULT 0, statuses TEXT NOT NULL DEFAULT '{}',
  rate REAL, error TEXT, created_by TEXT NOT NULL, created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,
  updated_at TEXT NOT NULL, node TEXT NOT NULL, owner TEXT, heartbeat_ms INTEGER, removed INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0, retry_at_ms INTEGER NOT NULL DEFAULT 0);
  CREATE INDEX IF NOT EXISTS enrich_jobs_customer ON enrich_jobs (customer_id, created_at);`;

describe('the jobs file on its migration list', () => {
  it('opens a file created before it was versioned: its jobs kept, its version set, a running claim resumable', async () => {
    store.close();
    const old = join(dir, 'old');
    mkdirSync(old);
    const raw = new Database(join(old, 'jobs.db'));
    raw.pragma('journal_mode = WAL');
    raw.exec(UNVERSIONED);
    raw
      .prepare(
        `INSERT INTO enrich_jobs (id, customer_id, status, file_name, column_used, input_bytes, rows_total, rows_done, credits, created_by, created_at, updated_at, node, owner, heartbeat_ms, attempts)
         VALUES ('ej_old', 'a', 'running', 'f.csv', 'email', 10, 100, 40, 3, 'operator', '2026-11-25T09:00:00.000Z', '2026-11-25T09:00:00.000Z', 'n1', 'host:1:x', 0, 1)`,
      )
      .run();
    expect(raw.pragma('user_version', { simple: true })).toBe(0);
    raw.close();
    store = new JobStore(old, () => clock);
    expect(store.get('ej_old')).toMatchObject({ status: 'running', rows_done: 40, credits: 3 });
    // Its owner stopped heartbeating long ago: taken over, the progress kept.
    expect(await store.claim('host:2:y', 2, alive)).toMatchObject({ id: 'ej_old', rows_done: 40, attempts: 2 });
    store.close();
    const check = new Database(join(old, 'jobs.db'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(JOBS_MIGRATIONS.steps.length);
    check.close();
    // Opening again migrates nothing and keeps everything.
    store = new JobStore(old, () => clock);
    expect(store.list('a').map((j) => j.id)).toEqual(['ej_old']);
  });

  it('refuses a jobs file written by a newer server', () => {
    store.close();
    const raw = new Database(join(dir, 'jobs.db'));
    raw.pragma(`user_version = ${JOBS_MIGRATIONS.steps.length + 1}`);
    raw.close();
    expect(() => new JobStore(dir, () => clock)).toThrow(`the jobs file has schema version ${JOBS_MIGRATIONS.steps.length + 1}, newer than this server's`);
    store = new JobStore(join(dir, 'fresh'), () => clock);
  });
});

describe("a write that meets another worker's lock", () => {
  /** Another process of the machine holding the file's write lock until `release`. */
  function lockedByAnother() {
    const other = new Database(join(dir, 'jobs.db'));
    other.exec('BEGIN IMMEDIATE');
    return {
      release() {
        other.exec('COMMIT');
        other.close();
      },
      close: () => other.close(),
    };
  }
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  it('waits on a timer, not on the event loop, and lands once the lock is gone', async () => {
    const first = await store.insert(job('a'));
    await store.claim('w', 2, alive);
    const lock = lockedByAnother();
    let landed = 0;
    const writes = [
      store.insert(job('b')).then(() => landed++),
      store.progress(first.id, 'w', { rows_done: 7, credits: 1, statuses: { '200': 7 }, rate: null }).then(() => landed++),
      store.settle(first.id, 'w', { status: 'done' }).then(() => landed++),
    ];
    // The loop keeps turning while the writes wait (a busy wait would have slept it, then thrown SQLITE_BUSY).
    await turns(5);
    expect(landed).toBe(0);
    lock.release();
    await Promise.all(writes);
    expect(store.get(first.id)).toMatchObject({ status: 'done', rows_done: 7, credits: 1 });
    expect(store.list('b')).toHaveLength(1);
  });

  it('fails 503 (StoreUnavailableError), not SQLITE_BUSY, when the lock outlasts the request deadline', async () => {
    const lock = lockedByAnother();
    try {
      const refused = await store.insert(job('a')).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect(refused).toMatchObject({ message: 'the jobs file is locked by another process', retryAfterS: 1 });
    } finally {
      lock.close();
    }
    expect(store.list('a')).toEqual([]);
  });

  it("answers an admission's refusal as it was thrown, inserting nothing, after waiting out the lock", async () => {
    const lock = lockedByAnother();
    const refusal = new Error('the customer holds 2 unfinished jobs');
    const refused = store.insertIf(job('a'), (usage) => {
      expect(usage.unfinished).toBe(0);
      throw refusal;
    });
    await turns(3);
    lock.release();
    await expect(refused).rejects.toBe(refusal);
    expect(store.list('a')).toEqual([]);
    expect(await store.insertIf(job('a'), () => {})).toMatchObject({ status: 'queued', customer_id: 'a' });
  });
});
