import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../testing/redis-server.ts';
import type { WebhookEvent } from '../webhooks/schema.ts';
import { RedisWebhookStore } from './redis-webhooks.ts';
import { SqliteWebhookStore } from './sqlite-webhooks.ts';
import type { WebhookStore } from './webhooks.ts';

const event = (id: string): WebhookEvent => ({
  id, type: 'account.visited', created_at: '2026-11-23T10:00:00.000Z', customer_id: 'acme',
  data: { day: '2026-11-23', account: { company_id: '900001', name: null, domain: null, segment_ids: [], hot_account: false, excluded: false }, page: { path: '/', referrer_host: null, tag_id: 't', origin: null, session_id: null } },
});

/**
 * One contract, both backends: the same tests against a SQLite state file and a real redis-server.
 * `a` and `b` are two nodes (two connections) sharing the outbox.
 */
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.close();
});

const backends: Array<[string, () => Promise<{ open(): Promise<WebhookStore>; cleanup(): Promise<void> }>]> = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-'));
      return { open: async () => new SqliteWebhookStore(join(dir, 'svc.db')), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'Redis',
    async () => {
      const admin = createClient({ url: redis.url });
      await admin.connect();
      await admin.flushAll();
      await admin.close();
      return { open: () => RedisWebhookStore.open(redis.url), cleanup: async () => {} };
    },
  ],
];

describe.each(backends)('webhook outbox contract: %s', (_name, backend) => {
  let a: WebhookStore;
  let b: WebhookStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const made = await backend();
    cleanup = made.cleanup;
    a = await made.open();
    b = await made.open(); // a second node on the same state
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await cleanup();
  });

  const endpoint = () => a.createEndpoint({ customer_id: 'acme', url: 'http://127.0.0.1:1/x', events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_0123456789abcdef' });

  it('keeps endpoints per customer and never lists the secret', async () => {
    const created = await endpoint();
    expect(await b.listEndpoints('acme')).toEqual([created]);
    expect(JSON.stringify(created)).not.toContain('whsec_0123456789abcdef');
    expect(created.secret_prefix).toBe('whsec_0123');
    expect(await b.listEndpoints('other')).toEqual([]);
    expect(await b.getEndpoint('other', created.id)).toBeNull();
  });

  it('enqueues an event once per endpoint and dedupe key', async () => {
    const { id } = await endpoint();
    expect(await a.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k1', event: event('evt_1') }], 1000)).toBe(1);
    expect(await b.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k1', event: event('evt_2') }], 1000)).toBe(0);
    expect((await a.listDeliveries('acme', id, 10)).map((d) => d.event_id)).toEqual(['evt_1']);
  });

  it('leases a due delivery to one owner at a time; an expired lease can be taken over', async () => {
    const { id } = await endpoint();
    await a.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k', event: event('evt_1') }], 1000);
    expect(await a.claimDue(999, 10, 'node-a', 60_000)).toEqual([]); // not due yet
    const [mine] = await a.claimDue(1000, 10, 'node-a', 60_000);
    expect(mine).toMatchObject({ event_id: 'evt_1', url: 'http://127.0.0.1:1/x', secret: 'whsec_0123456789abcdef', attempts: 0 });
    expect(await b.claimDue(1000, 10, 'node-b', 60_000)).toEqual([]);
    const [taken] = await b.claimDue(61_000, 10, 'node-b', 60_000);
    expect(taken!.id).toBe(mine!.id);
    // node-a lost its lease: its late answer is ignored
    await a.recordAttempt(mine!.id, 'node-a', { atMs: 61_500, status: 200, error: null, delivered: true, nextAttemptMs: null });
    expect((await a.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await b.recordAttempt(taken!.id, 'node-b', { atMs: 62_000, status: 500, error: 'HTTP 500', delivered: false, nextAttemptMs: 122_000 });
    expect((await a.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500', next_attempt_at: new Date(122_000).toISOString() });
    expect(await a.claimDue(121_999, 10, 'node-a', 60_000)).toEqual([]);
    const [again] = await a.claimDue(122_000, 10, 'node-a', 60_000);
    expect(again!.attempts).toBe(1);
    await a.recordAttempt(again!.id, 'node-a', { atMs: 122_100, status: 204, error: null, delivered: true, nextAttemptMs: null });
    expect((await b.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status: 204, next_attempt_at: null, delivered_at: new Date(122_100).toISOString() });
    expect(await a.claimDue(10_000_000, 10, 'node-a', 60_000)).toEqual([]);
  });

  it('marks a delivery failed when there is no next attempt', async () => {
    const { id } = await endpoint();
    await a.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k', event: event('evt_1') }], 0);
    const [d] = await a.claimDue(0, 1, 'n', 1000);
    await a.recordAttempt(d!.id, 'n', { atMs: 1, status: null, error: 'connect ECONNREFUSED', delivered: false, nextAttemptMs: null });
    expect((await a.listDeliveries('acme', id, 1))[0]).toMatchObject({ status: 'failed', last_status: null, last_error: 'connect ECONNREFUSED' });
    expect(await a.claimDue(1e12, 1, 'n', 1000)).toEqual([]);
  });

  it('deleting an endpoint drops its undelivered events', async () => {
    const { id } = await endpoint();
    await a.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k', event: event('evt_1') }], 0);
    expect(await b.deleteEndpoint('other', id)).toBe(false);
    expect(await b.deleteEndpoint('acme', id)).toBe(true);
    expect(await a.claimDue(1e12, 10, 'n', 1000)).toEqual([]);
    expect(await a.listEndpoints('acme')).toEqual([]);
  });
});

describe.each(backends)('webhook outbox under concurrency: %s', (_name, backend) => {
  it('two nodes claiming at once never take the same delivery', async () => {
    const made = await backend();
    const nodes = await Promise.all([made.open(), made.open(), made.open()]);
    try {
      const { id } = await nodes[0]!.createEndpoint({ customer_id: 'acme', url: 'http://127.0.0.1:1/x', events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_x' });
      await nodes[0]!.enqueue(Array.from({ length: 100 }, (_, i) => ({ webhook_id: id, customer_id: 'acme', dedupe_key: `k${i}`, event: event(`evt_${i}`) })), 0);
      const claimed = (await Promise.all(nodes.flatMap((n, i) => [n.claimDue(1, 30, `node-${i}`, 60_000), n.claimDue(1, 30, `node-${i}`, 60_000)]))).flat();
      expect(claimed).toHaveLength(100);
      expect(new Set(claimed.map((c) => c.event_id)).size).toBe(100);
    } finally {
      for (const n of nodes) await n.close();
      await made.cleanup();
    }
  });
});
