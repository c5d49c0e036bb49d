/**
 * POST /v3/batch/enrichment over real HTTP on both state backends: item by item what the single route
 * answers, charged as single calls are (same credits), quota running out mid-batch, duplicates, bad
 * items, bad envelopes, and what common clients send (curl, python-requests, gzip, charsets).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainCustomer } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { BatchEnrichmentResponse, MAX_BATCH_ITEMS } from './batch-schema.ts';
import { batchSources, EXTRA_COMPANIES, leadMix } from './batch-test-leads.ts';

const PATH = '/v3/batch/enrichment';

/** What the batch must answer for an item, given the single route's answer for it. */
function asItem(single: { status: number; body: Record<string, unknown> }): Record<string, unknown> {
  if (single.status === 200) return { status: 200, ...single.body };
  if (single.status === 404) return { ...single.body, status: 404, code: 'not_found' };
  return { status: single.status, message: single.body.message, code: single.body.code };
}

describe.each(['sqlite', 'redis'] as const)('POST /v3/batch/enrichment on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  // Customers with the same contract, segments and exclusions: one is served by single calls, the other by batches.
  const customer = (id: string, enrichment_credits: number) => plainCustomer(id, { enrichment_credits });

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      ...batchSources(new Date()),
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      customers: [customer('single', 25), customer('batch', 25), customer('tight', 2), customer('plenty', 1000), customer('clients', 1000)],
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  const token = async (customerId: string, opts: { rate_limit?: number } = {}) =>
    (
      await srv.store.createToken({
        customer_id: customerId,
        api_group: 'company-firmographics',
        name: 'crm',
        segment_names: true,
        rate_limit: 10_000,
        ...opts,
      })
    ).secret;
  const send = async (
    secret: string | null,
    body: string | Uint8Array<ArrayBuffer> | undefined,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) => {
    const res = await fetch(srv.url + PATH, { method: 'POST', headers: { ...(secret ? { authorization: `Token ${secret}` } : {}), ...headers }, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: JSON.parse(text) };
  };
  const batch = (secret: string, items: unknown[]) => send(secret, JSON.stringify({ items }));
  const usage = async (secret: string) => {
    const res = await fetch(`${srv.url}/v3/usage`, { headers: { authorization: `Token ${secret}` } });
    return ((await res.json()) as { pools: { pool: string; used: number; remaining: number }[] }).pools.map(({ pool, used, remaining }) => ({
      pool,
      used,
      remaining,
    }));
  };
  const charges = async (customerId: string) => (await srv.store.usage(customerId)).map(({ api, charges }) => ({ api, charges }));

  it('a batch of 100 answers exactly what 100 single calls answer, with the same credits spent (quota running out on the way)', async () => {
    const leads = leadMix(MAX_BATCH_ITEMS);
    const single = await token('single');
    const singles: { status: number; body: Record<string, unknown> }[] = [];
    for (const lead of leads) {
      const res = await fetch(`${srv.url}/v1/enrichment/company`, {
        method: 'POST',
        headers: { authorization: `Token ${single}`, 'content-type': 'application/json' },
        body: JSON.stringify(lead),
      });
      singles.push({ status: res.status, body: await res.json() });
    }
    const statuses = new Set(singles.map((s) => s.status));
    // The mix exercises every answer: found, not found, invalid, and credits running out (25 for ~40 companies).
    expect([...statuses].sort()).toEqual([200, 402, 404, 422]);

    const secret = await token('batch');
    const res = await batch(secret, leads);
    expect(res.status).toBe(200);
    const body = BatchEnrichmentResponse.parse(res.body);
    expect(body.results).toHaveLength(leads.length);
    expect(body.results).toEqual(singles.map(asItem));
    expect(await usage(secret)).toEqual(await usage(single));
    expect(await usage(secret)).toEqual([{ pool: 'enrichment', used: 25, remaining: 0 }]);
    expect(await charges('batch')).toEqual(await charges('single'));
  });

  it('when the credits run out mid-batch, earlier items stay charged and answered, later found ones are 402, re-exports stay free', async () => {
    const secret = await token('tight');
    const [a, b, c, d] = EXTRA_COMPANIES.map((co) => co.domain);
    const res = await batch(secret, [
      { domain: a },
      { email: `x@${b}` },
      { email: `y@${a}` },
      { domain: c },
      { domain: 'unknown.example' },
      { domain: b },
      { domain: d },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([200, 200, 200, 402, 404, 200, 402]);
    expect(res.body.results[3]).toEqual({ status: 402, message: expect.stringMatching(/^quota exhausted/), code: 'quota_exhausted' });
    expect(await usage(secret)).toEqual([{ pool: 'enrichment', used: 2, remaining: 0 }]);
    // Across batches too: a company charged this month is free at zero balance, a new one is 402.
    const again = await batch(secret, [{ domain: c }, { email: `z@${a}` }]);
    expect(again.body.results.map((r: { status: number }) => r.status)).toEqual([402, 200]);
    expect(await charges('tight')).toEqual([{ api: 'company-firmographics-v3', charges: 2 }]);
  });

  it('charges a company once however often it appears in one batch, and not again in the next', async () => {
    const secret = await token('plenty');
    const domain = EXTRA_COMPANIES[5]!.domain;
    const items = Array.from({ length: 50 }, (_, i) => (i % 2 ? { email: `lead${i}@${domain}` } : { domain }));
    const first = await batch(secret, items);
    expect(first.body.results.every((r: { status: number; company: { companyId: string } }) => r.status === 200 && r.company.companyId === '910005')).toBe(
      true,
    );
    await batch(secret, items.slice(0, 3));
    expect(await charges('plenty')).toEqual([{ api: 'company-firmographics-v3', charges: 1 }]);
  });

  it('answers a bad item as its own 422 and every other item as usual', async () => {
    const secret = await token('plenty');
    const bad: unknown[] = [
      {},
      { email: '', domain: '  ' },
      { email: 'a@co1.example', domain: 'co1.example' },
      'lead@co1.example',
      null,
      ['lead@co1.example'],
      { email: 42 },
      { domain: ['co1.example', 'co2.example'] },
      { email: `${'x'.repeat(300)}@example.com` },
    ];
    const res = await batch(secret, [...bad, { email: 'lead@co1.example', title: 'ignored, as unknown fields are' }]);
    expect(res.status).toBe(200);
    const results = res.body.results as { status: number; message?: string; code?: string }[];
    expect(results.slice(0, bad.length).map((r) => [r.status, r.code])).toEqual(bad.map(() => [422, 'invalid']));
    expect(results.map((r) => r.message)).toEqual([
      'validation error: email or domain is required (one of them, not blank)',
      'validation error: email or domain is required (one of them, not blank)',
      'validation error: send email or domain, not both',
      'validation error: must be an object: {"email": "…"} or {"domain": "…"}',
      'validation error: must be an object: {"email": "…"} or {"domain": "…"}',
      'validation error: must be an object: {"email": "…"} or {"domain": "…"}',
      'validation error: email: must be a single text value',
      'validation error: domain: must be a single text value',
      'validation error: email: must be at most 254 characters',
      undefined,
    ]);
    expect(results.at(-1)).toMatchObject({ status: 200, company: { companyId: '910001' } });
  });

  it('refuses a bad envelope whole (422, nothing charged), with a message that says what to send', async () => {
    const secret = await token('clients');
    const over = await batch(
      secret,
      Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => ({ domain: 'co3.example' })),
    );
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ status: 'error', message: expect.stringMatching(/^items: at most 100 items per batch/), code: 'invalid' });
    for (const [body, message] of [
      ['{"items":{"email":"a@co3.example"}}', /^items: must be an array of 1 to 100 items/],
      ['{"items":[]}', /^items: must hold 1 to 100 items/],
      ['{"email":"a@co3.example"}', /^items: required: send a JSON body \{"items"/],
      ['[{"email":"a@co3.example"}]', /^request: the body must be a JSON object/],
    ] as const) {
      const res = await send(secret, body);
      expect(res.status, body).toBe(422);
      expect(res.body.message, body).toMatch(message);
    }
    expect(await charges('clients')).toEqual([]);
  });

  it('serves what curl, python-requests and gzip-sending clients send; a body it cannot read is a clear 4xx', async () => {
    const secret = await token('clients');
    const items = JSON.stringify({ items: [{ email: 'ann@co7.example' }, { domain: 'co9.example' }] });
    const ok = (r: { status: number; body: { results?: { status: number }[] } }) => r.status === 200 && r.body.results?.every((x) => x.status === 200);
    // JSON with a charset, as many clients send it; python-requests' own headers (json=…: ", " and ": " separators).
    expect(ok(await send(secret, items, { 'content-type': 'application/json; charset=utf-8' }))).toBe(true);
    const python = await send(secret, '{"items": [{"email": "ann@co7.example"}, {"domain": "co9.example"}]}', {
      'user-agent': 'python-requests/2.32.3',
      'accept-encoding': 'gzip, deflate',
      accept: '*/*',
      'content-type': 'application/json',
    });
    expect(ok(python)).toBe(true);
    expect(ok(await send(secret, new Uint8Array(gzipSync(items)), { 'content-type': 'application/json', 'content-encoding': 'gzip' }))).toBe(true);

    // python-requests with no body (requests.post(url, headers=…)): Content-Length: 0.
    const empty = await send(secret, undefined, { 'user-agent': 'python-requests/2.32.3' });
    expect(empty.status).toBe(422);
    expect(empty.body.message).toMatch(/^items: required: send a JSON body \{"items"/);
    // curl -X POST with no -d: no Content-Length at all.
    const bare = await raw(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${secret}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    );
    expect(bare.status).toBe(422);
    expect(bare.body).toMatch(/items: required: send a JSON body/);
    // curl -d '{…}' without -H: a form Content-Type.
    const form = await send(secret, items, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body.message).toMatch(/send application\/json/);
    expect((await send(secret, items, { 'content-type': 'application/json; charset=latin1' })).status).toBe(415);
    expect((await send(secret, '{"items": [')).status).toBe(400);
    expect((await send(secret, JSON.stringify({ items: [{ email: 'x'.repeat(200_000) }] }))).status).toBe(413);
  });

  it('counts a batch as one request against the rate limit, and authenticates like the single route', async () => {
    const secret = await token('clients', { rate_limit: 2 });
    const first = await batch(
      secret,
      Array.from({ length: MAX_BATCH_ITEMS }, () => ({ domain: 'co11.example' })),
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect((await batch(secret, [{ domain: 'co11.example' }])).status).toBe(200);
    const limited = await batch(secret, [{ domain: 'co11.example' }]);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');

    expect((await send(null, JSON.stringify({ items: [{ domain: 'co11.example' }] }))).status).toBe(401);
    const other = (await srv.store.createToken({ customer_id: 'clients', api_group: 'lead-scoring-firmographics', name: 'x' })).secret;
    const forbidden = await send(other, JSON.stringify({ items: [{ domain: 'co11.example' }] }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('forbidden');
  });

  /** One raw HTTP/1.1 exchange, byte for byte what the client would send. */
  function raw(request: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      // Written, not ended: a half-closed client may lose its answer; Connection: close ends the exchange.
      const socket = connect(srv.port, '127.0.0.1', () => socket.write(request));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', ...rest] = data.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') });
      });
    });
  }
});
