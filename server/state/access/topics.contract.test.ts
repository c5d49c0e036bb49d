/**
 * The intent-topic settings on every state backend (SQLite file, redis-server, Redis Cluster): the topics a
 * customer follows and a token's `intent_topics` setting are stored, seen by another process or node within
 * a second, kept by the changes that do not name them, and moved by `state export/import`; records written
 * before them read as none followed and the setting off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../../testing/fixtures.ts';
import { startRedisServer } from '../../testing/redis-server.ts';
import { BACKENDS, type BackendFixture, openRedisStore } from '../../testing/state-backends.ts';
import { keys } from '../redis/keys.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { StateStore } from '../store.ts';
import type { StateEntry } from '../transfer/transfer.ts';

/** Within a second, a change made through one store is seen by another (every backend's promise). */
const soon = { timeout: 1000, interval: 20 };

describe.each(BACKENDS)('intent topics settings: $name', (backend) => {
  let fx: BackendFixture;
  let a: StateStore;
  let b: StateStore;
  beforeAll(async () => {
    fx = await backend.start();
  }, 60_000);
  afterAll(async () => fx?.close());
  beforeEach(async () => {
    a = await fx.open();
    b = await fx.open();
    await a.importCustomer(TEST_CUSTOMER);
  });
  afterEach(async () => fx.reset());

  it('a customer follows no topics until it chooses; the choice is seen by another store and kept by other changes', async () => {
    expect((await a.getCustomer('acme'))?.topics).toEqual([]);
    const updated = await a.updateCustomer('acme', { topics: ['customer data platform', 'ERP'] });
    expect(updated.topics).toEqual(['customer data platform', 'ERP']);
    await expect.poll(async () => (await b.getCustomer('acme'))?.topics, soon).toEqual(['customer data platform', 'ERP']);
    await b.updateCustomer('acme', { identification_credits: 7 });
    await b.changeSegments('acme', (s) => ({
      segments: [...s.segments, { id: 300, name: 'ERP surge', match: { topic: { name: 'ERP', min_score: 60, weeks: 4 } } }],
      segment_seq: 300,
    }));
    const after = await a.getCustomer('acme');
    expect(after?.topics).toEqual(['customer data platform', 'ERP']);
    expect(after?.segments.find((s) => s.id === 300)?.match).toEqual({ topic: { name: 'ERP', min_score: 60, weeks: 4 } });
    await a.updateCustomer('acme', { topics: [] });
    await expect.poll(async () => (await b.getCustomer('acme'))?.topics, soon).toEqual([]);
  });

  it('a token’s intent_topics setting is off by default, stored when on, and kept through a rotation', async () => {
    const off = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'plain' });
    const on = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'topics', intent_topics: true });
    expect(off.record.intent_topics).toBe(false);
    expect(on.record.intent_topics).toBe(true);
    expect((await b.authenticateToken(on.secret))?.intent_topics).toBe(true);
    expect((await b.authenticateToken(off.secret))?.intent_topics).toBe(false);
    const rotated = await b.rotateToken(on.record.id);
    expect((await a.authenticateToken(rotated.secret))?.intent_topics).toBe(true);
    expect((await a.listTokens('acme')).map((t) => [t.name, t.intent_topics])).toEqual(
      expect.arrayContaining([
        ['plain', false],
        ['topics', true],
      ]),
    );
  });

  it('state export and import move both', async () => {
    await a.updateCustomer('acme', { topics: ['crm'] });
    const { secret } = await a.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm', intent_topics: true });
    const exported: StateEntry[] = [];
    for await (const e of a.exportState()) exported.push(e);
    await fx.reset();
    const c = await fx.open();
    await c.importState(exported);
    expect((await c.getCustomer('acme'))?.topics).toEqual(['crm']);
    expect((await c.authenticateToken(secret))?.intent_topics).toBe(true);
  });
});

describe('records written before intent topics read as none followed and the setting off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-topics-old-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite: a customer config without topics, a token row at the column’s default', async () => {
    const file = join(dir, 'svc.db');
    const store = new SqliteStateStore(file, { log: () => {} });
    await store.importCustomer(TEST_CUSTOMER);
    const { secret } = await store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'old', intent_topics: true });
    await store.updateCustomer('acme', { topics: ['crm'] });
    await store.close();
    // The rows as a version before topics wrote them (the migration added the column with its default).
    const db = new Database(file);
    const { config } = db.prepare("SELECT config FROM customers WHERE id = 'acme'").get() as { config: string };
    const { topics: _gone, ...older } = JSON.parse(config);
    db.prepare("UPDATE customers SET config = ? WHERE id = 'acme'").run(JSON.stringify(older));
    db.prepare('UPDATE tokens SET intent_topics = 0').run();
    db.close();
    const reopened = new SqliteStateStore(file, { log: () => {} });
    try {
      expect((await reopened.getCustomer('acme'))?.topics).toEqual([]);
      expect((await reopened.authenticateToken(secret))?.intent_topics).toBe(false);
    } finally {
      await reopened.close();
    }
  });

  it('Redis: hashes without the fields', async () => {
    const redis = await startRedisServer();
    try {
      const store = await openRedisStore(redis.url, join(dir, 'journal'));
      await store.importCustomer(TEST_CUSTOMER);
      const { record, secret } = await store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'old', intent_topics: true });
      await store.updateCustomer('acme', { topics: ['crm'] });
      await store.close();
      const client = createClient({ url: redis.url });
      await client.connect();
      await client.hDel(keys.customer('acme'), 'topics');
      await client.hDel(keys.token('acme', record.id), 'intent_topics');
      await client.close();
      const reopened = await openRedisStore(redis.url, join(dir, 'journal-2'));
      try {
        expect((await reopened.getCustomer('acme'))?.topics).toEqual([]);
        expect((await reopened.authenticateToken(secret))?.intent_topics).toBe(false);
      } finally {
        await reopened.close();
      }
    } finally {
      await redis.close();
    }
  }, 20_000);
});
