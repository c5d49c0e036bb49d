/**
 * One evaluation of a customer's segments for every enrichment surface: for the same leads, the single
 * route (`POST /v1/enrichment/company`), the batch API, the console upload's file job and `svc enrich` give
 * each account the same segments — the ones that read page views (`visited`) and intent (`intent`, whose
 * score counts the account's own page views) included — over real HTTP, on SQLite and on Redis.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Segment } from '../../core/customer-records.ts';
import { runCliCollected } from '../cli/run.ts';
import { plainCustomer, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { sendPageView } from '../testing/page-view.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { batchSources, EXTRA_COMPANIES } from './batch-test-leads.ts';

const BEARER = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** 101 and 102 read the catalog (TEST_CUSTOMER's); 107 reads the account's page views; 108 its intent score. */
const SEGMENTS: Segment[] = [
  ...TEST_CUSTOMER.segments,
  { id: 107, name: 'Pricing visitors', match: { visited: { path: '/pricing*', days: 7 } } },
  { id: 108, name: 'Showing intent', match: { intent: { product: 'cdp', min_score: 1 } } },
];

/** The leads (emails: one column the file jobs read): the two accounts the fixture networks identify (900001 viewed /pricing, 900002 a blog post), others that never came. */
const LEADS = [
  'Jane.Doe@northwind.example', // a known person of 900001
  'max.mustermann@bluepeak.example', // a known person of 900002
  'buyer@bluepeak.example', // 900002 by its domain
  ...EXTRA_COMPANIES.slice(0, 6).map((c) => `lead@${c.domain}`),
  'someone@unknown.example',
];

describe.each(['sqlite', 'redis'] as const)('segments of an enrichment answer on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  let cliJournal: string | undefined;
  let env: NodeJS.ProcessEnv;
  // The customer whose tag reports the page views (acme-tag), its excluded accounts none, so both accounts count.
  const customer = plainCustomer('api', { segments: SEGMENTS, excluded_accounts: [], enrichment_credits: 1000, tags: TEST_CUSTOMER.tags });

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
      cliJournal = mkdtempSync(join(tmpdir(), 'svc-journal-cli-'));
    }
    const state = redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal! } : {};
    srv = await startTestServer({
      ...batchSources(new Date()),
      env: { SVC_TRUST_PROXY: 'loopback', ...state },
      customers: [customer],
    });
    // The CLI is another node of the same state: its own journal folder on Redis.
    const cliState = redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: cliJournal! } : {};
    env = { ...process.env, SVC_DATA: join(srv.dir, 'data'), SVC_STATE: join(srv.dir, 'svc.db'), SVC_LOG: 'silent', ...cliState };
    if (!redis) delete env.SVC_REDIS_URL;
    // 900001 views the pricing page (high intent); 900002 a blog post twice (2 intent points: a score of 2).
    for (const [path, ip] of [
      ['/pricing', IPS.northwind],
      ['/blog/launch', IPS.bluepeak],
      ['/blog/launch', IPS.bluepeak],
    ] as const) {
      expect((await sendPageView(srv.url, { path, ip })).status).toBe(204);
    }
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    for (const dir of [journal, cliJournal]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const token = async (customerId: string) =>
    (await srv.store.createToken({ customer_id: customerId, api_group: 'company-firmographics', name: 'crm', segment_names: true, rate_limit: 10_000 })).secret;
  const single = async (secret: string, email: string): Promise<number[]> => {
    const res = await fetch(`${srv.url}/v1/enrichment/company`, {
      method: 'POST',
      headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    return ((await res.json()) as { segments: { ids: number[] } }).segments.ids;
  };
  /** The segment ids of each row of an enrichment CSV (`;`-separated in `segment_ids`). */
  const csvSegments = (csv: string | Buffer): number[][] =>
    (parse(csv, { columns: true }) as Record<string, string>[]).map((row) => (row.segment_ids ? row.segment_ids.split(';').map(Number) : []));

  it('the single route, the batch API, the console upload and svc enrich give every account the same segments, visit and intent ones included', async () => {
    const secret = await token('api');
    // The recorder counts a view after answering the beacon: wait for it to be seen.
    const deadline = Date.now() + 10_000;
    while (!(await single(secret, LEADS[1]!)).includes(108)) {
      if (Date.now() > deadline) throw new Error('the page views were never counted');
      await new Promise((r) => setTimeout(r, 50));
    }
    const singles: number[][] = [];
    for (const lead of LEADS) singles.push(await single(secret, lead));
    // What each account is in: the catalog's segments, and those its page views and intent put it in.
    expect(singles).toEqual([[101, 107, 108], [102, 108], [102, 108], [101], [102], [101], [102], [101], [102], []]);

    const batch = await fetch(`${srv.url}/v3/batch/enrichment`, {
      method: 'POST',
      headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: LEADS.map((email) => ({ email })) }),
    });
    expect(batch.status).toBe(200);
    const results = ((await batch.json()) as { results: { segments: { ids: number[] } }[] }).results;
    expect(results.map((r) => r.segments.ids)).toEqual(singles);

    const csv = `email\n${LEADS.join('\n')}\n`;
    const upload = await fetch(`${srv.url}/admin/api/customers/api/enrichment-jobs?name=leads.csv`, {
      method: 'POST',
      headers: { ...BEARER, 'content-type': 'text/csv' },
      body: csv,
    });
    expect(upload.status, await upload.clone().text()).toBe(202);
    const { id } = (await upload.json()) as { id: string };
    const jobDeadline = Date.now() + 30_000;
    for (;;) {
      const job = (await (await fetch(`${srv.url}/admin/api/customers/api/enrichment-jobs/${id}`, { headers: BEARER })).json()) as { status: string };
      if (job.status === 'done') break;
      expect(job.status).not.toBe('failed');
      if (Date.now() > jobDeadline) throw new Error('the upload never finished');
      await new Promise((r) => setTimeout(r, 25));
    }
    const result = await (await fetch(`${srv.url}/admin/api/customers/api/enrichment-jobs/${id}/result.csv`, { headers: BEARER })).text();
    expect(csvSegments(result)).toEqual(singles);

    // `svc enrich` on the same state, for the same customer (its leads were charged this month: free now).
    writeFileSync(join(srv.dir, 'leads.csv'), csv);
    const out = join(srv.dir, 'leads-enriched.csv');
    const run = await runCliCollected(['enrich', '--in', join(srv.dir, 'leads.csv'), '--out', out, '--customer', 'api'], { env, cwd: srv.dir });
    expect(run.code, run.stderr).toBe(0);
    expect(csvSegments(readFileSync(out))).toEqual(singles);
  }, 120_000);
});
