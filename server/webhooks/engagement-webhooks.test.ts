/**
 * Payload v3 of account.visited and account.hot over real HTTP: a new endpoint gets it, its body carries the
 * account's engaged time and custom events of the last 30 days (what the tag's beacons recorded before the
 * page view), valid against the served JSON Schema, signed; an endpoint that chose v2 gets v2 unchanged;
 * a test event in v3 is valid too.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { sendPageView } from '../testing/page-view.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { verifySignature } from './signature.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

describe('account events v3: engagement', () => {
  let server: TestServer;
  let v3: WebhookReceiver;
  let v2: WebhookReceiver;
  let secret = '';
  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback', SVC_WEBHOOK_POLL_MS: '100' } });
    [v3, v2] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  });
  afterAll(async () => {
    await server?.close();
    await v3?.close();
    await v2?.close();
  });

  const admin = (path: string, method = 'GET', body?: unknown) =>
    fetch(`${server.url}/admin/api/customers/acme${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const tagBeacon = (body: object) =>
    fetch(`${server.url}/v1/events?tag=acme-tag`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://www.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind },
      body: JSON.stringify({ session: 'sess-bbbbbbbb', path: '/pricing', ...body }),
    });
  const validator = async (event: string, version: number) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    return ajv.compile(await (await fetch(`${server.url}/schemas/${event}/${version}.json`)).json());
  };

  it('a new endpoint gets v3; one naming v2 keeps it', async () => {
    const created = await admin('/webhooks', 'POST', { url: v3.url, events: ['account.visited', 'account.hot'] });
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body.event_versions).toEqual({ 'account.visited': 3, 'account.hot': 3 });
    secret = body.secret;
    const old = await admin('/webhooks', 'POST', { url: v2.url, events: ['account.visited'], event_versions: { 'account.visited': 2 } });
    expect((await old.json()).event_versions).toEqual({ 'account.visited': 2 });
    const schemas = await (await fetch(`${server.url}/schemas`)).json();
    const listed = schemas.events.map((e: { name: string; version: number }) => `${e.name}@${e.version}`);
    expect(listed).toEqual(expect.arrayContaining(['account.visited@3', 'account.hot@3', 'engagement@1', 'event@1']));
  });

  it('v3 carries the account’s engaged seconds per page and its custom events; v2 does not', async () => {
    expect((await tagBeacon({ type: 'engagement', engaged_ms: 41_600 })).status).toBe(204);
    expect((await tagBeacon({ type: 'engagement', path: '/docs', engaged_ms: 5_000 })).status).toBe(204);
    expect((await tagBeacon({ type: 'event', name: 'demo_requested', properties: { plan: 'pro', email: 'jane@northwind.example' } })).status).toBe(204);
    await expect.poll(async () => (await server.recorder.engagement!.recentEvents('acme', '900001')).length, { timeout: 5000 }).toBe(1);
    await expect
      .poll(async () => (await server.recorder.engagement!.accountEngagement('acme', '900001', '2000-01-01', '2100-01-01')).time.length, { timeout: 5000 })
      .toBe(2);
    expect((await sendPageView(server.url, { path: '/', ip: IPS.northwind, session: 'sess-bbbbbbbb' })).status).toBe(204);
    await v3.waitFor(2); // visited and hot (a hot account's view)
    await v2.waitFor(1);
    const received = v3.received.find((r) => JSON.parse(r.body).type === 'account.visited')!;
    const visited = JSON.parse(received.body);
    expect(verifySignature(received.headers['svc-signature'] as string, received.body, secret, Math.floor(Date.now() / 1000))).toBe(true);
    const validate = await validator('account.visited', 3);
    expect(validate(visited), JSON.stringify(validate.errors)).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    expect(visited).toMatchObject({ version: 3, data: { company: { companyId: '900001' }, visit: { session_id: 'sess-bbbbbbbb' } } });
    expect(visited.data.engagement).toEqual({
      from: new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10),
      to: today,
      engaged_seconds: 47,
      pages: [
        { path: '/pricing', engaged_seconds: 42 },
        { path: '/docs', engaged_seconds: 5 },
      ],
      events: [{ name: 'demo_requested', count: 1 }],
      recent_events: [{ at: expect.any(String), name: 'demo_requested', path: '/pricing', properties: { plan: 'pro' } }],
    });
    const old = JSON.parse(v2.received[0]!.body);
    expect(old.version).toBe(2);
    expect(old.data).not.toHaveProperty('engagement');
    const validateV2 = await validator('account.visited', 2);
    expect(validateV2(old), JSON.stringify(validateV2.errors)).toBe(true);
  });

  it('a test event in v3 is valid against its schema', async () => {
    const endpoints: { id: string; url: string }[] = await (await admin('/webhooks')).json();
    const endpoint = endpoints.find((e) => e.url === v3.url)!;
    const res = await admin(`/webhooks/${endpoint.id}/test`, 'POST', { type: 'account.hot', version: 3 });
    expect(res.status).toBe(200);
    const { event } = await res.json();
    const validate = await validator('account.hot', 3);
    expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(event.data.engagement.events).toEqual([{ name: 'demo_requested', count: 1 }]);
  });
});
