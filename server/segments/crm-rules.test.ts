/**
 * Segment rules on the CRM side (`crm_owner`, `crm_stage`) through the real server, on both state
 * backends: what the CRM sync read back is put into the CRM store, and the rules see it in
 * identification's answer, the recorded page view, the account page (which shows the CRM side too) and
 * the builder's preview over the catalog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmAccountRecord, CrmConnectionRecord, CrmProvider } from '../../core/crm-records.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import type { RecordedPageView } from '../visits/recorder.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const JSON_ADMIN = { ...ADMIN, 'content-type': 'application/json' };
const AT = '2026-05-01T10:00:00.000Z';

const connection = (provider: CrmProvider): { record: CrmConnectionRecord; secret: string } => ({
  record: {
    customer_id: 'acme',
    provider,
    base_url: 'http://127.0.0.1:9',
    client_id: provider === 'salesforce' ? 'client-id' : null,
    secret_prefix: 'secret',
    status: 'active',
    attention: null,
    mapping: {},
    create_missing: false,
    created_at: AT,
    updated_at: AT,
    last_run_at: null,
    last_full_at: null,
    config_hash: null,
  },
  secret: JSON.stringify(provider === 'hubspot' ? { access_token: 'pat-0000' } : { client_secret: 'secret-0000' }),
});

const account = (provider: CrmProvider, company_id: string, o: Partial<CrmAccountRecord>): CrmAccountRecord => ({
  customer_id: 'acme',
  provider,
  company_id,
  crm_ids: [`${provider}-${company_id}`],
  owner_email: null,
  owner_name: null,
  stage: null,
  type: null,
  written_hash: null,
  read_at: AT,
  written_at: null,
  ...o,
});

describe.each(['sqlite', 'redis'] as const)('segment rules on the CRM side on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  const recorded: RecordedPageView[] = [];

  const admin = (method: string, path: string, body?: unknown) =>
    srv.request(path, { method, headers: body === undefined ? ADMIN : JSON_ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const segment = async (name: string, match: unknown): Promise<number> => {
    const res = await admin('POST', '/admin/api/customers/acme/segments', { name, match });
    expect(res.status).toBe(201);
    return (await res.json()).id;
  };

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: { SVC_TRUST_PROXY: 'loopback', ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {}) },
      customers: [TEST_CUSTOMER],
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE],
    });
    srv.recorder.onPageView((view) => void recorded.push(view));
    // What a sync read back: 900001 owned by Jane in HubSpot (an opportunity) and by Joe in Salesforce (a
    // direct customer there); 900002 a HubSpot customer without an owner; 900003 looked up, nothing matched.
    const crm = srv.crm.deps.crm;
    await crm.putConnection(connection('hubspot'));
    await crm.putConnection(connection('salesforce'));
    await crm.putAccounts([
      account('hubspot', '900001', { owner_email: 'jane@acme.com', owner_name: 'Jane Doe', stage: 'opportunity', type: 'PROSPECT', written_at: AT }),
      account('hubspot', '900002', { stage: 'customer' }),
    ]);
    await crm.putAccounts([
      account('salesforce', '900001', { owner_email: 'joe@acme.com', owner_name: 'Joe Roe', type: 'Customer - Direct' }),
      account('salesforce', '900003', { crm_ids: [] }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('a segment on the CRM owner or stage holds in identification, the recorded view, the account page and the preview', async () => {
    const janes = await segment('Jane’s accounts', { crm_owner: ['Jane@Acme.com'] });
    const notCustomers = await segment('Not customers yet', { crm_stage: { not_in: ['customer'] } });
    const unowned = await segment('No CRM owner', { crm_owner: ['none'] });

    const token = (
      await (await admin('POST', '/admin/api/tokens', { customer_id: 'acme', api_group: 'identification', name: 'crm', segment_names: true })).json()
    ).token as string;
    const identified = await (await srv.request(`/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${token}` } })).json();
    expect(identified.segments.ids).toEqual([101, janes, notCustomers]);
    expect(identified.segments.names).toContain('Jane’s accounts');

    // The tag's page view records the same segments.
    const res = await srv.request('/v1/events?tag=acme-tag', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost:8000', 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind },
      body: JSON.stringify({ type: 'pageview', path: '/pricing', session: 'crm-session-1' }),
    });
    expect(res.status).toBe(204);
    for (let i = 0; i < 500 && recorded.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(recorded[0]!.segment_ids).toEqual([101, janes, notCustomers]);

    // The account page: its segments, and what each CRM says of it.
    const page = await (await admin('GET', '/admin/api/customers/acme/accounts/900001')).json();
    expect(page.segments.map((s: { id: number }) => s.id)).toEqual([101, janes, notCustomers]);
    expect(page.crm).toEqual([
      {
        provider: 'hubspot',
        crm_ids: ['hubspot-900001'],
        owner_email: 'jane@acme.com',
        owner_name: 'Jane Doe',
        stage: 'opportunity',
        type: 'PROSPECT',
        read_at: AT,
        written_at: AT,
      },
      {
        provider: 'salesforce',
        crm_ids: ['salesforce-900001'],
        owner_email: 'joe@acme.com',
        owner_name: 'Joe Roe',
        stage: null,
        type: 'Customer - Direct',
        read_at: AT,
        written_at: null,
      },
    ]);
    // Nothing matched in the CRM: no CRM side shown, no owner, no stage.
    const unmatched = await (await admin('GET', '/admin/api/customers/acme/accounts/900003')).json();
    expect(unmatched.crm).toEqual([]);
    expect(unmatched.segments.map((s: { id: number }) => s.id)).toEqual([notCustomers, unowned]);
    const customer = await (await admin('GET', '/admin/api/customers/acme/accounts/900002')).json();
    expect(customer.segments.map((s: { id: number }) => s.id)).toEqual([102, unowned]);

    // The builder's preview over the catalog agrees.
    const preview = async (match: unknown) => {
      const r = await admin('POST', '/admin/api/customers/acme/segments/preview', { match });
      expect(r.status).toBe(200);
      return ((await r.json()).accounts as { companyId: string }[]).map((a) => a.companyId);
    };
    expect(await preview({ crm_owner: ['jane@acme.com'] })).toEqual(['900001']);
    expect(await preview({ crm_owner: ['any'] })).toEqual(['900001']);
    expect(await preview({ crm_owner: ['none'] })).toEqual(['900002', '900003']);
    expect(await preview({ crm_stage: { in: ['Customer - Direct', 'CUSTOMER'] } })).toEqual(['900001', '900002']);
    expect(await preview({ crm_stage: { not_in: ['customer'] } })).toEqual(['900001', '900003']);
    // 900001 by its Salesforce owner, 900002 and 900003 by their region.
    expect(await preview({ op: 'any', crm_owner: ['joe@acme.com'], region: ['EMEA'] })).toEqual(['900001', '900002', '900003']);
    expect(await preview({ crm_owner: ['joe@acme.com'], region: ['EMEA'] })).toEqual([]);

    const list = await (await admin('GET', '/admin/api/customers/acme/segments')).json();
    for (const id of [janes, notCustomers, unowned]) expect((await admin('DELETE', `/admin/api/customers/acme/segments/${id}`)).status).toBe(204);
    expect(list.find((s: { id: number }) => s.id === janes).match).toEqual({ crm_owner: ['Jane@Acme.com'] });
  });

  it('a CRM condition that cannot mean anything is a 422 that says why', async () => {
    const bad: [unknown, RegExp][] = [
      [{ crm_owner: ['jane'] }, /crm_owner\.0: an owner’s email address, any \(the account has a CRM owner\) or none/],
      [{ crm_owner: [] }, /crm_owner: at least one owner email, any or none/],
      [{ crm_stage: {} }, /crm_stage: give in, not_in or both/],
      [{ groups: [{ crm_stage: { in: [''] } }] }, /groups\.0\.crm_stage\.in\.0: a CRM stage or type is not empty/],
    ];
    for (const [match, message] of bad) {
      for (const [method, path, body] of [
        ['POST', '/admin/api/customers/acme/segments', { name: 'bad CRM rule', match }],
        ['POST', '/admin/api/customers/acme/segments/preview', { match }],
      ] as const) {
        const res = await admin(method, path, body);
        expect(res.status, `${method} ${path} ${JSON.stringify(match)}`).toBe(422);
        expect((await res.json()).message).toMatch(message);
      }
    }
  });
});
