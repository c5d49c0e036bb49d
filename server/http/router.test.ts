/** The router answers from the route table: 405 + Allow for known paths asked with another method, HEAD, OPTIONS, 404 for the rest. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const call = (method: string, path: string, headers: Record<string, string> = {}) =>
  fetch(srv.url + path, { method, headers: { 'user-agent': 'curl/8.5.0', ...headers } });
const allow = (res: Response) => (res.headers.get('allow') ?? '').split(/,\s*/).sort();

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
    ['POST', '/tag/v1/svc.js', ['GET', 'HEAD']],
    ['POST', '/tag/v1/svc.d.ts', ['GET', 'HEAD']],
    ['POST', '/v3/usage', ['GET', 'HEAD']],
    ['POST', '/healthz', ['GET', 'HEAD']],
    ['DELETE', '/readyz', ['GET', 'HEAD']],
    ['POST', '/metrics', ['GET', 'HEAD']],
    ['PUT', '/openapi.json', ['GET', 'HEAD']],
    ['POST', '/docs', ['GET', 'HEAD']],
  ])('%s %s → 405 with Allow', async (method, path, methods) => {
    const res = await call(method, path);
    expect(res.status).toBe(405);
    expect(allow(res)).toEqual([...methods].sort());
    expect(await res.json()).toEqual({ status: 'error', message: expect.stringContaining(`method ${method} is not allowed`), code: 'method_not_allowed' });
  });

  it('covers routes of mounted routers (admin API), after their authentication', async () => {
    const res = await call('GET', '/admin/api/tokens/tok_1/rotate', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
    expect(res.status).toBe(405);
    expect(allow(res)).toEqual(['POST']);
  });

  it('leaves unknown routes at 404 and served methods alone', async () => {
    expect((await call('GET', '/v9/nothing')).status).toBe(404);
    expect((await call('POST', '/v9/nothing')).status).toBe(404);
    expect((await call('POST', '/v1/enrichment/company')).status).toBe(401);
    expect((await call('GET', '/v3/company/details')).status).toBe(401);
  });
});

describe("the tag's types for front-end developers", () => {
  it('serves svc.d.ts and preact.d.ts as the tag build wrote them', async () => {
    for (const file of ['svc.d.ts', 'preact.d.ts']) {
      const res = await call('GET', `/tag/v1/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await res.text()).toMatch(/export (type|interface|declare|function|\{)/);
    }
  });
});
