import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/password.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const today = new Date().toISOString().slice(0, 10);
const GLOBEX = {
  ...TEST_CUSTOMER,
  id: 'globex',
  name: 'Globex',
  tags: [{ tag_id: 'globex-tag', allowed_domains: ['localhost'], scores: false, segment_names: false }],
};

describe.each(['sqlite', 'redis'] as const)('the account page on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  let recorded = 0;

  /** Sends page views as the tag does (POST /v1/events) and waits until they are recorded. */
  async function views(list: [ip: string, path: string, session: string][]): Promise<void> {
    const target = recorded + list.length;
    for (const [ip, path, session] of list) {
      const res = await srv.request(`/v1/events?tag=acme-tag`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost:8000', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip },
        body: JSON.stringify({ type: 'pageview', path, session }),
      });
      expect(res.status).toBe(204);
    }
    for (let i = 0; i < 500 && recorded < target; i++) await new Promise((r) => setTimeout(r, 10));
    expect(recorded).toBe(target);
  }

  const admin = (path: string, init: { headers?: Record<string, string>; method?: string; body?: unknown } = {}) =>
    srv.request(`/admin/api${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        'user-agent': 'curl/8.5.0',
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: { SVC_TRUST_PROXY: 'loopback', ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {}) },
      customers: [TEST_CUSTOMER, GLOBEX],
    });
    srv.recorder.onPageView(() => void recorded++);
    // An endpoint before the views: their account.visited events are the account's webhooks.
    await srv.webhookStore.createEndpoint({
      customer_id: 'acme',
      url: 'http://127.0.0.1:9/svc',
      events: ['account.visited'],
      hot_paths: [],
      description: 'account page',
      secret: 'whsec_0123456789abcdef',
    });
    await views([
      [IPS.northwind, '/', 'session-n1'],
      [IPS.northwind, '/pricing?utm_source=news&utm_medium=mail', 'session-n1'],
      [IPS.northwind, '/features#top', 'session-n1'],
      [IPS.bluepeak, '/careers', 'session-b1'],
      [IPS.northwindBranch, '/?utm_source=x', 'session-n2'],
      [IPS.northwindBranch, '/pricing?plan=pro&utm_campaign=spring', 'session-n2'],
      [IPS.isp, '/', 'session-a1'],
    ]);
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('answers the journey: sessions latest first, each with its pages in the order viewed', async () => {
    const res = await admin(`/customers/acme/accounts/900001?from=${today}&to=${today}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const page = await res.json();
    expect(page).toMatchObject({ customer_id: 'acme', company_id: '900001', from: today, to: today, totals: { page_views: 5, sessions: 2, days_active: 1 } });
    expect(page.daily).toEqual([{ day: today, page_views: 5 }]);
    expect(page.sessions.map((s: { session_id: string; page_views: number }) => [s.session_id, s.page_views])).toEqual([
      ['session-n2', 2],
      ['session-n1', 3],
    ]);
    // Each view under its page: UTM and every query parameter the customer does not keep collapsed (visits/page-path.ts).
    expect(page.sessions[1].pages.map((p: { path: string }) => p.path)).toEqual(['/', '/pricing', '/features']);
    expect(page.sessions[0].pages.map((p: { path: string }) => p.path)).toEqual(['/', '/pricing']);
    for (const s of page.sessions) {
      const times = s.pages.map((p: { at: string }) => p.at);
      expect(times).toEqual([...times].sort());
      expect(s.first_seen).toBe(times[0]);
    }
  });

  it('collapses UTM and other query parameters in the top pages: /?utm_source=x counts as /', async () => {
    const page = await (await admin(`/customers/acme/accounts/900001?from=${today}&to=${today}`)).json();
    expect(page.kept_query_params).toEqual([]);
    expect(page.top_pages).toEqual([
      { path: '/', page_views: 2 },
      { path: '/pricing', page_views: 2 },
      { path: '/features', page_views: 1 },
    ]);
  });

  it('answers firmographics, explained scores, segments, lists and the webhooks the account raised', async () => {
    const page = await (await admin(`/customers/acme/accounts/900001`)).json();
    expect(page.company).toMatchObject({ companyId: '900001', name: 'Northwind Analytics', domain: 'northwind.example', industry: 'Software' });
    expect(page.company).not.toHaveProperty('company_match');
    expect(page.segments).toEqual([{ id: 101, name: 'Enterprise Software' }]);
    expect(page.lists).toEqual({ hot: true, hot_products: [], excluded: false, named: [] });
    const [cdp] = page.scores;
    expect(cdp).toMatchObject({ product: 'cdp', product_display_name: 'Customer Data Platform', is_svcqa: true });
    // The same numbers identification answers for this account (scores on for acme-tag) …
    const identified = await (
      await srv.request(`/v3/company/details?tag=acme-tag`, {
        headers: { origin: 'http://localhost:8000', 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind },
      })
    ).json();
    const answered = identified.scores.find((s: { product: string }) => s.product === 'cdp');
    expect(cdp).toMatchObject({
      intent_score: answered.intent_score,
      buying_stage: answered.buying_stage,
      profile_score: answered.profile_score,
      profile_fit: answered.profile_fit,
    });
    // … and the factors that made them: the intent signal, the pricing page (high intent), the ICP dimensions.
    expect(cdp.factors.intent.signals).toEqual([expect.objectContaining({ topic: 'customer data platform', strength: 80 })]);
    expect(cdp.factors.intent.page_views).toContainEqual(expect.objectContaining({ day: today, path: '/pricing', high_intent: true }));
    expect(cdp.factors.profile).toMatchObject({ industry: 40, region: 15, revenue_range: 20 });
    expect(cdp.factors.profile.points).toBe(
      cdp.factors.profile.industry + cdp.factors.profile.employee_range + cdp.factors.profile.revenue_range + cdp.factors.profile.region,
    );

    expect(page.webhooks).toEqual([expect.objectContaining({ type: 'account.visited', created_at: expect.stringMatching(new RegExp(`^${today}T`)) })]);
    const bluepeak = await (await admin(`/customers/acme/accounts/900002`)).json();
    expect(bluepeak.webhooks).toHaveLength(1);
    expect(bluepeak.webhooks[0].event_id).not.toBe(page.webhooks[0].event_id);
    expect(bluepeak.lists).toMatchObject({ hot: false, excluded: true });
    expect(bluepeak.segments).toEqual([{ id: 102, name: 'EMEA Manufacturing' }]);
  });

  it('keeps the parameters the customer named apart (kept_query_params), from the next views on', async () => {
    const patched = await admin('/customers/acme', { method: 'PATCH', body: { kept_query_params: ['plan'] }, headers: { origin: srv.url } });
    expect(patched.status, await patched.clone().text()).toBe(200);
    expect((await patched.json()).kept_query_params).toEqual(['plan']);
    await views([
      [IPS.bluepeak, '/pricing?plan=pro&utm_source=y&email=a%40b.example', 'session-b2'],
      [IPS.bluepeak, '/pricing?utm_source=z', 'session-b2'],
      [IPS.bluepeak, '/pricing?plan=pro', 'session-b2'],
    ]);
    const page = await (await admin(`/customers/acme/accounts/900002?from=${today}&to=${today}`)).json();
    expect(page.kept_query_params).toEqual(['plan']);
    expect(page.sessions[0].pages.map((p: { path: string }) => p.path)).toEqual(['/pricing?plan=pro', '/pricing', '/pricing?plan=pro']);
    expect(page.top_pages).toEqual([
      { path: '/pricing?plan=pro', page_views: 2 },
      { path: '/careers', page_views: 1 },
      { path: '/pricing', page_views: 1 },
    ]);
    const refused = await admin('/customers/acme', { method: 'PATCH', body: { kept_query_params: ['a b'] }, headers: { origin: srv.url } });
    expect(refused.status).toBe(422);
  });

  it('exports page views per day and the sessions’ pages as CSV (Accept: text/csv, or .csv)', async () => {
    for (const res of [
      await admin(`/customers/acme/accounts/900001?from=${today}&to=${today}`, { headers: { accept: 'text/csv' } }),
      await admin(`/customers/acme/accounts/900001.csv?from=${today}&to=${today}`),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toContain(`account-acme-900001-${today}-${today}.csv`);
      const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
      expect(rows[0]).toEqual({ record: 'day', day: today, page_views: '5', session_id: '', at: '', path: '' });
      expect(rows.filter((r) => r.record === 'session_page').map((r) => `${r.session_id} ${r.path}`)).toEqual([
        'session-n2 /',
        'session-n2 /pricing',
        'session-n1 /',
        'session-n1 /pricing',
        'session-n1 /features',
      ]);
    }
  });

  it('answers 404 for an unknown company, an unknown customer, and another customer’s account page', async () => {
    const unknown = await admin('/customers/acme/accounts/999999');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).message).toBe('unknown company 999999');
    expect((await admin('/customers/acme/accounts/999999.csv')).status).toBe(404);
    expect((await admin('/customers/nobody/accounts/900001')).status).toBe(404);
    expect((await admin('/customers/acme/accounts/900001?from=2026-13-01')).status).toBe(422);

    const email = 'viewer@acme.test';
    await srv.users.createUser({ customer_id: 'acme', email, role: 'viewer', password_hash: await hashPassword('a long enough passphrase'), sso: false });
    const login = await srv.request(`/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: srv.url },
      body: JSON.stringify({ email, password: 'a long enough passphrase' }),
    });
    expect(login.status).toBe(204);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const asViewer = (path: string) => srv.request(`/admin/api${path}`, { headers: { cookie } });
    expect((await asViewer('/customers/acme/accounts/900001')).status).toBe(200);
    const other = await asViewer('/customers/globex/accounts/900001');
    expect(other.status).toBe(404);
    expect((await other.json()).message).toBe('unknown customer globex');
    expect((await asViewer('/customers/globex/accounts?q=north')).status).toBe(404);
  });

  it('searches the catalog by company id, domain prefix and name prefix (case-insensitive), at most 20', async () => {
    const search = async (q: string) =>
      (await (await admin(`/customers/acme/accounts?q=${encodeURIComponent(q)}`)).json()).accounts.map((a: { company_id: string }) => a.company_id);
    expect(await search('northwind.ex')).toEqual(['900001']);
    expect(await search('BLUE')).toEqual(['900002']);
    expect(await search('900002')).toEqual(['900002']);
    expect(await search('nothing-like-it')).toEqual([]);
    expect(await search('')).toEqual([]);
    const body = await (await admin('/customers/acme/accounts?q=north')).json();
    expect(body).toEqual({
      customer_id: 'acme',
      q: 'north',
      accounts: [{ company_id: '900001', name: 'Northwind Analytics', domain: 'northwind.example', industry: 'Software', country_iso_code: 'US' }],
    });
  });
});
