/**
 * A node on Redis when Redis goes away, over real HTTP as browsers and CRMs call: the web tag and
 * identification tokens keep answering (charged on the local allowance), enrichment, people and admin
 * writes answer 503 + Retry-After with nothing charged, cached records keep authenticating, and after
 * Redis is back (no restart) every 200 the clients saw is counted in the shared balance.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RedisStateStore } from '../state/redis/store.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { FIXTURE_PEOPLE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const ALLOWANCE = 4;
let redis: RedisServer;
let srv: TestServer;
let journal: string;
beforeAll(async () => {
  redis = await startRedisServer({ appendfsync: 'always' });
  journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
  srv = await startTestServer({
    people: FIXTURE_PEOPLE,
    env: { SVC_TRUST_PROXY: 'loopback', SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal, SVC_OUTAGE_ALLOWANCE: String(ALLOWANCE) },
  });
}, 30_000);
afterAll(async () => {
  await srv?.close();
  await redis?.close();
  rmSync(journal, { recursive: true, force: true });
});

const tagCall = () =>
  fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { 'user-agent': BROWSER_UA, origin: 'http://localhost', 'x-forwarded-for': IPS.northwind } });
const tokenCall = (secret: string) =>
  fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${secret}`, 'user-agent': BROWSER_UA } });
const enrich = (secret: string) =>
  fetch(`${srv.url}/v1/enrichment/company`, {
    method: 'POST',
    headers: { authorization: `Token ${secret}`, 'user-agent': 'python-requests/2.31.0', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'x@northwind.example' }),
  });
const used = async () => (await srv.store.balance('acme', 'identification', 'year-0', TEST_CUSTOMER.identification_credits)).used;

it('answers identification on the allowance, fails the rest closed with 503 + Retry-After, and counts every 200 once Redis is back', async () => {
  const ident = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' })).secret;
  const firmo = (await srv.store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'etl' })).secret;
  // Warm the node's cache of the records the requests read.
  expect((await tagCall()).status).toBe(200);
  expect((await tokenCall(ident)).status).toBe(200);
  expect((await enrich(firmo)).status).toBe(200);
  const before = await used();
  expect(before).toBe(2);

  await redis.stop();
  await expect.poll(() => (srv.store as RedisStateStore).connected, { timeout: 5000 }).toBe(false);

  const statuses: number[] = [];
  for (let i = 0; i < ALLOWANCE + 3; i++) {
    const res = await (i % 2 ? tokenCall(ident) : tagCall());
    statuses.push(res.status);
    if (res.status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  }
  expect(statuses.filter((s) => s === 200)).toHaveLength(ALLOWANCE);
  expect(statuses.filter((s) => s !== 200).every((s) => s === 503)).toBe(true);
  const refused = await enrich(firmo);
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await refused.json()).toMatchObject({ status: 'error' });
  const adminWrite = await fetch(`${srv.url}/admin/api/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ customer_id: 'acme', api_group: 'identification', name: 'new' }),
  });
  expect(adminWrite.status).toBe(503);
  expect(adminWrite.headers.get('retry-after')).not.toBeNull();

  await redis.start();
  await expect.poll(used, { timeout: 10_000, interval: 100 }).toBe(before + ALLOWANCE);
  expect((await tagCall()).status).toBe(200);
  expect(await used()).toBe(before + ALLOWANCE + 1);
  expect((await enrich(firmo)).status).toBe(200);
}, 60_000);
