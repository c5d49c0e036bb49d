/** Per-tag limits and the demo flag in the SQLite store, including a state file from before they existed. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { SqliteStateStore } from './sqlite/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-tag-fields-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('adds the limit and demo columns to an older state file, keeping its tags with the old fixed limits', async () => {
  const file = join(dir, 'old.db');
  const old = new Database(file);
  old.exec(`CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, packages TEXT NOT NULL,
      identification_credits INTEGER NOT NULL, enrichment_credits INTEGER NOT NULL, contract_start TEXT NOT NULL,
      config TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE tags (tag_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), allowed_domains TEXT NOT NULL,
      scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, created_at TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}');
    INSERT INTO customers VALUES ('old', 'Old Co', '["platform"]', 10, 0, '2026-01-01', '{"products":[],"segments":[],"excluded_accounts":[],"hot_accounts":[]}', '2026-01-01T00:00:00Z');
    INSERT INTO tags VALUES ('old-tag', 'old', '["old.example"]', 0, 0, '2026-01-01T00:00:00Z', '{}');`);
  old.close();

  const store = new SqliteStateStore(file);
  expect(await store.getTag('old-tag')).toMatchObject({ rate_limit: 6000, visitor_rate_limit: 300, demo: false });
  const created = await store.createTag({ customer_id: 'old', allowed_domains: ['new.example'], rate_limit: 50_000, visitor_rate_limit: 900 });
  expect(created).toMatchObject({ rate_limit: 50_000, visitor_rate_limit: 900, demo: false });
  await store.close();
});

it('imports the demo flag and limits of customers.json tags, and create/update keep to their fields', async () => {
  const store = new SqliteStateStore(join(dir, 'new.db'));
  await store.importCustomer({
    ...TEST_CUSTOMER,
    tags: [{ tag_id: 'demo-tag', allowed_domains: ['localhost'], scores: true, segment_names: true, demo: true, visitor_rate_limit: 10 }],
  });
  expect(await store.getTag('demo-tag')).toMatchObject({ demo: true, visitor_rate_limit: 10, rate_limit: 6000 });
  await expect(store.createCustomer({ ...TEST_CUSTOMER, name: 'Other' })).rejects.toMatchObject({ kind: 'conflict' });
  expect((await store.getCustomer('acme'))!.name).toBe(TEST_CUSTOMER.name);
  await expect(store.updateCustomer('nobody', { name: 'X' })).rejects.toMatchObject({ kind: 'not_found' });
  const updated = await store.updateCustomer('acme', { enrichment_credits: 3 });
  expect(updated).toMatchObject({ name: TEST_CUSTOMER.name, enrichment_credits: 3, identification_credits: TEST_CUSTOMER.identification_credits });
  expect(await store.updateTag('demo-tag', {})).toMatchObject({ demo: true });
  await expect(store.updateTag('nope-nope', {})).rejects.toMatchObject({ kind: 'not_found' });
  await store.close();
});
