/**
 * The CRM sync end to end, as a customer's admin sets it up and as sales then sees it: a real server (SQLite
 * state file, the fixture dataset with 1,000 more companies), 1,000 accounts that visited, the API used as a
 * CRM operations person would (PUT the connection, POST a body-less sync, read the runs), and the provider's
 * official client (`@hubspot/api-client`, `jsforce`) against a local stand-in of its published HTTP API.
 *
 * Pinned: every matched CRM record holds exactly what the account page shows, written once; an injected 429
 * is waited out; three per-record failures are listed and the rest written; several records of one domain
 * are all written; invalid domains and domains the CRM lacks are counted; an unchanged account is not
 * written again; the owners are read back and a segment on `crm_owner` uses them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { CrmRunRecord } from '../../core/crm-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING } from '../testing/fixtures.ts';
import { type HubSpotStandIn, startHubSpotStandIn } from '../testing/hubspot-stand-in.ts';
import { type SalesforceStandIn, startSalesforceStandIn } from '../testing/salesforce-stand-in.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { defaultField, TOP_PAGES_WRITTEN } from './mapping.ts';

const N = 1000;
const TODAY = new Date().toISOString().slice(0, 10);
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

/** Company i of the extra ones: id 700000+i, domain co-i.example; a few with a domain that is no host name. */
const INVALID = new Set([7, 77, 777]);
const companyAt = (i: number): CompanyRow => ({
  ...ACME_SOFTWARE,
  company_id: String(700_000 + i),
  name: `Company ${i}`,
  domain: INVALID.has(i) ? `not a domain ${i}` : `co-${i}.example`,
  industry: i % 3 === 0 ? 'Software' : 'Retail',
  employee_range: i % 2 === 0 ? '1,000-4,999' : '50-199',
});
const COMPANIES = Array.from({ length: N }, (_, i) => companyAt(i));
/** Domains the CRM has no record of; domains it has twice. */
const MISSING = new Set([3, 30, 300]);
const TWICE = new Set([5, 50, 500]);
const OWNERS = ['jane@acme-sales.test', 'raj@acme-sales.test', 'lee@acme-sales.test'];
/** How a CRM record writes company i's domain (as people type websites). */
const website = (i: number) => [`co-${i}.example`, `https://www.co-${i}.example/`, `HTTP://CO-${i}.EXAMPLE/about`][i % 3]!;

interface CrmSide {
  provider: 'hubspot' | 'salesforce';
  connectBody(): Record<string, unknown>;
  /** Seeds the CRM records; company index → its record ids. */
  seed(): Map<number, string[]>;
  /** A record's svc fields as the CRM holds them, read back as text (what a person sees). */
  field(id: string, name: string): string | null;
  /** The number of times each record was sent in a write since request `from`. */
  writes(from: number): Map<string, number>;
  requestCount(): number;
  failRecords(ids: string[]): void;
  rateLimitOnce(): void;
  /** The credential stops working (a revoked token; a rotated secret with the sessions ended). */
  revoke(): void;
  /** The next `n` requests fail with a 5xx. */
  serverErrors(n: number): void;
  close(): Promise<void>;
}

async function hubspotSide(): Promise<CrmSide> {
  const s: HubSpotStandIn = await startHubSpotStandIn({ owners: OWNERS.map((email, i) => ({ id: String(100 + i), email, firstName: email.split('@')[0] })) });
  return {
    provider: 'hubspot',
    connectBody: () => ({ access_token: s.token, base_url: s.url }),
    seed() {
      const ids = new Map<number, string[]>();
      for (let i = 0; i < N; i++) {
        if (MISSING.has(i) || INVALID.has(i)) continue;
        const props = { name: `Company ${i}`, domain: website(i), hubspot_owner_id: String(100 + (i % 3)), lifecyclestage: i % 4 === 0 ? 'customer' : 'lead' };
        ids.set(i, TWICE.has(i) ? [s.companies.add(props), s.companies.add({ ...props, name: `Company ${i} (duplicate)` })] : [s.companies.add(props)]);
      }
      return ids;
    },
    field: (id, name) => {
      const v = s.companies.get(id)?.properties[name];
      return v === undefined || v === '' ? null : v;
    },
    writes(from) {
      const out = new Map<string, number>();
      for (const r of s.requests.slice(from)) {
        if (r.method !== 'POST' || r.path !== '/crm/v3/objects/companies/batch/update' || r.status >= 300 || r.status === 0) continue;
        for (const input of (r.body as { inputs: { id: string }[] }).inputs) out.set(input.id, (out.get(input.id) ?? 0) + 1);
      }
      return out;
    },
    requestCount: () => s.requests.length,
    failRecords: (ids) => s.faults.failRecords(ids, { message: 'Property values were not valid', category: 'VALIDATION_ERROR' }),
    rateLimitOnce: () => s.faults.rateLimitNext(1, { retryAfterSeconds: 1 }),
    revoke: () => s.faults.rotateToken(),
    serverErrors: (n) => s.faults.serverErrorNext(n, 502),
    close: () => s.close(),
  };
}

