import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import { IdentificationResponse } from './schema.ts';

let srv: TestServer;
let token: string;

beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback' } });
  token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' })).secret;
});
afterAll(() => srv?.close());

const get = (path: string, headers: Record<string, string> = {}) => srv.request(path, { headers: { 'user-agent': BROWSER_UA, ...headers } });
const asToken = (ip: string, headers: Record<string, string> = {}) =>
  get(`/v3/company/details?ip=${encodeURIComponent(ip)}`, { authorization: `Token ${token}`, ...headers });

describe('GET /v3/company/details in tag mode', () => {
  it('answers an allowed origin with CORS for that origin only', async () => {
    const res = await get('/v3/company/details?tag=acme-tag', { origin: 'http://localhost:3000', 'x-forwarded-for': IPS.northwind });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('vary')).toMatch(/Origin/);
    const body = IdentificationResponse.parse(await res.json());
    expect(body.company).toMatchObject({ company_match: 'Match', companyId: '900001', name: 'Northwind Analytics', is_svcqa: true });
    expect(body.segments.names).toEqual(['Enterprise Software']);
    expect(body.scores[0]?.product).toBe('cdp');
  });

  it('accepts subdomains of a *. entry and falls back to the Referer', async () => {
    expect((await get('/v3/company/details?tag=acme-tag', { origin: 'https://www.shop.acme.test' })).status).toBe(200);
    const viaReferer = await get('/v3/company/details?tag=acme-tag', { referer: 'https://blog.acme.test/post/1' });
    expect(viaReferer.status).toBe(200);
    expect(viaReferer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each([
    ['a foreign origin', { origin: 'https://evil.example' }],
    ['the apex of a *. entry', { origin: 'https://acme.test' }],
    ['a look-alike host', { origin: 'https://localhost.evil.example' }],
    ['no Origin and no Referer', {}],
  ])('refuses %s with 403 and no CORS allow header', async (_name, headers) => {
    const res = await get('/v3/company/details?tag=acme-tag', headers as Record<string, string>);
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.json()).toEqual({ status: 'error', message: expect.any(String), code: 'forbidden' });
  });

  it('refuses an unknown tag and a request with neither tag nor token with 401', async () => {
    expect((await get('/v3/company/details?tag=nope-nope', { origin: 'http://localhost' })).status).toBe(401);
    const bare = await get('/v3/company/details');
    expect(bare.status).toBe(401);
    expect(await bare.json()).toEqual({ status: 'error', message: expect.stringMatching(/Authorization/), code: 'unauthenticated' });
  });

  it('ignores test_ip outside demo mode', async () => {
    const res = await get(`/v3/company/details?tag=acme-tag&test_ip=${IPS.northwind}`, { origin: 'http://localhost' });
    expect((await res.json()).company.company_match).toBe('No Match');
  });
});

describe('GET /v3/company/details in token mode', () => {
  it('looks up ?ip= with scores off and segment names hidden by default', async () => {
    const res = await asToken(IPS.northwind);
    expect(res.status).toBe(200);
    const body = IdentificationResponse.parse(await res.json());
    expect(body.company.company_match).toBe('Match');
    expect(body.confidence).toBe('Very High');
    expect(body.scores).toEqual([]);
    expect(body.segments).toEqual({ ids: [101], names: [], list: [{ name: null, id: 101 }] });
  });

  it('resolves a nested range inside an ISP network to the company (most specific wins)', async () => {
    const body = await (await asToken(IPS.northwindBranch)).json();
    expect(body.company).toMatchObject({ company_match: 'Match', companyId: '900001', geoIP_city: 'New York' });
    expect(body.confidence).toBe('Moderate');
  });

  it('marks excluded accounts', async () => {
    const body = await (await asToken(IPS.bluepeak)).json();
    expect(body.company).toMatchObject({ company_match: 'Match', is_blacklisted: true, is_svcqa: false });
  });

  it.each([
    ['isp', IPS.isp, 'Ashburn'],
    ['hosting', IPS.hosting, 'The Dalles'],
    ['bot', IPS.bot, null],
  ])('answers Non-actionable Match for a %s network', async (_kind, ip, city) => {
    const body = IdentificationResponse.parse(await (await asToken(ip)).json());
    expect(body.company).toMatchObject({ company_match: 'Non-actionable Match', name: null, geoIP_city: city });
  });

  it('answers Non-actionable Match for a bot visitor User-Agent passed in X-svc-Visitor-User-Agent', async () => {
    const res = await asToken(IPS.northwind, { 'user-agent': 'curl/8.5.0', 'x-svc-visitor-user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' });
    const body = IdentificationResponse.parse(await res.json());
    expect(body.company).toMatchObject({ company_match: 'Non-actionable Match', companyId: null, name: null });
    // A browser visitor User-Agent in the header is a real visitor: Match.
    const browser = await (await asToken(IPS.northwind, { 'user-agent': 'curl/8.5.0', 'x-svc-visitor-user-agent': BROWSER_UA })).json();
    expect(browser.company.company_match).toBe('Match');
  });

  it("still classifies the caller's own User-Agent without ?ip= (the caller is the visitor)", async () => {
    const res = await get('/v3/company/details', {
      authorization: `Token ${token}`,
      'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)',
      'x-forwarded-for': IPS.northwind,
    });
    expect((await res.json()).company.company_match).toBe('Non-actionable Match');
  });

  it("still classifies the page's User-Agent in tag mode", async () => {
    const res = await get('/v3/company/details?tag=acme-tag', {
      origin: 'http://localhost',
      'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)',
      'x-forwarded-for': IPS.northwind,
    });
    expect((await res.json()).company.company_match).toBe('Non-actionable Match');
  });

  it('unwraps IPv4-mapped IPv6', async () => {
    expect((await (await asToken(`::ffff:${IPS.northwind}`)).json()).company.companyId).toBe('900001');
  });

  // Plainly no address, or an address in no network: the spec's blank answer (an address spelled
  // ambiguously — a port, brackets, a leading zero — is a 422: client-address.test.ts).
  it.each(['2001:db8::1', 'garbage', '999.1.1.1', '0.0.0.0', IPS.nowhere])('answers 200 No Match with blank company variables for %s', async (ip) => {
    const res = await asToken(ip);
    expect(res.status).toBe(200);
    const body = IdentificationResponse.parse(await res.json());
    expect(body.company).toMatchObject({ company_match: 'No Match', companyId: null, name: null, geoIP_country: null });
    expect(JSON.stringify(body)).not.toContain('""');
  });

  it('refuses an over-long ?ip= with 422 invalid saying it is too long and the limit, on GET and HEAD alike', async () => {
    const long = '1'.repeat(65);
    const res = await asToken(long);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ status: 'error', message: 'validation error: ip is too long (at most 64 characters)', code: 'invalid' });
    const head = await fetch(`${srv.url}/v3/company/details?ip=${long}`, { method: 'HEAD', headers: { authorization: `Token ${token}` } });
    expect(head.status).toBe(422);
    // The longest accepted value is read as an address (here none: the address rule's 422, not the length's).
    const longest = await asToken('1'.repeat(64));
    expect(longest.status).toBe(422);
    expect((await longest.json()).message).toMatch(/is not an IP address/);
  });

  it('refuses a repeated ?ip= with 400 invalid (a query it cannot read as one value)', async () => {
    const res = await get(`/v3/company/details?ip=${IPS.northwind}&ip=${IPS.bluepeak}`, { authorization: `Token ${token}` });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ status: 'error', message: expect.stringMatching(/at most once/), code: 'invalid' });
  });

  it('uses the socket address, not X-Forwarded-For, unless the proxy is trusted', async () => {
    const other = await startTestServer();
    try {
      const t = (await other.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'x' })).secret;
      const res = await fetch(other.url + '/v3/company/details', {
        headers: { authorization: `Token ${t}`, 'x-forwarded-for': IPS.northwind, 'user-agent': BROWSER_UA },
      });
      expect((await res.json()).company.company_match).toBe('No Match');
    } finally {
      await other.close();
    }
  });

  it.each([
    ['a missing header', undefined],
    ['a malformed header', 'Bearer abc'],
    ['a short token', 'Token abc123'],
    ['an unknown token', `Token ${'A'.repeat(40)}`],
  ])('refuses %s with 401', async (_n, authorization) => {
    const res = await get(`/v3/company/details?ip=${IPS.northwind}`, authorization ? { authorization } : {});
    expect(res.status).toBe(401);
    expect((await res.json()).status).toBe('error');
  });

  it('refuses a deactivated token with 401 and a token of another group with 403', async () => {
    const { record, secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'old' });
    await srv.store.setTokenStatus(record.id, 'inactive');
    expect((await get('/v3/company/details', { authorization: `Token ${secret}` })).status).toBe(401);
    const other = await srv.store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm' });
    expect((await get('/v3/company/details', { authorization: `Token ${other.secret}` })).status).toBe(403);
  });
});

