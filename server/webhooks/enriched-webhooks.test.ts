/**
 * Payload versions end to end over real HTTP: endpoints choosing v1 or v2, the enriched v2 body a real
 * receiver gets after the tag's beacons (validated against the served JSON Schema), the endpoint's
 * settings changed with PATCH, and a signed test event answered with the receiver's status and body.
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

describe('webhook payload versions', () => {
  let server: TestServer;
  let v2: WebhookReceiver;
  let v1: WebhookReceiver;
  let v2Id: string;
  let v2Secret: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback', SVC_WEBHOOK_POLL_MS: '100' } });
    [v2, v1] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  });
  afterAll(async () => {
    await server?.close();
    await v2?.close();
    await v1?.close();
  });

  const admin = (path: string, method = 'GET', body?: unknown) =>
    fetch(`${server.url}/admin/api/customers/acme${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const beacon = (path: string, ip: string, session: string) => sendPageView(server.url, { path, ip, session });
  const schemaValidator = async (url: string) => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    return ajv.compile(await res.json());
  };

  it('an endpoint naming v2 gets it; one naming v1 keeps it (a new one naming none gets the newest: engagement-webhooks.test.ts)', async () => {
    const created = await admin('/webhooks', 'POST', {
      url: v2.url,
      events: ['account.visited', 'account.hot'],
      event_versions: { 'account.visited': 2, 'account.hot': 2 },
      hot_paths: ['/pricing*'],
      segment_names: true,
      scores: true,
    });
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body).toMatchObject({ event_versions: { 'account.visited': 2, 'account.hot': 2 }, segment_names: true, scores: true });
    v2Id = body.id;
    v2Secret = body.secret;
    const old = await admin('/webhooks', 'POST', { url: v1.url, events: ['account.visited'], event_versions: { 'account.visited': 1 } });
    expect((await old.json()).event_versions).toEqual({ 'account.visited': 1 });
  });

  it('an unknown version is a 422 naming /schemas', async () => {
    const res = await admin('/webhooks', 'POST', { url: v1.url, events: ['account.visited'], event_versions: { 'account.visited': 9 } });
    expect(res.status).toBe(422);
    expect((await res.json()).message).toMatch(/no version 9 of account.visited.*\/schemas/);
  });

  it('v2 carries the company, segments with names, scores, the visit’s pages in order and the session count; v1 stays ids', async () => {
    expect((await beacon('/', IPS.northwind, 'sess-aaaaaaaa')).status).toBe(204);
    expect((await beacon('/features', IPS.northwind, 'sess-aaaaaaaa')).status).toBe(204);
    expect((await beacon('/pricing', IPS.northwind, 'sess-aaaaaaaa')).status).toBe(204);
    await v2.waitFor(3); // visited (first view), hot (hot account: every path, capped) ×2 at least
    await v1.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    const events = v2.received.map((r) => ({ body: JSON.parse(r.body), req: r }));
    const validate = await schemaValidator(`${server.url}/schemas/account.visited/2.json`);
    for (const { body, req } of events) {
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      expect(verifySignature(req.headers['svc-signature'] as string, req.body, v2Secret, Math.floor(Date.now() / 1000))).toBe(true);
      expect(body.version).toBe(2);
    }
    const visited = events.find((e) => e.body.type === 'account.visited')!.body;
    expect(visited.data.company).toMatchObject({ companyId: '900001', name: expect.any(String), industry: 'Software' });
    expect(visited.data.segments.names.length).toBe(visited.data.segments.ids.length);
    expect(visited.data.segments.ids).toContain(101);
    expect(visited.data.scores.map((s: { product: string }) => s.product)).toEqual(['cdp']);
    expect(visited.data.visit).toMatchObject({ session_id: 'sess-aaaaaaaa', session_count: 1 });
    expect(visited.data.visit.pages.map((p: { path: string }) => p.path)).toEqual(['/']);
    const pricing = events.find((e) => e.body.type === 'account.hot' && e.body.data.page.path === '/pricing')!.body;
    expect(pricing.data.visit.pages.map((p: { path: string }) => p.path)).toEqual(['/', '/features', '/pricing']);

    const old = JSON.parse(v1.received[0]!.body);
    expect(old).not.toHaveProperty('version');
    expect(old.data.account).toMatchObject({ company_id: '900001', segment_ids: expect.arrayContaining([101]) });
    expect(old.data).not.toHaveProperty('company');
    const validateV1 = await schemaValidator(`${server.url}/schemas/account.visited/1.json`);
    expect(validateV1(old), JSON.stringify(validateV1.errors)).toBe(true);
  });

  it('PATCH changes settings and keeps chosen versions; names off → names empty', async () => {
    const res = await admin(`/webhooks/${v2Id}`, 'PATCH', { segment_names: false, events: ['account.visited', 'account.hot', 'tag.installed'] });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      segment_names: false,
      scores: true,
      events: ['account.visited', 'account.hot', 'tag.installed'],
      event_versions: { 'account.visited': 2, 'account.hot': 2, 'tag.installed': 1 },
    });
    expect((await admin(`/webhooks/${v2Id}`, 'PATCH', {})).status).toBe(422);
    expect((await admin(`/webhooks/${v2Id}`, 'PATCH', { url: 'ftp://x' })).status).toBe(422);
    expect((await admin('/webhooks/wh_nope', 'PATCH', { scores: false })).status).toBe(404);
    const audit = await (await admin('/audit')).json();
    expect(JSON.stringify(audit)).toContain('webhook.update');
  });

  it('a test event is signed, valid against its schema, and answered with the receiver’s status and body', async () => {
    v2.answer([418]);
    const before = v2.received.length;
    // Body-less POST, as curl -X POST sends it: the endpoint's first event in its version.
    const res = await fetch(`${server.url}/admin/api/customers/acme/webhooks/${v2Id}/test`, {
      method: 'POST',
      headers: { authorization: ADMIN.authorization },
    });
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out).toMatchObject({ delivered: false, status: 418, body: 'ok', error: null });
    expect(v2.received.length).toBe(before + 1);
    const got = v2.received[before]!;
    expect(got.headers['svc-test-event']).toBe('true');
    expect(verifySignature(got.headers['svc-signature'] as string, got.body, v2Secret, Math.floor(Date.now() / 1000))).toBe(true);
    expect(JSON.parse(got.body)).toEqual(out.event);
    const validate = await schemaValidator(`${server.url}/schemas/account.visited/2.json`);
    expect(validate(out.event), JSON.stringify(validate.errors)).toBe(true);

    for (const [type, version] of [
      ['account.hot', 1],
      ['segment.entered', 1],
      ['tag.installed', 1],
    ] as const) {
      const r = await admin(`/webhooks/${v2Id}/test`, 'POST', { type, version });
      const sent = await r.json();
      expect(sent).toMatchObject({ delivered: true, status: 200 });
      const check = await schemaValidator(`${server.url}/schemas/${type}/${version}.json`);
      expect(check(sent.event), JSON.stringify(check.errors)).toBe(true);
    }
    expect((await admin(`/webhooks/${v2Id}/test`, 'POST', { type: 'account.hot', version: 7 })).status).toBe(422);
    expect((await admin(`/webhooks/${v2Id}/test`, 'POST', { type: 'nope' })).status).toBe(422);
  });

  it('segment.entered: an account’s first view enters its segments; a later view enters only segments it was not in', async () => {
    const rx = await startWebhookReceiver();
    try {
      const created = await (await admin('/webhooks', 'POST', { url: rx.url, events: ['segment.entered', 'tag.installed'], segment_names: true })).json();
      expect(created.event_versions).toEqual({ 'segment.entered': 1, 'tag.installed': 1 });
      const entered = () => rx.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'segment.entered');
      expect((await beacon('/', IPS.bluepeak, 'sess-bbbbbbbb')).status).toBe(204);
      await rx.waitFor(1);
      expect(entered().map((e) => e.data.segment)).toEqual([{ id: 102, name: 'EMEA Manufacturing' }]);
      expect((await beacon('/about', IPS.bluepeak, 'sess-bbbbbbbb')).status).toBe(204);
      const segment = await (await admin('/segments', 'POST', { name: 'Bluepeak watch', match: { company_id: ['900002'] } })).json();
      expect((await beacon('/careers', IPS.bluepeak, 'sess-bbbbbbbb')).status).toBe(204);
      await rx.waitFor(2);
      await new Promise((r) => setTimeout(r, 300));
      expect(entered().map((e) => e.data.segment)).toEqual([
        { id: 102, name: 'EMEA Manufacturing' },
        { id: segment.id, name: 'Bluepeak watch' },
      ]);
      const validate = await schemaValidator(`${server.url}/schemas/segment.entered/1.json`);
      for (const e of entered()) expect(validate(e), JSON.stringify(validate.errors)).toBe(true);
      expect(entered()[1].data).toMatchObject({
        account: { company_id: '900002', excluded: true },
        company: { companyId: '900002' },
        page: { path: '/careers' },
      });

      // tag.installed: the tag's first lookup from a site it was never seen on.
      const lookup = await fetch(`${server.url}/v3/company/details?tag=acme-tag`, {
        headers: { origin: 'https://shop.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind },
      });
      expect(lookup.status).toBe(200);
      await expect.poll(() => rx.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'tag.installed').length, { timeout: 5000 }).toBe(1);
      const installed = rx.received.map((r) => JSON.parse(r.body)).find((e) => e.type === 'tag.installed');
      expect(installed.data).toMatchObject({ tag_id: 'acme-tag', origin: 'https://shop.acme.test' });
      const validateInstalled = await schemaValidator(`${server.url}/schemas/tag.installed/1.json`);
      expect(validateInstalled(installed), JSON.stringify(validateInstalled.errors)).toBe(true);
      // Seen again: not installed again.
      await fetch(`${server.url}/v3/company/details?tag=acme-tag`, {
        headers: { origin: 'https://shop.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.bluepeak },
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'tag.installed')).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it('a test event to a receiver that is down says so without an address', async () => {
    const gone = await startWebhookReceiver();
    const url = gone.url;
    await gone.close();
    const created = await (await admin('/webhooks', 'POST', { url, events: ['account.visited'] })).json();
    const out = await (await admin(`/webhooks/${created.id}/test`, 'POST')).json();
    expect(out).toMatchObject({ delivered: false, status: null, error: 'connection refused' });
  });
});
