/**
 * The account page's People section through the routes in-process (srv.request: inject, as a browser and
 * curl send), signed in as users of each role, on both state backends: the committee and its CSV, a reveal
 * answered and charged exactly as People Enrichment (the same pool, the same monthly dedup — a reveal then
 * an API export of the same person is one credit), 402 when out, the permission, the add-on, unknown ids,
 * body-less POSTs, the audit log; every answer checked against the OpenAPI document.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonRow } from '../../core/catalog-records.ts';
import type { Role } from '../../core/roles.ts';
import { hashPassword } from '../auth/password.ts';
import { openApiDocument } from '../openapi/document.ts';
import { PeopleEnrichmentResponse } from '../people/schema.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, NORTHWIND_EUROPE, plainCustomer, SHARED_DOMAINS, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { CommitteeAnswer } from './schema.ts';

const PASSWORD = 'a long enough passphrase';
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
/** A title a spreadsheet would run, at the account: the CSV must defuse it. */
const FORMULA: PersonRow = {
  ...FIXTURE_PEOPLE[2]!,
  people_id: 'P1006',
  email: '',
  first_name: '=cmd',
  last_name: 'Person',
  title: '=HYPERLINK("http://evil.example","Head of Sales")',
};
const PEOPLE = [...FIXTURE_PEOPLE, FORMULA];

const doc = openApiDocument() as Record<string, any>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(doc, 'openapi');

