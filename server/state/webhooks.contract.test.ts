import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../testing/redis-server.ts';
import type { WebhookEvent } from '../webhooks/schema.ts';
import { RedisWebhookStore, webhookKeys } from './redis-webhooks.ts';
import { SqliteWebhookStore } from './sqlite-webhooks.ts';
import type { AttemptResult, OutboxItem, WebhookStore, WebhookStoreOptions } from './webhooks.ts';

const event = (id: string): WebhookEvent => ({
  id, type: 'account.visited', created_at: '2026-11-23T10:00:00.000Z', customer_id: 'acme',
  data: { day: '2026-11-23', account: { company_id: '900001', name: null, domain: null, segment_ids: [], hot_account: false, excluded: false }, page: { path: '/', referrer_host: null, tag_id: 't', origin: null, session_id: null } },
});

const item = (webhook_id: string, key: string): OutboxItem => ({ webhook_id, customer_id: 'acme', dedupe_key: key, event: event(`evt_${webhook_id}_${key}`) });
const items = (webhook_id: string, from: number, count: number) => Array.from({ length: count }, (_, i) => item(webhook_id, `k${from + i}`));
const delivered = (atMs: number): AttemptResult => ({ atMs, status: 200, error: null, delivered: true, nextAttemptMs: null });
const nothingDropped = { dropped: 0, droppedByEndpoint: {} };

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

const backends: Array<[string, () => Promise<{ open(opts?: WebhookStoreOptions): Promise<WebhookStore>; cleanup(): Promise<void> }>]> = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-'));
      return { open: async (opts) => new SqliteWebhookStore(join(dir, 'svc.db'), opts), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'Redis',
    async () => {
      const admin = createClient({ url: redis.url });
      await admin.connect();
      await admin.flushAll();
      await admin.close();
      return { open: (opts) => RedisWebhookStore.open(redis.url, opts), cleanup: async () => {} };
    },
  ],
];

