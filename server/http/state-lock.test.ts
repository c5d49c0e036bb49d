/**
 * Issue 9 §5: an outside write lock on the SQLite state file never freezes the server. Another process
 * holds BEGIN EXCLUSIVE for 3 s while a client fetches the tag bundle and makes metered calls (web tag
 * and token, the way browsers and CRMs call): assets keep flowing, every metered call answers 200 or
 * 503 + Retry-After within a second, and the store works again once the lock is gone.
 * "One route table, one pipeline" (state): the same lock while writes that are not metering meet it —
 * tag sightings of origins never seen, page views, webhook polling — and no request of any route waits
 * on the event loop for it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTag } from '../../tag/build.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

const require = createRequire(import.meta.url);
let srv: TestServer;
const dist = mkdtempSync(join(tmpdir(), 'svc-dist-'));
beforeAll(async () => {
  await buildTag(join(dist, 'tag'));
  // Limits and credits out of the way: the loops below send as fast as the machine answers, and a 429 or 402 is not the point.
  // Webhook polling as often as configuration allows, so it meets the lock many times; the proxy header
  // gives page views a visitor address (a company network, so they raise webhook events).
  srv = await startTestServer({
    env: { SVC_DIST: dist, SVC_WEBHOOK_POLL_MS: '50', SVC_TRUST_PROXY: 'loopback' },
    customers: [
      {
        ...TEST_CUSTOMER,
        identification_credits: 10_000_000,
        tags: TEST_CUSTOMER.tags!.map((t) => ({ ...t, rate_limit: 1_000_000, visitor_rate_limit: 1_000_000 })),
      },
    ],
  });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dist, { recursive: true, force: true });
});

const timed = async (f: () => Promise<Response>) => {
  const t = performance.now();
  const res = await f();
  await res.arrayBuffer();
  return { res, ms: performance.now() - t };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Another process holding BEGIN EXCLUSIVE on the state file for `ms`; resolves once it holds the lock. */
async function holdLock(ms: number): Promise<{ released: Promise<void> }> {
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(join(srv.dir, 'svc.db'))});
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); process.exit(0); }, ${ms});`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const released = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
  await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
  return { released };
}

const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** Fetches the bundle and makes metered calls (web tag and token) in three loops until `running()` is false. */
async function traffic(secret: string, running: () => boolean) {
  const assets: number[] = [];
  const metered: { status: number; ms: number; retryAfter: string | null }[] = [];
  const loop = async (call: () => Promise<Response>, record: (res: Response, ms: number) => void) => {
    while (running()) {
      const { res, ms } = await timed(call);
      record(res, ms);
    }
  };
  await Promise.all([
    loop(
      () => fetch(`${srv.url}/tag/v1/svc.js`, { headers: { 'user-agent': BROWSER_UA } }),
      (_res, ms) => assets.push(ms),
    ),
    ...[
      () => fetch(`${srv.url}/v3/company/details?tag=acme-tag&test_ip=${IPS.northwind}`, { headers: { 'user-agent': BROWSER_UA, origin: 'http://localhost' } }),
      () => fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${secret}`, 'user-agent': 'curl/8.5.0' } }),
    ].map((call) => loop(call, (res, ms) => metered.push({ status: res.status, ms, retryAfter: res.headers.get('retry-after') }))),
  ]);
  return { assets, metered };
}

