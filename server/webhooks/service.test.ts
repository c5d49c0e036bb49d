import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { SqliteWebhookStore } from '../state/outbox/sqlite.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { RefusedDestinationError } from './destination.ts';
import { HOT_PATHS_PER_ACCOUNT_DAY, type PageViewForWebhooks } from './events.ts';
import { MAX_PER_ENDPOINT, WebhookService, type WebhookServiceOptions } from './service.ts';
import { verifySignature } from './signature.ts';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const view: PageViewForWebhooks = {
  customer_id: 'acme',
  tag_id: 'acme-tag',
  at: new Date(T0).toISOString(),
  day: '2026-11-23',
  company_id: '900001',
  company: { name: 'Northwind Analytics', domain: 'northwind.example' },
  path: '/pricing',
  referrer_host: null,
  session_id: 's1',
  origin: 'https://www.acme.test',
  first_of_day_for_account: true,
  segment_ids: [101],
  hot_account: false,
  excluded: false,
};

/** A receiver that holds the requests `hold` picks open (unanswered) until it is closed; answers the rest 200. */
async function startHoldingReceiver(hold: (n: number) => boolean = () => true) {
  const held: ServerResponse[] = [];
  let received = 0;
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const n = ++received;
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => open--);
    req.resume();
    if (hold(n)) held.push(res);
    else req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/svc`,
    held,
    received: () => received,
    maxOpen: () => maxOpen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('webhook delivery (real receiver, fake clock)', () => {
  let dir: string;
  let receiver: WebhookReceiver;
  let clock: number;
  const opened: Array<{ service: WebhookService; store: SqliteWebhookStore }> = [];
  /** A node: its own connection to the state file and its own dispatcher (receivers here are on 127.0.0.1). */
  const node = (opts: Partial<WebhookServiceOptions> = {}) => {
    const store = new SqliteWebhookStore(join(dir, 'svc.db'));
    const service = new WebhookService({ store, log: createLogger('silent'), now: () => clock, timeoutMs: 2000, allowPrivate: true, ...opts });
    opened.push({ service, store });
    return { store, service };
  };
  const register = async (store: SqliteWebhookStore, events: Array<'account.visited' | 'account.hot'> = ['account.visited'], hot_paths: string[] = []) =>
    store.createEndpoint({ customer_id: 'acme', url: receiver.url, events, hot_paths, description: '', secret: 'whsec_s3cret' });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-webhook-service-'));
    receiver = await startWebhookReceiver();
    clock = T0;
  });
  afterEach(async () => {
    for (const { service, store } of opened.splice(0)) {
      await service.stop();
      await store.close();
    }
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('posts the event as JSON with a signature the receiver verifies and a unique event id', async () => {
    const { store, service } = node();
    await register(store);
    expect(await service.onPageView(view)).toBe(1);
    expect(await service.runDue()).toBe(1);
    const [req] = receiver.received;
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(verifySignature(req!.headers['svc-signature'] as string, req!.body, 'whsec_s3cret', Math.floor(clock / 1000))).toBe(true);
    expect(verifySignature(req!.headers['svc-signature'] as string, req!.body, 'whsec_wrong', Math.floor(clock / 1000))).toBe(false);
    const body = JSON.parse(req!.body);
    expect(body).toMatchObject({
      type: 'account.visited',
      customer_id: 'acme',
      data: { account: { company_id: '900001', name: 'Northwind Analytics', segment_ids: [101] } },
    });
    expect(req!.headers['svc-event-id']).toBe(body.id);
    expect(body.id).toMatch(/^evt_[0-9a-f]{24}$/);
  });

  it('a 500 then a 200 is delivered exactly once, the retry about a minute later', async () => {
    const { store, service } = node();
    const { id } = await register(store);
    receiver.answer([500]);
    await service.onPageView(view);
    await service.runDue();
    expect(receiver.received).toHaveLength(1);
    const [log1] = await store.listDeliveries('acme', id, 10);
    expect(log1).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status: 500,
      last_error: 'HTTP 500',
      next_attempt_at: new Date(T0 + 60_000).toISOString(),
    });
    clock += 59_000;
    expect(await service.runDue()).toBe(0);
    clock += 1_000;
    expect(await service.runDue()).toBe(1);
    clock += 24 * 3_600_000;
    expect(await service.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['svc-event-id']).toBe(receiver.received[0]!.headers['svc-event-id']);
    expect(receiver.received[1]!.headers['svc-delivery-attempt']).toBe('2');
    expect((await store.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200 });
  });

  it('a restart between attempts still delivers (the outbox is in the state file)', async () => {
    const first = node();
    const { id } = await register(first.store);
    receiver.answer([503]);
    await first.service.onPageView(view);
    await first.service.runDue();
    await first.service.stop();
    await first.store.close();
    opened.splice(0);

    clock += 60_000;
    const second = node();
    expect(await second.service.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    expect((await second.store.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('backs off 1 min, 5 min, 30 min, 2 h, 6 h and then gives up', async () => {
    const { store, service } = node();
    const { id } = await register(store);
    receiver.answer([], 500);
    await service.onPageView(view);
    const attemptsAt: number[] = [];
    for (let minute = 0; minute <= 10 * 60; minute++) {
      clock = T0 + minute * 60_000;
      if ((await service.runDue()) > 0) attemptsAt.push(minute);
    }
    expect(attemptsAt).toEqual([0, 1, 6, 36, 156, 516]);
    expect((await store.listDeliveries('acme', id, 10))[0]).toMatchObject({ status: 'failed', attempts: 6, next_attempt_at: null });
  });

  it('with two nodes polling the same outbox, each event is delivered once', async () => {
    const a = node();
    const b = node();
    await register(a.store, ['account.visited', 'account.hot'], ['/pricing*']);
    for (let i = 0; i < 30; i++) await (i % 2 ? a : b).service.onPageView({ ...view, company_id: String(910000 + i) });
    await Promise.all([a.service.runDue(), b.service.runDue(), a.service.runDue(), b.service.runDue()]);
    await Promise.all([a.service.runDue(), b.service.runDue()]);
    const ids = receiver.received.map((r) => r.headers['svc-event-id']);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
  });

  it('the same account on the same day raises account.visited once, even from two nodes', async () => {
    const a = node();
    const b = node();
    await register(a.store);
    await a.service.onPageView(view);
    await b.service.onPageView({ ...view, path: '/other' });
    await a.service.runDue();
    expect(receiver.received).toHaveLength(1);
  });

  it('an unreachable receiver or a timeout counts as a failed attempt', async () => {
    const { store, service } = node();
    const { id } = await store.createEndpoint({
      customer_id: 'acme',
      url: 'http://127.0.0.1:9/closed',
      events: ['account.visited'],
      hot_paths: [],
      description: '',
      secret: 'whsec_x',
    });
    await service.onPageView(view);
    await service.runDue();
    const [entry] = await store.listDeliveries('acme', id, 1);
    expect(entry).toMatchObject({ status: 'pending', attempts: 1, last_status: null, last_error: 'connection refused' }); // never the address or port
  });

  it('a receiver on a private address (here localhost, registered past the admin API) is never posted to unless allowed; the log says why without the address', async () => {
    const refusing = node({ allowPrivate: undefined }); // the default: public addresses only
    const url = new URL(receiver.url);
    const { id } = await refusing.store.createEndpoint({
      customer_id: 'acme',
      url: `http://localhost:${url.port}${url.pathname}`,
      events: ['account.visited'],
      hot_paths: [],
      description: '',
      secret: 'whsec_s3cret',
    });
    await refusing.service.onPageView(view);
    expect(await refusing.service.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    const [entry] = await refusing.store.listDeliveries('acme', id, 1);
    expect(entry).toMatchObject({ status: 'pending', attempts: 1, last_status: null, last_error: new RefusedDestinationError().message });
    expect(entry!.last_error).not.toContain(url.port);

    clock += 60_000;
    const allowing = node({ allowPrivate: true });
    expect(await allowing.service.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect((await allowing.store.listDeliveries('acme', id, 1))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it(`account.hot: at most ${HOT_PATHS_PER_ACCOUNT_DAY} distinct paths per account, day and endpoint, also with two nodes enqueueing at once`, async () => {
    const a = node();
    const b = node();
    await register(a.store, ['account.hot'], ['/*']);
    const added = await Promise.all(
      Array.from({ length: 3 * HOT_PATHS_PER_ACCOUNT_DAY }, (_, i) => (i % 2 ? a : b).service.onPageView({ ...view, path: `/page-${i}` })),
    );
    expect(added.reduce((x, y) => x + y, 0)).toBe(HOT_PATHS_PER_ACCOUNT_DAY);
    expect(await a.service.onPageView({ ...view, path: '/page-0' })).toBe(0);
    // Another account, and the same account the next day, count on their own.
    expect(await a.service.onPageView({ ...view, company_id: '900002', path: '/page-0' })).toBe(1);
    expect(await b.service.onPageView({ ...view, day: '2026-11-24', path: '/page-0' })).toBe(1);
    await a.service.runDue();
    expect(receiver.received).toHaveLength(HOT_PATHS_PER_ACCOUNT_DAY + 2);
  });
});

describe('webhook delivery flows (real clock, receivers that hold requests open)', () => {
  let dir: string;
  let store: SqliteWebhookStore;
  let service: WebhookService;
  let healthy: WebhookReceiver;
  const view = (customer_id: string, company: number): PageViewForWebhooks => ({
    customer_id,
    tag_id: `${customer_id}-tag`,
    at: new Date().toISOString(),
    day: new Date().toISOString().slice(0, 10),
    company_id: String(company),
    company: null,
    path: '/',
    referrer_host: null,
    session_id: null,
    origin: null,
    first_of_day_for_account: true,
    segment_ids: [],
    hot_account: false,
    excluded: false,
  });
  const register = (customer_id: string, url: string) =>
    store.createEndpoint({ customer_id, url, events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_s3cret' });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-webhook-flow-'));
    store = new SqliteWebhookStore(join(dir, 'svc.db'));
    healthy = await startWebhookReceiver();
    // A long timeout: the held requests stay in flight for the whole test (closing the receiver ends them).
    service = new WebhookService({ store, log: createLogger('silent'), timeoutMs: 30_000, allowPrivate: true });
  });
  afterEach(async () => {
    await healthy.close();
    await service.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("one customer's hung receiver with 60 events waiting does not delay another customer's event: it goes out while every attempt at the hung one is still in flight", async () => {
    const hung = await startHoldingReceiver();
    try {
      const a = await register('customer-a', hung.url);
      await register('customer-b', healthy.url);
      for (let i = 0; i < 60; i++) await service.onPageView(view('customer-a', 910_000 + i));
      await service.onPageView(view('customer-b', 920_000)); // the last in due order
      service.start(50);
      await healthy.waitFor(1);
      // Order, not time: B is delivered before any attempt at A has ended.
      expect((await store.listDeliveries('customer-a', a.id, 100)).filter((d) => d.attempts > 0)).toEqual([]);
      await waitUntil(() => hung.received() === MAX_PER_ENDPOINT, `${MAX_PER_ENDPOINT} requests at the hung receiver`);
      await new Promise((r) => setTimeout(r, 300)); // several polls
      expect(hung.received()).toBe(MAX_PER_ENDPOINT); // the other 56 wait: its slots are full
      expect(healthy.received).toHaveLength(1);
    } finally {
      await hung.close();
    }
  });

  it("an attempt that ends frees its slot at once: one request held open does not hold back the endpoint's other deliveries", async () => {
    const firstHeld = await startHoldingReceiver((n) => n === 1);
    try {
      const { id } = await register('acme', firstHeld.url);
      for (let i = 0; i < 30; i++) await service.onPageView(view('acme', 910_000 + i));
      service.start(50);
      await waitUntil(() => firstHeld.received() === 30, 'all 30 requests');
      expect(firstHeld.held).toHaveLength(1); // still unanswered: the other 29 went past it
      expect(firstHeld.maxOpen()).toBeLessThanOrEqual(MAX_PER_ENDPOINT);
      await waitUntil(async () => (await store.listDeliveries('acme', id, 100)).filter((d) => d.status === 'delivered').length === 29, '29 delivered');
    } finally {
      await firstHeld.close();
    }
  });
});
