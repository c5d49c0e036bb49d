/**
 * Coverage over real HTTP on the sample dataset (data/sample, the networks of every kind), on SQLite and on
 * Redis: page views from an address of each kind reach the recorder with the reason a tag lookup would give
 * (the export's `unidentified_reason`), the Visitors report splits its anonymous page views by those reasons
 * adding up to them, with the match rate, as JSON and as the days CSV; and a page's UTM variants are one
 * page in the report and on the account page, while the raw view keeps the path as the tag sent it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNIDENTIFIED_REASONS } from '../../core/vocabulary.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import type { RecordedPageView } from './recorder.ts';

const SAMPLE = join(import.meta.dirname, '../../data/sample');
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const today = new Date().toISOString().slice(0, 10);

interface NetworkRow {
  network: string;
  kind: string;
  company_id: string;
  privacy: string;
}

/** An address inside an IPv4 network of networks.csv (a CIDR's second address, a range's first); null for IPv6. */
function addressIn(network: string): string | null {
  const range = /^(\d+\.\d+\.\d+\.\d+)-/.exec(network);
  if (range) return range[1]!;
  const cidr = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(network);
  if (!cidr) return null;
  const base = cidr.slice(1, 5).reduce((n, o) => n * 256 + Number(o), 0);
  const n = Number(cidr[5]) === 32 ? base : base + 1;
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** What the row says an address of it is: the privacy reason, else the kind (isp, hosting, bot, company). */
const expectedOf = (r: NetworkRow) => r.privacy || r.kind;

/** One address per expectation, taken from the sample's networks and checked against the built index (a nested network may own it). */
function samplesOf(srv: TestServer): Map<string, { ip: string; company_id: string }> {
  const rows = parse(readFileSync(join(SAMPLE, 'networks.csv'), 'utf8'), { columns: true }) as NetworkRow[];
  const { index, catalog } = srv.dataset.current;
  const found = new Map<string, { ip: string; company_id: string }>();
  for (const r of rows) {
    const want = expectedOf(r);
    const ip = addressIn(r.network);
    if (found.has(want) || ip === null) continue;
    const hit = index.lookup(ip);
    if (hit?.kind !== r.kind || (hit.privacy ?? '') !== r.privacy || (hit.company_id ?? '') !== r.company_id) continue;
    if (r.kind === 'company' && !catalog.company(r.company_id)) continue;
    found.set(want, { ip, company_id: r.company_id });
  }
  const none = catalog.samples().find((s) => s.kind === 'none')!;
  expect(index.lookup(none.ip)).toBeNull();
  found.set('no_data', { ip: none.ip, company_id: '' });
  return found;
}

const BACKENDS = [
  { name: 'sqlite', env: async () => ({ env: {}, close: async () => {} }) },
  {
    name: 'redis',
    env: async () => {
      const redis: RedisServer = await startRedisServer();
      const journal = mkdtempSync(join(tmpdir(), 'svc-coverage-journal-'));
      return {
        env: { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal },
        async close() {
          await redis.close();
          rmSync(journal, { recursive: true, force: true });
        },
      };
    },
  },
];

describe.each(BACKENDS)('coverage of the Visitors report on the sample data: $name', (backend) => {
  let srv: TestServer;
  let closeBackend: () => Promise<void>;
  const recorded: RecordedPageView[] = [];
  /** Views sent per expectation: each reason a different number of times, so the split cannot be right by chance. */
  const plan: [expect: string, times: number][] = [
    ['isp', 1],
    ['hosting', 2],
    ['bot', 1],
    ['vpn', 4],
    ['proxy', 1],
    ['tor', 2],
    ['relay', 3],
    ['no_data', 2],
  ];
  let company = { ip: '', company_id: '' };

  const beacon = (ip: string, path: string, ua = BROWSER_UA) =>
    srv.request('/v1/events?tag=acme-tag', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://www.acme.test', 'user-agent': ua, 'x-forwarded-for': ip },
      body: JSON.stringify({ type: 'pageview', path, session: `coverage-${ip.replace(/\W/g, '-')}` }),
    });
  const admin = (path: string, headers: Record<string, string> = {}) =>
    srv.request(`/admin/api${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'user-agent': 'curl/8.5.0', ...headers } });

  beforeAll(async () => {
    const b = await backend.env();
    closeBackend = b.close;
    srv = await startTestServer({ sources: SAMPLE, env: { SVC_TRUST_PROXY: 'loopback', ...b.env } });
    srv.recorder.onPageView((v) => void recorded.push(v));
    const samples = samplesOf(srv);
    company = samples.get('company')!;
    let sent = 0;
    for (const [want, times] of plan) {
      const at = samples.get(want);
      expect(at, `the sample data has an address of ${want}`).toBeDefined();
      for (let i = 0; i < times; i++, sent++) expect((await beacon(at!.ip, `/r/${want}`)).status).toBe(204);
    }
    // A bot user agent from a company's address: a bot, whatever the address.
    for (let i = 0; i < 2; i++, sent++) expect((await beacon(company.ip, '/r/bot', BOT_UA)).status).toBe(204);
    // The company itself: one page with and without UTM, and a page of its own.
    for (const path of ['/', '/?utm_source=news&utm_medium=mail', '/?utm_source=ads', '/pricing?utm_campaign=spring']) {
      expect((await beacon(company.ip, path)).status).toBe(204);
      sent++;
    }
    // Recorded after the 204s (expect.poll is for tests, not hooks).
    for (let i = 0; i < 500 && recorded.length < sent; i++) await new Promise((r) => setTimeout(r, 20));
    expect(recorded).toHaveLength(sent);
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
    await closeBackend?.();
  });

  it('records each view with the reason of its address: the network’s kind or privacy reason, a bot user agent, no data', async () => {
    const res = await admin(`/customers/acme/events?from=${today}&to=${today}`);
    expect(res.status).toBe(200);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as RecordedPageView);
    expect(lines).toHaveLength(recorded.length);
    for (const l of lines) {
      if (l.path.startsWith('/r/')) {
        expect(l.company_id, l.path).toBeNull();
        expect(l.unidentified_reason, l.path).toBe(l.path.slice(3));
      } else {
        expect(l).toMatchObject({ company_id: company.company_id, unidentified_reason: null });
      }
    }
    // The reason sits beside company_id in the line, as in the NDJSON files.
    expect(Object.keys(lines[0]!).slice(4, 7)).toEqual(['company_id', 'unidentified_reason', 'path']);
    expect(new Set(lines.map((l) => l.unidentified_reason))).toEqual(new Set([null, 'isp', 'hosting', 'bot', 'vpn', 'proxy', 'tor', 'relay', 'no_data']));
  });

  it('splits the report’s anonymous page views by reason, adding up to them, with the match rate', async () => {
    const report = await (await admin(`/customers/acme/visits?from=${today}&to=${today}`)).json();
    const want = Object.fromEntries([...UNIDENTIFIED_REASONS, 'unclassified'].map((r) => [r, 0]));
    for (const [reason, times] of plan) want[reason] += times;
    want.bot += 2;
    expect(report.coverage.unidentified).toEqual(want);
    expect(report.totals).toMatchObject({ identified: 4, anonymous: 18, page_views: 22 });
    const split = Object.values(report.coverage.unidentified as Record<string, number>).reduce((n, v) => n + v, 0);
    expect(split).toBe(report.totals.anonymous);
    expect(report.coverage.match_rate).toBe(Math.round((4 / 22) * 10_000) / 10_000);
    expect(report.coverage.daily).toEqual([{ day: today, match_rate: report.coverage.match_rate, unidentified: want }]);
  });

  it('answers the days with their split as CSV (rows=days); the accounts CSV keeps its columns', async () => {
    const res = await admin(`/customers/acme/visits.csv?from=${today}&to=${today}&rows=days`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`visits-acme-${today}-${today}-days.csv`);
    const [row, ...rest] = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(rest).toEqual([]);
    expect(row).toMatchObject({ day: today, page_views: '22', identified: '4', anonymous: '18', isp: '1', bot: '3', vpn: '4', unclassified: '0' });
    expect(
      (['isp', 'hosting', 'bot', 'vpn', 'proxy', 'tor', 'relay', 'no_data', 'other', 'unclassified'] as const).reduce((n, k) => n + Number(row![k]), 0),
    ).toBe(18);
    const accounts = await (await admin(`/customers/acme/visits?from=${today}&to=${today}`, { accept: 'text/csv' })).text();
    expect(accounts.split('\n')[0]).toBe('company_id,name,domain,page_views,sessions,first_seen,last_seen,top_pages,segment_ids,hot_account,excluded');
    expect((await admin(`/customers/acme/visits.csv?rows=pages`)).status).toBe(422);
  });

  it('counts a page’s UTM variants as the page, in the report and on the account page; the raw view keeps them', async () => {
    const report = await (await admin(`/customers/acme/visits?from=${today}&to=${today}`)).json();
    const account = report.accounts.find((a: { company_id: string }) => a.company_id === company.company_id);
    expect(account.top_pages).toEqual([
      { path: '/', page_views: 3 },
      { path: '/pricing', page_views: 1 },
    ]);
    const page = await (await admin(`/customers/acme/accounts/${company.company_id}?from=${today}&to=${today}`)).json();
    expect(page.top_pages).toEqual(account.top_pages);
    expect(page.sessions[0].pages.map((p: { path: string }) => p.path)).toEqual(['/', '/', '/', '/pricing']);
    const utm = recorded.filter((v) => v.company_id === company.company_id).map((v) => v.path);
    expect(utm).toEqual(['/', '/?utm_source=news&utm_medium=mail', '/?utm_source=ads', '/pricing?utm_campaign=spring']);
  });
});