/**
 * Server-side integrations call with their HTTP client's own User-Agent. Every one of these is a "bot" to
 * a User-Agent classifier; with ?ip= it is the integrator, not the visitor, and must not be classified.
 */
const CLIENT_USER_AGENTS = [
  'curl/8.5.0',
  'python-requests/2.31.0',
  'Java/17.0.9',
  'Java-http-client/17.0.9',
  'okhttp/4.12.0',
  'axios/1.6.8',
  'undici',
  'node',
  'Go-http-client/1.1',
  'Go-http-client/2.0',
  'Apache-HttpClient/4.5.14 (Java/17.0.9)',
  'SFDC-Callout/59.0',
  'Salesforce',
];

describe("server-side lookups (?ip=) do not classify the integrator's User-Agent", () => {
  it.each(CLIENT_USER_AGENTS)('answers Match for a company IP asked by %s', async (userAgent) => {
    const res = await asToken(IPS.northwind, { 'user-agent': userAgent });
    expect(res.status).toBe(200);
    const body = IdentificationResponse.parse(await res.json());
    expect(body.company).toMatchObject({ company_match: 'Match', companyId: '900001', name: 'Northwind Analytics' });
  });

  it('answers Match for a request with no User-Agent at all', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${srv.url}/v3/company/details?ip=${IPS.northwind}`);
    const body = await new Promise<string>((resolve, reject) => {
      request(url, { headers: { authorization: `Token ${token}` } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(JSON.parse(body).company.company_match).toBe('Match');
  });
});

describe('tokens restricted to allowed domains, and packages removed later', () => {
  it("refuses ?ip= on a domain-restricted token with 403: it answers only for the visitor's own address", async () => {
    const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'page', allowed_domains: ['*.acme.test'] });
    const res = await get(`/v3/company/details?ip=${IPS.northwind}`, { authorization: `Token ${secret}`, origin: 'https://www.acme.test' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ status: 'error', message: expect.stringMatching(/allowed domains.*own address/), code: 'forbidden' });
    const own = await get('/v3/company/details', { authorization: `Token ${secret}`, origin: 'https://www.acme.test', 'x-forwarded-for': IPS.northwind });
    expect(own.status).toBe(200);
    expect((await own.json()).company.companyId).toBe('900001');
  });

  it('accepts a domain-restricted identification token only from its origins, with CORS for them', async () => {
    const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'site', allowed_domains: ['*.acme.test'] });
    const ok = await get('/v3/company/details', { authorization: `Token ${secret}`, origin: 'https://www.acme.test', 'x-forwarded-for': IPS.northwind });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://www.acme.test');
    const foreign = await get('/v3/company/details', { authorization: `Token ${secret}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect((await get('/v3/company/details', { authorization: `Token ${secret}` })).status).toBe(403);
  });

  it('answers 403 once the package that covered a token is removed', async () => {
    const { TEST_CUSTOMER } = await import('../testing/fixtures.ts');
    await srv.store.importCustomer({ ...TEST_CUSTOMER, id: 'shrinking', name: 'Shrinking', tags: [] });
    const { secret } = await srv.store.createToken({ customer_id: 'shrinking', api_group: 'identification', name: 'x' });
    expect((await get('/v3/company/details', { authorization: `Token ${secret}` })).status).toBe(200);
    await srv.store.importCustomer({ ...TEST_CUSTOMER, id: 'shrinking', name: 'Shrinking', packages: ['sales-intelligence'], tags: [] });
    const res = await get('/v3/company/details', { authorization: `Token ${secret}` });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toMatch(/packages no longer cover/);
  });
});

