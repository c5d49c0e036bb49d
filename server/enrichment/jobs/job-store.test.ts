/**
 * The jobs' claims: at most `maxRunning` live jobs on the machine and one per customer, in upload order;
 * a stale claim or one whose process is gone is taken over (a crash resumes); a removed job leaves the
 * API at once and is deleted by whoever runs it, or at once when nobody does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  it('runs at most maxRunning jobs at once and one per customer, in upload order', () => {
    const a1 = store.insert(job('a'));
    const a2 = store.insert(job('a'));
    const b1 = store.insert(job('b'));
    const c1 = store.insert(job('c'));
    expect(store.claim('w1', 2, alive)?.id).toBe(a1.id);
    // a's second job waits for its first: b is next.
    expect(store.claim('w2', 2, alive)?.id).toBe(b1.id);
    expect(store.claim('w1', 2, alive)).toBeNull();
    store.settle(a1.id, 'w1', { status: 'done' });
    expect(store.claim('w1', 2, alive)?.id).toBe(a2.id);
    store.settle(b1.id, 'w2', { status: 'failed', error: 'line 3: bad' });
    expect(store.claim('w2', 2, alive)?.id).toBe(c1.id);
    expect(store.get(b1.id)).toMatchObject({ status: 'failed', error: 'line 3: bad', rows_per_second: null });
    expect(store.list('a').map((j) => j.id)).toEqual([a2.id, a1.id]);
  });

  it('takes over a claim that went stale or whose process is gone, and never a live one', () => {
    const j = store.insert(job('a'));
    expect(store.claim('host:1:x', 2, alive)?.id).toBe(j.id);
    expect(store.progress(j.id, 'host:1:x', { rows_done: 40, credits: 3, statuses: { '200': 40 }, rate: 20 })).toBe(true);
    expect(store.get(j.id)).toMatchObject({ status: 'running', rows_done: 40, credits: 3, rows_per_second: 20, seconds_left: 3 });
    expect(store.claim('host:2:y', 2, alive)).toBeNull();
    // Its process is gone: taken over at once, the progress kept for the resume.
    expect(store.claim('host:2:y', 2, (owner) => owner === 'host:1:x')).toMatchObject({ id: j.id, rows_done: 40, credits: 3, attempts: 2 });
    // The old owner's progress no longer counts (it stops).
    expect(store.progress(j.id, 'host:1:x', { rows_done: 50, credits: 4, statuses: {}, rate: 1 })).toBe(false);
    clock += STALE_MS;
    expect(store.claim('host:3:z', 2, alive)?.id).toBe(j.id);
  });

  it('a stopped job goes back to the queue; a transient failure waits for its retry time', () => {
    const j = store.insert(job('a'));
    store.claim('w', 2, alive);
    store.settle(j.id, 'w', { status: 'queued', error: 'state store unavailable', retryAtMs: clock + 30_000 });
    expect(store.get(j.id)).toMatchObject({ status: 'queued', error: 'state store unavailable' });
    expect(store.claim('w', 2, alive)).toBeNull();
    clock += 30_000;
    expect(store.claim('w', 2, alive)?.id).toBe(j.id);
  });

  it('a removed job leaves the API at once; its runner is named when one is live', () => {
    const idle = store.insert(job('a'));
    const busy = store.insert(job('b'));
    store.claim('w', 2, alive);
    store.claim('w', 2, alive);
    store.settle(idle.id, 'w', { status: 'done' });
    expect(store.markRemoved(idle.id, alive)).toEqual({ owner: null, customer_id: 'a' });
    expect(store.markRemoved(busy.id, alive)).toEqual({ owner: 'w', customer_id: 'b' });
    expect(store.get(idle.id)).toBeNull();
    expect(store.list('b')).toEqual([]);
    expect(store.markRemoved(busy.id, alive)).toBeNull();
    // The runner sees it on its next chunk.
    expect(store.progress(busy.id, 'w', { rows_done: 1, credits: 0, statuses: {}, rate: null })).toBe(false);
    expect(store.sweepable('2000-01-01T00:00:00Z', alive).map((r) => r.id)).toEqual([idle.id]);
  });
});
