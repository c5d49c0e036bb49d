import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback' } });
  let recorded = 0;
  srv.recorder.onPageView(() => void recorded++);
  const views: [string, string, string][] = [
    [IPS.northwind, '/pricing', 'session-n1'],
    [IPS.northwind, '/pricing', 'session-n1'],
    [IPS.northwindBranch, '/', 'session-n2'],
    [IPS.bluepeak, '/careers', 'session-b1'],
    [IPS.isp, '/', 'session-a1'],
    [IPS.nowhere, '/', 'session-a2'],
  ];
  for (const [ip, path, session] of views) {
    const res = await srv.request(`/v1/events?tag=acme-tag`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost:8000', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip },
      body: JSON.stringify({ type: 'pageview', path, session }),
    });
    expect(res.status).toBe(204);
  }
  for (let i = 0; i < 300 && recorded < views.length; i++) await new Promise((r) => setTimeout(r, 10));
});
afterAll(() => srv?.close());

const admin = (path: string, headers: Record<string, string> = {}) =>
  srv.request(`/admin/api${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'user-agent': 'curl/8.5.0', ...headers } });

describe('GET /admin/api/customers/:id/visits', () => {
  it('lists the accounts that visited, most page views first, with names, sessions, top pages, segments and flags', async () => {
    const res = await admin(`/customers/acme/visits?from=${today}&to=${today}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({
      customer_id: 'acme',
      from: today,
      to: today,
      segment: null,
      totals: { page_views: 6, identified: 4, anonymous: 2, accounts: 2 },
    });
    expect(body.daily).toEqual([{ day: today, identified: 4, anonymous: 2 }]);
    // Coverage: the ISP's view and the one from no network, each under its reason (the split adds up to `anonymous`).
    expect(body.coverage).toEqual({
      match_rate: 0.6667,
      unidentified: { isp: 1, hosting: 0, bot: 0, vpn: 0, proxy: 0, tor: 0, relay: 0, no_data: 1, other: 0, unclassified: 0 },
      daily: [{ day: today, match_rate: 0.6667, unidentified: expect.objectContaining({ isp: 1, no_data: 1 }) }],
    });
    expect(body.accounts).toEqual([
      {
        company_id: '900001',
        name: 'Northwind Analytics',
        domain: 'northwind.example',
        page_views: 3,
        sessions: 2,
        first_seen: expect.stringMatching(new RegExp(`^${today}T`)),
        last_seen: expect.stringMatching(new RegExp(`^${today}T`)),
        top_pages: [
          { path: '/pricing', page_views: 2 },
          { path: '/', page_views: 1 },
        ],
        segment_ids: [101],
        hot_account: true,
        excluded: false,
      },
      {
        company_id: '900002',
        name: 'Bluepeak Fertigung GmbH',
        domain: 'bluepeak.example',
        page_views: 1,
        sessions: 1,
        first_seen: expect.any(String),
        last_seen: expect.any(String),
        top_pages: [{ path: '/careers', page_views: 1 }],
        segment_ids: [102],
        hot_account: false,
        excluded: true,
      },
    ]);
  });

  it('filters by segment and defaults to the last 30 days', async () => {
    const body = await (await admin('/customers/acme/visits?segment=102')).json();
    expect(body.accounts.map((a: { company_id: string }) => a.company_id)).toEqual(['900002']);
    expect(body.daily).toHaveLength(30);
    expect(body.to).toBe(today);
  });

  it('answers CSV for Accept: text/csv and for visits.csv, one row per account', async () => {
    for (const res of [
      await admin(`/customers/acme/visits?from=${today}&to=${today}`, { accept: 'text/csv' }),
      await admin(`/customers/acme/visits.csv?from=${today}&to=${today}`),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="?visits-acme-/);
      const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatchObject({
        company_id: '900001',
        name: 'Northwind Analytics',
        page_views: '3',
        sessions: '2',
        top_pages: '/pricing (2); / (1)',
        segment_ids: '101',
        hot_account: 'true',
        excluded: 'false',
      });
    }
  });

  it.each([
    ['from=2026-13-01&to=2026-12-01', /from/],
    ['from=2026-02-30&to=2026-03-01', /from/],
    ['from=yesterday', /from/],
    ['from=2026-03-02&to=2026-03-01', /after/],
    ['from=2020-01-01&to=2026-01-01', /366/],
    ['segment=abc', /segment/],
    ['segment=999', /segment/],
  ])('refuses %s with 422 invalid', async (query, message) => {
    const res = await admin(`/customers/acme/visits?${query}`);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ status: 'error', message: expect.stringMatching(message), code: 'invalid' });
  });

  it('needs the admin token and a known customer', async () => {
    expect((await srv.request(`/admin/api/customers/acme/visits`)).status).toBe(401);
    expect((await admin('/customers/nobody/visits')).status).toBe(404);
  });
});

describe('GET /admin/api/customers/:id/tag-sightings', () => {
  it('lists the origins the customer’s tags were seen on, latest first', async () => {
    const res = await admin('/customers/acme/tag-sightings');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([{ tag_id: 'acme-tag', origin: 'http://localhost:8000', last_seen_at: expect.stringMatching(new RegExp(`^${today}T`)) }]);
  });
});
