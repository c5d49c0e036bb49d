import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../http/logger.ts';
import { SqliteWebhookStore } from '../state/sqlite-webhooks.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import type { PageViewForWebhooks } from './events.ts';
import { WebhookService } from './service.ts';
import { verifySignature } from './signature.ts';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const view: PageViewForWebhooks = {
  customer_id: 'acme', tag_id: 'acme-tag', at: new Date(T0).toISOString(), day: '2026-11-23', company_id: '900001',
  company: { name: 'Northwind Analytics', domain: 'northwind.example' }, path: '/pricing', referrer_host: null, session_id: 's1',
  origin: 'https://www.acme.test', first_of_day_for_account: true, segment_ids: [101], hot_account: false, excluded: false,
};

describe('webhook delivery (real receiver, fake clock)', () => {
  let dir: string;
  let receiver: WebhookReceiver;
  let clock: number;
  const opened: Array<{ service: WebhookService; store: SqliteWebhookStore }> = [];
  /** A node: its own connection to the state file and its own dispatcher. */
  const node = () => {
    const store = new SqliteWebhookStore(join(dir, 'svc.db'));
    const service = new WebhookService({ store, log: createLogger('silent'), now: () => clock, timeoutMs: 2000 });
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
    expect(body).toMatchObject({ type: 'account.visited', customer_id: 'acme', data: { account: { company_id: '900001', name: 'Northwind Analytics', segment_ids: [101] } } });
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
    expect(log1).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500', next_attempt_at: new Date(T0 + 60_000).toISOString() });
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
    const { id } = await store.createEndpoint({ customer_id: 'acme', url: 'http://127.0.0.1:9/closed', events: ['account.visited'], hot_paths: [], description: '', secret: 'whsec_x' });
    await service.onPageView(view);
    await service.runDue();
    const [entry] = await store.listDeliveries('acme', id, 1);
    expect(entry).toMatchObject({ status: 'pending', attempts: 1, last_status: null });
    expect(entry!.last_error).toMatch(/fetch failed|ECONNREFUSED/);
  });
});
