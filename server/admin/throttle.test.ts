/** Failed admin credentials: 10 a minute per client address, then 429 + Retry-After for that address only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { FailureThrottle, MAX_FAILURES } from './throttle.ts';

describe('FailureThrottle', () => {
  it('blocks an address after MAX_FAILURES in a minute until the minute ends', () => {
    const t = new FailureThrottle();
    const start = 1_800_000_012_345;
    for (let i = 0; i < MAX_FAILURES; i++) {
      expect(t.blockedFor('10.0.0.1', start + i)).toBe(0);
      t.recordFailure('10.0.0.1', start + i);
    }
    expect(t.blockedFor('10.0.0.1', start + 15_000)).toBe(45_000);
    expect(t.blockedFor('10.0.0.2', start + 15_000)).toBe(0);
    expect(t.blockedFor('10.0.0.1', start + 60_000)).toBe(0);
  });
});

describe('admin API credential throttle over HTTP', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback' } });
  });
  afterAll(() => srv?.close());

  const call = (token: string, client: string) =>
    fetch(`${srv.url}/admin/api/customers`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client, 'user-agent': 'curl/8.5.0' } });

  it('answers 401 ten times, then 429 with Retry-After — even for the right token — from that address only', async () => {
    for (let i = 0; i < 10; i++) expect((await call(`wrong-guess-number-${i}-xxxxxxxx`, '198.51.100.7')).status).toBe(401);
    const blocked = await call('wrong-guess-number-10-xxxxxxxx', '198.51.100.7');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await blocked.json()).toEqual({ status: 'error', message: expect.stringMatching(/too many failed/), code: 'rate_limited' });
    expect((await call(TEST_ADMIN_TOKEN, '198.51.100.7')).status).toBe(429);
    expect((await call(TEST_ADMIN_TOKEN, '198.51.100.8')).status).toBe(200);
  });

  it('does not count requests that present no credential', async () => {
    for (let i = 0; i < 15; i++) {
      expect((await fetch(`${srv.url}/admin/api/customers`, { headers: { 'x-forwarded-for': '198.51.100.9' } })).status).toBe(401);
    }
    expect((await call(TEST_ADMIN_TOKEN, '198.51.100.9')).status).toBe(200);
  });
});