it('keeps serving while another process holds the write lock for 3 s; metered calls answer 200 or 503 within 1 s', async () => {
  const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', rate_limit: 1_000_000 });
  // The same traffic without the lock first: on a machine too loaded to serve an asset in 100 ms at all,
  // the bars below are relative to what it does unlocked (the lock must not make anything worse).
  const until = Date.now() + 1500;
  const base = await traffic(secret, () => Date.now() < until);
  const assetBar = Math.max(100, 2 * p99(base.assets));
  const meteredBar = Math.max(1000, 2 * Math.max(...base.metered.map((m) => m.ms)) + 400);

  const { released } = await holdLock(3000);
  let locked = true;
  void released.then(() => (locked = false));
  const { assets, metered } = await traffic(secret, () => locked);

  expect(assets.length).toBeGreaterThan(5);
  expect(p99(assets)).toBeLessThan(assetBar);
  expect(metered.length).toBeGreaterThan(2);
  for (const m of metered) {
    expect([200, 503]).toContain(m.status);
    expect(m.ms).toBeLessThan(meteredBar);
    if (m.status === 503) expect(Number(m.retryAfter)).toBeGreaterThan(0);
  }
  expect(metered.some((m) => m.status === 503)).toBe(true);

  // The lock is gone: metering works again, without a restart.
  const after = await fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${secret}`, 'user-agent': 'curl/8.5.0' } });
  expect(after.status).toBe(200);
}, 30_000);

it("waits for no lock on the event loop: a first-time origin's tag lookup, page views and webhook polling meet a 3 s outside lock, and every request answers 200/204/503 without waiting for it", async () => {
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    await srv.webhookStore.createEndpoint({
      customer_id: 'acme',
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ['account.visited'],
      hot_paths: [],
      description: 'lock test',
      secret: 'whsec_lock_test_secret_0123456789',
    });
    srv.webhooks.endpointsChanged('acme');

    /** GET /healthz every 20 ms: a request that needs nothing of the store, so its latency is the event loop's. */
    const probe = async (running: () => boolean) => {
      const ms: number[] = [];
      while (running()) {
        const { res, ms: t } = await timed(() => fetch(`${srv.url}/healthz`));
        expect(res.status).toBe(200);
        ms.push(t);
        await sleep(20);
      }
      return ms;
    };
    const pageView = (session: string, origin: string) =>
      fetch(`${srv.url}/v1/events?tag=acme-tag`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', origin, 'user-agent': BROWSER_UA, 'x-forwarded-for': IPS.northwind },
        body: JSON.stringify({ type: 'pageview', path: '/pricing', session }),
      });
    const lookup = (origin: string) => fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { 'user-agent': BROWSER_UA, origin } });

    // Unlocked first: the bar is relative to what this machine does without the lock.
    let until = Date.now() + 1000;
    const base = await probe(() => Date.now() < until);
    const baseMax = Math.max(...base);
    // A loop that waited for the lock would stall for its 3 s (or a deadline of 400 ms and more per
    // write); 1 s apart from that is CPU starvation by the other test files running at once (seen once at
    // 454 ms in a CI run on two loaded cores, 10 ms when run alone).
    const probeBar = Math.max(1000, baseMax + 250);

    const { released } = await holdLock(3000);
    let locked = true;
    void released.then(() => (locked = false));
    const answers: { what: string; status: number; ms: number }[] = [];
    const firstTimeOrigins: string[] = [];
    /** Sends `request()` every `everyMs` while the lock is held, without waiting for the answers in between. */
    const every = async (everyMs: number, what: () => string, request: (what: string) => Promise<Response>) => {
      const sent: Promise<void>[] = [];
      while (locked) {
        const name = what();
        sent.push(timed(() => request(name)).then(({ res, ms }) => void answers.push({ what: name, status: res.status, ms })));
        await sleep(everyMs);
      }
      await Promise.all(sent);
    };
    const newOrigin = () => {
      const origin = `https://first-${firstTimeOrigins.length}.acme.test`;
      firstTimeOrigins.push(origin);
      return origin;
    };
    let views = 0;
    const during = () =>
      Promise.all([
        // Each new origin's sighting is a write; a page view's rate-limit hit is one too.
        every(300, newOrigin, lookup),
        every(
          100,
          () => `lock-session-${views++}`,
          (session) => pageView(session, 'https://www.acme.test'),
        ),
      ]);
    const [probes] = await Promise.all([probe(() => locked), during()]);
    const maxProbe = Math.max(...probes);
    console.log(
      `state-lock: /healthz max ${maxProbe.toFixed(0)} ms under the lock (unlocked max ${baseMax.toFixed(0)} ms, bar ${probeBar.toFixed(0)} ms); ` +
        `slowest other request ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms of ${answers.length}`,
    );

    expect(maxProbe).toBeLessThan(probeBar);
    expect(probes.length).toBeGreaterThan(20);
    expect(firstTimeOrigins.length).toBeGreaterThan(2);
    // The lock was real: metered steps met it.
    expect(answers.some((a) => a.status === 503)).toBe(true);
    for (const a of answers) {
      expect([200, 204, 503], a.what).toContain(a.status);
      // A 503 comes at the store's lock deadline (400 ms), never after the 3 s lock.
      expect(a.ms, a.what).toBeLessThan(Math.max(1000, baseMax + 900));
    }

    // The sightings met the lock after their lookup was answered: written once it is gone.
    const sightings = async () => new Set((await srv.recorder.visits.tagSightings(['acme-tag'])).map((s) => s.origin));
    let seen = await sightings();
    for (let i = 0; i < 100 && !firstTimeOrigins.every((o) => seen.has(o)); i++) {
      await sleep(50);
      seen = await sightings();
    }
    expect(firstTimeOrigins.filter((o) => !seen.has(o))).toEqual([]);

    // Polling survived the lock: a view of a company network now raises an event that is delivered.
    until = Date.now() + 10_000;
    expect((await pageView('after-lock-session', 'https://www.acme.test')).status).toBe(204);
    while (received.length === 0 && Date.now() < until) await sleep(50);
    expect(received.length).toBeGreaterThan(0);
  } finally {
    await new Promise((r) => receiver.close(r));
  }
}, 40_000);
