/**
 * Every event schema checked against payloads a real run emitted: the tag in Chromium (svc:ready detail,
 * the dataLayer push, the page-view beacon as the browser sent it) → the real server records the view →
 * signed webhooks (account.visited v1 and v2, account.hot v2, segment.entered) reach a real receiver. Each
 * payload is validated against the JSON Schema the server serves at /schemas/<event>/<version>.json.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ADMIN_TOKEN, answerFor, dataLayer, events, failOnPageErrors, pick, recordEvents, serve, visitors, waitForEvent } from './helpers.ts';

const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, unknown>; body: any }[] = [];
const endpoints: string[] = [];

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
test.afterAll(async ({ request }) => {
  for (const id of endpoints) await request.delete(`/admin/api/customers/demo/webhooks/${id}`, { headers: ADMIN });
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});
failOnPageErrors();

async function validator(request: import('@playwright/test').APIRequestContext, name: string, version: number) {
  const res = await request.get(`/schemas/${name}/${version}.json`);
  expect(res.status(), `${name} v${version}`).toBe(200);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv.compile(await res.json());
}

async function expectValid(request: import('@playwright/test').APIRequestContext, name: string, version: number, payload: unknown) {
  const validate = await validator(request, name, version);
  expect(validate(payload), `${name} v${version}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(payload)}`).toBe(true);
}

test('the tag’s events, its beacon and the webhooks it causes validate against the served schemas', async ({ page, request }) => {
  // Every event listed, each URL answering.
  const listed = (await (await request.get('/schemas')).json()).events as { name: string; version: number; url: string }[];
  expect(listed.map((e) => `${e.name}@${e.version}`)).toEqual(
    expect.arrayContaining([
      'svc:ready@1',
      'svc_company_details_loaded@1',
      'pageview@1',
      'engagement@1',
      'event@1',
      'account.visited@1',
      'account.visited@2',
      'account.visited@3',
      'segment.entered@1',
    ]),
  );

  // A segment the visiting company is in from now on (so its next view enters it), and endpoints on both
  // versions. account.hot (a hot path) rather than account.visited: earlier specs may have made today's
  // first view of this account already.
  const company = pick(await visitors(request), (v) => v.kind === 'company', 'company');
  const answer = await answerFor(request, company.ip);
  const segment = await request.post('/admin/api/customers/demo/segments', {
    headers: ADMIN,
    data: { name: `Schema check ${Date.now()}`, match: { company_id: [answer.company?.companyId ?? 'none'] } },
  });
  expect(segment.status()).toBe(201);
  const segmentId = (await segment.json()).id;
  for (const body of [
    { url: receiverUrl, events: ['account.hot', 'segment.entered'], hot_paths: ['/t/schema*'], segment_names: true, scores: true },
    { url: receiverUrl, events: ['account.hot'], hot_paths: ['/t/schema*'], event_versions: { 'account.hot': 1 } },
  ]) {
    const res = await request.post('/admin/api/customers/demo/webhooks', { headers: ADMIN, data: body });
    expect(res.status(), await res.text()).toBe(201);
    endpoints.push((await res.json()).id);
  }

  // The tag in Chromium: its DOM event and dataLayer push, and the beacon as the browser sent it.
  await recordEvents(page);
  const beacons: unknown[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/v1/events') && r.method() === 'POST') beacons.push(JSON.parse(r.postData() ?? 'null'));
  });
  const url = await serve(page, '/t/schema-check', { body: '<h1 data-svc-text="Hi {company.name|there}">Hi there</h1>' });
  await page.goto(`${url}?utm_source=schema&svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  const [ready] = await events(page, 'svc:ready');
  await expectValid(request, 'svc:ready', 1, ready!.detail);
  const pushes = await dataLayer(page);
  expect(pushes.length).toBeGreaterThan(0);
  for (const push of pushes) await expectValid(request, String(push.event), 1, push);
  await waitForEvent(page, 'svc:personalized');
  const [personalized] = await events(page, 'svc:personalized');
  await expectValid(request, 'svc:personalized', 1, personalized!.detail);
  await expect.poll(() => beacons.length).toBeGreaterThan(0);
  await expectValid(request, 'pageview', 1, beacons[0]);
  // A custom event, and the engaged time sent as the page is hidden (set as a browser sets it: headless
  // Chromium keeps every tab visible).
  await page.evaluate(() => {
    (window as any).svc.push(['track', 'schema_checked', { plan: 'pro', seats: 3, trial: true }]);
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const beaconOf = (type: string) => beacons.find((b) => (b as { type?: string } | null)?.type === type);
  await expect.poll(() => [beaconOf('event'), beaconOf('engagement')].every(Boolean)).toBe(true);
  await expectValid(request, 'event', 1, beaconOf('event'));
  await expectValid(request, 'engagement', 1, beaconOf('engagement'));

  // The webhooks that page view raised, delivered by the server's dispatcher to the receiver.
  await expect
    .poll(() => received.map((r) => `${r.body.type}@${r.body.version ?? 1}`).sort(), { timeout: 15_000 })
    .toEqual(expect.arrayContaining(['account.hot@1', 'account.hot@3', 'segment.entered@1']));
  for (const { body, headers } of received) {
    expect(headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    await expectValid(request, body.type, body.version ?? 1, body);
  }
  // The account's first enriched view enters every segment it is in, the new one among them.
  const entered = received.filter((r) => r.body.type === 'segment.entered').map((r) => r.body.data.segment.id);
  expect(entered).toContain(segmentId);
  await request.delete(`/admin/api/customers/demo/segments/${segmentId}`, { headers: ADMIN });
});
