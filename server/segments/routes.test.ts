/**
 * Segments through the routes in-process (srv.request: inject, without browser headers, as curl sends):
 * the workspace CRUD, its effect on identification right after a save, and the Segments API with its
 * grant — on both state backends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import type { RecordedPageView } from '../visits/recorder.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const JSON_ADMIN = { ...ADMIN, 'content-type': 'application/json' };

describe.each(['sqlite', 'redis'] as const)('segments on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  const recorded: RecordedPageView[] = [];

  /** A page view as the tag sends it (POST /v1/events), waited for until it is recorded. */
  async function pageView(ip: string, path: string): Promise<RecordedPageView> {
    const before = recorded.length;
    const res = await srv.request(`/v1/events?tag=acme-tag`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost:8000', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip },
      body: JSON.stringify({ type: 'pageview', path, session: 'segments-session-1' }),
    });
    expect(res.status).toBe(204);
    for (let i = 0; i < 500 && recorded.length === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(recorded.length).toBe(before + 1);
    return recorded[before]!;
  }

  const admin = (method: string, path: string, body?: unknown) =>
    srv.request(`${path}`, { method, headers: body === undefined ? ADMIN : JSON_ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const api = (path: string, token: string) => srv.request(`${path}`, { headers: { authorization: `Token ${token}` } });
  async function newToken(group: string, extra: Record<string, unknown> = {}): Promise<Response> {
    return admin('POST', '/admin/api/tokens', { customer_id: 'acme', api_group: group, name: `${group} ${Math.random()}`, ...extra });
  }

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      // Page views name their visitor in X-Forwarded-For (the test's proxy is loopback).
      env: { SVC_TRUST_PROXY: 'loopback', ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {}) },
      customers: [TEST_CUSTOMER],
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE],
    });
    srv.recorder.onPageView((view) => void recorded.push(view));
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('CRUD: ids are given by the server and never reused, names unique (409), every change audited', async () => {
    const created = await admin('POST', '/admin/api/customers/acme/segments', { name: 'Big software', match: { industry: ['software'], sic_prefix: ['73'] } });
    expect(created.status).toBe(201);
    const seg = await created.json();
    // The fixture customer holds 101 and 102: the next id is 103.
    expect(seg).toEqual({ id: 103, name: 'Big software', match: { industry: ['software'], sic_prefix: ['73'] } });

    const dup = await admin('POST', '/admin/api/customers/acme/segments', { name: ' big SOFTWARE ', match: { region: ['EMEA'] } });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toMatchObject({ status: 'error', code: 'conflict' });

    expect((await admin('POST', '/admin/api/customers/acme/segments', { name: 'x', match: { colour: ['red'] } })).status).toBe(422);
    expect((await admin('POST', '/admin/api/customers/nobody/segments', { name: 'x', match: {} })).status).toBe(404);

    const list = await (await admin('GET', '/admin/api/customers/acme/segments')).json();
    expect(list.map((s: { id: number }) => s.id)).toEqual([101, 102, 103]);
    expect(await (await admin('GET', '/admin/api/customers/acme/segments/103')).json()).toEqual(seg);
    expect((await admin('GET', '/admin/api/customers/acme/segments/999')).status).toBe(404);
    expect((await admin('GET', '/admin/api/customers/acme/segments/abc')).status).toBe(404);

    const renamed = await admin('PATCH', '/admin/api/customers/acme/segments/103', { name: 'Software (SIC 73)' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ id: 103, name: 'Software (SIC 73)', match: { industry: ['software'] } });
    expect((await admin('PATCH', '/admin/api/customers/acme/segments/103', { name: 'EMEA Manufacturing' })).status).toBe(409);
    expect((await admin('PATCH', '/admin/api/customers/acme/segments/103', {})).status).toBe(422);

    expect((await admin('DELETE', '/admin/api/customers/acme/segments/103')).status).toBe(204);
    expect((await admin('DELETE', '/admin/api/customers/acme/segments/103')).status).toBe(404);
    const again = await (await admin('POST', '/admin/api/customers/acme/segments', { name: 'Big software', match: { industry: ['Software'] } })).json();
    expect(again.id).toBe(104);
    await admin('DELETE', '/admin/api/customers/acme/segments/104');

    const audit = await srv.users.listAudit('acme', '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 1000);
    const actions = audit.filter((a) => a.action.startsWith('segment.')).map((a) => `${a.action} ${a.target}`);
    expect(actions.sort()).toEqual(['segment.create 103', 'segment.create 104', 'segment.delete 103', 'segment.delete 104', 'segment.update 103'].sort());
  });

  it('concurrent creates get distinct ids', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => admin('POST', '/admin/api/customers/acme/segments', { name: `parallel ${i}`, match: { company_id: ['900002'] } })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
    const ids = await Promise.all(answers.map(async (r) => (await r.json()).id as number));
    expect(new Set(ids).size).toBe(8);
    for (const id of ids) expect((await admin('DELETE', `/admin/api/customers/acme/segments/${id}`)).status).toBe(204);
  });

  it('an identification answer carries a new segment right after the POST, and drops it right after the DELETE', async () => {
    const token = (await (await newToken('identification', { segment_names: true })).json()).token as string;
    const identify = async () => (await (await api(`/v3/company/details?ip=${IPS.northwind}`, token)).json()).segments;
    expect((await identify()).ids).toEqual([101]);
    const seg = await (await admin('POST', '/admin/api/customers/acme/segments', { name: 'North America', match: { region: ['north america'] } })).json();
    expect(await identify()).toMatchObject({ ids: [101, seg.id], names: ['Enterprise Software', 'North America'] });
    await admin('DELETE', `/admin/api/customers/acme/segments/${seg.id}`);
    expect((await identify()).ids).toEqual([101]);
  });

  it('the Segments API: granted by the operator, its own token group, free, paged, the ids identification answers', async () => {
    // No package covers it: a token needs the grant.
    expect((await newToken('segments')).status).toBe(403);
    const granted = await admin('PATCH', '/admin/api/customers/acme', { grants: ['segments'] });
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ grants: ['segments'] });
    const token = (await (await newToken('segments')).json()).token as string;
    const named = (await (await newToken('segments', { segment_names: true })).json()).token as string;

    // The fixtures all carry NAICS 511210; 900001 and 900003 are of these sizes, 900002 (200-499) not.
    const both = await (
      await admin('POST', '/admin/api/customers/acme/segments', {
        name: 'Software publishers',
        match: { naics_prefix: ['5112'], employee_range: ['1,000-4,999', '50-199'] },
      })
    ).json();
    const list = await api('/v3/segments', token);
    expect(list.status).toBe(200);
    expect(list.headers.get('ratelimit-limit')).toBeTruthy();
    expect((await list.json()).segments).toEqual([
      { id: 101, name: 'Enterprise Software', rule: expect.stringMatching(/^industry: /), size: expect.any(Number) },
      { id: 102, name: 'EMEA Manufacturing', rule: expect.any(String), size: 1 },
      { id: both.id, name: 'Software publishers', rule: 'employee_range: 1,000-4,999, 50-199; naics_prefix: 5112', size: 2 },
    ]);

    // Pages of one: every member once, in company id order, then no cursor.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await api(`/v3/segments/${both.id}/accounts?limit=1${cursor ? `&cursor=${cursor}` : ''}`, token);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { accounts: { companyId: string; name: string; domain: string }[]; next_cursor: string | null };
      seen.push(...page.accounts.map((a) => a.companyId));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['900001', '900003']);
    const page = await (await api(`/v3/segments/${both.id}/accounts`, token)).json();
    expect(page.accounts[0]).toEqual({ companyId: '900001', name: ACME_SOFTWARE.name, domain: ACME_SOFTWARE.domain });
    expect(page.next_cursor).toBeNull();
    expect((await api(`/v3/segments/${both.id}/accounts?cursor=garbage`, token)).status).toBe(422);
    expect((await api(`/v3/segments/${both.id}/accounts?limit=0`, token)).status).toBe(422);
    expect((await api('/v3/segments/999/accounts', token)).status).toBe(404);

    // Membership: the ids identification answers for the domain's company; names only with segment_names.
    const membership = await api(`/v3/segments/membership?domain=${BLUEPEAK_MANUFACTURING.domain}`, token);
    expect(membership.status).toBe(200);
    expect(await membership.json()).toEqual({ domain: BLUEPEAK_MANUFACTURING.domain, companyId: '900002', segments: { ids: [102], names: [] } });
    const withNames = await (await api(`/v3/segments/membership?domain=${ACME_SOFTWARE.domain}`, named)).json();
    const idToken = (await (await newToken('identification')).json()).token as string;
    const identified = await (await api(`/v3/company/details?ip=${IPS.northwind}`, idToken)).json();
    expect(withNames.companyId).toBe(identified.company.companyId);
    expect(withNames.segments.ids).toEqual(identified.segments.ids);
    expect(withNames.segments.names).toEqual(['Enterprise Software', 'Software publishers']);
    const unknown = await api('/v3/segments/membership?domain=nobody.example', token);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 'error', code: 'not_found', message: expect.any(String) });
    expect((await api('/v3/segments/membership', token)).status).toBe(400);

    // Free: no credits spent; another group's token is refused both ways.
    const before = await (await admin('GET', '/admin/api/customers/acme/credits')).json();
    await api('/v3/segments', token);
    expect(await (await admin('GET', '/admin/api/customers/acme/credits')).json()).toEqual(before);
    expect((await api('/v3/segments', idToken)).status).toBe(403);
    expect((await api(`/v3/company/details?ip=${IPS.northwind}`, token)).status).toBe(403);

    // The grant removed: the token is refused (403) at once; packages were never the reason.
    expect((await admin('PATCH', '/admin/api/customers/acme', { grants: [] })).status).toBe(200);
    const refused = await api('/v3/segments', token);
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toMatch(/not granted/);
    await admin('DELETE', `/admin/api/customers/acme/segments/${both.id}`);
  });

  it('preview: the size and first accounts of a rule, nothing saved', async () => {
    const res = await admin('POST', '/admin/api/customers/acme/segments/preview', { match: { industry: ['software'], state: ['CA'] } });
    expect(res.status).toBe(200);
    const preview = await res.json();
    expect(preview.size).toBe(preview.accounts.length);
    for (const a of preview.accounts) expect(a.companyId).toMatch(/^9000/);
    expect((await admin('POST', '/admin/api/customers/acme/segments/preview', {})).status).toBe(422);
    expect((await (await admin('GET', '/admin/api/customers/acme/segments')).json()).map((s: { id: number }) => s.id)).toEqual([101, 102]);
  });

  it('a nested behaviour segment: saved, joined by an account once its page views are recorded, carried by identification, the view and the preview', async () => {
    const rule = {
      op: 'all',
      industry: ['software'],
      groups: [{ op: 'any', visited: { path: '/pricing*', days: 14 }, page_views: { min: 3, days: 7 } }],
    };
    const created = await admin('POST', '/admin/api/customers/acme/segments', { name: 'Pricing visitors', match: rule });
    expect(created.status).toBe(201);
    const seg = await created.json();
    expect(seg.match).toEqual(rule);
    const token = (await (await newToken('identification')).json()).token as string;
    const identify = async () => (await (await api(`/v3/company/details?ip=${IPS.northwind}`, token)).json()).segments.ids as number[];
    const preview = async (match: unknown) => (await admin('POST', '/admin/api/customers/acme/segments/preview', { match })).json();

    expect(await identify()).not.toContain(seg.id);
    expect(await preview(rule)).toEqual({ size: 0, accounts: [] });

    // The account views the pricing page (query string and case aside): it is in the segment from that view on.
    const view = await pageView(IPS.northwind, '/Pricing/Enterprise?utm_source=ads');
    expect(view.company_id).toBe('900001');
    expect(view.segment_ids).toContain(seg.id);
    expect(await identify()).toContain(seg.id);
    expect(await preview(rule)).toMatchObject({ size: 1, accounts: [{ companyId: '900001' }] });
    // Another account, no pricing page and too few views: not in it.
    await pageView(IPS.bluepeak, '/blog/post');
    expect((await preview(rule)).size).toBe(1);
    expect(await preview({ page_views: { min: 1, days: 1 } })).toMatchObject({ size: 2 });
    expect(await preview({ op: 'any', visited: { path: '/blog/*', days: 1 }, company_id: ['900003'] })).toMatchObject({
      accounts: [{ companyId: '900002' }, { companyId: '900003' }],
    });
    // Intent over the catalog: a score of at least 0 holds for every company, so the catalog condition decides.
    const software = await preview({ industry: ['software'] });
    expect(await preview({ industry: ['software'], intent: { product: 'CDP', min_score: 0 } })).toEqual(software);

    await admin('DELETE', `/admin/api/customers/acme/segments/${seg.id}`);
  });

  it('visited rules with several * against a crafted path of 1,000 "/": the preview and identification answer as usual', async () => {
    // With one `.*` per `*`, this path held a node's event loop for most of a minute in a preview of
    // /*/*/*/*.pdf, and cost every identification of the account ~100× once /*/*/*.pdf was saved.
    const crafted = `/a${'/'.repeat(1000)}x`;
    const preview = async (match: unknown) => {
      const res = await admin('POST', '/admin/api/customers/acme/segments/preview', { match });
      expect(res.status).toBe(200);
      return res.json();
    };
    const created = await admin('POST', '/admin/api/customers/acme/segments', { name: 'PDF readers', match: { visited: { path: '/*/*/*.pdf', days: 30 } } });
    expect(created.status).toBe(201);
    const seg = await created.json();
    const token = (await (await newToken('identification')).json()).token as string;
    const identify = async () => {
      const res = await api(`/v3/company/details?ip=${IPS.northwind}`, token);
      expect(res.status).toBe(200);
      return res.json();
    };

    const view = await pageView(IPS.northwind, crafted);
    expect(view.path).toBe(crafted);
    expect(view.segment_ids).not.toContain(seg.id);
    expect(await preview({ visited: { path: '/*/*/*/*.pdf', days: 30 } })).toEqual({ size: 0, accounts: [] });
    const before = await identify();
    expect(before.company.companyId).toBe('900001');
    expect(before.segments.ids).toEqual([101]);

    // A page that does match (case aside, as segment rules compare): the account is in the segment.
    const pdf = await pageView(IPS.northwind, `${crafted}/report.PDF?utm_source=mail`);
    expect(pdf.segment_ids).toContain(seg.id);
    expect(await preview({ visited: { path: '/*/*/*/*.pdf', days: 30 } })).toEqual({ size: 1, accounts: [expect.objectContaining({ companyId: '900001' })] });
    const after = await identify();
    expect(after.segments.ids).toEqual([101, seg.id]);
    expect({ ...after, segments: null }).toEqual({ ...before, segments: null });

    await admin('DELETE', `/admin/api/customers/acme/segments/${seg.id}`);
  });

  it('a bad rule is a 422 that says what is wrong, on save, change and preview (never a 500)', async () => {
    const bad: [unknown, RegExp][] = [
      [{ groups: [{ industry: ['x'], groups: [{ region: ['y'] }] }] }, /groups\.0\.groups: a group cannot hold groups/],
      [{ groups: [{}] }, /groups\.0: a group needs at least one condition/],
      [{ visited: { path: 'pricing', days: 14 } }, /visited\.path: a path pattern starts with \//],
      [{ visited: { path: '/pricing', days: 0 } }, /visited\.days: a whole number of days from 1 to 400/],
      [{ page_views: { min: 'many', days: 3 } }, /page_views\.min: a whole number of page views/],
      [{ intent: { product: 'cdp' } }, /intent: give stages, min_score or both/],
      [{ op: 'either' }, /op: all or any/],
      [{ groups: [{ intent: { product: 'crm', min_score: 50 } }] }, /match\.intent\.product: no product "crm" of customer acme \(its products: cdp\)/],
      [{ in_list: ['vip'] }, /match\.in_list: no list "vip"/],
    ];
    for (const [match, message] of bad) {
      for (const [method, path, body] of [
        ['POST', '/admin/api/customers/acme/segments', { name: 'bad rule', match }],
        ['PATCH', '/admin/api/customers/acme/segments/101', { match }],
        ['POST', '/admin/api/customers/acme/segments/preview', { match }],
      ] as const) {
        const res = await admin(method, path, body);
        expect(res.status, `${method} ${path} ${JSON.stringify(match)}`).toBe(422);
        expect((await res.json()).message).toMatch(message);
      }
    }
    expect((await (await admin('GET', '/admin/api/customers/acme/segments/101')).json()).match).toEqual(TEST_CUSTOMER.segments[0]!.match);
  });
});
