/**
 * The fast lane's POST routes (enrichment, people) answer exactly as Express's router does: the same
 * request to the route's own path (fast lane) and with a trailing slash (the router, which is not strict)
 * gives the same status, headers and body, for every outcome of the pipeline and every body type.
 */
import { request } from 'node:http';
import express, { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiGroup } from '../../core/customer-records.ts';
import { httpRequests } from '../observability/metrics.ts';
import { leadSources, plainCustomer, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { cachedTokens, startTestServer, type TestServer } from '../testing/test-server.ts';
import { postRoutesOf } from './fast-lane.ts';

describe('postRoutesOf', () => {
  it('reads the route handlers from the router, and refuses a path it could not answer alone', () => {
    const a = () => undefined;
    const b = () => undefined;
    const router = Router();
    router.post('/one', a, b);
    router.get('/both', a);
    router.post('/both', b);
    router.post('/twice', a);
    router.post('/twice', b);
    router.use('/mounted', Router());
    expect(postRoutesOf(router, ['/one']).get('/one')).toEqual([a, b]);
    for (const path of ['/both', '/twice', '/missing', '/mounted']) expect(() => postRoutesOf(router, [path])).toThrow(/not one POST-only route/);
    expect(() => postRoutesOf(express.Router(), ['/one'])).toThrow();
  });
});

describe('answers like the router on the real app', () => {
  let srv: TestServer;
  const token = cachedTokens(() => srv);

  beforeAll(async () => {
    srv = await startTestServer({
      ...leadSources(new Date()),
      customers: [TEST_CUSTOMER, plainCustomer('broke', { enrichment_credits: 0 })],
    });
  });
  afterAll(() => srv?.close());

  const VARYING = new Set(['date', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'keep-alive', 'connection']);
  const send = (method: string, path: string, headers: Record<string, string>, body: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = request(srv.url + path, { method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject).end(body);
    });

  const FORM = 'application/x-www-form-urlencoded';
  const JSON_TYPE = 'application/json';
  const MULTIPART = 'multipart/form-data; boundary=x';
  const multipart = (fields: Record<string, string>) =>
    Object.entries(fields)
      .map(([k, v]) => `--x\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + '--x--\r\n';
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  type Case = [name: string, path: string, group: () => Promise<Record<string, string>>, type: string | null, body: string, extra?: Record<string, string>];
  const as = (customer: string, group: ApiGroup, opts?: { rate_limit?: number }) => async () => ({
    authorization: `Token ${await token(customer, group, opts)}`,
  });
  /**
   * The token limited to 1 request a minute, with this minute's request spent just before the compared
   * pair (spent in beforeAll instead, a window boundary in between would let the first of the pair through).
   */
  const spentLimit = async () => {
    const headers = await as('acme', 'company-firmographics', { rate_limit: 1 })();
    await send('POST', '/v1/enrichment/company', { ...headers, 'content-type': FORM }, 'email=x@northwind.example');
    return headers;
  };
  const firmo = as('acme', 'company-firmographics');
  const cases: Case[] = [
    ['v3, form, known person (200)', '/v1/enrichment/company', firmo, FORM, form({ email: 'jane.doe@northwind.example' })],
    ['v3, JSON (200)', '/v1/enrichment/company', firmo, JSON_TYPE, JSON.stringify({ email: 'someone@northwind.example', title: 'VP Sales' })],
    ['v3, multipart (200)', '/v1/enrichment/company', firmo, MULTIPART, multipart({ email: 'someone@northwind.example' })],
    ['v3, query string on the path (200)', '/v1/enrichment/company?x=1', firmo, FORM, form({ email: 'someone@bluepeak.example' })],
    ['v3, unknown domain, blank data (404)', '/v1/enrichment/company', firmo, FORM, form({ email: 'x@unknown.example' })],
    ['v3, free mail (404)', '/v1/enrichment/company', firmo, JSON_TYPE, JSON.stringify({ email: 'somebody@gmail.com' })],
    ['v3, email and domain blank (400)', '/v1/enrichment/company', firmo, FORM, form({ email: '', domain: ' ' })],
    ['v3, malformed JSON (400)', '/v1/enrichment/company', firmo, JSON_TYPE, '{"email": "x@northwind.example"'],
    ['v3, malformed multipart (400)', '/v1/enrichment/company', firmo, MULTIPART, '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nsomeone@north'],
    ['v3, body over 16 KB (413)', '/v1/enrichment/company', firmo, FORM, form({ email: 'x@northwind.example', note: 'n'.repeat(17_000) })],
    ['v3, text/plain body (415)', '/v1/enrichment/company', firmo, 'text/plain', 'email=x@northwind.example'],
    ['v3, body without a Content-Type (415)', '/v1/enrichment/company', firmo, null, 'email=x@northwind.example'],
    ['v3, repeated field (422)', '/v1/enrichment/company', firmo, FORM, 'email=a@northwind.example&email=b@northwind.example'],
    ['v3, email of the wrong type (422)', '/v1/enrichment/company', firmo, JSON_TYPE, JSON.stringify({ email: 42 })],
    ['no credentials (401)', '/v1/enrichment/company', async () => ({}), FORM, form({ email: 'x@northwind.example' })],
    ['unknown token (401)', '/v1/enrichment/company', async () => ({ authorization: `Token ${'A'.repeat(40)}` }), FORM, form({ email: 'x@northwind.example' })],
    ['token of another group (403)', '/v1/enrichment/company', as('acme', 'identification'), FORM, form({ email: 'x@northwind.example' })],
    ['rate limited (429)', '/v1/enrichment/company', spentLimit, FORM, form({ email: 'x@northwind.example' })],
    ['no enrichment credits (402)', '/v1/enrichment/company', as('broke', 'company-firmographics'), FORM, form({ email: 'jane.doe@northwind.example' })],
    [
      'partner calling for itself (200)',
      '/v1/enrichment/company',
      firmo,
      FORM,
      form({ email: 'someone@northwind.example' }),
      { 'x-svc-customid': 'partner-of-itself' },
    ],
    [
      'partner header that names no token (401)',
      '/v1/enrichment/company',
      firmo,
      FORM,
      form({ email: 'someone@northwind.example' }),
      { 'x-svc-customid': 'nonsense' },
    ],
    [
      'proxied request id (echoed)',
      '/v1/enrichment/company',
      firmo,
      FORM,
      form({ email: 'someone@northwind.example' }),
      { 'x-request-id': '0123456789abcdef0123456789abcdef' },
    ],
    ['v2, Deprecation and Link headers (200)', '/v2/people/enrichment', firmo, FORM, form({ email: 'jane.doe@northwind.example' })],
    ['v2, Deprecation and Link headers on an error (401)', '/v2/people/enrichment', async () => ({}), FORM, form({ email: 'jane.doe@northwind.example' })],
    ['v2, blank (400)', '/v2/people/enrichment', firmo, JSON_TYPE, JSON.stringify({})],
    ['combined (200)', '/v2/people/full', as('acme', 'lead-scoring-firmographics'), FORM, form({ email: 'jane.doe@northwind.example', country: 'US' })],
    ['combined, unknown (404)', '/v2/people/full', as('acme', 'lead-scoring-firmographics'), JSON_TYPE, JSON.stringify({ email: 'x@unknown.example' })],
    ['lead scoring (200)', '/v2/people/score', as('acme', 'lead-scoring'), MULTIPART, multipart({ email: 'jane.doe@northwind.example', country: 'US' })],
    ['people enrichment (200)', '/v2/enrichment/people', as('acme', 'people-enrichment'), FORM, form({ email: 'jane.doe@northwind.example' })],
    [
      'people enrichment, unknown person (404)',
      '/v2/enrichment/people',
      as('acme', 'people-enrichment'),
      JSON_TYPE,
      JSON.stringify({ email: 'nobody@unknown.example' }),
    ],
    ['people search (200)', '/v2/search/people', as('acme', 'people-search'), FORM, form({ domain: 'northwind.example', job_titles: 'marketing' })],
  ];

  it.each(cases)('%s', async (name, path, auth, type, body, extra = {}) => {
    const headers: Record<string, string> = { ...(await auth()), ...extra };
    if (type !== null) headers['content-type'] = type;
    if (headers['x-svc-customid'] === 'partner-of-itself') headers['x-svc-customid'] = `acme-${headers.authorization!.slice('Token '.length)}`;
    const ownId = headers['x-request-id'] !== undefined;
    const q = path.indexOf('?');
    const routedPath = q < 0 ? `${path}/` : `${path.slice(0, q)}/${path.slice(q)}`;
    const strip = (r: Awaited<ReturnType<typeof send>>) => ({
      ...r,
      headers: Object.fromEntries(Object.entries(r.headers).filter(([k]) => !VARYING.has(k) && (ownId || k !== 'x-request-id'))),
    });
    const fast = await send('POST', path, headers, body);
    const routed = await send('POST', routedPath, headers, body);
    expect(strip(fast)).toEqual(strip(routed));
    expect(fast.status).toBe(Number(/\((\d{3})\)/.exec(name)?.[1] ?? 200));
    if (ownId) expect(fast.headers['x-request-id']).toBe(headers['x-request-id']);
    else expect(fast.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    if (path.startsWith('/v2/people/enrichment')) expect(fast.headers.deprecation).toBeDefined();
    if (fast.status === 200 || fast.status === 404 || fast.status === 429) expect(fast.headers['ratelimit-limit']).toBeDefined();
  });

  it('labels its metrics with the route pattern, as the router does', async () => {
    const count = async () =>
      (await httpRequests.get()).values.find((v) => v.labels.route === '/v2/people/score' && v.labels.method === 'POST' && v.labels.status === 401)?.value ?? 0;
    const before = await count();
    await send('POST', '/v2/people/score', { 'content-type': FORM }, 'email=x@northwind.example');
    await send('POST', '/v2/people/score/', { 'content-type': FORM }, 'email=x@northwind.example');
    expect(await count()).toBe(before + 2);
  });

  it.each([
    ['GET', '/v1/enrichment/company', 405],
    ['PUT', '/v2/people/full', 405],
    ['POST', '/V1/enrichment/company', 401],
    ['POST', '/v1/enrichment/companyx', 404],
  ])('leaves %s %s to Express (%i)', async (method, path, status) => {
    const res = await send(method, path, { 'content-type': FORM }, method === 'GET' ? '' : 'email=x@northwind.example');
    expect(res.status).toBe(status);
    if (status === 405) expect(res.headers.allow).toBe('POST');
  });
});
