/**
 * Engaged time and custom events over real HTTP, on SQLite and on a real redis-server: the tag's beacons to
 * `POST /v1/events` recorded for the identified account only, bad events refused with their reason and
 * nothing recorded, values that look like an email or a token never kept, a burst of beacons summed exactly,
 * and what is recorded shown where customers read it — the account page, the events export
 * (`kind=engagement`) and segment rules `engaged` and `event` (preview, membership, identification).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const TODAY = () => new Date().toISOString().slice(0, 10);

let redis: RedisServer;
const journal = mkdtempSync(join(tmpdir(), 'svc-engagement-journal-'));
beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.close();
  rmSync(journal, { recursive: true, force: true });
});

describe.each(['sqlite', 'redis'] as const)('engaged time and custom events on %s', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    const env: Record<string, string> = { SVC_TRUST_PROXY: 'loopback' };
    if (backend === 'redis') Object.assign(env, { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(journal, 'node') });
    const customers = [
      TEST_CUSTOMER,
      // The same site, its tag's page views turned off: nothing of these beacons is recorded.
      {
        ...TEST_CUSTOMER,
        id: 'quiet',
        name: 'Quiet',
        tags: [{ tag_id: 'quiet-tag', allowed_domains: ['*.acme.test'], scores: false, segment_names: false, settings: { features: { page_views: false } } }],
      },
    ];
    server = await startTestServer({ env, customers });
  }, 30_000);
  afterAll(async () => server?.close());

  const beacon = (body: object, ip: string = IPS.northwind, tag = 'acme-tag') =>
    fetch(`${server.url}/v1/events?tag=${tag}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://www.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': ip },
      body: JSON.stringify({ session: 'tab-session-1', path: '/pricing', ...body }),
    });
  const admin = (path: string, method = 'GET', body?: unknown) =>
    fetch(`${server.url}/admin/api/customers/${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const engagement = () => server.recorder.engagement!.accountEngagement('acme', '900001', TODAY(), TODAY());
  const recent = () => server.recorder.engagement!.recentEvents('acme', '900001');

  it('records an identified account’s engaged time per page and custom events with their properties; an anonymous visitor’s not', async () => {
    for (const b of [
      { type: 'engagement', path: '/pricing?utm_source=news&plan=pro', engaged_ms: 12_400.7 },
      { type: 'engagement', path: '/pricing', engaged_ms: 2_600 },
      { type: 'event', name: 'demo_requested', properties: { plan: 'pro', seats: 25 } },
    ]) {
      const res = await beacon(b);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://www.acme.test');
    }
    expect((await beacon({ type: 'engagement', engaged_ms: 99_000 }, IPS.isp)).status).toBe(204);
    expect((await beacon({ type: 'event', name: 'demo_requested' }, IPS.isp)).status).toBe(204);
    // Bots are anonymous too, whatever their address.
    const bot = await fetch(`${server.url}/v1/events?tag=acme-tag`, {
      method: 'POST',
      headers: { origin: 'https://www.acme.test', 'user-agent': 'Googlebot/2.1', 'x-forwarded-for': IPS.northwind },
      body: JSON.stringify({ type: 'engagement', path: '/pricing', session: 'tab-session-1', engaged_ms: 50_000 }),
    });
    expect(bot.status).toBe(204);
    expect((await beacon({ type: 'engagement', engaged_ms: 7_000 }, IPS.northwind, 'quiet-tag')).status).toBe(204);
    await expect.poll(async () => (await engagement()).time, { timeout: 5000 }).toEqual([{ day: TODAY(), path: '/pricing', ms: 15_001 }]);
    await expect.poll(async () => (await engagement()).events).toEqual([{ day: TODAY(), name: 'demo_requested', count: 1 }]);
    expect(await recent()).toEqual([{ at: expect.any(String), name: 'demo_requested', path: '/pricing', properties: { plan: 'pro', seats: 25 } }]);
    expect(await server.recorder.engagement!.accountsEngagement('quiet', TODAY(), TODAY())).toEqual([]);
  });

  it('refuses bad events with 400 and the reason, records none of them, and keeps no value that looks like an email or a token', async () => {
    const before = (await engagement()).events;
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`p${i}`, i]));
    for (const [body, message] of [
      [{ type: 'event', name: 'Demo Requested' }, /^invalid custom event: name: /],
      [{ type: 'event', name: 'demo_requested', properties: eleven }, /^invalid custom event: properties: at most 10 properties/],
      [{ type: 'event', name: 'demo_requested', properties: { nested: { plan: 'pro' } } }, /^invalid custom event: properties/],
      [{ type: 'engagement', engaged_ms: -5 }, /^invalid engaged time: engaged_ms/],
    ] as const) {
      const res = await beacon(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = await res.json();
      expect(error).toMatchObject({ status: 'error', code: 'invalid' });
      expect(error.message).toMatch(message);
    }
    const res = await beacon({
      type: 'event',
      name: 'contact_submitted',
      properties: {
        email: 'jane@northwind.example',
        note: 'reach me at jane@northwind.example',
        key: 'sk_live_51H8kXyZaBcDeFgHiJkLmNoP',
        phone_number: '+1 415 555 0100',
        referrer: 'https://www.acme.test/contact?email=jane%40northwind.example&utm_campaign=q4',
        topic: 'pricing',
      },
    });
    expect(res.status).toBe(204);
    await expect.poll(async () => (await recent())[0]?.name).toBe('contact_submitted');
    expect((await recent())[0]!.properties).toEqual({ referrer: 'https://www.acme.test/contact?utm_campaign=q4', topic: 'pricing' });
    expect(JSON.stringify(await recent())).not.toMatch(/jane|sk_live|555/);
    // The refused events counted nothing.
    expect((await engagement()).events.filter((e) => e.name === 'demo_requested')).toEqual(before.filter((e) => e.name === 'demo_requested'));
  });

  it('sums a burst of beacons exactly', async () => {
    const start = (await engagement()).time.find((t) => t.path === '/burst')?.ms ?? 0;
    const responses = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        i % 3 === 2 ? beacon({ type: 'event', name: 'burst_event', path: '/burst' }) : beacon({ type: 'engagement', path: '/burst', engaged_ms: 1000 }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(120).fill(204));
    await expect.poll(async () => (await engagement()).time.find((t) => t.path === '/burst')?.ms, { timeout: 10_000 }).toBe(start + 80_000);
    await expect.poll(async () => (await engagement()).events.find((e) => e.name === 'burst_event')?.count, { timeout: 10_000 }).toBe(40);
  });

  it('shows the engagement on the account page and in the events export (kind=engagement, resumable)', async () => {
    const page = await (await admin(`acme/accounts/900001?from=${TODAY()}&to=${TODAY()}`)).json();
    expect(page.engagement).toMatchObject({
      engaged_seconds: 95,
      pages: [
        { path: '/burst', engaged_seconds: 80 },
        { path: '/pricing', engaged_seconds: 15 },
      ],
      events: expect.arrayContaining([
        { name: 'burst_event', count: 40 },
        { name: 'demo_requested', count: 1 },
        { name: 'contact_submitted', count: 1 },
      ]),
    });
    expect(page.engagement.recent_events[0].name).toMatch(/burst_event|contact_submitted/);
    const all = (await (await admin(`acme/events?kind=engagement&from=${TODAY()}&to=${TODAY()}`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(all).toContainEqual({
      kind: 'engaged_time',
      customer_id: 'acme',
      day: TODAY(),
      company_id: '900001',
      path: '/pricing',
      engaged_ms: 15_001,
      cursor: expect.any(String),
    });
    expect(all).toContainEqual({
      kind: 'event_count',
      customer_id: 'acme',
      day: TODAY(),
      company_id: '900001',
      name: 'demo_requested',
      count: 1,
      cursor: expect.any(String),
    });
    const first = (await (await admin(`acme/events?kind=engagement&from=${TODAY()}&to=${TODAY()}&limit=2`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const rest = (await (await admin(`acme/events?kind=engagement&from=${TODAY()}&to=${TODAY()}&cursor=${first[1].cursor}`)).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect([...first, ...rest]).toEqual(all);
    const bad = await admin(`acme/events?kind=clicks`);
    expect(bad.status).toBe(422);
    expect((await admin(`acme/events?kind=engagement&cursor=1733-0`)).status).toBe(422);
  });

  it('holds segment rules on engaged time and custom events: preview, the Segments API membership, identification', async () => {
    const preview = async (match: object) => {
      const res = await admin('acme/segments/preview', 'POST', { match });
      expect(res.status, JSON.stringify(match)).toBe(200);
      return ((await res.json()) as { accounts: { companyId: string }[] }).accounts.map((a) => a.companyId);
    };
    expect(await preview({ engaged: { path: '/pricing*', min_seconds: 15, days: 1 } })).toEqual(['900001']);
    expect(await preview({ engaged: { path: '/pricing*', min_seconds: 16, days: 1 } })).toEqual([]);
    expect(await preview({ event: { name: 'burst_event', min_count: 40, days: 7 } })).toEqual(['900001']);
    expect(await preview({ event: { name: 'burst_event', min_count: 41, days: 7 } })).toEqual([]);
    expect((await admin('acme/segments/preview', 'POST', { match: { event: { name: 'Bad Name', min_count: 1, days: 7 } } })).status).toBe(422);
    // Saved, the rule holds where the account is identified.
    const created = await admin('acme/segments', 'POST', { name: 'Read the pricing', match: { engaged: { path: '/pricing*', min_seconds: 10, days: 7 } } });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const answer = await fetch(`${server.url}/v3/company/details?tag=acme-tag`, {
      headers: { origin: 'https://www.acme.test', 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind },
    });
    expect(answer.status).toBe(200);
    expect((await answer.json()).segments.ids).toContain(id);
    const page = await (await admin(`acme/accounts/900001`)).json();
    expect(page.segments.map((s: { id: number }) => s.id)).toContain(id);
  });
});
