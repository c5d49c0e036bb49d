/**
 * A burst drains completely, on every backend: 19 JSON endpoints of one customer on one loopback receiver,
 * then 80 companies × 3 page views (`/`, `/pricing`, `/pricing/b`) at once — the shape that stalled the
 * dispatcher after ~1,000 deliveries (a poll arriving while all MAX_IN_FLIGHT slots were busy left a settled
 * claim behind, and every later claim joined it) — and a larger one. The server's own poll delivers, as in
 * production; the test waits for the receiver and fails with the counts when the outbox stops draining.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createClient, type RedisClientType } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { webhookOldestDue } from '../observability/metrics.ts';
import { RedisWebhookStore } from '../state/outbox/redis.ts';
import { SqliteWebhookStore } from '../state/outbox/sqlite.ts';
import type { WebhookStore } from '../state/outbox/store.ts';
import { openRedis } from '../state/redis/connection.ts';
import { type RedisCluster, startRedisCluster } from '../testing/redis-cluster.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import type { PageViewForWebhooks } from './events.ts';
import { OLDEST_DUE_WARN_MS, WebhookService } from './service.ts';

const ENDPOINTS = 19;
const PATHS = ['/', '/pricing', '/pricing/b'];

/** A fast receiver that answers after a short pause, so the node's slots fill up as under real latency. */
async function startCountingReceiver(delayMs: number) {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        received++;
        res.end('ok');
      }, delayMs),
    );
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function pageView(company: number, path: string, first: boolean): PageViewForWebhooks {
  const at = new Date();
  return {
    customer_id: 'demo',
    tag_id: 'demo-web-tag',
    at: at.toISOString(),
    day: at.toISOString().slice(0, 10),
    company_id: String(100000 + company),
    company: { name: `Company ${company}`, domain: `company-${company}.example` },
    path,
    referrer_host: null,
    session_id: `session-${company}`,
    origin: 'http://localhost',
    first_of_day_for_account: first,
    segment_ids: [],
    hot_account: false,
    excluded: false,
  };
}

/** Registers the endpoints, raises the burst's page views all at once, and waits for every delivery. */
async function burst(store: WebhookStore, companies: number, receiverDelayMs: number) {
  const receiver = await startCountingReceiver(receiverDelayMs);
  const service = new WebhookService({ store, log: createLogger('silent'), allowPrivate: true, timeoutMs: 10_000 });
  try {
    for (let i = 0; i < ENDPOINTS; i++) {
      await store.createEndpoint({
        customer_id: 'demo',
        url: `${receiver.url}/${i}`,
        events: ['account.visited', 'account.hot', 'segment.entered', 'tag.installed'],
        hot_paths: ['/pricing*'],
        description: `burst ${i}`,
        secret: `whsec_burst_${i}_0123456789`,
      });
    }
    service.start(50);
    const views = Array.from({ length: companies }, (_, c) => PATHS.map((path, i) => pageView(c, path, i === 0))).flat();
    const added = (await Promise.all(views.map((v) => service.onPageView(v)))).reduce((a, b) => a + b, 0);
    // visited once per account, hot once per account and hot path (both pricing pages match /pricing*).
    expect(added).toBe(ENDPOINTS * companies * 3);
    let last = -1;
    let stillSince = Date.now();
    while (receiver.received() < added) {
      await new Promise((r) => setTimeout(r, 100));
      const now = receiver.received();
      if (now !== last) {
        last = now;
        stillSince = Date.now();
      }
      // Not a timing assertion: a dispatcher that keeps delivering is never cut off; one that delivers
      // nothing for 20 s with deliveries due has stalled.
      if (Date.now() - stillSince > 20_000) throw new Error(`outbox stalled: ${now} of ${added} delivered, nothing for 20 s`);
    }
    await new Promise((r) => setTimeout(r, 200)); // attempts record their result after the answer
    // Stopped (it waits for the attempts and the poll's backlog read under way), so the read below is the last.
    await service.stop();
    expect(receiver.received()).toBe(added); // each exactly once
    expect(await store.oldestDueAt(Date.now())).toBeNull();
    expect(await service.checkBacklog()).toBe(0);
    expect((await webhookOldestDue.get()).values[0]?.value).toBe(0);
  } finally {
    await service.stop();
    await receiver.close();
  }
}

let redis: RedisServer;
let cluster: RedisCluster;
beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([redis?.close(), cluster?.close()]);
});

const backends: Array<[string, () => Promise<{ store: WebhookStore; cleanup(): Promise<void> }>]> = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-burst-'));
      const store = new SqliteWebhookStore(join(dir, 'svc.db'));
      return {
        store,
        cleanup: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    'Redis',
    async () => {
      const admin = createClient({ url: redis.url });
      await admin.connect();
      await admin.flushAll();
      await admin.close();
      const store = await RedisWebhookStore.open(redis.url);
      return { store, cleanup: () => store.close() };
    },
  ],
  [
    'Redis Cluster',
    async () => {
      await cluster.flush();
      const client: RedisClientType = openRedis({ url: cluster.url, cluster: true });
      await client.connect();
      const store = await RedisWebhookStore.open(client);
      return {
        store,
        cleanup: async () => {
          await store.close();
          await client.close();
        },
      };
    },
  ],
];

describe.each(backends)('a webhook burst drains completely: %s', (_name, open) => {
  it('19 endpoints × 80 companies × 3 page views (4,560 deliveries), a receiver answering in 5 ms', { timeout: 180_000 }, async () => {
    const { store, cleanup } = await open();
    try {
      await burst(store, 80, 5);
    } finally {
      await cleanup();
    }
  });

  it('19 endpoints × 300 companies × 3 page views (17,100 deliveries), an instant receiver', { timeout: 300_000 }, async () => {
    const { store, cleanup } = await open();
    try {
      await burst(store, 300, 0);
    } finally {
      await cleanup();
    }
  });
});

describe('the oldest due delivery', () => {
  it('is measured in svc_webhook_oldest_due_seconds and logged once it has waited more than a minute', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-burst-'));
    const store = new SqliteWebhookStore(join(dir, 'svc.db'));
    let clock = Date.parse('2026-12-06T10:00:00Z');
    const lines: string[] = [];
    const log = createLogger('info', {
      destination: new Writable({
        write: (c, _e, done) => {
          lines.push(String(c));
          done();
        },
      }),
      pretty: false,
    });
    // No dispatcher runs (start is never called): what a stalled one looks like from the outside.
    const service = new WebhookService({ store, log, now: () => clock, allowPrivate: true });
    try {
      await store.createEndpoint({
        customer_id: 'demo',
        url: 'http://127.0.0.1:1/x',
        events: ['account.visited'],
        hot_paths: [],
        description: '',
        secret: 'whsec_0123456789abcdef',
      });
      expect(await service.checkBacklog()).toBe(0);
      expect((await webhookOldestDue.get()).values[0]?.value).toBe(0);
      await service.onPageView({ ...pageView(1, '/', true), at: new Date(clock).toISOString(), day: '2026-12-06' });
      clock += 30_000;
      expect(await service.checkBacklog()).toBe(30_000);
      expect((await webhookOldestDue.get()).values[0]?.value).toBe(30);
      expect(lines.join('')).not.toMatch(/oldest due delivery/);
      clock += OLDEST_DUE_WARN_MS;
      expect(await service.checkBacklog()).toBe(90_000);
      expect(lines.join('')).toMatch(/the oldest due delivery has waited 90 s/);
      clock += 10_000; // within the minute: not logged again
      await service.checkBacklog();
      expect(lines.join('').match(/oldest due delivery/g)).toHaveLength(1);
    } finally {
      await service.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
