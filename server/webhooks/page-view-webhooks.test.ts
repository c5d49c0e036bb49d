/**
 * End to end over real HTTP: the tag's page-view beacon (POST /v1/events, text/plain, a Chrome User-Agent,
 * the page's Origin) → recorded → account.visited / account.hot enqueued → signed POSTs to a real receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendPageView } from '../testing/page-view.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { verifySignature } from './signature.ts';

describe('page views raise signed webhooks', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let secret: string;
  beforeAll(async () => {
    // A fast poll: the server's own dispatcher delivers, as in production.
    server = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback', SVC_WEBHOOK_POLL_MS: '100' } });
    receiver = await startWebhookReceiver();
    const res = await fetch(`${server.url}/admin/api/customers/acme/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      // v1 payloads (ids and the page): what endpoints created before payload versions get.
      body: JSON.stringify({
        url: receiver.url,
        events: ['account.visited', 'account.hot'],
        hot_paths: ['/pricing*'],
        event_versions: { 'account.visited': 1, 'account.hot': 1 },
      }),
    });
    expect(res.status).toBe(201);
    ({ secret } = await res.json());
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const beacon = (path: string, ip: string) => sendPageView(server.url, { path, ip });

  it('an account first view of the day → account.visited; a pricing view → account.hot; anonymous views → nothing', async () => {
    expect((await beacon('/', IPS.bluepeak)).status).toBe(204); // first view of the day, not hot
    expect((await beacon('/blog', IPS.bluepeak)).status).toBe(204); // not first, not hot
    expect((await beacon('/pricing?utm_source=ad', IPS.bluepeak)).status).toBe(204); // hot path
    expect((await beacon('/pricing', IPS.isp)).status).toBe(204); // anonymous (ISP network)
    await receiver.waitFor(2);
    await new Promise((r) => setTimeout(r, 500)); // nothing more arrives
    const events = receiver.received.map((r) => ({ body: JSON.parse(r.body), req: r }));
    expect(events.map((e) => e.body.type).sort()).toEqual(['account.hot', 'account.visited']);
    for (const { body, req } of events) {
      expect(verifySignature(req.headers['svc-signature'] as string, req.body, secret, Math.floor(Date.now() / 1000))).toBe(true);
      expect(req.headers['svc-event-id']).toBe(body.id);
      expect(body.data.account).toMatchObject({
        company_id: '900002',
        name: 'Bluepeak Fertigung GmbH',
        domain: 'bluepeak.example',
        segment_ids: [102],
        excluded: true,
      });
    }
    expect(events.find((e) => e.body.type === 'account.hot')!.body.data.page.path).toBe('/pricing?utm_source=ad');
  });
});

describe('SVC_WEBHOOK_ALLOW_PRIVATE=0 (the default outside tests)', () => {
  it('a receiver on a private address gets nothing, however it was registered', async () => {
    const server = await startTestServer({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: '0', SVC_WEBHOOK_POLL_MS: '3600000' } });
    const receiver = await startWebhookReceiver();
    try {
      expect(server.webhooks.allowPrivate).toBe(false);
      // Straight into the store, past any check at registration: delivery checks again at connect time.
      const { id } = await server.webhookStore.createEndpoint({
        customer_id: 'acme',
        url: receiver.url,
        events: ['account.visited'],
        hot_paths: [],
        description: '',
        secret: 'whsec_private_test',
      });
      const now = new Date();
      await server.webhooks.onPageView({
        customer_id: 'acme',
        tag_id: 'acme-tag',
        at: now.toISOString(),
        day: now.toISOString().slice(0, 10),
        company_id: '900001',
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
      expect(await server.webhooks.runDue()).toBe(1);
      expect(receiver.received).toHaveLength(0);
      expect((await server.webhookStore.listDeliveries('acme', id, 1))[0]).toMatchObject({
        attempts: 1,
        last_error: expect.stringMatching(/non-public address/),
      });
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});