describe.each(backends)('webhook outbox contract: %s', (_name, backend) => {
  let a: WebhookStore;
  let b: WebhookStore;
  let cleanup: () => Promise<void>;
  let open: (opts?: WebhookStoreOptions) => Promise<WebhookStore>;
  beforeEach(async () => {
    const made = await backend();
    cleanup = made.cleanup;
    open = made.open;
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
    expect(await a.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k1', event: event('evt_1') }], 1000)).toEqual({ added: 1, ...nothingDropped });
    expect(await b.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k1', event: event('evt_2') }], 1000)).toEqual({ added: 0, ...nothingDropped });
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
    await a.recordAttempt(mine!, 'node-a', { atMs: 61_500, status: 200, error: null, delivered: true, nextAttemptMs: null });
    expect((await a.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    await b.recordAttempt(taken!, 'node-b', { atMs: 62_000, status: 500, error: 'HTTP 500', delivered: false, nextAttemptMs: 122_000 });
    expect((await a.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500', next_attempt_at: new Date(122_000).toISOString() });
    expect(await a.claimDue(121_999, 10, 'node-a', 60_000)).toEqual([]);
    const [again] = await a.claimDue(122_000, 10, 'node-a', 60_000);
    expect(again!.attempts).toBe(1);
    await a.recordAttempt(again!, 'node-a', { atMs: 122_100, status: 204, error: null, delivered: true, nextAttemptMs: null });
    expect((await b.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status: 204, next_attempt_at: null, delivered_at: new Date(122_100).toISOString() });
    expect(await a.claimDue(10_000_000, 10, 'node-a', 60_000)).toEqual([]);
  });

  it('marks a delivery failed when there is no next attempt', async () => {
    const { id } = await endpoint();
    await a.enqueue([{ webhook_id: id, customer_id: 'acme', dedupe_key: 'k', event: event('evt_1') }], 0);
    const [d] = await a.claimDue(0, 1, 'n', 1000);
    await a.recordAttempt(d!, 'n', { atMs: 1, status: null, error: 'connect ECONNREFUSED', delivered: false, nextAttemptMs: null });
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

  it('drops and reports an enqueue for an endpoint at its cap of pending deliveries, until some of them finish', async () => {
    const capped = await open({ maxPendingPerEndpoint: 50 });
    try {
      const full = await endpoint();
      const other = await endpoint();
      expect(await capped.enqueue(items(full.id, 0, 50), 1000)).toEqual({ added: 50, ...nothingDropped });
      expect(await capped.enqueue([...items(full.id, 50, 1), ...items(other.id, 0, 1)], 1000)).toEqual({ added: 1, dropped: 1, droppedByEndpoint: { [full.id]: 1 } });
      expect(await capped.enqueue(items(full.id, 0, 1), 1000)).toEqual({ added: 0, ...nothingDropped }); // a duplicate is not a drop
      const log = await capped.listDeliveries('acme', full.id, 100);
      expect(log).toHaveLength(50);
      expect(log.map((d) => d.event_id)).not.toContain(item(full.id, 'k50').event.id);

      const claimed = (await capped.claimDue(1000, 100, 'n', 60_000)).filter((c) => c.webhook_id === full.id);
      expect(claimed).toHaveLength(50);
      await capped.recordAttempt(claimed[0]!, 'n', delivered(1100));
      await capped.recordAttempt(claimed[1]!, 'n', { atMs: 1100, status: 500, error: 'HTTP 500', delivered: false, nextAttemptMs: null });
      await capped.recordAttempt(claimed[2]!, 'n', { atMs: 1100, status: 500, error: 'HTTP 500', delivered: false, nextAttemptMs: 5000 }); // still pending
      // Two finished, so two fit; the dropped k50 was never stored, so it is not a duplicate now.
      expect(await capped.enqueue(items(full.id, 50, 3), 2000)).toEqual({ added: 2, dropped: 1, droppedByEndpoint: { [full.id]: 1 } });
      expect((await capped.listDeliveries('acme', full.id, 100)).map((d) => d.event_id)).toContain(item(full.id, 'k50').event.id);
    } finally {
      await capped.close();
    }
  });

  it('lists pending and finished deliveries in one log, newest first', async () => {
    const { id } = await endpoint();
    for (const [i, at] of [1000, 2000, 3000, 4000].entries()) await a.enqueue(items(id, i, 1), at);
    const claimed = await a.claimDue(10_000, 10, 'n', 60_000);
    const byKey = (k: string) => claimed.find((c) => c.event_id === item(id, k).event.id)!;
    await a.recordAttempt(byKey('k0'), 'n', delivered(10_001));
    await a.recordAttempt(byKey('k2'), 'n', { atMs: 10_001, status: null, error: 'connect ECONNREFUSED', delivered: false, nextAttemptMs: null });
    expect((await b.listDeliveries('acme', id, 10)).map((d) => [d.event_id, d.status])).toEqual([
      [item(id, 'k3').event.id, 'pending'],
      [item(id, 'k2').event.id, 'failed'],
      [item(id, 'k1').event.id, 'pending'],
      [item(id, 'k0').event.id, 'delivered'],
    ]);
    expect((await b.listDeliveries('acme', id, 2)).map((d) => d.event_id)).toEqual([item(id, 'k3').event.id, item(id, 'k2').event.id]);
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

describe('webhook outbox on Redis', () => {
  let admin: ReturnType<typeof createClient>;
  let store: RedisWebhookStore;
  beforeEach(async () => {
    admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.flushAll();
    store = await RedisWebhookStore.open(redis.url);
  });
  afterEach(async () => {
    await store.close();
    await admin.close();
  });
  const register = () => store.createEndpoint({ customer_id: 'acme', url: 'http://127.0.0.1:1/x', events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_x' });
  const enqueueInBatches = async (webhookId: string, count: number, atMs: number) => {
    for (let from = 0; from < count; from += 100) await store.enqueue(items(webhookId, from, Math.min(100, count - from)), atMs);
  };
  /** Commands the server has run, those called from scripts included (INFO left out: it is how we read the count). */
  const commandsRun = async () => {
    let total = 0;
    for (const [, name, calls] of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (name !== 'info') total += Number(calls);
    return total;
  };

  it('one enqueue runs as many Redis commands with 3,000 deliveries pending for the endpoint as with none', async () => {
    const backlogged = await register();
    const idle = await register();
    await enqueueInBatches(backlogged.id, 3000, 1000); // the receiver is down: nothing is ever claimed
    const commandsOfOneEnqueue = async (webhookId: string) => {
      const before = await commandsRun();
      await store.enqueue([item(webhookId, 'one-more')], 1000);
      return (await commandsRun()) - before;
    };
    const withBacklog = await commandsOfOneEnqueue(backlogged.id);
    expect(withBacklog).toBeLessThan(30);
    expect(withBacklog).toBe(await commandsOfOneEnqueue(idle.id));
  });

  it('keeps the newest 1,000 finished deliveries of an endpoint and every pending one', async () => {
    const { id } = await register();
    await enqueueInBatches(id, 1010, 1000);
    const claimed = await store.claimDue(1000, 2000, 'n', 60_000);
    const [stillPending, finishing] = [claimed.slice(0, 5), claimed.slice(5)];
    for (let i = 0; i < finishing.length; i += 100) await Promise.all(finishing.slice(i, i + 100).map((c) => store.recordAttempt(c, 'n', delivered(2000))));
    const log = await store.listDeliveries('acme', id, 2000);
    expect(log.filter((d) => d.status === 'delivered')).toHaveLength(1000);
    expect(log.filter((d) => d.status === 'pending').map((d) => d.id).sort()).toEqual(stillPending.map((c) => c.id).sort());
    expect(await admin.hLen(webhookKeys.deliveries)).toBe(1005);
  });

  it('trimming a log that still holds pending deliveries (written before they had a zset of their own) keeps them', async () => {
    const { id } = await register();
    await enqueueInBatches(id, 1000, 1000);
    await store.enqueue([item(id, 'newest')], 2000);
    const pending = await admin.zRangeWithScores(webhookKeys.pending(id), 0, -1);
    await admin.zAdd(webhookKeys.log(id), pending);
    await admin.del(webhookKeys.pending(id));
    const newest = (await store.claimDue(2000, 2000, 'n', 60_000)).find((c) => c.event_id === item(id, 'newest').event.id);
    await store.recordAttempt(newest!, 'n', delivered(3000)); // its log is now one past 1,000: the oldest entry, still pending, is trimmed
    expect(await admin.hLen(webhookKeys.deliveries)).toBe(1001);
    expect(await admin.zCard(webhookKeys.log(id))).toBe(1000);
    expect(await admin.zCard(webhookKeys.pending(id))).toBe(1);
    expect(await store.listDeliveries('acme', id, 2000)).toHaveLength(1001);
  });

  it('deleting an endpoint drops its pending deliveries and their bookkeeping', async () => {
    const { id } = await register();
    await enqueueInBatches(id, 20, 1000);
    expect(await store.deleteEndpoint('acme', id)).toBe(true);
    expect(await admin.exists(webhookKeys.pending(id))).toBe(0);
    expect(await admin.hLen(webhookKeys.deliveries)).toBe(0);
    expect(await admin.zCard(webhookKeys.due)).toBe(0);
  });
});
