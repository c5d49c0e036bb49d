/**
 * The router answers from the route table: 405 + Allow for known paths asked with another method (API,
 * health, metrics, docs and shell paths alike), HEAD for GET routes (never charged), OPTIONS, paths matched
 * as Express matched them, 404 for the rest — in-process through the server's own listener (light-my-request).
 */
import { gzipSync } from 'node:zlib';
import type { InjectOptions } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../routes.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
let firmographics: string;
let identification: string;
beforeAll(async () => {
  srv = await startTestServer();
  firmographics = (await srv.store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm' })).secret;
  identification = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' })).secret;
});
afterAll(() => srv?.close());

const call = (method: string, url: string, headers: Record<string, string> = {}, payload?: InjectOptions['payload']) =>
  srv.inject({ method: method as InjectOptions['method'], url, headers: { 'user-agent': 'curl/8.5.0', ...headers }, payload });
const allow = (res: { headers: Record<string, unknown> }) =>
  String(res.headers.allow ?? '')
    .split(/,\s*/)
    .sort();

describe('a known route with the wrong method', () => {
  it.each([
    ['POST', '/v3/company/details', ['GET', 'HEAD', 'OPTIONS']],
    ['PUT', '/v3/company/details?ip=1.2.3.4', ['GET', 'HEAD', 'OPTIONS']],
    ['DELETE', '/v3/company/details', ['GET', 'HEAD', 'OPTIONS']],
    ['GET', '/v1/enrichment/company', ['POST']],
    ['PUT', '/v2/people/enrichment', ['POST']],
    ['GET', '/v2/people/full', ['POST']],
    ['GET', '/v2/people/score', ['POST']],
    ['GET', '/v2/enrichment/people', ['POST']],
    ['DELETE', '/v2/search/people', ['POST']],
    ['GET', '/v1/events', ['POST', 'OPTIONS']],
    ['POST', '/tag/v1/svc.js', ['GET', 'HEAD']],
    ['POST', '/tag/v1/svc.d.ts', ['GET', 'HEAD']],
    ['DELETE', '/tag/v1/acme-tag.js', ['GET', 'HEAD']],
    ['POST', '/v3/usage', ['GET', 'HEAD']],
    ['POST', '/healthz', ['GET', 'HEAD']],
    ['DELETE', '/readyz', ['GET', 'HEAD']],
    ['POST', '/metrics', ['GET', 'HEAD']],
    ['PUT', '/openapi.json', ['GET', 'HEAD']],
    ['POST', '/docs', ['GET', 'HEAD']],
    ['GET', '/admin/api/tokens/tok_1/rotate', ['POST']],
    ['PUT', '/admin/api/customers/acme', ['GET', 'HEAD', 'PATCH']],
  ])('%s %s → 405 with Allow', async (method, path, methods) => {
    const res = await call(method, path);
    expect(res.statusCode).toBe(405);
    expect(allow(res)).toEqual([...methods].sort());
    expect(res.json()).toEqual({ status: 'error', message: expect.stringContaining(`method ${method} is not allowed`), code: 'method_not_allowed' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('answers OPTIONS on a path without a preflight route with 204 and Allow', async () => {
    const res = await call('OPTIONS', '/v1/enrichment/company');
    expect(res.statusCode).toBe(204);
    expect(allow(res)).toEqual(['POST']);
  });

  it('leaves unknown routes at 404 and served methods alone', async () => {
    expect((await call('GET', '/v9/nothing')).statusCode).toBe(404);
    expect((await call('POST', '/v9/nothing')).statusCode).toBe(404);
    expect((await call('POST', '/v1/enrichment/company')).statusCode).toBe(401);
    expect((await call('GET', '/v3/company/details')).statusCode).toBe(401);
  });
});

describe('paths and methods as clients send them', () => {
  it('matches a path whatever its case and with a trailing slash, as Express did', async () => {
    for (const path of ['/V3/Company/Details', '/v3/company/details/']) {
      const res = await call('GET', `${path}?ip=${IPS.northwind}`, { authorization: `Token ${identification}` });
      expect(res.statusCode, path).toBe(200);
      expect(res.json().company.company_match).toBe('Match');
    }
  });

  it('answers HEAD of a GET route with its headers and no body, and never charges it', async () => {
    const before = (await srv.store.balance('acme', 'identification', 'year-1', 1_000_000)).used;
    const res = await call('HEAD', `/v3/company/details?ip=${IPS.northwind}`, { authorization: `Token ${identification}` });
    expect(res.statusCode).toBe(200);
    expect(res.payload).toBe('');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBeGreaterThan(100);
    expect((await srv.store.balance('acme', 'identification', 'year-1', 1_000_000)).used).toBe(before);
  });

  it('passes a path that cannot be decoded to the app shell, which answers it as a JSON error, not a crash', async () => {
    // Over a socket: the Express shell swaps the response's prototype, which in-process injection cannot follow.
    const res = await fetch(`${srv.url}/v3/company/%E0%A4%A`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 'error', code: 'not_found' });
  });

  it('every route of the table is registered: a GET to each GET path never answers 405', async () => {
    for (const r of ROUTES.filter((d) => d.method === 'GET' && !d.path.includes('*'))) {
      const path = r.path.replace(/:[A-Za-z]+/g, 'x');
      const res = await call('GET', path, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
      expect(res.statusCode, `GET ${path}`).not.toBe(405);
    }
  });
});

describe('bodies as CRMs send them', () => {
  const post = (headers: Record<string, string>, payload: InjectOptions['payload']) =>
    call('POST', '/v1/enrichment/company', { authorization: `Token ${firmographics}`, ...headers }, payload);

  it('reads form, JSON, charset parameters, multipart and gzip-compressed bodies alike', async () => {
    const boundary = 'svcBoundary42';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="domain"\r\n\r\nnorthwind.example\r\n--${boundary}--\r\n`;
    const answers = await Promise.all([
      post({ 'content-type': 'application/x-www-form-urlencoded' }, 'domain=northwind.example'),
      post({ 'content-type': 'application/json; charset=utf-8' }, JSON.stringify({ domain: 'northwind.example' })),
      post({ 'content-type': `multipart/form-data; boundary=${boundary}` }, multipart),
      post({ 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' }, gzipSync('domain=northwind.example')),
    ]);
    for (const res of answers) {
      expect(res.statusCode, res.payload).toBe(200);
      expect(res.json().company.domain).toBe('northwind.example');
    }
  });

  it('refuses what it cannot read with the spec status and a JSON error', async () => {
    const cases: [Record<string, string>, InjectOptions['payload'], number, string][] = [
      [{ 'content-type': 'text/csv' }, 'domain\nacme.example', 415, 'unsupported_type'],
      [{ 'content-type': 'application/json' }, '{"domain": ', 400, 'invalid'],
      [{ 'content-type': 'application/json' }, '"acme.example"', 400, 'invalid'],
      [{ 'content-type': 'application/json' }, '[1]', 422, 'invalid'],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, `domain=${'a'.repeat(17 * 1024)}`, 413, 'too_large'],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, Array.from({ length: 101 }, (_, i) => `f${i}=1`).join('&'), 413, 'too_large'],
      [{ 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'compress' }, 'domain=northwind.example', 415, 'unsupported_type'],
      [{ 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' }, 'domain=northwind.example', 415, 'unsupported_type'],
    ];
    for (const [headers, payload, status, code] of cases) {
      const res = await post(headers, payload);
      expect(res.statusCode, `${JSON.stringify(headers)}: ${res.payload}`).toBe(status);
      expect(res.json()).toMatchObject({ status: 'error', code });
    }
  });

  it('reads the body only after authentication: a wrong token with a bad body is 401', async () => {
    const res = await call('POST', '/v1/enrichment/company', { authorization: 'Token nope', 'content-type': 'text/csv' }, 'x');
    expect(res.statusCode).toBe(401);
  });
});

describe("the tag's types for front-end developers", () => {
  it('serves svc.d.ts and preact.d.ts as the tag build wrote them', async () => {
    for (const file of ['svc.d.ts', 'preact.d.ts']) {
      // Over a socket: served by the Express shell (see above).
      const res = await fetch(`${srv.url}/tag/v1/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toMatch(/export (type|interface|declare|function|\{)/);
    }
  });
});
