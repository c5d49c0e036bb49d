/**
 * Integration: the company-level enrichment routes through the route pipeline (in-process; what clients put
 * on the wire over a socket), every status of the spec's error table.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiGroup } from '../../core/customer-records.ts';
import { leadSources, plainCustomer, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { cachedTokens, startTestServer, type TestServer } from '../testing/test-server.ts';
import {
  CombinedNotFound,
  CombinedResponse,
  FirmographicsV2NotFound,
  FirmographicsV2Response,
  FirmographicsV3NotFound,
  FirmographicsV3Response,
  LeadScoringNotFound,
  LeadScoringResponse,
} from './schema.ts';

/** No `advanced`: combined answers carry no scores. */
const BASIC = plainCustomer('basic', { packages: ['sales-intelligence'] });

let srv: TestServer;
const token = cachedTokens(() => srv);

beforeAll(async () => {
  srv = await startTestServer({
    ...leadSources(new Date()),
    customers: [TEST_CUSTOMER, BASIC],
  });
});
afterAll(() => srv?.close());

type Body = Record<string, string | string[]>;
interface Sent {
  status: number;
  headers: Headers;
  body: any;
}

/** POST a form (default) or JSON body. */
async function post(
  path: string,
  auth: string | null,
  body: Body | string = {},
  opts: { json?: boolean; type?: string; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { ...opts.headers };
  if (auth !== null) headers.authorization = `Token ${auth}`;
  let data: string;
  if (typeof body === 'string') data = body;
  else if (opts.json) data = JSON.stringify(body);
  else {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
    data = form.toString();
  }
  headers['content-type'] = opts.type ?? (opts.json ? 'application/json' : 'application/x-www-form-urlencoded');
  const res = await srv.request(path, { method: 'POST', headers, body: data });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* kept as text */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

const v3 = async (body: Body | string, opts?: Parameters<typeof post>[3]) =>
  post('/v1/enrichment/company', await token('acme', 'company-firmographics'), body, opts);
const usage = async (customer: string) => (await srv.store.usage(customer)).map(({ api, charges }) => ({ api, charges }));

describe('POST /v1/enrichment/company (Company Firmographics v3)', () => {
  it('200 by email: the v3 company object and segments (names hidden by default), as a form or JSON', async () => {
    for (const json of [false, true]) {
      const res = await v3({ email: 'someone@northwind.example' }, { json });
      expect(res.status).toBe(200);
      const body = FirmographicsV3Response.parse(res.body);
      expect(body.company).toEqual({
        companyId: '900001',
        domain: 'northwind.example',
        name: 'Northwind Analytics',
        region: 'North America',
        country: 'United States',
        countryISOCode: 'US',
        state: 'California',
        city: 'San Francisco',
        streetAddress: '1 Market St',
        postalCode: '94105',
        companyPhone: '+1 415 555 0100',
        industry: 'Software',
        employeeRange: '1,000-4,999',
        revenueRange: '$100M-$250M',
        employeeCount: '1200',
        annualRevenue: '180000000',
        titleLevel: null,
        titleFunction: null,
        sicdescription: 'Prepackaged Software',
        siccode: '7372',
        naicscode: '511210',
        naicsdescription: 'Software Publishers',
        is_blacklisted: false,
      });
      expect(body.segments).toEqual({ ids: [101], names: [], list: [{ name: null, id: 101 }] });
      expect(res.headers.get('deprecation')).toBeNull();
    }
  });

  it('shows segment names when the token allows them', async () => {
    const res = await post('/v1/enrichment/company', await token('acme', 'company-firmographics', { segment_names: true }), { email: 'x@northwind.example' });
    expect(res.body.segments.names).toEqual(['Enterprise Software']);
  });

  it('flags an account the customer excluded with is_blacklisted, in every answer that carries a company', async () => {
    const body = { email: 'max.mustermann@bluepeak.example', country: 'Germany' };
    expect((await v3(body)).body.company).toMatchObject({ companyId: '900002', is_blacklisted: true });
    const asV2 = await post('/v2/people/enrichment', await token('acme', 'company-firmographics'), body);
    expect(asV2.body.company).toMatchObject({ name: 'Bluepeak Fertigung GmbH', is_blacklisted: true });
    const combined = await post('/v2/people/full', await token('acme', 'lead-scoring-firmographics'), body);
    expect(CombinedResponse.parse(combined.body).company).toMatchObject({ companyId: '900002', is_blacklisted: true });
    expect((await v3({ email: 'someone@northwind.example' })).body.company.is_blacklisted).toBe(false);
  });

  it('200 by domain alone, and domain as the fallback when the email identifies nothing', async () => {
    expect((await v3({ domain: 'https://www.bluepeak.example/' })).body.company.companyId).toBe('900002');
    expect((await v3({ email: 'x@unknown.example', domain: 'bluepeak.example' })).body.company.companyId).toBe('900002');
    expect((await v3({ email: 'x@northwind.example', domain: 'bluepeak.example' })).body.company.companyId).toBe('900001');
  });

  it('a free-mail address identifies no company: 404 alone, the domain otherwise', async () => {
    const alone = await v3({ email: 'somebody@gmail.com' });
    expect(alone.status).toBe(404);
    expect(FirmographicsV3NotFound.parse(alone.body).message).toMatch(/no data found.*contact support/i);
    const fallback = await v3({ email: 'somebody@gmail.com', domain: 'bluepeak.example' });
    expect(fallback.status).toBe(200);
    expect(fallback.body.company.companyId).toBe('900002');
  });

  it("titleLevel/titleFunction: the known person's title, else the request's", async () => {
    expect((await v3({ email: 'jane.doe@northwind.example', title: 'Intern' })).body.company).toMatchObject({ titleLevel: 'VP', titleFunction: 'Marketing' });
    expect((await v3({ email: 'new.lead@northwind.example', title: 'Director of Sales' })).body.company).toMatchObject({
      titleLevel: 'Director',
      titleFunction: 'Sales',
    });
  });

  it('disambiguates a domain shared by two companies with country, company or industry', async () => {
    const id = async (extra: Body) => (await v3({ email: 'lead@northwind.example', ...extra })).body.company.companyId;
    expect(await id({})).toBe('900001');
    expect(await id({ country: 'United Kingdom' })).toBe('900003');
    expect(await id({ country: 'gb' })).toBe('900003');
    expect(await id({ company: 'Northwind Europe' })).toBe('900003');
    expect(await id({ industry: 'IT Consulting' })).toBe('900003');
    expect(await id({ country: 'US' })).toBe('900001');
    // Hints never identify a company on their own.
    expect((await v3({ domain: 'unknown.example', company: 'Northwind Analytics Europe Ltd', country: 'GB' })).status).toBe(404);
  });

  it('400 blank when email and domain are both blank', async () => {
    for (const body of [{}, { email: '', domain: '  ' }, { country: 'US' }] as Body[]) {
      const res = await v3(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(/email is mandatory and cannot be blank/), code: 'blank' });
    }
  });

  it.each(['jane', 'jane@', 'jane doe@northwind.example', 'jane@northwind', '@@'])('404 with blank data for the malformed email %j', async (email) => {
    const res = await v3({ email, domain: 'northwind.example' });
    expect(res.status).toBe(404);
    const body = FirmographicsV3NotFound.parse(res.body);
    expect(body).toMatchObject({ status: 'error', message: expect.stringMatching(/not valid/), segments: { ids: [], names: [], list: [] } });
    expect(Object.values(body.company).every((v) => v === null)).toBe(true);
  });

  it('404 "no data found" with blank data for an unknown or malformed domain', async () => {
    for (const body of [{ email: 'x@unknown.example' }, { domain: 'unknown.example' }, { domain: 'not a domain' }] as Body[]) {
      const res = await v3(body);
      expect(res.status).toBe(404);
      expect(FirmographicsV3NotFound.parse(res.body).company.companyId).toBeNull();
    }
  });

  it('ignores unknown fields, in forms and JSON', async () => {
    expect((await v3({ email: 'x@northwind.example', favourite_colour: 'teal', 'a[b]': 'c' })).status).toBe(200);
    expect((await v3(JSON.stringify({ email: 'x@northwind.example', nested: { deep: [1, 2] }, __proto__x: 1 }), { type: 'application/json' })).status).toBe(
      200,
    );
  });

  it('422 invalid for over-long fields, repeated fields and non-string JSON values', async () => {
    const cases: [Body | string, boolean][] = [
      [{ email: `${'a'.repeat(250)}@northwind.example` }, false],
      [{ email: 'x@northwind.example', title: 't'.repeat(501) }, false],
      [{ email: ['x@northwind.example', 'y@northwind.example'] }, false],
      [JSON.stringify({ email: 42 }), true],
      [JSON.stringify({ email: ['x@northwind.example'] }), true],
      [JSON.stringify(['x@northwind.example']), true],
    ];
    for (const [body, json] of cases) {
      const res = await v3(body, json ? { json: true } : {});
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(/validation error|JSON object/), code: 'invalid' });
    }
  });

  it('413 for a body over 16 KB (form and JSON)', async () => {
    const big = 'x'.repeat(17 * 1024);
    expect((await v3({ email: 'x@northwind.example', note: big })).status).toBe(413);
    const res = await v3({ email: 'x@northwind.example', note: big }, { json: true });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ status: 'error', message: 'request body too large', code: 'too_large' });
  });

  it('400 invalid (not 500) for malformed JSON', async () => {
    const res = await v3('{"email": "x@northwind.example"', { type: 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'request body is not valid for its Content-Type', code: 'invalid' });
    expect(res.body.status).toBe('error');
  });

  it('401 without or with a bad token; authentication comes before the body', async () => {
    for (const auth of [null, 'short', 'B'.repeat(40)]) {
      const res = await post('/v1/enrichment/company', auth, { email: 'x@northwind.example' });
      expect(res.status).toBe(401);
      expect(res.body.status).toBe('error');
    }
    expect((await post('/v1/enrichment/company', null, '{oops', { type: 'application/json' })).status).toBe(401);
    expect((await post('/v1/enrichment/company', null, { note: 'x'.repeat(20_000) })).status).toBe(401);
  });

  it('403 for a token of another API group', async () => {
    for (const group of ['identification', 'lead-scoring-firmographics', 'people-enrichment'] as const) {
      const res = await post('/v1/enrichment/company', await token('acme', group), { email: 'x@northwind.example' });
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/API group/);
    }
  });

  it('429 over the token rate limit', async () => {
    const t = await token('acme', 'company-firmographics', { rate_limit: 1 });
    expect((await post('/v1/enrichment/company', t, { email: 'x@northwind.example' })).status).toBe(200);
    const res = await post('/v1/enrichment/company', t, { email: 'x@northwind.example' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('POST /v2/people/enrichment (Company Firmographics v2, deprecated)', () => {
  const v2 = async (body: Body, auth?: string | null) =>
    post('/v2/people/enrichment', auth === undefined ? await token('acme', 'company-firmographics') : auth, body);

  it('200 with the v2 field set (no companyId) and deprecation headers', async () => {
    const res = await v2({ email: 'max.mustermann@bluepeak.example' });
    expect(res.status).toBe(200);
    const body = FirmographicsV2Response.parse(res.body);
    expect(body.company).toMatchObject({ name: 'Bluepeak Fertigung GmbH', countryISOCode: 'DE', titleLevel: 'C-Level', titleFunction: 'Engineering' });
    expect(body.company).not.toHaveProperty('companyId');
    expect(body.segments.ids).toEqual([102]);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('link')).toBe('</v1/enrichment/company>; rel="successor-version"');
  });

  it('every answer carries the deprecation headers, errors included', async () => {
    for (const res of [await v2({ email: 'x@unknown.example' }), await v2({}), await v2({ email: 'x@northwind.example' }, null)]) {
      expect([404, 400, 401]).toContain(res.status);
      expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(res.headers.get('link')).toMatch(/successor-version/);
    }
  });

  it('email is required: a domain alone is 400; website is the fallback domain', async () => {
    expect((await v2({ domain: 'northwind.example' })).status).toBe(400);
    expect((await v2({ email: 'lead@gmail.com', website: 'www.bluepeak.example' })).body.company.name).toBe('Bluepeak Fertigung GmbH');
  });

  it('404 with blank v2 data', async () => {
    for (const email of ['x@unknown.example', 'not-an-email']) {
      const res = await v2({ email });
      expect(res.status).toBe(404);
      expect(FirmographicsV2NotFound.parse(res.body).company.name).toBeNull();
    }
  });

  it('422 and 403', async () => {
    expect((await v2({ email: 'x@northwind.example', company: 'c'.repeat(501) })).status).toBe(422);
    expect((await v2({ email: 'x@northwind.example' }, await token('acme', 'lead-scoring'))).status).toBe(403);
  });
});

describe('POST /v2/people/full (Lead Scoring and Firmographics)', () => {
  const full = async (body: Body, customer = 'acme') => post('/v2/people/full', await token(customer, 'lead-scoring-firmographics'), body);

  it('200 with company, person-level scores and segments', async () => {
    const res = await full({ email: 'jane.doe@northwind.example', country: 'US' });
    expect(res.status).toBe(200);
    const body = CombinedResponse.parse(res.body);
    expect(body.company).toMatchObject({ companyId: '900001', titleLevel: 'VP', titleFunction: 'Marketing' });
    expect(body.scores).toHaveLength(1);
    // Fresh engagement (3 meetings today) → A; VP of Marketing against the persona VP / Marketing → 100.
    expect(body.scores[0]).toMatchObject({
      product: 'cdp',
      contact_grade: 'A',
      contact_profile_score: 100,
      contact_profile_fit: 'Strong',
      company_profile_score: 100,
      company_profile_fit: 'Strong',
    });
    expect(body.segments.ids).toEqual([101]);
  });

  it('an unknown person at a known company: contact scores from the supplied title, engagement zero → D', async () => {
    // Manager is two levels from the persona's VP (0 of 50), Marketing is the persona's function (50).
    const body = CombinedResponse.parse((await full({ email: 'new.lead@northwind.example', title: 'Marketing Manager' })).body);
    expect(body.scores[0]).toMatchObject({ contact_intent_score: 0, contact_grade: 'D', contact_profile_score: 50 });
  });

  it('without the advanced package the enrichment still works and scores is []', async () => {
    const res = await full({ email: 'jane.doe@northwind.example' }, 'basic');
    expect(res.status).toBe(200);
    expect(CombinedResponse.parse(res.body)).toMatchObject({ company: { companyId: '900001' }, scores: [] });
  });

  it('400 without email, 404 with blank data for an unknown or invalid email, 422 over-long', async () => {
    expect((await full({ country: 'US' })).body).toEqual({ status: 'error', message: 'email is mandatory and cannot be blank', code: 'blank' });
    for (const email of ['x@unknown.example', 'bad email']) {
      const res = await full({ email });
      expect(res.status).toBe(404);
      expect(CombinedNotFound.parse(res.body)).toMatchObject({ scores: [], company: { companyId: null } });
    }
    expect((await full({ email: 'x@northwind.example', industry: 'i'.repeat(501) })).status).toBe(422);
  });

  it('403 for a firmographics token', async () => {
    expect((await post('/v2/people/full', await token('acme', 'company-firmographics'), { email: 'x@northwind.example' })).status).toBe(403);
  });
});

describe('POST /v2/people/score (Lead Scoring)', () => {
  const score = async (body: Body, auth?: string) => post('/v2/people/score', auth ?? (await token('acme', 'lead-scoring')), body);

  it('each chargeable route charges its own API name; Lead Scoring never charges', async () => {
    await post('/v1/enrichment/company', await token('acme', 'company-firmographics'), { email: 'x@northwind.example' });
    await post('/v2/people/enrichment', await token('acme', 'company-firmographics'), { email: 'x@northwind.example' });
    await post('/v2/people/full', await token('acme', 'lead-scoring-firmographics'), { email: 'x@northwind.example' });
    const apis = (await usage('acme')).map((u) => u.api);
    expect(apis).toEqual(expect.arrayContaining(['company-firmographics-v3', 'company-firmographics-v2', 'lead-scoring-firmographics']));
    expect(apis).not.toContain('lead-scoring');
  });

  it('200 with scores only, never charged', async () => {
    const before = await usage('acme');
    const res = await score({ email: 'jane.doe@northwind.example', country: 'US' });
    expect(res.status).toBe(200);
    expect(LeadScoringResponse.parse(res.body).scores[0]).toMatchObject({ product: 'cdp', contact_grade: 'A' });
    expect(await usage('acme')).toEqual(before);
  });

  it('a free-mail or unknown company: company scores 0 / Target / 0 / Weak, contact scores from the title', async () => {
    for (const email of ['lead@gmail.com', 'lead@unknown.example']) {
      const res = await score({ email, country: 'US', title: 'VP Marketing' });
      expect(res.status).toBe(200);
      expect(LeadScoringResponse.parse(res.body).scores).toEqual([
        {
          product: 'cdp',
          company_intent_score: 0,
          company_buying_stage: 'Target',
          company_profile_score: 0,
          company_profile_fit: 'Weak',
          contact_intent_score: 0,
          contact_grade: 'D',
          contact_profile_score: 100,
          contact_profile_fit: 'Strong',
        },
      ]);
    }
  });

  it('400 naming the blank field', async () => {
    expect((await score({ email: 'jane.doe@northwind.example' })).body).toEqual({
      status: 'error',
      message: 'country is mandatory and cannot be blank',
      code: 'blank',
    });
    expect((await score({ country: 'US' })).body).toEqual({ status: 'error', message: 'email is mandatory and cannot be blank', code: 'blank' });
  });

  it('404 only for a malformed email', async () => {
    const res = await score({ email: 'jane.doe', country: 'US' });
    expect(res.status).toBe(404);
    expect(LeadScoringNotFound.parse(res.body)).toMatchObject({ status: 'error', scores: [] });
  });

  it('422 over-long; 401; 403 without the advanced package', async () => {
    expect((await score({ email: 'x@northwind.example', country: 'c'.repeat(501) })).status).toBe(422);
    expect((await post('/v2/people/score', null, { email: 'x@northwind.example', country: 'US' })).status).toBe(401);
    const seed = plainCustomer('downgraded', { packages: ['platform', 'advanced'] });
    await srv.store.importCustomer(seed);
    const t = await token('downgraded', 'lead-scoring');
    expect((await score({ email: 'x@northwind.example', country: 'US' }, t)).status).toBe(200);
    await srv.store.importCustomer({ ...seed, packages: ['platform'] });
    const res = await score({ email: 'x@northwind.example', country: 'US' }, t);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/packages/);
  });
});

describe('garbage input', () => {
  const ROUTES = ['/v1/enrichment/company', '/v2/people/enrichment', '/v2/people/full', '/v2/people/score', '/v2/enrichment/people', '/v2/search/people'];
  const GROUPS: ApiGroup[] = [
    'company-firmographics',
    'company-firmographics',
    'lead-scoring-firmographics',
    'lead-scoring',
    'people-enrichment',
    'people-search',
  ];
  const TYPES = [
    'application/x-www-form-urlencoded',
    'application/json',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded; charset=koi8-r',
    '',
  ];
  const FIELDS = [
    'email',
    'domain',
    'country',
    'company',
    'title',
    'website',
    'people_id',
    'linkedin_url',
    'locations',
    'job_titles',
    'industries',
    'page',
    'page_size',
    '__proto__',
    'constructor',
    'a[b]',
    '',
  ];

  /** A small deterministic PRNG (mulberry32) so failures reproduce. */
  function rng(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('never answers 500 to random bodies and content types', async () => {
    const r = rng(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    const junk = () =>
      pick([
        () => '',
        () => 'x@northwind.example',
        () => '%%%',
        () => '\u0000\uffff\ud800',
        () => 'a'.repeat(Math.floor(r() * 800)),
        () => String(Math.floor(r() * 1e6) - 5e5),
        () => 'Ünïcödé@exämple.com',
        () => 'northwind.example, ,Germany',
      ])();
    const value = (): unknown => pick([() => junk(), () => r() * 1e9, () => null, () => true, () => [junk(), 1], () => ({ a: junk() }), () => []])();
    const failures: string[] = [];
    const seen = new Set<number>();
    for (let i = 0; i < 240; i++) {
      const route = i % ROUTES.length;
      const type = pick(TYPES);
      const obj: Record<string, unknown> = {};
      for (let k = Math.floor(r() * 5); k > 0; k--) obj[pick(FIELDS)] = value();
      const body = pick([
        () => JSON.stringify(obj),
        () => new URLSearchParams(Object.entries(obj).map(([k, v]) => [k, String(v)])).toString(),
        () => junk(),
        () => JSON.stringify(value()),
        () => '{"email":',
      ])();
      const res = await srv.request(ROUTES[route], {
        method: 'POST',
        headers: { authorization: `Token ${await token('acme', GROUPS[route], { rate_limit: 100_000 })}`, ...(type ? { 'content-type': type } : {}) },
        body,
      });
      const text = await res.text();
      seen.add(res.status);
      if (res.status >= 500) failures.push(`${ROUTES[route]} ${type} ${body.slice(0, 80)} → ${res.status} ${text}`);
      else expect(() => JSON.parse(text)).not.toThrow();
    }
    expect(failures).toEqual([]);
    // The bodies reach validation and lookup, not just the rate limiter.
    expect([...seen]).toEqual(expect.arrayContaining([400, 404, 422]));
    expect(seen.has(429)).toBe(false);
  }, 60_000);
});

describe('body types', () => {
  const multipart = async (path: string, group: ApiGroup, form: FormData) => {
    const res = await srv.request(path, {
      method: 'POST',
      headers: { authorization: `Token ${await token('acme', group)}`, 'user-agent': 'python-requests/2.31.0' },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };
  const formOf = (fields: Record<string, string | string[]>) => {
    const f = new FormData();
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) f.append(k, x);
    return f;
  };

  it('reads multipart/form-data exactly like a form-encoded body', async () => {
    const asForm = await v3({ email: 'someone@northwind.example' });
    const asMultipart = await multipart('/v1/enrichment/company', 'company-firmographics', formOf({ email: 'someone@northwind.example' }));
    expect(asMultipart).toEqual({ status: 200, body: asForm.body });
    const search = await multipart('/v2/search/people', 'people-search', formOf({ domain: 'northwind.example', job_titles: 'marketing', page_size: '1' }));
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ page_size: 1, profiles: [{ people_id: 'P1001' }] });
    const scored = await multipart('/v2/people/score', 'lead-scoring', formOf({ email: 'jane.doe@northwind.example', country: 'US' }));
    expect(scored.status).toBe(200);
  });

  it('answers multipart like a form for blank, repeated and file fields', async () => {
    expect(await multipart('/v1/enrichment/company', 'company-firmographics', formOf({ country: 'US' }))).toEqual({
      status: 400,
      body: { status: 'error', message: expect.stringMatching(/email is mandatory/), code: 'blank' },
    });
    expect((await multipart('/v1/enrichment/company', 'company-firmographics', formOf({ email: ['a@northwind.example', 'b@northwind.example'] }))).status).toBe(
      422,
    );
    const withFile = formOf({ email: 'someone@northwind.example' });
    withFile.append('upload', new Blob(['x']), 'leads.csv');
    const file = await multipart('/v1/enrichment/company', 'company-firmographics', withFile);
    expect(file.status).toBe(422);
    expect(file.body.message).toMatch(/text fields only/);
  });

  it('answers a malformed or oversized multipart body 400 / 413, never 500', async () => {
    const auth = await token('acme', 'company-firmographics');
    const broken = await post('/v1/enrichment/company', auth, '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nsomeone@north', {
      type: 'multipart/form-data; boundary=x',
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ status: 'error', message: expect.stringMatching(/multipart/), code: 'invalid' });
    const noBoundary = await post('/v1/enrichment/company', auth, 'email=x', { type: 'multipart/form-data' });
    expect(noBoundary.status).toBe(400);
    const big = await multipart('/v1/enrichment/company', 'company-firmographics', formOf({ email: 'someone@northwind.example', title: 'x'.repeat(20_000) }));
    expect(big.status).toBe(413);
  });

  it.each(['text/plain', 'application/xml', 'text/csv; charset=utf-8', 'application/octet-stream'])(
    'answers a %s body 415 naming the accepted types',
    async (type) => {
      const res = await post('/v1/enrichment/company', await token('acme', 'company-firmographics'), 'email=someone@northwind.example', { type });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        status: 'error',
        message: expect.stringContaining('application/x-www-form-urlencoded, multipart/form-data, application/json'),
        code: 'unsupported_type',
      });
    },
  );

  it('answers a body without a Content-Type 415, and no body at all like an empty form', async () => {
    const auth = await token('acme', 'company-firmographics');
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        srv.url + '/v1/enrichment/company',
        { method: 'POST', headers: { authorization: `Token ${auth}`, 'content-length': '7' } },
        (r) => {
          let text = '';
          r.on('data', (c) => (text += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end('email=x');
    });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.body).message).toMatch(/none given/);
    const empty = await fetch(srv.url + '/v1/enrichment/company', { method: 'POST', headers: { authorization: `Token ${auth}` } });
    expect(empty.status).toBe(400);
  });
});
