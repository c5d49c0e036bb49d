/**
 * "One route table, one pipeline" (stable error codes): every error body is exactly
 * `{status: "error", message, code}`, the code one of core/error-codes.ts with its status — walked across
 * routes and failures with real HTTP, the way a client meets them.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALSO_STATUS, ERROR_CODES, ERROR_MEANING, ERROR_STATUS, type ErrorCode } from '../../core/error-codes.ts';
import { createLogger } from '../observability/logger.ts';
import { startMetricsServer } from '../observability/metrics-route.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { errorHandler } from './errors.ts';

const require = createRequire(import.meta.url);

/** The (status, code) pairs an answer may have: each code's own status, and ALSO_STATUS's. */
const ALLOWED = new Set<string>([
  ...ERROR_CODES.map((c) => `${ERROR_STATUS[c]} ${c}`),
  ...Object.entries(ALSO_STATUS).flatMap(([c, statuses]) => statuses.map((s) => `${s} ${c}`)),
]);

async function expectError(res: Response, status: number, code: ErrorCode): Promise<{ message: string }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body).toEqual({ status: 'error', message: expect.any(String), code });
  expect(ALLOWED.has(`${status} ${code}`)).toBe(true);
  return body as { message: string };
}

let srv: TestServer;
let firmographics: string;
let identification: string;
let limited: string;
let broke: string;

beforeAll(async () => {
  srv = await startTestServer({
    customers: [TEST_CUSTOMER, { ...TEST_CUSTOMER, id: 'broke', name: 'Broke Co', identification_credits: 0, tags: [] }],
  });
  firmographics = (await srv.store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm' })).secret;
  identification = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' })).secret;
  limited = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'slow', rate_limit: 1 })).secret;
  broke = (await srv.store.createToken({ customer_id: 'broke', api_group: 'identification', name: 'crm' })).secret;
});
afterAll(() => srv?.close());

const url = (path: string) => srv.url + path;
const asToken = (secret: string, init: RequestInit & { headers?: Record<string, string> } = {}) => ({
  ...init,
  headers: { authorization: `Token ${secret}`, ...init.headers },
});
const asAdmin = (init: RequestInit & { headers?: Record<string, string> } = {}) => ({
  ...init,
  headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
});
const enrich = (body: string, type = 'application/x-www-form-urlencoded') =>
  fetch(url('/v1/enrichment/company'), asToken(firmographics, { method: 'POST', body, headers: { 'content-type': type } }));

