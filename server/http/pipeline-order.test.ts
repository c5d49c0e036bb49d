/**
 * Credits (402), rate limits (429), partners and the order of checks, over real HTTP — on both state
 * backends (a temp SQLite file; a real redis-server), which must behave the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { awayFromWindowEdge } from '../testing/rate-window.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

describe.each(['sqlite', 'redis'] as const)('on %s', (backend) => {
  let srv: TestServer;
  const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  const call = (secret: string, query = '', headers: Record<string, string> = {}) =>
    fetch(`${srv.url}/v3/company/details${query}`, { headers: { authorization: `Token ${secret}`, 'user-agent': UA, ...headers } });

  let redis: RedisServer | undefined;
  let journal: string | undefined;
  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      customers: [
        TEST_CUSTOMER,
        { ...TEST_CUSTOMER, id: 'tiny', name: 'Tiny Co', identification_credits: 5, tags: [] },
        { ...TEST_CUSTOMER, id: 'broke', name: 'Broke Co', identification_credits: 0, tags: [] },
        { ...TEST_CUSTOMER, id: 'partnerco', name: 'Partner Co', tags: [] },
      ],
    });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  const tokenFor = async (customer_id: string, over: { rate_limit?: number; api_group?: 'identification' | 'company-firmographics' } = {}) =>
    (await srv.store.createToken({ customer_id, api_group: over.api_group ?? 'identification', name: 'test', rate_limit: over.rate_limit ?? 100_000 })).secret;

  describe('identification credits', () => {
    it('never overspends under hundreds of concurrent matched requests, and charges repeats again', async () => {
      const secret = await tokenFor('tiny');
      const responses = await Promise.all(Array.from({ length: 200 }, () => call(secret, `?ip=${IPS.northwind}`)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 402)).toHaveLength(195);
      const refused = await responses.find((r) => r.status === 402)!.json();
      expect(refused).toEqual({ status: 'error', message: expect.stringMatching(/quota exhausted/i), code: 'quota_exhausted' });
      const usage = await srv.store.usage('tiny');
      expect(usage).toEqual([{ pool: 'identification', api: 'identification', month: new Date().toISOString().slice(0, 7), charges: 5, partner_charges: 0 }]);
    });

    it('answers No Match and Non-actionable Match for free, even at zero balance', async () => {
      const secret = await tokenFor('broke');
      for (const ip of [IPS.nowhere, IPS.isp, IPS.hosting, '2001:db8::1']) expect((await call(secret, `?ip=${ip}`)).status).toBe(200);
      expect((await call(secret, `?ip=${IPS.northwind}`)).status).toBe(402);
      expect(await srv.store.usage('broke')).toEqual([]);
    });

    it('never charges HEAD /v3/company/details (it carries no answer), even at zero balance', async () => {
      for (const customer of ['acme', 'broke']) {
        const secret = await tokenFor(customer);
        const before = await srv.store.usage(customer);
        for (const query of [`?ip=${IPS.northwind}`, '']) {
          const res = await fetch(`${srv.url}/v3/company/details${query}`, {
            method: 'HEAD',
            headers: { authorization: `Token ${secret}`, 'user-agent': UA, 'x-forwarded-for': IPS.northwind },
          });
          expect(res.status).toBe(200);
          expect(await res.text()).toBe('');
        }
        expect(await srv.store.usage(customer)).toEqual(before);
      }
    });
  });

  describe('rate limits', () => {
    it('sends RateLimit headers on every answer and 429 with Retry-After past the limit, without charging', async () => {
      const secret = await tokenFor('acme', { rate_limit: 3 });
      await awayFromWindowEdge();
      const before = (await srv.store.usage('acme')).reduce((n, u) => n + u.charges, 0);
      const ok = [];
      for (let i = 0; i < 3; i++) ok.push(await call(secret, `?ip=${IPS.northwind}`));
      expect(ok.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(ok.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
      expect(ok[0].headers.get('ratelimit-limit')).toBe('3');
      const limited = await call(secret, `?ip=${IPS.northwind}`);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(limited.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
      expect((await limited.json()).status).toBe('error');
      const after = (await srv.store.usage('acme')).reduce((n, u) => n + u.charges, 0);
      expect(after - before).toBe(3);
    });

    it('charges exactly the admitted answers of a concurrent burst past the limit (hit and charge are one metering op)', async () => {
      const secret = await tokenFor('acme', { rate_limit: 5 });
      await awayFromWindowEdge();
      const before = (await srv.store.usage('acme')).reduce((n, u) => n + u.charges, 0);
      const statuses = (await Promise.all(Array.from({ length: 20 }, () => call(secret, `?ip=${IPS.northwind}`)))).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15);
      const after = (await srv.store.usage('acme')).reduce((n, u) => n + u.charges, 0);
      expect(after - before).toBe(5);
    });

    it('answers 429, not the input error, for a refused request with a bad query, and HEAD counts too', async () => {
      const secret = await tokenFor('acme', { rate_limit: 2 });
      await awayFromWindowEdge();
      const head = await fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, { method: 'HEAD', headers: { authorization: `Token ${secret}` } });
      expect(head.status).toBe(200);
      expect(head.headers.get('ratelimit-remaining')).toBe('1');
      const bad = await call(secret, '?ip=a&ip=b');
      expect(bad.status).toBe(400);
      expect(bad.headers.get('ratelimit-remaining')).toBe('0');
      const refused = await call(secret, '?ip=a&ip=b');
      expect(refused.status).toBe(429);
      expect((await refused.json()).code).toBe('rate_limited');
    });

    it('limits web-tag traffic per (tag, visitor IP)', async () => {
      const res = await fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { origin: 'http://localhost', 'user-agent': UA } });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('300');
    });
  });

  describe('order of checks: 401 → 403 → 429 → 400 → 402', () => {
    it('authenticates before anything else', async () => {
      expect((await fetch(`${srv.url}/v3/company/details?tag=a&tag=b`)).status).toBe(401);
    });
    it('checks the group before the rate limit', async () => {
      const wrong = await tokenFor('acme', { api_group: 'company-firmographics', rate_limit: 1 });
      expect((await call(wrong)).status).toBe(403);
      expect((await call(wrong)).status).toBe(403);
    });
    it('checks the rate limit before the input, and the input before credits', async () => {
      const limited = await tokenFor('broke', { rate_limit: 1 });
      expect((await call(limited, '?ip=a&ip=b')).status).toBe(400);
      expect((await call(limited, '?ip=a&ip=b')).status).toBe(429);
    });
  });

  describe('partners (X-svc-CustomID)', () => {
    it('serves and charges the customer named with its token, and records the partner', async () => {
      const partner = await tokenFor('partnerco');
      const customer = await tokenFor('tiny');
      const res = await call(partner, `?ip=${IPS.isp}`, { 'x-svc-customid': `partnerco-tiny-${customer}` });
      expect(res.status).toBe(200);
      const own = await call(partner, `?ip=${IPS.northwind}`, { 'x-svc-customid': `Partner Co-${partner}` });
      expect(own.status).toBe(200);
      expect((await srv.store.usage('partnerco')).find((u) => u.api === 'identification')?.partner_charges).toBe(1);
    });

    it.each([
      ['no token at the end', () => 'partnerco-tiny'],
      ['a token that is not the partner own', async () => `partnerco-${await tokenFor('tiny')}`],
      ['a customer name that does not own the token', async () => `partnerco-acme-${await tokenFor('tiny')}`],
      ['a wrong partner name', async () => `someoneelse-tiny-${await tokenFor('tiny')}`],
      ['an unknown embedded token', () => `partnerco-tiny-${'Z'.repeat(40)}`],
    ])('refuses %s with 401', async (_n, header) => {
      const partner = await tokenFor('partnerco');
      const res = await call(partner, `?ip=${IPS.isp}`, { 'x-svc-customid': await header() });
      expect(res.status).toBe(401);
      expect((await res.json()).message).toMatch(/X-svc-CustomID|token/);
    });

    it('never echoes a token in a 4xx message, whatever the caller put where', async () => {
      const partner = await tokenFor('partnerco');
      const customer = await tokenFor('tiny');
      const secrets = [partner, customer];
      const headers = [
        `${partner}-${partner}`,
        `${customer}-${partner}`,
        `partnerco-${customer}-${partner}`,
        `${partner.slice(0, 30)}-${partner}`,
        `tiny-${partner}-${customer}`,
        `x-${customer}x`,
        customer,
      ];
      const seen: string[] = [];
      for (const h of headers) {
        const res = await call(partner, `?ip=${IPS.isp}`, { 'x-svc-customid': h });
        expect(res.status, h).toBe(401);
        seen.push((await res.json()).message);
      }
      // Tokens sent in other places: a path, a tag id, a malformed Authorization header.
      for (const [path, headers] of [
        [`/v1/${customer}`, {}],
        [`/v3/company/details?tag=${customer}`, { origin: 'http://localhost' }],
        ['/v3/company/details', { authorization: `Token ${partner}x` }],
        [`/v3/company/details/${partner}`, { authorization: `Token ${partner}` }],
      ] as const) {
        const res = await fetch(srv.url + path, { headers: { 'user-agent': UA, ...headers } });
        expect(res.status).toBeGreaterThanOrEqual(400);
        seen.push((await res.json()).message);
      }
      for (const message of seen)
        for (const secret of secrets) {
          expect(message).not.toContain(secret);
          expect(message).not.toContain(secret.slice(0, 20));
        }
    });
  });
});
