import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { awayFromWindowEdge } from '../testing/rate-window.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import type { RecordedPageView } from './recorder.ts';

const ORIGIN = 'https://www.acme.test';

let srv: TestServer;
let recorded: RecordedPageView[];
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  // A second customer whose tag allows the same origin: its views must never mix with acme's.
  srv = await startTestServer({
    env: { SVC_TRUST_PROXY: 'loopback' },
    customers: [
      TEST_CUSTOMER,
      { ...TEST_CUSTOMER, id: 'other', name: 'Other', tags: [{ tag_id: 'other-tag', allowed_domains: ['*.acme.test'], scores: false, segment_names: false }] },
    ],
  });
  srv.recorder.onPageView((v) => void recorded.push(v));
});
afterAll(() => srv?.close());
beforeEach(() => {
  recorded = [];
});

const beacon = (body: string, { ip = IPS.northwind as string, origin = ORIGIN, tag = 'acme-tag', type = 'text/plain;charset=UTF-8', ua = BROWSER_UA } = {}) =>
  fetch(`${srv.url}/v1/events?tag=${encodeURIComponent(tag)}`, {
    method: 'POST',
    headers: { 'content-type': type, origin, 'user-agent': ua, 'x-forwarded-for': ip },
    body,
  });
const pageview = (path: string, session = 'tab-session-1', referrer?: string) => JSON.stringify({ type: 'pageview', path, referrer, session });

/** Waits until `n` page views were recorded after the 204s (recording happens after the answer). */
async function settle(n: number): Promise<RecordedPageView[]> {
  for (let i = 0; i < 300 && recorded.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 30)); // and nothing more arrives
  await srv.recorder.events.flush();
  return recorded;
}

/** What was recorded shortly after refused requests (recording would follow the answer within milliseconds). */
async function nothingRecorded(): Promise<RecordedPageView[]> {
  await new Promise((r) => setTimeout(r, 150));
  return recorded;
}

