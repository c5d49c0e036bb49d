/**
 * Failed credentials: the admin token's (10 a minute per client address, then 429 + Retry-After for that
 * address only) and the sign-in's (10 per account, 30 per address in 15 minutes, counted in the state
 * store); an address is an IPv6 /64 or an IPv4 address.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteUserStore } from '../state/users/sqlite.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { hashPassword } from './password.ts';
import { FailureThrottle, MAX_FAILURES, SharedFailureThrottle, throttleAddress } from './throttle.ts';

describe('throttleAddress', () => {
  it('counts an IPv6 address under its /64, an IPv4 address (mapped into IPv6 or not) as itself', () => {
    expect(throttleAddress('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(throttleAddress('2001:0DB8:0001:0002:ffff:eeee:dddd:cccc')).toBe('2001:db8:1:2::/64');
    expect(throttleAddress('[2001:db8:1:2:a:b:c:d]')).toBe('2001:db8:1:2::/64');
    expect(throttleAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttleAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(throttleAddress('::1')).toBe('0:0:0:0::/64');
    expect(throttleAddress('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(throttleAddress('::ffff:cb00:7105')).toBe('203.0.113.5');
    expect(throttleAddress('203.0.113.5')).toBe('203.0.113.5');
    expect(throttleAddress('')).toBe('');
    expect(throttleAddress('not an address')).toBe('not an address');
  });
});

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
    srv.request(`/admin/api/customers`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client, 'user-agent': 'curl/8.5.0' } });

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
      expect((await srv.request(`/admin/api/customers`, { headers: { 'x-forwarded-for': '198.51.100.9' } })).status).toBe(401);
    }
    expect((await call(TEST_ADMIN_TOKEN, '198.51.100.9')).status).toBe(200);
  });

  it('counts wrong tokens from the addresses of one IPv6 /64 together: the 11th from a fresh address of it is 429', async () => {
    for (let i = 0; i < 10; i++) expect((await call(`wrong-guess-number-${i}-xxxxxxxx`, `2001:db8:aa:1::${i + 1}`)).status).toBe(401);
    expect((await call(TEST_ADMIN_TOKEN, '2001:db8:aa:1:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await call(TEST_ADMIN_TOKEN, '2001:db8:aa:2::1')).status).toBe(200);
  });
});

describe('sign-in throttle over HTTP, counted in the state store', () => {
  let srv: TestServer;
  const PASSWORD = 'a long enough passphrase';
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback' } });
    await srv.users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: await hashPassword(PASSWORD), sso: false });
  });
  afterAll(() => srv?.close());

  const login = (email: string, password: string, client: string) =>
    srv.request(`/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: srv.url, 'x-forwarded-for': client },
      body: JSON.stringify({ email, password }),
    });

  it('answers 429 to the 31st failure from 40 addresses of one IPv6 /64 (other accounts each time), not to another /64', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await login(`guess-${i}@acme.test`, 'not the password at all', `2001:db8:5:6:${(i + 1).toString(16)}::${i + 7}`);
      statuses.push(res.status);
      if (res.status === 429) {
        const wait = Number(res.headers.get('retry-after'));
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(15 * 60);
        expect(await res.json()).toEqual({ status: 'error', message: 'too many failed sign-ins: try again later', code: 'rate_limited' });
      }
    }
    expect(statuses).toEqual([...new Array(30).fill(401), ...new Array(10).fill(429)]);
    // Blocked even with the right password, from yet another address of that /64.
    expect((await login('ann@acme.test', PASSWORD, '2001:db8:5:6::abcd')).status).toBe(429);
    expect((await login('ann@acme.test', PASSWORD, '2001:db8:5:7::1')).status).toBe(204);
  });

  it('counts an IPv4 address the same whether the socket reports it mapped into IPv6 or not', async () => {
    for (let i = 0; i < 30; i++) {
      const client = i % 2 === 0 ? '198.51.100.44' : '::ffff:198.51.100.44';
      expect((await login(`mapped-${i}@acme.test`, 'not the password at all', client)).status).toBe(401);
    }
    expect((await login('ann@acme.test', PASSWORD, '198.51.100.44')).status).toBe(429);
    expect((await login('ann@acme.test', PASSWORD, '::ffff:198.51.100.44')).status).toBe(429);
    expect((await login('ann@acme.test', PASSWORD, '198.51.100.45')).status).toBe(204);
  });

  it("adds another process's failures on the same state file: the account is blocked for this server too", async () => {
    // Another worker or node on the state file: a connection of its own.
    const other = new SqliteUserStore(join(srv.dir, 'svc.db'));
    const account = new SharedFailureThrottle('login-account', 10, 15 * 60_000);
    try {
      for (let i = 0; i < 9; i++) await account.recordFailure(other, 'ann@acme.test', Date.now());
      expect((await login('ann@acme.test', 'not the password at all', '203.0.113.70')).status).toBe(401);
      const blocked = await login('ann@acme.test', PASSWORD, '203.0.113.71');
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await account.blockedFor(other, 'ann@acme.test', Date.now())).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});