async function salesforceSide(): Promise<CrmSide> {
  const fields = Object.fromEntries(
    ['company_id', 'segments', 'last_visit_at', 'page_views_30d', 'top_pages', 'hot', 'cdp.intent_score', 'cdp.buying_stage', 'cdp.profile_fit'].map((k) => [
      defaultField('salesforce', k),
      {
        type: (k === 'page_views_30d' || k.endsWith('intent_score')
          ? 'double'
          : k === 'hot'
            ? 'boolean'
            : k === 'last_visit_at'
              ? 'datetime'
              : 'string') as never,
      },
    ]),
  );
  const s: SalesforceStandIn = await startSalesforceStandIn({ customFields: fields });
  const owners = OWNERS.map((email) => s.users.add({ Email: email, Name: email.split('@')[0]! }));
  return {
    provider: 'salesforce',
    connectBody: () => ({ client_id: s.clientId, client_secret: s.clientSecret, url: s.url }),
    seed() {
      const rows: { i: number; row: Record<string, string> }[] = [];
      for (let i = 0; i < N; i++) {
        if (MISSING.has(i) || INVALID.has(i)) continue;
        const row = { Name: `Company ${i}`, Website: website(i), OwnerId: owners[i % 3]!, Type: i % 4 === 0 ? 'Customer' : 'Prospect' };
        rows.push({ i, row });
        if (TWICE.has(i)) rows.push({ i, row: { ...row, Name: `Company ${i} (duplicate)` } });
      }
      const seeded = s.accounts.seed(rows.map((r) => r.row));
      const ids = new Map<number, string[]>();
      rows.forEach((r, k) => {
        ids.set(r.i, [...(ids.get(r.i) ?? []), seeded[k]!]);
      });
      return ids;
    },
    field: (id, name) => {
      const v = s.accounts.get(id)?.[name];
      return v === undefined || v === null || v === '' ? null : String(v);
    },
    writes(from) {
      const out = new Map<string, number>();
      for (const r of s.requests.slice(from)) {
        if (r.method !== 'PATCH' || !r.path.endsWith('/composite/sobjects') || r.status === null || r.status >= 300) continue;
        for (const rec of (JSON.parse(r.body) as { records: { Id?: string; id?: string }[] }).records) {
          const id = rec.Id ?? rec.id!;
          out.set(id, (out.get(id) ?? 0) + 1);
        }
      }
      return out;
    },
    requestCount: () => s.requests.length,
    failRecords: (ids) => s.faults.failRecords(ids, 'FIELD_CUSTOM_VALIDATION_EXCEPTION', 'Website must be reviewed first'),
    rateLimitOnce: () => s.faults.serverErrorNext(1, 503),
    revoke: () => {
      s.faults.rotateSecret();
      s.faults.revokeSessions();
    },
    serverErrors: (n) => s.faults.serverErrorNext(n, 503),
    close: () => s.close(),
  };
}

/** What a CRM field shows of a value: text as the CRM keeps it (numbers as numbers, booleans true/false). */
function shown(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  return String(v);
}