describe('POST /v1/events (page views from the tag)', () => {
  it('answers 204 with CORS for the allowed origin and records the account’s view with every listener field', async () => {
    const res = await beacon(pageview('/pricing?utm_source=news&email=x@y.z', 'tab-session-1', 'news.example'));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(await res.text()).toBe('');
    const [view] = await settle(1);
    expect(view).toEqual({
      customer_id: 'acme',
      tag_id: 'acme-tag',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      day: today(),
      company_id: '900001',
      unidentified_reason: null,
      path: '/pricing?utm_source=news',
      referrer_host: 'news.example',
      session_id: 'tab-session-1',
      origin: ORIGIN,
      first_of_day_for_account: true,
      segment_ids: [101],
      hot_account: true,
      excluded: false,
    });
    const second = await beacon(pageview('/docs'));
    expect(second.status).toBe(204);
    expect((await settle(2))[1]).toMatchObject({ path: '/docs', first_of_day_for_account: false, referrer_host: null });
  });

  it('also takes application/json, and counts excluded accounts with their flag', async () => {
    expect((await beacon(pageview('/'), { type: 'application/json', ip: IPS.bluepeak })).status).toBe(204);
    expect((await settle(1))[0]).toMatchObject({ company_id: '900002', excluded: true, hot_account: false, segment_ids: [102] });
  });

  it('counts ISP, hosting, bot networks, bot user agents and unknown addresses as anonymous', async () => {
    for (const ip of [IPS.isp, IPS.hosting, IPS.bot, IPS.nowhere]) expect((await beacon(pageview('/'), { ip })).status).toBe(204);
    expect((await beacon(pageview('/'), { ua: 'Googlebot/2.1 (+http://www.google.com/bot.html)' })).status).toBe(204);
    const views = await settle(5);
    expect(views.map((v) => v.company_id)).toEqual([null, null, null, null, null]);
    // Each with why (server/data/network-company.ts networkVisitor): the Visitors report's split.
    expect(views.map((v) => v.unidentified_reason).sort()).toEqual(['bot', 'bot', 'hosting', 'isp', 'no_data']);
    expect(views.every((v) => !v.first_of_day_for_account && v.segment_ids.length === 0)).toBe(true);
  });

  it('never spends credits', async () => {
    const before = await srv.store.usage('acme');
    for (let i = 0; i < 5; i++) expect((await beacon(pageview(`/p${i}`))).status).toBe(204);
    await settle(5);
    expect(await srv.store.usage('acme')).toEqual(before);
    const credits = await (
      await fetch(`${srv.url}/admin/api/customers/acme/credits`, { headers: { authorization: 'Bearer test-admin-token-0123456789' } })
    ).json();
    expect(JSON.stringify(credits)).not.toMatch(/"used":[1-9]/);
  });

  it('appends raw events to the customer’s NDJSON file of the day, kept apart per customer', async () => {
    expect((await beacon(pageview('/ndjson-check'), { tag: 'other-tag' })).status).toBe(204);
    await settle(1);
    const file = join(srv.dir, 'events', 'other', `${today()}.ndjson`);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ customer_id: 'other', tag_id: 'other-tag', path: '/ndjson-check', company_id: '900001' });
    const acme = readFileSync(join(srv.dir, 'events', 'acme', `${today()}.ndjson`), 'utf8');
    expect(acme).not.toMatch(/ndjson-check/);
  });

  it.each([
    ['not JSON', 'hello'],
    ['an empty body', ''],
    ['another event type', JSON.stringify({ type: 'click', path: '/', session: 'tab-session-1' })],
    ['a path without /', JSON.stringify({ type: 'pageview', path: 'pricing', session: 'tab-session-1' })],
    ['a malformed session id', JSON.stringify({ type: 'pageview', path: '/', session: 'x' })],
  ])('refuses %s with 400 invalid and records nothing', async (_name, body) => {
    const res = await beacon(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 'error', message: expect.any(String), code: 'invalid' });
    expect(await nothingRecorded()).toEqual([]);
  });

  it('refuses a body over 4 KB with 413 and records nothing', async () => {
    const res = await beacon(pageview('/' + 'a'.repeat(5000)));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ status: 'error', message: 'request body too large', code: 'too_large' });
    expect(await nothingRecorded()).toEqual([]);
  });

  it('checks the tag and origin exactly as identification: 401 unknown tag, 403 foreign page without CORS', async () => {
    const unknown = await beacon(pageview('/'), { tag: 'no-such-tag' });
    expect(unknown.status).toBe(401);
    const foreign = await beacon(pageview('/'), { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const apex = await beacon(pageview('/'), { origin: 'https://acme.test' });
    expect(apex.status).toBe(403);
    const missing = await fetch(`${srv.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: ORIGIN }, body: pageview('/') });
    expect(missing.status).toBe(401);
    expect(await nothingRecorded()).toEqual([]);
  });

  it('answers a CORS preflight for allowed pages only', async () => {
    const ok = await fetch(`${srv.url}/v1/events?tag=acme-tag`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const bad = await fetch(`${srv.url}/v1/events?tag=acme-tag`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(bad.status).toBe(403);
    expect(bad.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a foreign, missing or unknown-tag preflight with the JSON error of /v3/company/details (403 forbidden)', async () => {
    const preflight = (path: string, headers: Record<string, string>) =>
      fetch(`${srv.url}${path}`, { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST', ...headers } });
    for (const [path, headers] of [
      ['/v1/events?tag=acme-tag', { origin: 'https://evil.example' }],
      ['/v1/events?tag=acme-tag', {}],
      ['/v1/events?tag=no-such-tag', { origin: ORIGIN }],
      ['/v1/events', { origin: ORIGIN }],
    ] as const) {
      const res = await preflight(path, headers);
      expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ status: 'error', message: expect.any(String), code: 'forbidden' });
    }
    const sibling = await preflight('/v3/company/details?tag=acme-tag', { origin: 'https://evil.example' });
    expect(sibling.status).toBe(403);
    expect(await sibling.json()).toEqual({ status: 'error', message: expect.any(String), code: 'forbidden' });
  });

  it('is rate-limited like the tag: 300 per visitor address and minute, then 429 with Retry-After, not recorded', { timeout: 60_000 }, async () => {
    await awayFromWindowEdge(30_000);
    const ip = '23.10.1.77';
    let last: Response | undefined;
    for (let i = 0; i < 300; i++) {
      last = await beacon(pageview('/'), { ip });
      if (last.status !== 204) break;
    }
    expect(last?.status).toBe(204);
    expect(last?.headers.get('ratelimit-limit')).toBe('300');
    await settle(300);
    recorded = [];
    const limited = await beacon(pageview('/'), { ip });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await nothingRecorded()).toEqual([]);
  });

  it('feeds first-party intent: after reading the pricing page the account’s identification intent score is higher', async () => {
    const intent = async () => {
      const res = await fetch(`${srv.url}/v3/company/details?tag=acme-tag`, {
        headers: { origin: ORIGIN, 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.bluepeak },
      });
      return (await res.json()).scores[0].intent_score as number;
    };
    const before = await intent();
    expect((await beacon(pageview('/pricing', 'tab-session-9'), { ip: IPS.bluepeak })).status).toBe(204);
    await settle(1);
    expect(await intent()).toBeGreaterThan(before);
  });

  it('feeds first-party intent into Lead Scoring too (company intent of /v2/people/score)', async () => {
    const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'lead-scoring', name: 'crm scoring' });
    const score = async () => {
      const res = await fetch(`${srv.url}/v2/people/score`, {
        method: 'POST',
        headers: { authorization: `Token ${secret}`, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'python-requests/2.31.0' },
        body: 'email=jane.doe%40northwind.example&country=US',
      });
      expect(res.status).toBe(200);
      return (await res.json()).scores[0].company_intent_score as number;
    };
    const before = await score();
    expect((await beacon(pageview('/pricing/enterprise', 'tab-session-10'))).status).toBe(204);
    await settle(1);
    expect(await score()).toBeGreaterThan(before);
  });

  it('records nothing for a tag whose settings turn page views off (still 204)', async () => {
    await srv.store.createTag({ customer_id: 'acme', tag_id: 'quiet-tag', allowed_domains: ['*.acme.test'], settings: { features: { page_views: false } } });
    expect((await beacon(pageview('/'), { tag: 'quiet-tag' })).status).toBe(204);
    expect(await nothingRecorded()).toEqual([]);
  });

  it('remembers the origins the tag was seen on, from page views and from lookups', async () => {
    expect((await beacon(pageview('/'), { origin: 'https://shop.acme.test' })).status).toBe(204);
    const lookup = await fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { origin: 'http://localhost:5173', 'user-agent': BROWSER_UA } });
    expect(lookup.status).toBe(200);
    await settle(1);
    await new Promise((r) => setTimeout(r, 50));
    const origins = (await srv.recorder.visits.tagSightings(['acme-tag'])).map((s) => s.origin);
    expect(origins).toEqual(expect.arrayContaining([ORIGIN, 'https://shop.acme.test', 'http://localhost:5173']));
    expect(existsSync(join(srv.dir, 'events'))).toBe(true);
  });
});
