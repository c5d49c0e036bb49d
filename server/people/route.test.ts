/** Integration: People Enrichment and People Search through the route pipeline (in-process), every status. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerSeed } from '../../core/customer-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, NORTHWIND_EUROPE, SHARED_DOMAINS, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { cachedTokens, startTestServer, type TestServer } from '../testing/test-server.ts';
import { PeopleEnrichmentNotFound, PeopleEnrichmentResponse, PeopleSearchNotFound, PeopleSearchResponse } from './schema.ts';

let srv: TestServer;
const token = cachedTokens(() => srv);
beforeAll(async () => {
  srv = await startTestServer({
    companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE],
    domains: SHARED_DOMAINS,
    people: FIXTURE_PEOPLE,
    customers: [TEST_CUSTOMER],
  });
});
afterAll(() => srv?.close());

async function post(path: string, auth: string | null, body: Record<string, unknown> | string, json = false) {
  const headers: Record<string, string> = { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' };
  if (auth) headers.authorization = `Token ${auth}`;
  const data = typeof body === 'string' ? body : json ? JSON.stringify(body) : new URLSearchParams(body as Record<string, string>).toString();
  const res = await srv.request(path, { method: 'POST', headers, body: data });
  return { status: res.status, body: await res.json() };
}
const enrich = async (body: Record<string, unknown> | string, json = false) =>
  post('/v2/enrichment/people', await token('acme', 'people-enrichment'), body, json);
const search = async (body: Record<string, unknown> | string, json = false) => post('/v2/search/people', await token('acme', 'people-search'), body, json);

describe('POST /v2/enrichment/people (People Enrichment)', () => {
  it('200 by email, profile URL or people id (form or JSON): contact information with firmographics', async () => {
    const answers = [
      await enrich({ email: 'JANE.DOE@northwind.example' }),
      await enrich({ linkedin_url: 'http://linkedin.com/in/janedoe/?trk=x' }),
      await enrich({ people_id: 'P1001' }, true),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(PeopleEnrichmentResponse.parse(res.body)).toEqual({
        person: {
          people_id: 'P1001',
          name: 'Jane Doe',
          first_name: 'Jane',
          last_name: 'Doe',
          title: 'VP of Marketing',
          titleLevel: 'VP',
          titleFunction: 'Marketing',
          email: 'Jane.Doe@northwind.example',
          phone: '+1 415 555 0101',
          mobile: '+1 415 555 0199',
          linkedin_url: 'https://www.linkedin.com/in/janedoe',
          location: { country: 'United States', state: 'California', city: 'San Francisco' },
        },
        company: expect.objectContaining({
          companyId: '900001',
          name: 'Northwind Analytics',
          domain: 'northwind.example',
          countryISOCode: 'US',
          titleLevel: 'VP',
        }),
      });
    }
    expect(await srv.store.usage('acme')).toEqual([expect.objectContaining({ api: 'people-enrichment', charges: 1 })]);
  });

  it('a person with a free-mail address is found by it', async () => {
    const res = await enrich({ email: 'ada.freelance@gmail.com' });
    expect(res.body).toMatchObject({ person: { people_id: 'P1004', mobile: '+49 170 5550 0104' }, company: { companyId: '900002' } });
  });

  it('400 when no identifier is given', async () => {
    for (const body of [{}, { email: ' ', linkedin_url: '', people_id: '' }, { domain: 'northwind.example' }]) {
      expect(await enrich(body)).toEqual({
        status: 400,
        body: { status: 'error', message: 'email, linkedin_url or people_id is mandatory and cannot be blank', code: 'blank' },
      });
    }
  });

  it('404 with blank data for an unknown person or a malformed email', async () => {
    for (const body of [
      { people_id: 'P0000' },
      { email: 'nobody@northwind.example' },
      { linkedin_url: 'https://linkedin.com/in/nobody' },
      { email: 'not an email' },
    ]) {
      const res = await enrich(body);
      expect(res.status).toBe(404);
      const parsed = PeopleEnrichmentNotFound.parse(res.body);
      expect(parsed.person.people_id).toBeNull();
      expect(parsed.company.companyId).toBeNull();
    }
  });

  it('422 for over-long or non-text values, 413 over 16 KB, 400 for malformed JSON', async () => {
    expect((await enrich({ linkedin_url: `https://linkedin.com/in/${'x'.repeat(500)}` })).status).toBe(422);
    expect((await enrich({ people_id: 1001 }, true)).status).toBe(422);
    expect((await enrich({ people_id: 'P1001', junk: 'x'.repeat(17_000) })).status).toBe(413);
    expect((await enrich('{"people_id":', true)).status).toBe(400);
  });

  it('401 without a valid token, 403 for another group or without the package', async () => {
    expect((await post('/v2/enrichment/people', null, { people_id: 'P1001' })).status).toBe(401);
    expect((await post('/v2/enrichment/people', 'C'.repeat(40), { people_id: 'P1001' })).status).toBe(401);
    expect((await post('/v2/enrichment/people', await token('acme', 'people-search'), { people_id: 'P1001' })).status).toBe(403);
    const seed: CustomerSeed = { ...TEST_CUSTOMER, id: 'lapsed', name: 'Lapsed', tags: [] };
    await srv.store.importCustomer(seed);
    const t = await token('lapsed', 'people-enrichment');
    await srv.store.importCustomer({ ...seed, packages: ['platform'] });
    const res = await post('/v2/enrichment/people', t, { people_id: 'P1001' });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/packages/);
  });

  it('403 for the add-on alone: people-enrichment needs a platform or sales-intelligence package too', async () => {
    const seed: CustomerSeed = { ...TEST_CUSTOMER, id: 'addon-only', name: 'Add-on only', tags: [] };
    await srv.store.importCustomer(seed);
    const enrichToken = await token('addon-only', 'people-enrichment');
    const searchToken = await token('addon-only', 'people-search');
    expect((await post('/v2/enrichment/people', enrichToken, { people_id: 'P1001' })).status).toBe(200);
    await srv.store.importCustomer({ ...seed, packages: ['people-enrichment'] });
    for (const [path, t, body] of [
      ['/v2/enrichment/people', enrichToken, { people_id: 'P1001' }],
      ['/v2/search/people', searchToken, { domain: 'northwind.example' }],
    ] as const) {
      const res = await post(path, t, body);
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/packages no longer cover/);
    }
  });
});

describe('POST /v2/search/people (People Search)', () => {
  it('200: total, paging and profiles of every company of the domain, ordered by people id', async () => {
    const res = await search({ domain: 'northwind.example' });
    expect(res.status).toBe(200);
    const body = PeopleSearchResponse.parse(res.body);
    // northwind.example is shared by 900001 (P1001, P1003) and 900003 (P1005).
    expect(body).toMatchObject({ total: 3, page: 1, page_size: 25 });
    expect(body.profiles.map((p) => p.people_id)).toEqual(['P1001', 'P1003', 'P1005']);
    expect(body.profiles[0]).toEqual({
      people_id: 'P1001',
      name: 'Jane Doe',
      title: 'VP of Marketing',
      titleLevel: 'VP',
      titleFunction: 'Marketing',
      location: { country: 'United States', state: 'California', city: 'San Francisco' },
      has_email: true,
      has_phone: true,
      has_mobile: true,
    });
    expect(body.profiles[1]).toMatchObject({ people_id: 'P1003', has_email: true, has_phone: false, has_mobile: false });
  });

  it('never returns contact details', async () => {
    const text = JSON.stringify((await search({ domain: 'northwind.example', page_size: '100' })).body);
    for (const p of FIXTURE_PEOPLE) {
      for (const secret of [p.email, p.phone, p.mobile, p.linkedin_url].filter(Boolean)) expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/@|"email"|"phone"|"mobile"|linkedin/);
  });

  it('filters by locations, industries and job titles (form lists and JSON arrays)', async () => {
    const ids = async (body: Record<string, unknown>, json = false) =>
      PeopleSearchResponse.parse((await search({ domain: 'northwind.example', ...body }, json)).body).profiles.map((p) => p.people_id);
    expect(await ids({ locations: 'London, California' })).toEqual(['P1001', 'P1005']);
    expect(await ids({ locations: ['new york'] }, true)).toEqual(['P1003']);
    expect(await ids({ industries: 'it consulting' })).toEqual(['P1005']);
    expect(await ids({ industries: ['Software'] }, true)).toEqual(['P1001', 'P1003']);
    expect(await ids({ job_titles: 'marketing' })).toEqual(['P1001', 'P1005']);
    expect(await ids({ job_titles: ['engineer', 'VP'] }, true)).toEqual(['P1001', 'P1003']);
    expect(await ids({ job_titles: 'Manager', locations: 'United Kingdom' })).toEqual(['P1005']);
    expect(await ids({ industries: 'Agriculture' })).toEqual([]);
  });

  it('pages deterministically', async () => {
    const page = async (p: number) => PeopleSearchResponse.parse((await search({ domain: 'northwind.example', page: String(p), page_size: '2' })).body);
    expect(await page(1)).toMatchObject({ total: 3, page: 1, page_size: 2, profiles: [{ people_id: 'P1001' }, { people_id: 'P1003' }] });
    expect(await page(2)).toMatchObject({ total: 3, page: 2, profiles: [{ people_id: 'P1005' }] });
    expect((await page(3)).profiles).toEqual([]);
    expect((await search({ domain: 'northwind.example', page: 2, page_size: 2 }, true)).body.profiles).toHaveLength(1);
  });

  it('is never charged', async () => {
    const before = await srv.store.usage('acme');
    await search({ domain: 'bluepeak.example' });
    expect(await srv.store.usage('acme')).toEqual(before);
  });

  it('400 without a domain, 404 for an unknown, free-mail or malformed domain', async () => {
    expect(await search({ locations: 'London' })).toEqual({
      status: 400,
      body: { status: 'error', message: 'domain is mandatory and cannot be blank', code: 'blank' },
    });
    for (const domain of ['unknown.example', 'gmail.com', 'not a domain']) {
      const res = await search({ domain });
      expect(res.status).toBe(404);
      expect(PeopleSearchNotFound.parse(res.body)).toMatchObject({ status: 'error', total: 0, profiles: [] });
    }
  });

  it('422 for page_size over 100 or not an integer, page below 1, over-long filters', async () => {
    for (const extra of [{ page_size: '101' }, { page_size: '2.5' }, { page_size: 'ten' }, { page: '0' }, { locations: 'x'.repeat(501) }]) {
      const res = await search({ domain: 'northwind.example', ...extra });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(/^validation error: (page_size|page|locations): /), code: 'invalid' });
    }
    expect((await search({ domain: 'northwind.example', page_size: 101 }, true)).status).toBe(422);
    expect((await search({ domain: 'northwind.example', job_titles: Array(51).fill('vp') }, true)).status).toBe(422);
  });

  it('413, 401 and 403', async () => {
    expect((await search({ domain: 'northwind.example', locations: 'x,'.repeat(9000) })).status).toBe(413);
    expect((await post('/v2/search/people', null, { domain: 'northwind.example' })).status).toBe(401);
    expect((await post('/v2/search/people', await token('acme', 'people-enrichment'), { domain: 'northwind.example' })).status).toBe(403);
  });
});