describe('error bodies carry the code of their failure', () => {
  it('401 unauthenticated: no credential, an unknown token, a wrong admin token, an unknown tag, a page view without a tag', async () => {
    await expectError(await fetch(url('/v3/company/details')), 401, 'unauthenticated');
    await expectError(
      await fetch(url('/v1/enrichment/company'), asToken('A'.repeat(40), { method: 'POST', body: 'email=a@b.example' })),
      401,
      'unauthenticated',
    );
    await expectError(await fetch(url('/admin/api/customers')), 401, 'unauthenticated');
    await expectError(await fetch(url('/v3/company/details?tag=no-such-tag'), { headers: { origin: 'http://localhost' } }), 401, 'unauthenticated');
    await expectError(await fetch(url('/v1/events'), { method: 'POST', body: '{}' }), 401, 'unauthenticated');
  });

  it('403 forbidden: another API group, a foreign page, a cross-origin admin write, foreign preflights, a package the customer lacks', async () => {
    await expectError(await fetch(url(`/v3/company/details?ip=${IPS.northwind}`), asToken(firmographics)), 403, 'forbidden');
    await expectError(await fetch(url('/v3/company/details?tag=acme-tag'), { headers: { origin: 'https://evil.example' } }), 403, 'forbidden');
    await expectError(
      await fetch(url('/admin/api/customers'), asAdmin({ method: 'POST', body: '{}', headers: { origin: 'https://evil.example' } })),
      403,
      'forbidden',
    );
    for (const path of ['/v3/company/details?tag=acme-tag', '/v1/events?tag=acme-tag']) {
      await expectError(
        await fetch(url(path), { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } }),
        403,
        'forbidden',
      );
    }
    // The state store's not_entitled.
    await fetch(url('/admin/api/customers'), asAdmin({ method: 'POST', body: JSON.stringify({ id: 'basic', name: 'Basic', packages: ['platform'] }) }));
    await expectError(
      await fetch(url('/admin/api/tokens'), asAdmin({ method: 'POST', body: JSON.stringify({ customer_id: 'basic', api_group: 'people-search', name: 'x' }) })),
      403,
      'forbidden',
    );
  });

  it('404 not_found: an unknown route, an unknown record (route check and state store alike)', async () => {
    const route = await expectError(await fetch(url('/v9/nothing')), 404, 'not_found');
    expect(route.message).toBe('no such route: GET /v9/nothing');
    await expectError(await fetch(url('/admin/api/tokens/tok_nope'), asAdmin()), 404, 'not_found');
    await expectError(await fetch(url('/admin/api/customers/nobody/credits'), asAdmin()), 404, 'not_found');
    await expectError(await fetch(url('/admin/api/tokens/tok_nope/deactivate'), asAdmin({ method: 'POST' })), 404, 'not_found');
  });

  it("404 not_found on the spec's 404 data answers too (no data found, invalid email), their data fields kept", async () => {
    const lead = async (path: string, group: string, body: string) => {
      const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: group as 'identification', name: `404 ${group}` });
      const res = await fetch(url(path), asToken(secret, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }));
      expect(res.status, path).toBe(404);
      return { path, body: (await res.json()) as Record<string, unknown> };
    };
    const answers = [
      await lead('/v1/enrichment/company', 'company-firmographics', 'domain=unknown.example'),
      await lead('/v1/enrichment/company', 'company-firmographics', 'email=not-an-email'),
      await lead('/v2/people/enrichment', 'company-firmographics', 'email=not-an-email'),
      await lead('/v2/people/full', 'lead-scoring-firmographics', 'email=nobody@unknown.example&country=Netherlands'),
      await lead('/v2/people/score', 'lead-scoring', 'email=not-an-email&country=Netherlands'),
      await lead('/v2/enrichment/people', 'people-enrichment', 'email=nobody@unknown.example'),
      await lead('/v2/search/people', 'people-search', 'domain=unknown.example'),
    ];
    for (const { path, body } of answers) {
      expect(body, path).toMatchObject({ status: 'error', message: expect.any(String), code: 'not_found' });
      // The spec's data fields stay: blank company, scores, person or profiles beside the error fields.
      expect(Object.keys(body).filter((k) => !['status', 'message', 'code'].includes(k)).length, path).toBeGreaterThan(0);
    }
    expect(answers[0]!.body).toMatchObject({ company: { companyId: null }, segments: { ids: [] } });
  });

  it('405 method_not_allowed with Allow', async () => {
    const res = await fetch(url('/v3/company/details'), { method: 'DELETE' });
    expect(res.headers.get('allow')).toMatch(/GET/);
    await expectError(res, 405, 'method_not_allowed');
  });

  it('409 conflict: a customer that already exists', async () => {
    await expectError(
      await fetch(url('/admin/api/customers'), asAdmin({ method: 'POST', body: JSON.stringify({ id: 'acme', name: 'Again', packages: ['platform'] }) })),
      409,
      'conflict',
    );
  });

  it('413 too_large: an enrichment body over 16 KB, a page view over 4 KB', async () => {
    await expectError(await enrich(`email=a@northwind.example&note=${'x'.repeat(17 * 1024)}`), 413, 'too_large');
    const beacon = JSON.stringify({ type: 'pageview', path: '/' + 'a'.repeat(5000), session: 'tab-session-1' });
    await expectError(
      await fetch(url('/v1/events?tag=acme-tag'), { method: 'POST', body: beacon, headers: { origin: 'http://localhost', 'content-type': 'text/plain' } }),
      413,
      'too_large',
    );
  });

  it('415 unsupported_type: an enrichment body of another type, an admin write that is not JSON, an unknown charset', async () => {
    await expectError(await enrich('email=a@northwind.example', 'text/plain'), 415, 'unsupported_type');
    await expectError(
      await fetch(
        url('/admin/api/tokens'),
        asAdmin({ method: 'POST', body: 'customer_id=acme', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      ),
      415,
      'unsupported_type',
    );
    await expectError(await enrich('{"email":"a@northwind.example"}', 'application/json; charset=klingon'), 415, 'unsupported_type');
  });

  it('422 invalid: a validation error of an API body, an admin body, an over-long ?ip=', async () => {
    await expectError(await enrich(`email=${'a'.repeat(260)}@northwind.example`), 422, 'invalid');
    await expectError(
      await fetch(url('/admin/api/tokens'), asAdmin({ method: 'POST', body: JSON.stringify({ customer_id: 'acme', api_group: 'nope', name: 'x' }) })),
      422,
      'invalid',
    );
    await expectError(await fetch(url(`/v3/company/details?ip=${'1'.repeat(65)}`), asToken(identification)), 422, 'invalid');
  });

  it('400 blank for a blank required field; 400 invalid for what cannot be read (malformed body, repeated parameter, page view, a value the store refuses)', async () => {
    await expectError(await enrich('country=US'), 400, 'blank');
    await expectError(await enrich('{"email": "a@', 'application/json'), 400, 'invalid');
    await expectError(await enrich('--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@north', 'multipart/form-data; boundary=x'), 400, 'invalid');
    await expectError(await fetch(url('/v3/company/details?ip=a&ip=b'), asToken(identification)), 400, 'invalid');
    await expectError(
      await fetch(url('/v1/events?tag=acme-tag'), { method: 'POST', body: 'hello', headers: { origin: 'http://localhost', 'content-type': 'text/plain' } }),
      400,
      'invalid',
    );
    await expectError(await fetch(url('/admin/api/customers'), asAdmin({ method: 'POST', body: '{"id":' })), 400, 'invalid');
    // The state store's `invalid`: allowed domains on a server-to-server token.
    const body = JSON.stringify({ customer_id: 'acme', api_group: 'company-firmographics', name: 'x', allowed_domains: ['www.acme.test'] });
    await expectError(await fetch(url('/admin/api/tokens'), asAdmin({ method: 'POST', body })), 400, 'invalid');
  });

  it('429 rate_limited with Retry-After: the API rate limit', async () => {
    const lookup = () => fetch(url(`/v3/company/details?ip=${IPS.nowhere}`), asToken(limited));
    await lookup();
    const res = await lookup();
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectError(res, 429, 'rate_limited');
  });

  it('402 quota_exhausted: a Match with no credit left', async () => {
    await expectError(await fetch(url(`/v3/company/details?ip=${IPS.northwind}`), asToken(broke)), 402, 'quota_exhausted');
  });

  it('503 unavailable with Retry-After: the state file locked by another connection past the request deadline', async () => {
    const Database = require('better-sqlite3') as typeof import('better-sqlite3');
    const holder = new Database(join(srv.dir, 'svc.db'));
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const res = await enrich('email=jane.doe@northwind.example');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      await expectError(res, 503, 'unavailable');
    } finally {
      holder.exec('COMMIT');
      holder.close();
    }
  });

  // Last: the admin throttle counts this address's failures for the rest of the file.
  it('429 rate_limited with Retry-After: the admin throttle of wrong admin tokens', async () => {
    let res: Response | undefined;
    for (let i = 0; i < 12; i++) res = await fetch(url('/admin/api/customers'), { headers: { authorization: 'Bearer wrong-wrong-wrong-wrong' } });
    expect(res!.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectError(res!, 429, 'rate_limited');
  });
});

