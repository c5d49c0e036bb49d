/** `svc state import` validates every record before anything is written: ids become paths elsewhere. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteStateStore } from './sqlite-store.ts';
import { importStateFile } from './transfer-file.ts';

let dir: string;
let store: SqliteStateStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
  store = new SqliteStateStore(join(dir, 'svc.db'), { log: () => {} });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const customer = (id: string) => ({
  type: 'customer',
  record: { id, name: 'X', packages: ['platform'], identification_credits: 10, enrichment_credits: 0, contract_start: '2026-01-01', products: [], segments: [], excluded_accounts: [], hot_accounts: [], created_at: '2026-01-01T00:00:00.000Z' },
});

it('refuses an export file whose customer id is a path (../../tmp/x), naming the line, and imports nothing', async () => {
  const file = join(dir, 'state.jsonl');
  writeFileSync(file, [customer('acme'), customer('../../../../tmp/x')].map((e) => JSON.stringify(e)).join('\n') + '\n');
  await expect(importStateFile(store, file)).rejects.toThrow(/state\.jsonl:2: record\.id: a customer id is 1–64 letters, digits, _ or -/);
  expect(await store.listCustomers()).toEqual([]);
});

it('refuses a charge or balance of a customer id that is a path', async () => {
  const file = join(dir, 'state.jsonl');
  const charge = { type: 'credit_usage', customer_id: '../x', pool: 'identification', period: 'year-0', used: 1 };
  writeFileSync(file, [customer('acme'), charge].map((e) => JSON.stringify(e)).join('\n') + '\n');
  await expect(importStateFile(store, file)).rejects.toThrow(/state\.jsonl:2: customer_id/);
  expect(await store.listCustomers()).toEqual([]);
});
