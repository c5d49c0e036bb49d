import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RedisCluster, startRedisCluster } from '../../testing/redis-cluster.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import type { WebhookEvent } from '../../webhooks/schema.ts';
import { openRedis } from '../redis/connection.ts';
import type { WebhookEntry } from '../transfer/transfer.ts';
import { RedisWebhookStore, webhookKeys } from './redis.ts';
import { SqliteWebhookStore } from './sqlite.ts';
import { type AttemptResult, DEDUPE_KEEP_MS, FINISHED_KEEP_MS, LOG_KEEP, type OutboxItem, type WebhookStore, type WebhookStoreOptions } from './store.ts';

const event = (id: string): WebhookEvent => ({
  id,
  type: 'account.visited',
  created_at: '2026-11-23T10:00:00.000Z',
  customer_id: 'acme',
  data: {
    day: '2026-11-23',
    account: { company_id: '900001', name: null, domain: null, segment_ids: [], hot_account: false, excluded: false },
    page: { path: '/', referrer_host: null, tag_id: 't', origin: null, session_id: null },
  },
});

const item = (webhook_id: string, key: string): OutboxItem => ({ webhook_id, customer_id: 'acme', dedupe_key: key, event: event(`evt_${webhook_id}_${key}`) });
const items = (webhook_id: string, from: number, count: number) => Array.from({ length: count }, (_, i) => item(webhook_id, `k${from + i}`));
const delivered = (atMs: number): AttemptResult => ({ atMs, status: 200, error: null, delivered: true, nextAttemptMs: null });
const nothingDropped = { dropped: 0, droppedByEndpoint: {} };
/** Items under one cap: `<cap>|<path>` for each path, at most `max` of them stored. */
const capped = (webhook_id: string, cap: string, max: number, paths: string[]): OutboxItem[] =>
  paths.map((p) => ({ ...item(webhook_id, `${cap}|${p}`), cap: { key: cap, max } }));
const DAY = 86_400_000;

/**
 * One contract, both backends: the same tests against a SQLite state file and a real redis-server.
 * `a` and `b` are two nodes (two connections) sharing the outbox.
 */
