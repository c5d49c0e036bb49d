/**
 * Charges and rate-limit hits are committed in batches (one transaction per event-loop turn and process,
 * sqlite-store.ts): still exact when two processes (two stores on one file) meter concurrently.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { SqliteStateStore } from './sqlite-store.ts';
import type { ChargeRequest } from './store.ts';

let dir: string;
let a: SqliteStateStore;
let b: SqliteStateStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-metering-'));
  a = new SqliteStateStore(join(dir, 'svc.db'));
  b = new SqliteStateStore(join(dir, 'svc.db'));
  await a.importCustomer(TEST_CUSTOMER);
});
afterEach(async () => {
  await a.close();
  await b.close();
  rmSync(dir, { recursive: true, force: true });
});

const identification = (i: number, quota: number): ChargeRequest => ({
  customer_id: 'acme', api: 'identification', pool: 'identification', record: `10.0.0.${i % 250}`, period: 'year-0', quota,
  dedupe_key: null, month: '2026-11', token_id: null, partner: null, at: '2026-11-10T00:00:00Z',
});

it('lets exactly the limit through when two processes count the same key at once', async () => {
  const now = Date.UTC(2026, 10, 10, 12, 0, 0);
  const hits = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).hitRateLimit('token:t1', 120, 60_000, now)));
  expect(hits.filter((h) => h.allowed)).toHaveLength(120);
  expect(hits.map((h) => h.remaining).sort((x, y) => y - x).slice(0, 3)).toEqual([119, 118, 117]);
  expect(new Set(hits.filter((h) => h.allowed).map((h) => h.remaining)).size).toBe(120);
});

it('spends exactly the quota when two processes charge at once, in waves across turns', async () => {
  const results = [];
  for (let wave = 0; wave < 4; wave++) {
    results.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 3 ? a : b).charge(identification(wave * 100 + i, 250))))));
  }
  expect(results.filter((r) => r.outcome === 'charged')).toHaveLength(250);
  expect(results.filter((r) => r.outcome === 'exhausted')).toHaveLength(150);
  expect(await a.balance('acme', 'identification', 'year-0', 250)).toMatchObject({ used: 250, remaining: 0 });
  expect((await b.usage('acme'))[0]).toMatchObject({ charges: 250 });
});

it('commits what is queued when the store closes', async () => {
  const pending = a.charge(identification(1, 10));
  await a.close();
  expect((await pending).outcome).toBe('charged');
  a = new SqliteStateStore(join(dir, 'svc.db'));
  expect(await a.balance('acme', 'identification', 'year-0', 10)).toMatchObject({ used: 1 });
});