async function waitForRun(srv: TestServer, provider: string, runId: string): Promise<CrmRunRecord> {
  for (let i = 0; i < 600; i++) {
    const res = await srv.inject({ method: 'GET', url: `/admin/api/customers/acme/crm/${provider}/runs/${runId}`, headers: ADMIN });
    const run = res.json() as CrmRunRecord;
    if (run.status !== 'running') return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the run did not end');
}

describe.each([
  ['HubSpot', hubspotSide],
  ['Salesforce', salesforceSide],
])('a customer syncs 1,000 visiting accounts to %s', (_name, makeSide) => {
  let srv: TestServer;
  let crm: CrmSide;
  let records: Map<number, string[]>;

  beforeAll(async () => {
    crm = await makeSide();
    records = crm.seed();
    srv = await startTestServer({
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, ...COMPANIES],
      env: { SVC_CRM_SYNC_MINUTES: '1440' },
      crm: { timeoutMs: 5000 },
    });
    // Every extra company visited today: 1–4 page views over 1–2 sessions.
    for (let i = 0; i < N; i++) {
      const company_id = String(700_000 + i);
      for (let v = 0; v <= i % 4; v++) {
        await srv.recorder.visits.recordPageView({
          customer_id: 'acme',
          day: TODAY,
          company_id,
          path: ['/pricing', '/docs', '/blog/post', '/'][v]!,
          session_id: `s-${i}-${v % 2}`,
          at: `${TODAY}T0${v}:00:00.000Z`,
        });
      }
    }
  }, 120_000);
  afterAll(async () => {
    await srv?.close();
    await crm?.close();
  });

  it('connects with the credential tested, the secret never answered', async () => {
    const res = await srv.inject({
      method: 'PUT',
      url: `/admin/api/customers/acme/crm/${crm.provider}`,
      headers: ADMIN,
      payload: JSON.stringify(crm.connectBody()),
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.connection.status).toBe('active');
    expect(body.check.writable_fields).toContain(defaultField(crm.provider, 'segments'));
    expect(JSON.stringify(body)).not.toContain(
      crm.provider === 'hubspot' ? (crm.connectBody().access_token as string) : (crm.connectBody().client_secret as string),
    );
  });

  it('writes every matched record once, with exactly the account page’s values', async () => {
    const failing = [...records.get(10)!, ...records.get(20)!, ...records.get(40)!];
    crm.failRecords(failing);
    crm.rateLimitOnce();
    const from = crm.requestCount();
    // As a CRM operations person calls it: a POST without a body.
    const res = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    expect(res.statusCode).toBe(202);
    const run = await waitForRun(srv, crm.provider, res.json().run.id);
    expect(run.status).toBe('partial');
    expect(run.counts.accounts).toBeGreaterThanOrEqual(N);
    expect(run.counts.invalid_domain).toBe(INVALID.size);
    expect(run.counts.not_found).toBe(MISSING.size);
    expect(run.counts.multiple_matches).toBe(TWICE.size);
    expect(run.counts.failed).toBe(3);
    expect(
      run.errors
        .filter((e) => e.crm_id !== null)
        .map((e) => e.crm_id)
        .sort(),
    ).toEqual([...failing].sort());
    expect(run.errors.find((e) => e.crm_id === failing[0])?.company_id).toBe('700010');

    const writes = crm.writes(from);
    for (const [i, ids] of records) {
      for (const id of ids) expect(writes.get(id) ?? 0, `record ${id} of company ${i}`).toBe(failing.includes(id) ? writes.get(id) : 1);
    }
    // Spot-check the values against the account page of every 37th company (and all the duplicates).
    const check = [...records.keys()].filter((i) => i % 37 === 0 || TWICE.has(i)).filter((i) => ![10, 20, 40].includes(i));
    for (const i of check) {
      const id = String(700_000 + i);
      const page = (
        await srv.inject({ method: 'GET', url: `/admin/api/customers/acme/accounts/${id}?from=${addDays(TODAY, -29)}&to=${TODAY}`, headers: ADMIN })
      ).json();
      const lastVisit = page.sessions.reduce((m: string | null, s: { last_seen: string }) => (m === null || s.last_seen > m ? s.last_seen : m), null);
      const expected: Record<string, string | null> = {
        company_id: id,
        segments: shown(page.segments.map((s: { name: string }) => s.name).join('; ')),
        page_views_30d: String(page.totals.page_views),
        top_pages: shown(
          page.top_pages
            .slice(0, TOP_PAGES_WRITTEN)
            .map((p: { path: string; page_views: number }) => `${p.path} (${p.page_views})`)
            .join(', '),
        ),
        hot: String(page.lists.hot),
        'cdp.intent_score': String(page.scores[0].intent_score),
        'cdp.buying_stage': page.scores[0].buying_stage,
        'cdp.profile_fit': page.scores[0].profile_fit,
      };
      for (const recordId of records.get(i)!) {
        for (const [key, value] of Object.entries(expected)) expect(crm.field(recordId, defaultField(crm.provider, key)), `${key} of ${recordId}`).toBe(value);
        expect(Date.parse(crm.field(recordId, defaultField(crm.provider, 'last_visit_at'))!)).toBe(Date.parse(lastVisit));
      }
    }
  }, 120_000);

  it('writes nothing again when nothing changed, and only the account that visited since', async () => {
    const from = crm.requestCount();
    await srv.recorder.visits.recordPageView({
      customer_id: 'acme',
      day: TODAY,
      company_id: '700123',
      path: '/pricing',
      session_id: 's-new',
      at: new Date().toISOString(),
    });
    const res = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    const run = await waitForRun(srv, crm.provider, res.json().run.id);
    const writes = crm.writes(from);
    // The three refused records are tried again (their values are not in the CRM); the visited account once.
    expect([...writes.keys()].sort()).toEqual([...records.get(123)!, ...records.get(10)!, ...records.get(20)!, ...records.get(40)!].sort());
    expect(run.counts.unchanged).toBeGreaterThan(N - 20);
    expect(crm.field(records.get(123)![0]!, defaultField(crm.provider, 'page_views_30d'))).toBe(String((123 % 4) + 2));
  }, 60_000);

  it('writes 200 changed accounts spread over all 1,000 in full provider batches, not one request per chunk', async () => {
    const from = crm.requestCount();
    const changed = [...records.keys()].filter((i) => i % 5 === 1 && ![10, 20, 40].includes(i)).slice(0, 200);
    for (const i of changed) {
      await srv.recorder.visits.recordPageView({
        customer_id: 'acme',
        day: TODAY,
        company_id: String(700_000 + i),
        path: '/spread',
        session_id: `spread-${i}`,
        at: new Date().toISOString(),
      });
    }
    const res = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    const run = await waitForRun(srv, crm.provider, res.json().run.id);
    const writes = crm.writes(from);
    for (const i of changed) for (const id of records.get(i)!) expect(writes.get(id), `record of ${i}`).toBe(1);
    // The credential and field check (at most 3 requests), then 200+ records in batches of 100 (HubSpot) or 200 (Salesforce).
    expect(run.counts.requests).toBeLessThanOrEqual(crm.provider === 'hubspot' ? 3 + 3 : 3 + 2);
    expect(crm.requestCount() - from).toBe(run.counts.requests);
  }, 60_000);

  it('reads the owners back onto the account page, and a crm_owner segment uses them', async () => {
    const page = (await srv.inject({ method: 'GET', url: '/admin/api/customers/acme/accounts/700004', headers: ADMIN })).json();
    expect(page.crm).toEqual([expect.objectContaining({ provider: crm.provider, owner_email: OWNERS[4 % 3], crm_ids: records.get(4) })]);
    const created = await srv.inject({
      method: 'POST',
      url: '/admin/api/customers/acme/segments',
      headers: ADMIN,
      payload: JSON.stringify({ name: `Raj's accounts (${crm.provider})`, match: { crm_owner: [OWNERS[1]] } }),
    });
    expect(created.statusCode).toBe(201);
    const segment = created.json();
    const preview = await srv.inject({
      method: 'POST',
      url: '/admin/api/customers/acme/segments/preview',
      headers: ADMIN,
      payload: JSON.stringify({ match: segment.match }),
    });
    expect(preview.statusCode).toBe(200);
    const withSegment = (await srv.inject({ method: 'GET', url: '/admin/api/customers/acme/accounts/700001', headers: ADMIN })).json();
    expect(withSegment.segments.map((s: { name: string }) => s.name)).toContain(segment.name);
    const without = (await srv.inject({ method: 'GET', url: '/admin/api/customers/acme/accounts/700002', headers: ADMIN })).json();
    expect(without.segments.map((s: { name: string }) => s.name)).not.toContain(segment.name);
  });

  it('creates CRM accounts for unmatched domains only when asked to (off by default)', async () => {
    const before = crm.requestCount();
    const patch = await srv.inject({
      method: 'PATCH',
      url: `/admin/api/customers/acme/crm/${crm.provider}`,
      headers: ADMIN,
      payload: JSON.stringify({ create_missing: true }),
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json().create_missing).toBe(true);
    const res = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: ADMIN,
      payload: JSON.stringify({ full: true }),
    });
    const run = await waitForRun(srv, crm.provider, res.json().run.id);
    // The unmatched extra companies, and the customer's hot account 900001 (northwind.example: a full run takes the lists' accounts too).
    expect(run.counts.created).toBe(MISSING.size + 1);
    expect(crm.requestCount()).toBeGreaterThan(before);
    for (const i of MISSING) {
      const page = (await srv.inject({ method: 'GET', url: `/admin/api/customers/acme/accounts/${700_000 + i}`, headers: ADMIN })).json();
      expect(page.crm).toEqual([expect.objectContaining({ provider: crm.provider, crm_ids: [expect.any(String)] })]);
      const created = page.crm[0].crm_ids[0];
      expect(crm.field(created, defaultField(crm.provider, 'company_id'))).toBe(String(700_000 + i));
    }
    // Invalid domains are never created.
    expect(run.counts.invalid_domain).toBe(INVALID.size);
    await srv.inject({
      method: 'PATCH',
      url: `/admin/api/customers/acme/crm/${crm.provider}`,
      headers: ADMIN,
      payload: JSON.stringify({ create_missing: false }),
    });
  }, 120_000);

  it('keeps what a 5xx storm left pending and writes it at the next run', async () => {
    for (const id of ['700301', '700302']) {
      await srv.recorder.visits.recordPageView({
        customer_id: 'acme',
        day: TODAY,
        company_id: id,
        path: '/storm',
        session_id: `storm-${id}`,
        at: new Date().toISOString(),
      });
    }
    crm.serverErrors(6);
    const first = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    const failed = await waitForRun(srv, crm.provider, first.json().run.id);
    expect(failed.status).not.toBe('succeeded');
    const second = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    expect((await waitForRun(srv, crm.provider, second.json().run.id)).status).not.toBe('failed');
    for (const i of [301, 302]) {
      for (const id of records.get(i)!) expect(crm.field(id, defaultField(crm.provider, 'top_pages'))).toMatch(/\/storm \(1\)/);
    }
    const conn = (await srv.inject({ method: 'GET', url: `/admin/api/customers/acme/crm/${crm.provider}`, headers: ADMIN })).json();
    expect(conn.pending).toBe(0);
  }, 120_000);

  it('puts a refused credential on “needs attention”: the sync stops, nothing retried in a loop, the owner is told', async () => {
    await srv.recorder.visits.recordPageView({
      customer_id: 'acme',
      day: TODAY,
      company_id: '700200',
      path: '/late',
      session_id: 'late',
      at: new Date().toISOString(),
    });
    crm.revoke();
    const res = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    const run = await waitForRun(srv, crm.provider, res.json().run.id);
    expect(run.status).toBe('failed');
    const conn = (await srv.inject({ method: 'GET', url: `/admin/api/customers/acme/crm/${crm.provider}`, headers: ADMIN })).json();
    expect(conn.status).toBe('needs_attention');
    expect(conn.attention).toBe(run.message);
    expect(conn.attention).toMatch(crm.provider === 'hubspot' ? /authenticat|credential|token/i : /invalid client credentials/i);
    // The schedule passes it by, however often it looks; a clicked sync is refused with the reason.
    const before = crm.requestCount();
    await srv.crmScheduler.tick();
    await srv.crmScheduler.tick();
    expect(crm.requestCount()).toBe(before);
    const again = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/needs attention/);
    const checklist = (await srv.inject({ method: 'GET', url: '/admin/api/customers/acme/onboarding', headers: ADMIN })).json();
    expect(JSON.stringify(checklist)).toMatch(/needs attention/);
    // Connecting again with a working credential makes it active, and the account waiting is written.
    const reconnected = await srv.inject({
      method: 'PUT',
      url: `/admin/api/customers/acme/crm/${crm.provider}`,
      headers: ADMIN,
      payload: JSON.stringify(crm.connectBody()),
    });
    expect(reconnected.statusCode).toBe(200);
    expect(reconnected.json().connection.status).toBe('active');
    const after = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/acme/crm/${crm.provider}/sync`,
      headers: { authorization: ADMIN.authorization },
    });
    await waitForRun(srv, crm.provider, after.json().run.id);
    expect(crm.field(records.get(200)![0]!, defaultField(crm.provider, 'top_pages'))).toMatch(/\/late \(1\)/);
  }, 60_000);
});

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
