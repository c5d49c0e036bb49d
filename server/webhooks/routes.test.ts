import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { verifySignature } from './signature.ts';

describe('webhooks admin API (real server, real receiver)', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    server.request(`/admin/api${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  it('registers an endpoint: 201 with the signing secret shown once, never again', async () => {
    const res = await admin('/customers/acme/webhooks', {
      method: 'POST',
      body: { url: receiver.url, events: ['account.visited', 'account.hot'], hot_paths: ['/pricing*'] },
    });
    expect(res.status).toBe(201);
    const created = await res.json();
    expect(created).toMatchObject({ customer_id: 'acme', url: receiver.url, events: ['account.visited', 'account.hot'], hot_paths: ['/pricing*'] });
    expect(created.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    const listed = await (await admin('/customers/acme/webhooks')).json();
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(JSON.stringify(await (await admin(`/customers/acme/webhooks/${created.id}`)).json())).not.toContain(created.secret);
  });

  it('refuses bad registrations with 422 naming the field, unknown customers and endpoints with 404', async () => {
    for (const body of [
      { url: 'ftp://x.example/', events: ['account.visited'] },
      { url: 'not a url', events: ['account.visited'] },
      { url: 'https://u:p@x.example/', events: ['account.visited'] },
      { url: receiver.url, events: [] },
      { url: receiver.url, events: ['account.deleted'] },
      { url: receiver.url, events: ['account.hot'], hot_paths: ['pricing'] },
    ]) {
      const res = await admin('/customers/acme/webhooks', { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(await res.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/url|events|hot_paths/) });
    }
    expect((await admin('/customers/nobody/webhooks', { method: 'POST', body: { url: receiver.url, events: ['account.visited'] } })).status).toBe(404);
    expect((await admin('/customers/acme/webhooks/wh_nope/deliveries')).status).toBe(404);
    expect((await admin('/customers/acme/webhooks/wh_nope', { method: 'DELETE' })).status).toBe(404);
  });

  it('needs the admin token', async () => {
    const res = await server.request(`/admin/api/customers/acme/webhooks`);
    expect(res.status).toBe(401);
  });

  it('delivers a page view event signed with the secret it showed, and logs the delivery', async () => {
    // Its own receiver: the endpoint registered above also subscribes to /pricing*.
    const own = await startWebhookReceiver();
    const created = await (
      await admin('/customers/acme/webhooks', { method: 'POST', body: { url: own.url, events: ['account.hot'], hot_paths: ['/pricing*'] } })
    ).json();
    const now = new Date();
    await server.webhooks.onPageView({
      customer_id: 'acme',
      tag_id: 'acme-tag',
      at: now.toISOString(),
      day: now.toISOString().slice(0, 10),
      company_id: '900001',
      company: null,
      path: '/pricing/enterprise',
      referrer_host: null,
      session_id: 's',
      origin: 'http://localhost',
      first_of_day_for_account: false,
      segment_ids: [101],
      hot_account: false,
      excluded: false,
    });
    await server.webhooks.runDue();
    const [req] = await own.waitFor(1);
    await own.close();
    expect(JSON.parse(req!.body).type).toBe('account.hot');
    expect(verifySignature(req!.headers['svc-signature'] as string, req!.body, created.secret, Math.floor(Date.now() / 1000))).toBe(true);
    const log = await (await admin(`/customers/acme/webhooks/${created.id}/deliveries`)).json();
    expect(log).toEqual([
      expect.objectContaining({
        event_id: req!.headers['svc-event-id'],
        type: 'account.hot',
        status: 'delivered',
        attempts: 1,
        last_status: 200,
        last_error: null,
      }),
    ]);
  });

  it('deletes an endpoint with 204', async () => {
    const created = await (await admin('/customers/acme/webhooks', { method: 'POST', body: { url: receiver.url, events: ['account.visited'] } })).json();
    expect((await admin(`/customers/acme/webhooks/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/customers/acme/webhooks/${created.id}`)).status).toBe(404);
  });
});

describe('webhooks across a server restart (real server processes on one state file, fake clock)', () => {
  it('an attempt that failed before the restart is retried by the restarted server', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const stateDir = mkdtempSync(join(tmpdir(), 'svc-webhook-restart-'));
    const receiver = await startWebhookReceiver();
    let clock = Date.parse('2026-11-23T10:00:00Z');
    // A long poll interval: the test drives every pass itself.
    const env = { SVC_STATE: join(stateDir, 'svc.db'), SVC_WEBHOOK_POLL_MS: '3600000' };
    try {
      const before = await startTestServer({ env, now: () => clock });
      const res = await before.request(`/admin/api/customers/acme/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['account.visited'] }),
      });
      const { secret } = await res.json();
      receiver.answer([500]);
      await before.webhooks.onPageView({
        customer_id: 'acme',
        tag_id: 'acme-tag',
        at: new Date(clock).toISOString(),
        day: '2026-11-23',
        company_id: '900001',
        company: null,
        path: '/',
        referrer_host: null,
        session_id: 's',
        origin: 'http://localhost',
        first_of_day_for_account: true,
        segment_ids: [],
        hot_account: false,
        excluded: false,
      });
      await before.webhooks.runDue();
      expect(receiver.received.map((r) => r.headers['svc-delivery-attempt'])).toEqual(['1']);
      await before.close();

      clock += 60_000;
      const after = await startTestServer({ env, now: () => clock });
      await after.webhooks.runDue();
      await after.close();
      expect(receiver.received.map((r) => r.headers['svc-delivery-attempt'])).toEqual(['1', '2']);
      expect(receiver.received[1]!.headers['svc-event-id']).toBe(receiver.received[0]!.headers['svc-event-id']);
      expect(verifySignature(receiver.received[1]!.headers['svc-signature'] as string, receiver.received[1]!.body, secret, Math.floor(clock / 1000))).toBe(
        true,
      );
    } finally {
      await receiver.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