let redis: RedisServer;
let cluster: RedisCluster;
beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
}, 30_000);
afterAll(async () => {
  await Promise.all([redis?.close(), cluster?.close()]);
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
  [
    // The same outbox on a real Redis Cluster (its `{wh}` keys on one shard) through the cluster client.
    'Redis Cluster',
    async () => {
      await cluster.flush();
      const clients: RedisClientType[] = [];
      return {
        async open(opts) {
          const client = openRedis({ url: cluster.url, cluster: true });
          await client.connect();
          clients.push(client);
          return RedisWebhookStore.open(client, opts);
        },
        async cleanup() {
          for (const c of clients.splice(0)) await c.close();
        },
      };
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

  const endpoint = () =>
    a.createEndpoint({
      customer_id: 'acme',
      url: 'http://127.0.0.1:1/x',
      events: ['account.visited'],
      hot_paths: [],
      description: '',
      secret: 'whsec_0123456789abcdef',
    });

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
    expect((await a.listDeliveries('acme', id, 10))[0]).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status: 500,
      last_error: 'HTTP 500',
      next_attempt_at: new Date(122_000).toISOString(),
    });
    expect(await a.claimDue(121_999, 10, 'node-a', 60_000)).toEqual([]);
    const [again] = await a.claimDue(122_000, 10, 'node-a', 60_000);
    expect(again!.attempts).toBe(1);
    await a.recordAttempt(again!, 'node-a', { atMs: 122_100, status: 204, error: null, delivered: true, nextAttemptMs: null });
    expect((await b.listDeliveries('acme', id, 10))[0]).toMatchObject({
      status: 'delivered',
      attempts: 2,
      last_status: 204,
      next_attempt_at: null,
      delivered_at: new Date(122_100).toISOString(),
    });
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

  it('an endpoint deleted with deliveries pending, leased and finished: none is claimed again, a late result is ignored, a late entry is not stored', async () => {
    const gone = await endpoint();
    const kept = await endpoint();
    await a.enqueue(items(gone.id, 0, 10), 1000);
    await a.enqueue(items(kept.id, 0, 1), 2000);
    const leased = await a.claimDue(1000, 3, 'n', 60_000);
    expect(leased.map((c) => c.webhook_id)).toEqual([gone.id, gone.id, gone.id]);
    await a.recordAttempt(leased[0]!, 'n', delivered(1500));
    expect(await b.deleteEndpoint('acme', gone.id)).toBe(true);
    await a.recordAttempt(leased[1]!, 'n', delivered(1600)); // its attempt was under way
    // A node whose list of endpoints is a moment old enqueues for it: nothing is stored, nothing dropped.
    expect(await b.enqueue(items(gone.id, 10, 2), 3000)).toEqual({ added: 0, ...nothingDropped });
    expect((await a.claimDue(3000, 10, 'n', 60_000)).map((c) => c.webhook_id)).toEqual([kept.id]);
    for (const at of [100_000, 1e12]) expect((await a.claimDue(at, 10, 'n', 60_000)).filter((c) => c.webhook_id === gone.id)).toEqual([]);
    expect(await a.listDeliveries('acme', gone.id, 100)).toEqual([]);
  });

  it("claims within each endpoint's room: an endpoint at its limit is passed over and its deliveries stay unleased; the others fill up in due order", async () => {
    const busy = await endpoint();
    const other = await endpoint();
    await a.enqueue(items(busy.id, 0, 60), 1000);
    await a.enqueue(items(other.id, 0, 2), 2000);
    const limits = (inFlight: Array<[string, number]>) => ({ perEndpoint: 4, inFlight: new Map(inFlight) });

    const first = await a.claimDue(3000, 32, 'n', 60_000, limits([]));
    expect(first.map((c) => c.webhook_id)).toEqual([busy.id, busy.id, busy.id, busy.id, other.id, other.id]);
    expect(await a.claimDue(3000, 32, 'n', 60_000, limits([[busy.id, 4]]))).toEqual([]);
    await a.enqueue(items(other.id, 2, 1), 3000);
    expect(
      (
        await a.claimDue(
          3000,
          32,
          'n',
          60_000,
          limits([
            [busy.id, 4],
            [other.id, 2],
          ]),
        )
      ).map((c) => c.webhook_id),
    ).toEqual([other.id]);
    expect(
      (
        await a.claimDue(
          3000,
          32,
          'n',
          60_000,
          limits([
            [busy.id, 3],
            [other.id, 3],
          ]),
        )
      ).map((c) => c.webhook_id),
    ).toEqual([busy.id]);
    expect(await a.claimDue(3000, 32, 'n', 60_000, limits([[busy.id, 1]]))).toHaveLength(3);
    // What was passed over was never leased: another node (no limits) takes the rest at once.
    const rest = await b.claimDue(3000, 100, 'other-node', 60_000);
    expect(rest).toHaveLength(60 - 8);
    expect(new Set([...first, ...rest].map((c) => c.id)).size).toBe(6 + 52);
  });

  const slackEndpoint = () =>
    a.createEndpoint({
      customer_id: 'acme',
      url: 'https://hooks.slack.com/services/T0/B0/x',
      events: ['account.visited', 'account.hot'],
      hot_paths: [],
      description: '',
      secret: 'whsec_slack',
      settings: {
        event_versions: { 'account.visited': 2 },
        segment_names: true,
        scores: false,
        format: 'slack',
        filters: { segments: [7], min_page_views: 2 },
      },
    });

  it('keeps an endpoint’s format and filters, and changes them', async () => {
    const slack = await slackEndpoint();
    expect(await b.getEndpoint('acme', slack.id)).toMatchObject({ format: 'slack', filters: { segments: [7], min_page_views: 2 }, segment_names: true });
    expect((await endpoint()).format).toBe('json'); // no settings: the defaults
    const changed = await b.updateEndpoint('acme', slack.id, {
      settings: { event_versions: {}, segment_names: false, scores: false, format: 'json', filters: { hot_only: true } },
    });
    expect(changed).toMatchObject({ format: 'json', filters: { hot_only: true } });
    expect((await a.listEndpoints('acme')).find((e) => e.id === slack.id)).toMatchObject({ format: 'json', filters: { hot_only: true } });
  });

  it('claims a Slack endpoint’s due deliveries as one batch (one slot, up to `slackBatch`) and none while it has one in flight; JSON endpoints as before', async () => {
    const slack = await slackEndpoint();
    const json = await endpoint();
    await a.enqueue(items(slack.id, 0, 7), 1000);
    await a.enqueue(items(json.id, 0, 3), 1001);
    const limits = (inFlight: Array<[string, number]>) => ({ perEndpoint: 4, inFlight: new Map(inFlight), slackBatch: 5 });

    // Two slots: the Slack batch takes one (five deliveries, its cap), a JSON delivery the other.
    const first = await a.claimDue(2000, 2, 'node-a', 60_000, limits([]));
    expect(first.map((c) => [c.webhook_id, c.format])).toEqual([...Array(5).fill([slack.id, 'slack']), [json.id, 'json']]);
    // The Slack endpoint has a message in flight: none of its deliveries; the JSON ones still flow.
    const second = await b.claimDue(2000, 10, 'node-b', 60_000, limits([[slack.id, 1]]));
    expect(second.map((c) => c.webhook_id)).toEqual([json.id, json.id]);
    // Its message done, the rest of its backlog is the next batch.
    const third = await b.claimDue(2000, 10, 'node-b', 60_000, limits([]));
    expect(third.map((c) => c.webhook_id)).toEqual([slack.id, slack.id]);
    expect(new Set([...first, ...second, ...third].map((c) => c.id)).size).toBe(10);
  });

  it('without `slackBatch` a Slack endpoint’s deliveries are claimed one by one as others', async () => {
    const slack = await slackEndpoint();
    await a.enqueue(items(slack.id, 0, 3), 1000);
    const claimed = await a.claimDue(2000, 2, 'n', 60_000, { perEndpoint: 4, inFlight: new Map() });
    expect(claimed.map((c) => c.format)).toEqual(['slack', 'slack']);
  });

  it('stores at most `max` distinct dedupe keys under one cap per endpoint, also from two nodes at once', async () => {
    const { id } = await endpoint();
    const other = await endpoint();
    const paths = Array.from({ length: 12 }, (_, i) => `/p${i}`);
    const results = await Promise.all(paths.map((p, i) => (i % 2 ? a : b).enqueue(capped(id, 'hot|900001|2026-11-23', 5, [p]), 1000)));
    expect(results.reduce((n, r) => n + r.added, 0)).toBe(5);
    expect(results.every((r) => r.dropped === 0)).toBe(true); // past the cap is not a drop
    expect(await a.enqueue(capped(id, 'hot|900001|2026-11-23', 5, ['/more', '/p0']), 1000)).toEqual({ added: 0, ...nothingDropped });
    // Another cap key, another endpoint: counted on their own; a key that merely starts alike is another cap.
    expect((await a.enqueue(capped(id, 'hot|900001|2026-11-24', 5, paths), 1000)).added).toBe(5);
    expect((await a.enqueue(capped(id, 'hot|9000011|2026-11-23', 5, paths), 1000)).added).toBe(5);
    expect((await a.enqueue(capped(other.id, 'hot|900001|2026-11-23', 5, paths), 1000)).added).toBe(5);
    expect(await a.listDeliveries('acme', id, 100)).toHaveLength(15);
    await expect(a.enqueue([{ ...item(id, 'elsewhere|x'), cap: { key: 'hot|900001|2026-11-23', max: 5 } }], 1000)).rejects.toThrow(/cap key/);
  });

  it('drops and reports an enqueue for an endpoint at its cap of pending deliveries, until some of them finish', async () => {
    const capped = await open({ maxPendingPerEndpoint: 50 });
    try {
      const full = await endpoint();
      const other = await endpoint();
      expect(await capped.enqueue(items(full.id, 0, 50), 1000)).toEqual({ added: 50, ...nothingDropped });
      expect(await capped.enqueue([...items(full.id, 50, 1), ...items(other.id, 0, 1)], 1000)).toEqual({
        added: 1,
        dropped: 1,
        droppedByEndpoint: { [full.id]: 1 },
      });
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

  it('exports endpoints with their secret, deliveries and recent dedupe keys; an empty outbox that imports them holds the same (a non-empty one refuses)', async () => {
    // Now: dedupe keys older than DEDUPE_KEEP_MS are not moved.
    const now = Date.now();
    const cap = `account.hot|900001|${new Date(now).toISOString().slice(0, 10)}`;
    const ep = await endpoint();
    await a.enqueue([item(ep.id, 'k1'), item(ep.id, 'k2'), ...capped(ep.id, cap, 2, ['/a'])], now);
    const [first] = await a.claimDue(now, 1, 'node-a', 60_000);
    await a.recordAttempt(first!, 'node-a', delivered(now + 10));
    const exportOf = async (store: WebhookStore) => {
      const out: WebhookEntry[] = [];
      for await (const e of store.exportEntries()) out.push(e);
      return out;
    };
    const collect = async (store: WebhookStore) => (await exportOf(store)).map((e) => JSON.stringify(e)).sort();
    // In the order exported: a log's ties in time list in the order stored.
    const entries = await exportOf(a);
    const exported = entries.map((e) => JSON.stringify(e)).sort();
    expect(entries.filter((e) => e.type === 'webhook_endpoint')).toEqual([
      { type: 'webhook_endpoint', endpoint: expect.objectContaining({ id: ep.id, secret: 'whsec_0123456789abcdef' }) },
    ]);
    expect(entries.filter((e) => e.type === 'webhook_delivery')).toHaveLength(3);
    expect(
      entries
        .filter((e) => e.type === 'webhook_dedupe')
        .map((e) => e.type === 'webhook_dedupe' && e.dedupe_key)
        .sort(),
    ).toEqual([`${cap}|/a`, 'k1', 'k2']);
    const log = await a.listDeliveries('acme', ep.id, 10);

    expect(await b.isEmpty()).toBe(false);
    await expect(b.importEntries(entries)).rejects.toThrow(/already holds webhook endpoints/);

    const target = await backend();
    const moved = await target.open();
    try {
      expect(await moved.isEmpty()).toBe(true);
      expect(await moved.importEntries(entries)).toBe(entries.length);
      expect(await moved.listEndpoints('acme')).toEqual([ep]);
      expect(await moved.listDeliveries('acme', ep.id, 10)).toEqual(log);
      expect(await collect(moved)).toEqual(exported);
      // The keys and the cap moved: a known key is not enqueued again, and one more path fills the cap of 2.
      expect(await moved.enqueue([item(ep.id, 'k1'), ...capped(ep.id, cap, 2, ['/a', '/b', '/c'])], now + 20)).toEqual({ added: 1, ...nothingDropped });
      // The pending ones are due, signed with the same secret.
      const due = await moved.claimDue(now + 20, 10, 'node-c', 60_000);
      expect(due.map((d) => d.event_id).sort()).toEqual(
        ['k1', 'k2', `${cap}|/a`, `${cap}|/b`]
          .map((k) => item(ep.id, k).event.id)
          .filter((id) => id !== first!.event_id)
          .sort(),
      );
      expect(new Set(due.map((d) => d.secret))).toEqual(new Set(['whsec_0123456789abcdef']));
    } finally {
      await moved.close();
      await target.cleanup();
    }
  });

  it('imports a dedupe key without its delivery (a trimmed log) and a delivery without its key (stored before keys were kept): both still dedupe and count', async () => {
    const now = Date.now();
    const cap = `account.hot|900001|${new Date(now).toISOString().slice(0, 10)}`;
    const endpointEntry: WebhookEntry = {
      type: 'webhook_endpoint',
      endpoint: {
        id: 'wh_moved',
        customer_id: 'acme',
        url: 'http://127.0.0.1:1/x',
        events: ['account.hot'],
        hot_paths: [],
        description: '',
        secret: 'whsec_moved',
        created_at: new Date(now).toISOString(),
      },
    };
    const deliveryEntry: WebhookEntry = {
      type: 'webhook_delivery',
      delivery: {
        id: 'dl_moved',
        event_id: 'evt_moved',
        webhook_id: 'wh_moved',
        customer_id: 'acme',
        type: 'account.visited',
        dedupe_key: null,
        body: '{}',
        status: 'pending',
        attempts: 2,
        created_at: now - 1000,
        next_attempt_at: now - 500,
        last_attempt_at: now - 600,
        last_status: 503,
        last_error: 'HTTP 503',
        delivered_at: null,
      },
    };
    const key = (dedupe_key: string, at: number): WebhookEntry => ({ type: 'webhook_dedupe', webhook_id: 'wh_moved', dedupe_key, at });
    expect(
      await a.importEntries([endpointEntry, deliveryEntry, key('k1', now - 1000), key(`${cap}|/x`, now - 1000), key('old', now - DEDUPE_KEEP_MS - 60_000)]),
    ).toBe(5);

    expect(await a.enqueue([item('wh_moved', 'k1'), ...capped('wh_moved', cap, 2, ['/x', '/y', '/z'])], now)).toEqual({ added: 1, ...nothingDropped });
    const exported: WebhookEntry[] = [];
    for await (const e of b.exportEntries()) exported.push(e);
    expect(exported).toContainEqual(deliveryEntry);
    const keys = exported.flatMap((e) => (e.type === 'webhook_dedupe' ? [e.dedupe_key] : [])).sort();
    expect(keys).toEqual([`${cap}|/x`, `${cap}|/y`, 'k1']);
    const [claimed] = await a.claimDue(now, 1, 'n', 60_000);
    expect(claimed).toMatchObject({ id: 'dl_moved', attempts: 2, secret: 'whsec_moved' });
  });
});

describe.each(backends)('webhook outbox under concurrency: %s', (_name, backend) => {
  it('two nodes claiming at once never take the same delivery', async () => {
    const made = await backend();
    const nodes = await Promise.all([made.open(), made.open(), made.open()]);
    try {
      const { id } = await nodes[0]!.createEndpoint({
        customer_id: 'acme',
        url: 'http://127.0.0.1:1/x',
        events: ['account.visited'],
        hot_paths: [],
        description: '',
        secret: 'whsec_x',
      });
      await nodes[0]!.enqueue(
        Array.from({ length: 100 }, (_, i) => ({ webhook_id: id, customer_id: 'acme', dedupe_key: `k${i}`, event: event(`evt_${i}`) })),
        0,
      );
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
  const register = () =>
    store.createEndpoint({ customer_id: 'acme', url: 'http://127.0.0.1:1/x', events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_x' });
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
    expect(
      log
        .filter((d) => d.status === 'pending')
        .map((d) => d.id)
        .sort(),
    ).toEqual(stillPending.map((c) => c.id).sort());
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

  it('deleting an endpoint drops every delivery of it (pending and logged) and their bookkeeping', async () => {
    const { id } = await register();
    const kept = await register();
    await enqueueInBatches(id, 20, 1000);
    await store.enqueue(items(kept.id, 0, 1), 1000);
    const claimed = await store.claimDue(1000, 5, 'n', 60_000, { perEndpoint: 5, inFlight: new Map([[kept.id, 5]]) });
    for (const c of claimed) await store.recordAttempt(c, 'n', delivered(1100));
    expect(await store.deleteEndpoint('acme', id)).toBe(true);
    expect(await admin.exists([webhookKeys.pending(id), webhookKeys.log(id), webhookKeys.due(id)])).toBe(0);
    expect(await admin.zScore(webhookKeys.ready, id)).toBeNull();
    expect(await admin.hKeys(webhookKeys.deliveries)).toHaveLength(1); // the other endpoint's
  });

  it('a claim does the same work however long the backlog of an endpoint at its limit is', async () => {
    const hung = await register();
    const other = await register();
    const commandsOfOneClaim = async (key: string) => {
      await store.enqueue([item(other.id, key)], 2000);
      const before = await commandsRun();
      const claimed = await store.claimDue(3000, 32, 'n', 60_000, { perEndpoint: 4, inFlight: new Map([[hung.id, 4]]) });
      const ran = (await commandsRun()) - before;
      expect(claimed.map((c) => c.webhook_id)).toEqual([other.id]);
      return ran;
    };
    await store.enqueue(items(hung.id, 0, 3), 1000);
    const withShortBacklog = await commandsOfOneClaim('first');
    await enqueueInBatches(hung.id, 3000, 1000);
    const withLongBacklog = await commandsOfOneClaim('second');
    expect(withLongBacklog).toBeLessThan(30);
    expect(withLongBacklog).toBe(withShortBacklog);
  });

  it('moves deliveries of the former single due zset to their endpoints as it claims, and removes those of deleted endpoints', async () => {
    const { id } = await register();
    const gone = await register();
    await store.enqueue(items(id, 0, 3), 1000);
    await store.enqueue(items(gone.id, 0, 2), 1000);
    // The layout before per-endpoint due zsets: every pending delivery in svc:{wh}:due.
    for (const webhookId of [id, gone.id]) {
      await admin.zAdd(webhookKeys.legacyDue, await admin.zRangeWithScores(webhookKeys.due(webhookId), 0, -1));
      await admin.del(webhookKeys.due(webhookId));
    }
    await admin.del(webhookKeys.ready);
    await admin.hDel(webhookKeys.endpoints, gone.id); // deleted by a node that knew nothing of its deliveries
    const claimed = await store.claimDue(2000, 10, 'n', 60_000);
    expect(claimed.map((c) => c.event_id).sort()).toEqual(
      items(id, 0, 3)
        .map((i) => i.event.id)
        .sort(),
    );
    expect(await admin.exists(webhookKeys.legacyDue)).toBe(0);
    expect(await admin.hLen(webhookKeys.deliveries)).toBe(3);
    expect(await admin.zCard(webhookKeys.pending(gone.id))).toBe(0);
    await store.recordAttempt(claimed[0]!, 'n', { atMs: 2100, status: 500, error: 'HTTP 500', delivered: false, nextAttemptMs: 5000 });
    expect((await store.claimDue(5000, 10, 'n', 60_000)).map((c) => c.id)).toEqual([claimed[0]!.id]);
  });
});

describe('webhook outbox on SQLite', () => {
  let dir: string;
  let store: SqliteWebhookStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-sqlite-'));
    store = new SqliteWebhookStore(join(dir, 'svc.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const register = () =>
    store.createEndpoint({ customer_id: 'acme', url: 'http://127.0.0.1:1/x', events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_x' });
  /** `count` deliveries, one per millisecond from `fromMs` (prunes cut by creation time). */
  const enqueueApart = async (webhookId: string, count: number, fromMs: number) => {
    for (let i = 0; i < count; i++) await store.enqueue(items(webhookId, i, 1), fromMs + i);
  };
  const finishAll = async (atMs: number, keepPending = 0) => {
    const claimed = await store.claimDue(atMs, 100_000, 'n', 60_000);
    for (const c of claimed.slice(keepPending)) await store.recordAttempt(c, 'n', delivered(atMs));
    return claimed;
  };
  const sqlite = () => (store as unknown as { sqlite: { db: import('better-sqlite3').Database } }).sqlite.db;

  it('deliveries whose endpoint row is gone (deleted by hand, or before deletes took them along) take no claim slot and are removed as claims meet them', async () => {
    const gone = await register();
    const kept = await register();
    await store.enqueue(items(gone.id, 0, 10), 1000);
    await store.enqueue(items(kept.id, 0, 1), 2000);
    sqlite().prepare('DELETE FROM webhooks WHERE id = ?').run(gone.id);
    expect((await store.claimDue(3000, 5, 'n', 60_000)).map((c) => c.webhook_id)).toEqual([kept.id]);
    expect((await store.claimDue(1e12, 100, 'n', 60_000)).map((c) => c.webhook_id)).toEqual([kept.id]); // its lease ran out
    expect(sqlite().prepare('SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ?').pluck().get(gone.id)).toBe(0);
  });

  it(`keeps every delivery for the dedupe window, then the newest ${LOG_KEEP} finished per endpoint and every pending one`, async () => {
    const { id } = await register();
    await enqueueApart(id, LOG_KEEP + 100, 0);
    const claimed = await store.claimDue(5000, 100_000, 'n', 60_000);
    for (const c of claimed.slice(5)) await store.recordAttempt(c, 'n', delivered(5000)); // the 5 oldest stay pending
    expect(await store.pruneEndpoint(id, DEDUPE_KEEP_MS - 1)).toBe(0); // its dedupe keys may still come again
    expect(await store.listDeliveries('acme', id, 5000)).toHaveLength(LOG_KEEP + 100);
    expect(await store.pruneEndpoint(id, DEDUPE_KEEP_MS + 5000)).toBe(95);
    const log = await store.listDeliveries('acme', id, 5000);
    expect(log.filter((d) => d.status === 'delivered')).toHaveLength(LOG_KEEP);
    expect(
      log
        .filter((d) => d.status === 'pending')
        .map((d) => d.id)
        .sort(),
    ).toEqual(
      claimed
        .slice(0, 5)
        .map((c) => c.id)
        .sort(),
    );
    expect(await store.pruneEndpoint(id, DEDUPE_KEEP_MS + 5000)).toBe(0);
  });

  it('drops finished deliveries older than 30 days however few, at most 256 per prune', async () => {
    const { id } = await register();
    await enqueueApart(id, 300, 0);
    await finishAll(1000);
    expect(await store.pruneEndpoint(id, FINISHED_KEEP_MS - 1)).toBe(0);
    expect(await store.pruneEndpoint(id, FINISHED_KEEP_MS + 1000)).toBe(256);
    expect(await store.pruneEndpoint(id, FINISHED_KEEP_MS + 1000)).toBe(44);
    expect(await store.listDeliveries('acme', id, 500)).toEqual([]);
  });

  it('prunes as deliveries finish, without being asked', async () => {
    const { id } = await register();
    await enqueueApart(id, LOG_KEEP + 300, 0);
    await finishAll(4 * DAY);
    const finished = (await store.listDeliveries('acme', id, 5000)).length;
    expect(finished).toBeGreaterThanOrEqual(LOG_KEEP);
    expect(finished).toBeLessThan(LOG_KEEP + 100); // within one prune interval of the newest 1,000
  });
});