describe('CORS preflight (OPTIONS /v3/company/details)', () => {
  const preflight = (path: string, origin?: string) =>
    fetch(srv.url + path, {
      method: 'OPTIONS',
      headers: { ...(origin ? { origin } : {}), 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });

  it('allows an origin of a domain-restricted identification token, with the headers it needs', async () => {
    await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'preflight', allowed_domains: ['app.preflight.test'] });
    const res = await preflight('/v3/company/details', 'https://app.preflight.test');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.preflight.test');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('allows an origin of the tag named in the URL', async () => {
    const res = await preflight('/v3/company/details?tag=acme-tag', 'https://www.shop.acme.test');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://www.shop.acme.test');
    // No tag named: an origin some web tag allows.
    expect((await preflight('/v3/company/details', 'https://www.shop.acme.test')).headers.get('access-control-allow-origin')).toBe(
      'https://www.shop.acme.test',
    );
  });

  it.each([
    ['a foreign origin', '/v3/company/details', 'https://evil.example'],
    ['a foreign origin naming a tag', '/v3/company/details?tag=acme-tag', 'https://evil.example'],
    ['an origin of another tag only', '/v3/company/details?tag=nope-nope', 'https://www.shop.acme.test'],
    ['no Origin', '/v3/company/details', undefined],
  ])('refuses %s: 403 and no CORS allow header', async (_n, path, origin) => {
    const res = await preflight(path, origin);
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await res.json()).status).toBe('error');
  });

  it('stops allowing an origin once its token is deactivated', async () => {
    const { record } = await srv.store.createToken({
      customer_id: 'acme',
      api_group: 'identification',
      name: 'gone',
      allowed_domains: ['gone.preflight.test'],
    });
    expect((await preflight('/v3/company/details', 'https://gone.preflight.test')).status).toBe(204);
    await srv.store.setTokenStatus(record.id, 'inactive');
    expect((await preflight('/v3/company/details', 'https://gone.preflight.test')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the rest of the app', () => {
  it('answers unknown routes with a JSON 404 not_found', async () => {
    // Over the socket: an unknown path is the Express shell's 404, which inject cannot read.
    const res = await fetch(`${srv.url}/nope`, { headers: { 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ status: 'error', message: 'no such route: GET /nope', code: 'not_found' });
  });
});