describe('errors the app did not expect, and library errors', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.get('/boom', () => {
      throw new Error('a bug, with a secret-looking aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7b');
    });
    app.get('/teapot', () => {
      throw Object.assign(new Error('library says no'), { status: 416 });
    });
    app.use(errorHandler(createLogger('silent')));
    server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers an unexpected error 500 internal, without its message', async () => {
    const body = await expectError(await fetch(`${base}/boom`), 500, 'internal');
    expect(body.message).toBe('internal server error');
  });

  it('logs an unexpected error with the path only: no ?ip= or other query, emails masked', async () => {
    const { PassThrough } = await import('node:stream');
    const sink = new PassThrough();
    let logged = '';
    sink.on('data', (d: Buffer) => (logged += d.toString()));
    const app = express();
    app.get('/boom/:who', () => {
      throw new Error('a bug');
    });
    app.use(errorHandler(createLogger('error', { destination: sink })));
    const s = createServer(app);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/boom/jane.doe@example.com?ip=81.2.69.160&email=x@y.com`);
      expect(res.status).toBe(500);
      await new Promise((r) => setTimeout(r, 50));
      expect(logged).toContain('GET /boom/');
      expect(logged).not.toContain('81.2.69.160');
      expect(logged).not.toContain('jane.doe@example.com');
      expect(logged).not.toContain('x@y.com');
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  });

  it("keeps a library's client status and calls it invalid when no code has that status", async () => {
    const res = await fetch(`${base}/teapot`);
    expect(res.status).toBe(416);
    expect(await res.json()).toEqual({ status: 'error', message: 'library says no', code: 'invalid' });
  });
});

describe('the unauthenticated metrics port (its own node:http server)', () => {
  it('answers anything but GET /metrics 404 not_found, and a registry that fails 503 unavailable', async () => {
    const server = await startMetricsServer(0, '127.0.0.1', () => Promise.reject(new Error('aggregation timed out')));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expectError(await fetch(`${base}/metrics`, { method: 'POST' }), 404, 'not_found');
      await expectError(await fetch(`${base}/other`), 404, 'not_found');
      await expectError(await fetch(`${base}/metrics`), 503, 'unavailable');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('the table of codes', () => {
  it('has a meaning and a status for every code, and one code per status (so a status from elsewhere names one)', () => {
    for (const code of ERROR_CODES) expect(ERROR_MEANING[code].length).toBeGreaterThan(10);
    expect(new Set(ERROR_CODES.map((c) => ERROR_STATUS[c])).size).toBe(ERROR_CODES.length);
  });
});
