/**
 * One host holding an IPv6 /48 rotates /64s — a fresh per-visitor counter each time — but every /64 of the
 * /48 counts on one looser per-(tag, /48) counter (IPV6_SITE_FACTOR × the tag's per-visitor limit), on
 * both state backends: past it the /48 gets 429, while another /48 and IPv4 visitors are unaffected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { awayFromWindowEdge } from '../testing/rate-window.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { IPV6_SITE_FACTOR } from './policy.ts';

const PER_VISITOR = 3;
const PER_SITE = PER_VISITOR * IPV6_SITE_FACTOR; // 24

describe.each(['sqlite', 'redis'] as const)('the per-/48 limit of a web tag on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: { SVC_TRUST_PROXY: 'loopback', ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {}) },
      customers: [{ ...TEST_CUSTOMER, tags: [{ ...TEST_CUSTOMER.tags[0], visitor_rate_limit: PER_VISITOR, rate_limit: 100_000 }] }],
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  const from = (ip: string) =>
    fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { origin: 'https://www.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip } });

  it('refuses 100 /64s of one /48 after the site limit, leaves another /48 and IPv4 alone', async () => {
    await awayFromWindowEdge();
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 100; i++) {
      // A fresh /64 each time: 2001:db8:100:0::1, 2001:db8:100:1::1, … — never past its own per-visitor limit.
      const res = await from(`2001:db8:100:${i.toString(16)}::1`);
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
      else await res.arrayBuffer();
    }
    expect(statuses.slice(0, PER_SITE)).toEqual(Array(PER_SITE).fill(200));
    expect(statuses.slice(PER_SITE)).toEqual(Array(100 - PER_SITE).fill(429));
    expect(await refused!.json()).toEqual({ status: 'error', message: expect.stringMatching(`${PER_SITE} requests per minute`), code: 'rate_limited' });
    expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/);

    // Another /48 of the same ISP, and an IPv4 visitor: their own counters, untouched.
    for (const ip of ['2001:db8:101::1', '2001:db8:101:1::1', '23.10.1.20']) expect((await from(ip)).status, ip).toBe(200);
    // The per-visitor limit still comes first within one /64.
    for (let i = 0; i < PER_VISITOR - 1; i++) expect((await from('2001:db8:101::2')).status).toBe(200);
    expect((await from('2001:db8:101::3')).status).toBe(429);
  });
});