/** The answer is one the document lists for this operation (status, media type, and the JSON body's schema). */
async function expectDocumented(method: string, path: string, res: Response): Promise<string> {
  const op = doc.paths[path]?.[method.toLowerCase()];
  expect(op, `${method} ${path} is not in the document`).toBeDefined();
  const response = op.responses[String(res.status)];
  expect(response, `${method} ${path} answered ${res.status}, which the document does not list`).toBeDefined();
  const text = await res.text();
  const media = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  expect(Object.keys(response.content ?? {}), `${method} ${path} ${res.status}`).toContain(media);
  if (media === 'application/json') {
    const where = ['paths', path, method.toLowerCase(), 'responses', String(res.status), 'content', media, 'schema'];
    const validate = ajv.getSchema(`openapi#/${where.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`)!;
    expect(validate(JSON.parse(text)), `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
  }
  return text;
}

const PEOPLE_DOC = '/admin/api/customers/{id}/accounts/{companyId}/people';
const CSV_DOC = '/admin/api/customers/{id}/accounts/{companyId}/people.csv';
const REVEAL_DOC = '/admin/api/customers/{id}/accounts/{companyId}/people/{personId}/reveal';

describe.each(['sqlite', 'redis'] as const)('the People section on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  /** Session cookies of signed-in users, by customer and role. */
  const cookies = new Map<string, string>();

  const as = (customer: string, role: Role) => cookies.get(`${customer}/${role}`)!;
  const get = async (who: string | null, path: string, accept?: string) => {
    const res = await srv.request(path, { headers: { ...(who === null ? ADMIN : { cookie: who }), ...(accept ? { accept } : {}) } });
    return res;
  };
  /** A reveal as the console sends it: a session cookie, this server's Origin, no body. */
  const reveal = (who: string, customer: string, companyId: string, personId: string) =>
    srv.request(`/admin/api/customers/${customer}/accounts/${companyId}/people/${personId}/reveal`, {
      method: 'POST',
      headers: { cookie: who, origin: srv.url },
    });
  const json = async (res: Response, method: string, path: string) => JSON.parse(await expectDocumented(method, path, res));
  const enrichment = async (customer: string) => {
    const credits = await (await get(null, `/admin/api/customers/${customer}/credits`)).json();
    return credits.balances.find((b: { pool: string }) => b.pool === 'enrichment') as { used: number; remaining: number; quota: number };
  };
  /** The credits the pipeline's credit step counted for People Enrichment (the metric every charge of the API moves). */
  const chargedMetric = async () => {
    const text = await (await get(null, '/metrics')).text();
    return Number(/^svc_credits_charged_total\{pool="enrichment",api="people-enrichment"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  };
  const reveals = async (customer: string) =>
    (await srv.users.listAudit(customer, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 10_000)).filter((a) => a.action === 'person.reveal');

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE],
      domains: SHARED_DOMAINS,
      people: PEOPLE,
      customers: [TEST_CUSTOMER, plainCustomer('broke', { enrichment_credits: 1 }), plainCustomer('lapsed', { packages: ['platform'] })],
    });
    const hash = await hashPassword(PASSWORD);
    for (const customer of ['acme', 'broke', 'lapsed']) {
      for (const role of ['marketer', 'viewer', 'admin'] as const) {
        const email = `${role}@${customer}.test`;
        await srv.users.createUser({ customer_id: customer, email, role, password_hash: hash, sso: false });
        const res = await srv.request('/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: srv.url },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        expect(res.status, await res.clone().text()).toBe(204);
        cookies.set(`${customer}/${role}`, res.headers.get('set-cookie')!.split(';')[0]!);
      }
    }
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('answers the committee at the account’s domain by function × seniority, with which contact details exist — never the details', async () => {
    for (const who of [as('acme', 'viewer'), as('acme', 'marketer')]) {
      const res = await get(who, '/admin/api/customers/acme/accounts/900001/people');
      expect(res.status).toBe(200);
      const text = await expectDocumented('GET', PEOPLE_DOC, res.clone());
      for (const p of PEOPLE) for (const secret of [p.email, p.phone, p.mobile, p.linkedin_url].filter(Boolean)) expect(text).not.toContain(secret);
      const body = CommitteeAnswer.parse(await res.json());
      expect(body).toMatchObject({
        customer_id: 'acme',
        company_id: '900001',
        domain: 'northwind.example',
        // northwind.example also names Northwind Europe (domains.csv), as People Search finds it.
        companies: [
          { company_id: '900001', name: 'Northwind Analytics' },
          { company_id: '900003', name: 'Northwind Analytics Europe Ltd' },
        ],
        total: 4,
        shown: 4,
        truncated: false,
        levels: ['C-Level', 'VP', 'Director', 'Manager', 'Staff'],
      });
      expect(body.groups.map((g) => [g.function, g.count, g.levels.map((l) => [l.level, l.people.map((p) => `${p.people_id} ${p.company_id}`)])])).toEqual([
        [
          'Marketing',
          2,
          [
            ['VP', ['P1001 900001']],
            ['Manager', ['P1005 900003']],
          ],
        ],
        ['Sales', 1, [['Director', ['P1006 900001']]]],
        ['Engineering', 1, [['Staff', ['P1003 900001']]]],
      ]);
      const jane = body.groups[0]!.levels[0]!.people[0]!;
      expect(jane).toEqual({
        people_id: 'P1001',
        name: 'Jane Doe',
        title: 'VP of Marketing',
        titleLevel: 'VP',
        titleFunction: 'Marketing',
        location: { country: 'United States', state: 'California', city: 'San Francisco' },
        has_email: true,
        has_phone: true,
        has_mobile: true,
        company_id: '900001',
      });
      // Jane's profile as People Search answers it, field for field.
      const search = await srv.request('/v2/search/people', {
        method: 'POST',
        headers: {
          authorization: `Token ${(await srv.store.createToken({ customer_id: 'acme', api_group: 'people-search', name: `s ${Math.random()}` })).secret}`,
        },
        body: new URLSearchParams({ domain: 'northwind.example' }),
      });
      const { company_id: _, ...profile } = jane;
      expect((await search.json()).profiles).toContainEqual(profile);
    }
    const viewer = CommitteeAnswer.parse(await (await get(as('acme', 'viewer'), '/admin/api/customers/acme/accounts/900001/people')).json());
    expect(viewer.reveal).toEqual({ allowed: false, reason: 'your role (viewer) may not reveal people: it needs the people:reveal permission' });
    const marketer = CommitteeAnswer.parse(await (await get(as('acme', 'marketer'), '/admin/api/customers/acme/accounts/900001/people')).json());
    expect(marketer.reveal).toEqual({ allowed: true, reason: null });
    // Northwind Europe's own domain names only itself.
    const europe = CommitteeAnswer.parse(await (await get(null, '/admin/api/customers/acme/accounts/900003/people')).json());
    expect(europe.groups.flatMap((g) => g.levels.flatMap((l) => l.people.map((p) => p.people_id)))).toEqual(['P1005']);
  });

  it('exports the committee as spreadsheet-safe CSV (…/people.csv or Accept: text/csv), without contact details', async () => {
    const byPath = await get(as('acme', 'viewer'), '/admin/api/customers/acme/accounts/900001/people.csv');
    expect(byPath.status).toBe(200);
    expect(byPath.headers.get('content-disposition')).toBe('attachment; filename=people-acme-900001.csv');
    const csv = await expectDocumented('GET', CSV_DOC, byPath);
    expect(csv.trim().split(/\r?\n/)).toEqual([
      'function,seniority,people_id,name,title,company_id,country,state,city,has_email,has_phone,has_mobile',
      'Marketing,VP,P1001,Jane Doe,VP of Marketing,900001,United States,California,San Francisco,true,true,true',
      'Marketing,Manager,P1005,Oliver Brown,Marketing Manager,900003,United Kingdom,England,London,true,true,false',
      `Sales,Director,P1006,'=cmd Person,"'=HYPERLINK(""http://evil.example"",""Head of Sales"")",900001,United States,New York,New York,false,false,false`,
      'Engineering,Staff,P1003,Sam Lee,Software Engineer,900001,United States,New York,New York,true,false,false',
    ]);
    const byAccept = await get(as('acme', 'viewer'), '/admin/api/customers/acme/accounts/900001/people', 'text/csv');
    expect(byAccept.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await expectDocumented('GET', PEOPLE_DOC, byAccept)).toBe(csv);
  });

  it('reveals a person as People Enrichment answers it, charged once per month whether revealed here or exported by the API (audited)', async () => {
    const before = await enrichment('acme');
    const metric = await chargedMetric();
    const res = await reveal(as('acme', 'marketer'), 'acme', '900001', 'P1001');
    expect(res.status).toBe(200);
    const body = PeopleEnrichmentResponse.parse(await json(res, 'POST', REVEAL_DOC));
    expect(body.person).toMatchObject({ people_id: 'P1001', email: 'Jane.Doe@northwind.example', phone: '+1 415 555 0101', mobile: '+1 415 555 0199' });
    expect(await enrichment('acme')).toEqual({ ...before, used: before.used + 1, remaining: before.remaining - 1 });

    // Twice → still one credit; then the same person through the API this month → still one.
    expect((await reveal(as('acme', 'admin'), 'acme', '900001', 'P1001')).status).toBe(200);
    const token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'people-enrichment', name: `e ${Math.random()}` })).secret;
    const api = await srv.request('/v2/enrichment/people', {
      method: 'POST',
      headers: { authorization: `Token ${token}` },
      body: new URLSearchParams({ people_id: 'P1001' }),
    });
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual(body);
    expect(await enrichment('acme')).toEqual({ ...before, used: before.used + 1, remaining: before.remaining - 1 });
    expect((await srv.store.usage('acme')).filter((u) => u.api === 'people-enrichment')).toEqual([expect.objectContaining({ charges: 1 })]);
    expect(await chargedMetric()).toBe(metric + 1);

    // A person of the other company at the domain is the committee's too: one more credit.
    expect((await reveal(as('acme', 'marketer'), 'acme', '900001', 'P1005')).status).toBe(200);
    expect((await enrichment('acme')).used).toBe(before.used + 2);

    const audit = await reveals('acme');
    expect(audit.map((a) => [a.action, a.target, a.actor.replace(/^user:\S+ /, ''), a.after])).toEqual([
      ['person.reveal', 'P1001', 'marketer@acme.test', { account: '900001', company_id: '900001' }],
      ['person.reveal', 'P1001', 'admin@acme.test', { account: '900001', company_id: '900001' }],
      ['person.reveal', 'P1005', 'marketer@acme.test', { account: '900001', company_id: '900003' }],
    ]);
    expect(JSON.stringify(audit)).not.toContain('Jane.Doe@');
  });

  it('402 with the spec’s error body when the Enrichment credits are spent; a person revealed this month stays free', async () => {
    expect((await reveal(as('broke', 'marketer'), 'broke', '900001', 'P1003')).status).toBe(200);
    expect(await enrichment('broke')).toMatchObject({ quota: 1, used: 1, remaining: 0 });
    const out = await reveal(as('broke', 'marketer'), 'broke', '900001', 'P1001');
    expect(out.status).toBe(402);
    expect(await json(out, 'POST', REVEAL_DOC)).toEqual({
      status: 'error',
      message: 'quota exhausted: no Enrichment APIs credits left for this contract year; contact your customer success manager to add credits',
      code: 'quota_exhausted',
    });
    expect((await reveal(as('broke', 'marketer'), 'broke', '900001', 'P1003')).status).toBe(200);
    expect(await enrichment('broke')).toMatchObject({ used: 1, remaining: 0 });
    // Refused reveals show nothing and leave no audit record.
    expect((await reveals('broke')).map((a) => a.target)).toEqual(['P1003', 'P1003']);
  });

  it('403 for a role without people:reveal, and nothing charged', async () => {
    const before = await enrichment('acme');
    const res = await reveal(as('acme', 'viewer'), 'acme', '900001', 'P1003');
    expect(res.status).toBe(403);
    expect(await json(res, 'POST', REVEAL_DOC)).toEqual({
      status: 'error',
      message: 'your role (viewer) may not do this: it needs the people:reveal permission',
      code: 'forbidden',
    });
    expect(await enrichment('acme')).toEqual(before);
  });

  it('403 for a customer without the people add-on, for the committee and a reveal', async () => {
    const committee = await get(as('lapsed', 'viewer'), '/admin/api/customers/lapsed/accounts/900001/people');
    expect(committee.status).toBe(403);
    expect((await json(committee, 'GET', PEOPLE_DOC)).message).toBe(
      'The people at an account need the people-enrichment add-on package with platform or sales-intelligence (this customer has: platform)',
    );
    const res = await reveal(as('lapsed', 'marketer'), 'lapsed', '900001', 'P1001');
    expect(res.status).toBe(403);
    expect(await json(res, 'POST', REVEAL_DOC)).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/^Revealing a person needs the people-enrichment add-on/),
    });
    expect(await enrichment('lapsed')).toMatchObject({ used: 0 });
    expect(await reveals('lapsed')).toEqual([]);
  });

  it('404 for an unknown company, an unknown person, a person of another company, another customer; nothing charged', async () => {
    const before = await enrichment('acme');
    const cases: [string, string, string, RegExp][] = [
      ['acme', '123456', 'P1001', /^unknown company 123456$/],
      ['acme', '900001', 'P0000', /^no person P0000 among the people of company 900001$/],
      // Max works at Bluepeak, not at northwind.example.
      ['acme', '900001', 'P1002', /^no person P1002 /],
      // Oliver is at Northwind Europe's domain, but Jane is not: northwind.co.uk names only 900003.
      ['acme', '900003', 'P1001', /^no person P1001 /],
      ['broke', '900001', 'P1001', /^unknown customer broke$/],
    ];
    for (const [customer, company, person, message] of cases) {
      const res = await reveal(as('acme', 'marketer'), customer, company, person);
      expect(res.status, `${customer} ${company} ${person}`).toBe(404);
      expect((await json(res, 'POST', REVEAL_DOC)).message).toMatch(message);
    }
    const unknown = await get(as('acme', 'viewer'), '/admin/api/customers/acme/accounts/123456/people');
    expect(unknown.status).toBe(404);
    await expectDocumented('GET', PEOPLE_DOC, unknown);
    expect(await enrichment('acme')).toEqual(before);
  });

  it('takes a body-less POST as curl and python-requests send it, and refuses a cross-site one', async () => {
    const path = '/admin/api/customers/acme/accounts/900001/people/P1003/reveal';
    // curl -X POST -H "Authorization: Bearer …": no Content-Type, no length.
    const curl = await srv.inject({ method: 'POST', url: path, headers: ADMIN });
    expect(curl.statusCode, curl.body).toBe(200);
    // python-requests' requests.post(url, headers=…): Content-Length: 0.
    const requests = await srv.inject({ method: 'POST', url: path, headers: { ...ADMIN, 'content-length': '0' } });
    expect(requests.statusCode, requests.body).toBe(200);
    expect(requests.json().person.people_id).toBe('P1003');
    // A form post from another site riding on the session cookie.
    const forged = await srv.request(path, {
      method: 'POST',
      headers: { cookie: as('acme', 'marketer'), origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'x=1',
    });
    expect(forged.status).toBe(403);
    expect((await reveals('acme')).filter((a) => a.target === 'P1003').map((a) => a.actor)).toEqual(['operator', 'operator']);
  });
});
