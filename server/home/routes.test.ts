import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import { BUYING_STAGES } from '../../core/vocabulary.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { sendPageView } from '../testing/page-view.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import type { HomeSummary } from './summary.ts';

const DAY_MS = 86_400_000;
const dayAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const today = dayAgo(0);
const GLOBEX = {
  ...TEST_CUSTOMER,
  id: 'globex',
  name: 'Globex',
  tags: [{ tag_id: 'globex-tag', allowed_domains: ['localhost'], scores: false, segment_names: false }],
};

describe.each(['sqlite', 'redis'] as const)('the home page on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  let recorded = 0;

  const admin = (path: string) => srv.request(`/admin/api${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'user-agent': 'curl/8.5.0' } });
  const home = async (query = ''): Promise<HomeSummary> => {
    const res = await admin(`/customers/acme/home${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as HomeSummary;
  };
  const waitRecorded = async (target: number) => {
    for (let i = 0; i < 500 && recorded < target; i++) await new Promise((r) => setTimeout(r, 10));
    expect(recorded).toBe(target);
  };
  /** A view of an earlier day, through the recorder as the beacon's handler records it. */
  const pastView = async (companyId: string, path: string, daysAgo: number) => {
    const customer = (await srv.store.getCustomer('acme')) as CustomerRecord;
    await srv.recorder.record({
      customer,
      tag_id: 'acme-tag',
      company: srv.dataset.current.catalog.company(companyId),
      path,
      referrer_host: null,
      session_id: `past-${companyId}-${daysAgo}`,
      origin: 'https://www.acme.test',
      at: new Date(Date.now() - daysAgo * DAY_MS),
    });
  };

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
    // An endpoint that needs segment facts: the account's segments are remembered, so entries are counted.
    await srv.webhookStore.createEndpoint({
      customer_id: 'acme',
      url: 'http://127.0.0.1:9/svc',
      events: ['segment.entered'],
      hot_paths: [],
      description: 'home',
      secret: 'whsec_0123456789abcdef',
    });
    // The previous period (8–14 days ago): Northwind twice.
    await pastView('900001', '/', 10);
    await pastView('900001', '/docs', 10);
    await waitRecorded(2);
    // Its segment entry (Enterprise Software) is counted on the webhook path, after the view: wait for it.
    for (let i = 0; i < 500 && (await home()).previous.segment_entries !== 1; i++) await new Promise((r) => setTimeout(r, 10));
    // This period: Bluepeak (excluded) three days ago; today Northwind three times, an ISP visitor and one unknown.
    await pastView('900002', '/careers', 3);
    for (const [ip, path] of [
      [IPS.northwind, '/'],
      [IPS.northwind, '/pricing'],
      [IPS.northwind, '/request-demo'],
      [IPS.isp, '/'],
      [IPS.nowhere, '/blog'],
    ] as const) {
      expect((await sendPageView(srv.url, { ip, path, session: 'session-t1' })).status).toBe(204);
    }
    await waitRecorded(8);
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('answers the last 7 days against the 7 before by default', async () => {
    const h = await home();
    expect(h.current).toMatchObject({ from: dayAgo(6), to: today });
    expect(h.previous).toMatchObject({ from: dayAgo(13), to: dayAgo(7) });
    expect(h.daily.map((d) => d.day)).toHaveLength(7);
  });

  it('agrees with the Visitors report for the same days: accounts, identified and anonymous page views, match rate, daily', async () => {
    for (const [from, to, pick] of [
      [dayAgo(6), today, 'current'],
      [dayAgo(13), dayAgo(7), 'previous'],
    ] as const) {
      const h = await home(`?from=${dayAgo(6)}&to=${today}`);
      const figures = h[pick];
      const report = await (await admin(`/customers/acme/visits?from=${from}&to=${to}`)).json();
      expect(figures).toMatchObject({
        from,
        to,
        identified_accounts: report.totals.accounts,
        identified_page_views: report.totals.identified,
        anonymous_page_views: report.totals.anonymous,
        page_views: report.totals.page_views,
      });
      expect(figures.match_rate).toBeCloseTo(report.totals.identified / report.totals.page_views, 4);
      if (pick === 'current') expect(h.daily).toEqual(report.daily);
    }
    const h = await home();
    expect(h.current).toMatchObject({ identified_accounts: 2, identified_page_views: 4, anonymous_page_views: 2, match_rate: 0.6667 });
    expect(h.previous).toMatchObject({ identified_accounts: 1, identified_page_views: 2, anonymous_page_views: 0, match_rate: 1 });
  });

  it('counts accounts first seen in each period: one seen before is not new again', async () => {
    const h = await home();
    // Bluepeak first came three days ago; Northwind came back (first seen ten days ago).
    expect(h.current.new_accounts).toBe(1);
    expect(h.previous.new_accounts).toBe(1);
    // A period reaching back over both first visits.
    expect((await home(`?from=${dayAgo(13)}&to=${today}`)).current.new_accounts).toBe(2);
  });

  it('lists the accounts to act on with their account page, agreeing with the account page for the same days', async () => {
    const h = await home();
    // The excluded account is counted above but not listed.
    expect(h.accounts.map((a) => a.company_id)).toEqual(['900001']);
    const [northwind] = h.accounts;
    expect(northwind).toMatchObject({ name: 'Northwind Analytics', domain: 'northwind.example', page_views: 3, hot_list: true, new: false });
    expect(northwind!.reasons).toEqual(['hot_list', ...(northwind!.reasons.includes('stage') ? ['stage'] : []), 'page_views']);
    expect(northwind!.link).toBe('/console/#customer=acme&page=accounts&account=900001');
    const page = await (await admin(`/customers/acme/accounts/900001?from=${dayAgo(6)}&to=${today}`)).json();
    expect(northwind!.page_views).toBe(page.totals.page_views);
    // The stage now is the account page's highest buying stage (scored now).
    const highest = page.scores
      .map((s: { buying_stage: (typeof BUYING_STAGES)[number] }) => s.buying_stage)
      .sort((a: string, b: string) => BUYING_STAGES.indexOf(b as never) - BUYING_STAGES.indexOf(a as never))[0];
    expect(northwind!.stage).toBe(highest);
    expect(h.scored_accounts).toBe(2);
  });

  it('counts segment entries where segment.entered is decided; null for a workspace with no endpoint needing them', async () => {
    const h = await home();
    expect(h.previous.segment_entries).toBe(1);
    expect(typeof h.current.segment_entries).toBe('number');
    const res = await admin('/customers/globex/home');
    expect((await res.json()).current.segment_entries).toBeNull();
  });

  it('answers zeros for a workspace without page views, not an error', async () => {
    const res = await admin('/customers/globex/home');
    expect(res.status).toBe(200);
    const h = (await res.json()) as HomeSummary;
    for (const figures of [h.current, h.previous]) {
      expect(figures).toMatchObject({ identified_accounts: 0, new_accounts: 0, became_hot: 0, stage_moves: 0, page_views: 0, match_rate: null });
    }
    expect(h.accounts).toEqual([]);
    expect(h.daily.every((d) => d.identified === 0 && d.anonymous === 0)).toBe(true);
  });

  it('refuses a bad period with 422', async () => {
    for (const q of ['?from=2026-02-30', '?from=yesterday', `?from=${today}&to=${dayAgo(1)}`, `?from=${dayAgo(200)}&to=${today}`]) {
      const res = await admin(`/customers/acme/home${q}`);
      expect(res.status, q).toBe(422);
    }
  });

  it('is a report: 404 for a customer that does not exist', async () => {
    expect((await admin('/customers/nobody/home')).status).toBe(404);
  });
});
