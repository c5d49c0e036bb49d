/**
 * One connection policy per store backend: on Redis a node holds one command client (the state store's,
 * shared with the visit store and the webhook outbox) plus one subscriber, never a client per store.
 * Counted on a real redis-server of this file alone (`CLIENT LIST`), where every other connection is ours.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { openBackend } from './backend.ts';
import type { WebhookStore } from './outbox/store.ts';
import type { VisitStore } from './visits/store.ts';

let redis: RedisServer;
let admin: ReturnType<typeof createClient>;
let adminId: number;
let dir: string;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  redis = await startRedisServer();
  admin = createClient({ url: redis.url });
  await admin.connect();
  adminId = Number(await admin.sendCommand(['CLIENT', 'ID']));
  dir = mkdtempSync(join(tmpdir(), 'svc-redis-connections-'));
}, 30_000);
afterAll(async () => {
  await admin?.close();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** This process's connections to the redis-server, but for the admin one that asks. */
async function connections(): Promise<{ id: number; pubsub: boolean }[]> {
  const list = String(await admin.sendCommand(['CLIENT', 'LIST']));
  return list
    .trim()
    .split('\n')
    .map((line) => Object.fromEntries(line.split(' ').map((field) => field.split('=', 2) as [string, string])))
    .filter((c) => Number(c.id) !== adminId)
    .map((c) => ({ id: Number(c.id), pubsub: c.flags.includes('P') || Number(c.sub) > 0 }));
}

async function expectOneClientOneSubscriber(): Promise<void> {
  const now = await connections();
  expect(now).toHaveLength(2);
  expect(now.filter((c) => c.pubsub)).toHaveLength(1);
}

/** The visit store and the outbox still work on the shared client. */
async function exercise(visits: VisitStore, webhooks: WebhookStore, customer: string): Promise<void> {
  const at = new Date().toISOString();
  await visits.recordPageView({ customer_id: customer, day: today, company_id: '900001', path: '/pricing', session_id: 's1', at });
  expect(await visits.accountVisits(customer, today, today)).toEqual([
    expect.objectContaining({ company_id: '900001', page_views: 1, sessions: 1, top_pages: [{ path: '/pricing', page_views: 1 }] }),
  ]);
  const created = await webhooks.createEndpoint({
    customer_id: customer,
    url: 'https://hooks.example.com/svc',
    events: ['account.visited'],
    hot_paths: [],
    description: 'crm',
    secret: `whsec_${'a'.repeat(32)}`,
  });
  expect((await webhooks.listEndpoints(customer)).map((e) => e.id)).toEqual([created.id]);
}

describe('Redis connections of a node', () => {
  let node: TestServer | null = null;
  afterEach(async () => {
    await node?.close();
    node = null;
    await admin.flushAll();
  });

  it('a server node holds one command client and one subscriber; the visit store and the outbox use the client', async () => {
    node = await startTestServer({ env: { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(dir, 'node') } });
    await expectOneClientOneSubscriber();
    await exercise(node.recorder.visits, node.webhookStore, TEST_CUSTOMER.id);
    await expectOneClientOneSubscriber();
    await node.close();
    node = null;
    // The state store closed the shared client last: nothing left behind.
    expect(await connections()).toEqual([]);
  });

  it('closing the visit store and the outbox leaves the shared client to the state store', async () => {
    const config = { SVC_STATE: join(dir, 'unused.db'), SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(dir, 'cli'), SVC_OUTAGE_ALLOWANCE: 10 };
    // As serve.ts and the CLI open them: every store of the backend on the state store's client.
    const backend = await openBackend(config, () => {});
    const { state, visits, outbox: webhooks } = backend;
    try {
      await expectOneClientOneSubscriber();
      await exercise(visits, webhooks, 'acme');
      await visits.close();
      await webhooks.close();
      await expectOneClientOneSubscriber();
      // The state store still answers on it; the closed stores refuse.
      expect(await state.setSettingIfAbsent('connections-test', '1')).toBe(true);
      await expect(visits.accountVisits('acme', today, today)).rejects.toThrow(/closed/);
      await expect(webhooks.listEndpoints('acme')).rejects.toThrow(/closed/);
    } finally {
      await backend.close();
    }
    expect(await connections()).toEqual([]);
  });
});
