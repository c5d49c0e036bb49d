/** GET /v3/usage: a token holder sees its remaining credits, when the contract year restarts, and its rate limit. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  // The contract started 2026-01-01 (TEST_CUSTOMER); credits renew at its anniversary.
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const usage = (token: string) => srv.request(`/v3/usage`, { headers: { authorization: `Token ${token}`, 'user-agent': 'python-requests/2.32.3' } });

it('answers an identification token with its pool: quota, used, remaining, the contract year and when it restarts, and its rate limit, free of charge', async () => {
  const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', rate_limit: 50 });
  for (let i = 0; i < 3; i++) {
    const res = await srv.request(`/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${secret}`, 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(200);
  }
  const res = await usage(secret);
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  const year = new Date().getUTCFullYear();
  expect(body).toEqual({
    customer_id: 'acme',
    token: { id: expect.any(String), name: 'crm', api_group: 'identification' },
    pools: [
      {
        pool: 'identification',
        quota: 1000,
        used: 3,
        remaining: 997,
        period: `year-${year - 2026}`,
        period_start: `${year}-01-01T00:00:00.000Z`,
        period_end: `${year + 1}-01-01T00:00:00.000Z`,
      },
    ],
    rate_limit: { limit: 50, remaining: 46, reset_seconds: expect.any(Number) },
  });
  expect(res.headers.get('ratelimit-limit')).toBe('50');
  // Asking is free: nothing more used.
  expect((await (await usage(secret)).json()).pools[0].used).toBe(3);
});

it('answers a free group (Lead Scoring) with no pools, and refuses a missing or unknown token with 401', async () => {
  const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'lead-scoring', name: 'scores' });
  expect(((await (await usage(secret)).json()) as { pools: unknown[] }).pools).toEqual([]);
  const none = await srv.request(`/v3/usage`);
  expect(none.status).toBe(401);
  expect((await usage('a'.repeat(40))).status).toBe(401);
});
