/**
 * `svc state export` / `svc state import` as operators run them (`runCli`, in-process): SQLite → Redis →
 * SQLite loses nothing — the state store's records, the page views, accounts' segments and tag sightings,
 * the webhook endpoints (with their secrets) and the outbox — and the CLI works against Redis through
 * SVC_REDIS_URL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import { RedisWebhookStore } from '../state/outbox/redis.ts';
import { SqliteWebhookStore } from '../state/outbox/sqlite.ts';
import type { OutboxItem, WebhookStore } from '../state/outbox/store.ts';
import { SqliteStateStore } from '../state/sqlite/store.ts';
import { storeOf, type TransferEntry } from '../state/transfer/transfer.ts';
import { RedisVisitStore } from '../state/visits/redis.ts';
import { SqliteVisitStore } from '../state/visits/sqlite.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { buildReport } from '../visits/report.ts';
import type { WebhookEvent } from '../webhooks/schema.ts';
import { generateSigningSecret, signatureHeader, verifySignature } from '../webhooks/signature.ts';
import { runCliCollected } from './run.ts';

let dir: string;
let redis: RedisServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-cli-'));
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `svc ARGS --json` with `env`: its JSON value; rejects with its stderr when it exits non-zero. */
const svc = async (env: Record<string, string>, ...args: string[]) => {
  const { code, stdout, stderr } = await runCliCollected([...args, '--json'], { env: { ...process.env, SVC_LOG: 'silent', ...env } });
  if (code !== 0) throw new Error(`svc ${args.join(' ')} exited with ${code}: ${stderr}`);
  return JSON.parse(stdout);
};
const lines = (file: string): TransferEntry[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
/** The state store's entries in file order; the others as a set (Redis lists them in SCAN order). */
const contents = (file: string) => {
  const all = lines(file);
  return {
    state: all.filter((e) => storeOf(e) === 'state'),
    others: all
      .filter((e) => storeOf(e) !== 'state')
      .map((e) => JSON.stringify(e))
      .sort(),
  };
};

// Recent days and times: stores keep page views within their retention and dedupe keys for three days.
const now = Date.now();
const today = new Date(now).toISOString().slice(0, 10);
const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
const at = (day: string, hms: string) => `${day}T${hms}.000Z`;

const event = (id: string, type: 'account.visited' | 'account.hot', path: string): WebhookEvent => ({
  id,
  type,
  created_at: new Date(now).toISOString(),
  customer_id: 'acme',
  data: {
    day: today,
    account: { company_id: '900001', name: null, domain: null, segment_ids: [101], hot_account: true, excluded: false },
    page: { path, referrer_host: null, tag_id: 'acme-tag', origin: 'https://www.acme.test', session_id: 's1' },
  },
});

/** What users of the moved state see: the visitors report, tag sightings, webhook endpoints and the outbox. */
async function observe(customer: CustomerRecord, visits: VisitStore, outbox: WebhookStore) {
  const [endpoint] = await outbox.listEndpoints('acme');
  const deliveries = endpoint ? (await outbox.listDeliveries('acme', endpoint.id, 100)).sort((a, b) => (a.id < b.id ? -1 : 1)) : [];
  return {
    report: buildReport({
      customer,
      query: { from: yesterday, to: today, segment: null },
      company: () => null,
      accounts: await visits.accountVisits('acme', yesterday, today),
      daily: await visits.dailyTotals('acme', yesterday, today),
    }),
    globex: await visits.dailyTotals('globex', yesterday, today),
    raw: await (async () => {
      const rows = [];
      for await (const r of visits.rawPageViews('acme', { from: yesterday, to: today, after: null, limit: 10 })) rows.push(r);
      return rows;
    })(),
    sightings: await visits.tagSightings(['acme-tag']),
    endpoints: await outbox.listEndpoints('acme'),
    pending: deliveries.filter((d) => d.status === 'pending'),
    log: deliveries,
  };
}

/** Claims the due deliveries, signs each with the secret the store hands out and checks it with `secret`. */
async function signedWith(outbox: WebhookStore, secret: string): Promise<string[]> {
  const claimed = await outbox.claimDue(now + 120_000, 10, 'after-the-move', 60_000);
  const seconds = Math.floor(Date.now() / 1000);
  for (const d of claimed) expect(verifySignature(signatureHeader(d.secret, d.body, seconds), d.body, secret, seconds)).toBe(true);
  return claimed.map((d) => d.event_id).sort();
}

it('moves all state from SQLite to Redis and back without losing anything: records, page views, tag sightings, webhooks and their outbox', async () => {
  const first = new SqliteStateStore(join(dir, 'first.db'), { log: () => {} });
  await first.importCustomer(TEST_CUSTOMER);
  await first.importCustomer({ ...TEST_CUSTOMER, id: 'globex', name: 'Globex', tags: [] });
  const { secret } = await first.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', allowed_domains: ['acme.test'] });
  await first.createToken({ customer_id: 'globex', api_group: 'lead-scoring', name: 'scoring' });
  await first.setSettingIfAbsent('admin_token_hash', 'abc');
  const base = { customer_id: 'acme', period: 'year-0', quota: 100, month: '2026-11', token_id: null, at: '2026-11-10T00:00:00.000Z' } as const;
  await first.charge({ ...base, api: 'identification', pool: 'identification', record: '23.10.1.20', dedupe_key: null, partner: null });
  await first.charge({ ...base, customer_id: 'globex', api: 'identification', pool: 'identification', record: '23.10.1.21', dedupe_key: null, partner: null });
  await first.charge({
    ...base,
    api: 'company-firmographics-v3',
    pool: 'enrichment',
    record: '900001',
    dedupe_key: 'acme|company-firmographics-v3|900001|2026-11',
    partner: 'p1',
  });
  await first.createToken({ customer_id: 'acme', api_group: 'lead-scoring', name: 'later' });

  // Page views and sightings, as the recorder writes them (on the state store's connection).
  const visits = new SqliteVisitStore(first.sqlite);
  const view = { customer_id: 'acme', company_id: '900001', session_id: 's1' };
  await visits.recordPageView({ ...view, day: yesterday, path: '/', at: at(yesterday, '10:00:00') });
  await visits.recordPageView({ ...view, day: yesterday, path: '/pricing', session_id: 's2', at: at(yesterday, '11:00:00') });
  await visits.recordPageView({ ...view, day: today, path: '/pricing', at: at(today, '00:01:00') });
  // With its raw view (the export's): moved under the same id, so an export's cursor resumes after the move.
  const raw = { customer_id: 'acme', tag_id: 'acme-tag', company_id: '900002', path: '/', referrer_host: null, session_id: 's1', origin: null };
  const rawAt = { day: today, at: at(today, '00:02:00'), segment_ids: [1], hot_account: false, excluded: false };
  await visits.recordPageView({ ...view, day: today, company_id: '900002', path: '/', at: at(today, '00:02:00'), raw: { ...raw, ...rawAt } });
  await visits.recordPageView({ ...view, day: today, company_id: null, path: '/', at: at(today, '00:03:00') });
  await visits.recordPageView({ ...view, customer_id: 'globex', day: yesterday, company_id: null, path: '/', at: at(yesterday, '09:00:00') });
  await visits.recordTagSighting('acme-tag', 'https://www.acme.test', at(yesterday, '10:00:00'));
  await visits.recordTagSighting('acme-tag', 'https://www.acme.test', at(yesterday, '10:05:00'));
  await visits.recordTagSighting('acme-tag', 'http://localhost:3000', at(today, '00:00:00'));
  // The segments each account was in at its latest view (segment.entered fires for those it was not in).
  expect(await visits.swapAccountSegments('acme', '900001', [101, 102], at(today, '00:01:00'))).toBeNull();
  expect(await visits.swapAccountSegments('acme', '900002', [1], at(today, '00:02:00'))).toBeNull();

  // A webhook endpoint with one delivery delivered, one failed once and waiting for its retry, one not tried yet.
  const outbox = new SqliteWebhookStore(first.sqlite);
  const signingSecret = generateSigningSecret();
  const endpoint = await outbox.createEndpoint({
    customer_id: 'acme',
    url: 'https://hooks.acme.test/svc',
    events: ['account.visited', 'account.hot'],
    hot_paths: ['/pricing*'],
    description: 'CRM',
    secret: signingSecret,
  });
  const item = (key: string, type: 'account.visited' | 'account.hot', path: string): OutboxItem => ({
    webhook_id: endpoint.id,
    customer_id: 'acme',
    dedupe_key: key,
    event: event(`evt_${path}`, type, path),
  });
  const hot = `account.hot|900001|${today}`;
  await outbox.enqueue([item(`account.visited|900001|${today}`, 'account.visited', '/')], now - 3000);
  await outbox.enqueue([{ ...item(`${hot}|/pricing`, 'account.hot', '/pricing'), cap: { key: hot, max: 10 } }], now - 2000);
  await outbox.enqueue([{ ...item(`${hot}|/pricing/teams`, 'account.hot', '/pricing/teams'), cap: { key: hot, max: 10 } }], now - 1000);
  const [sent, retried] = await outbox.claimDue(now, 2, 'node-1', 60_000);
  await outbox.recordAttempt(sent!, 'node-1', { atMs: now + 10, status: 200, error: null, delivered: true, nextAttemptMs: null });
  await outbox.recordAttempt(retried!, 'node-1', { atMs: now + 20, status: 503, error: 'HTTP 503', delivered: false, nextAttemptMs: now + 60_000 });

  const customer = (await first.getCustomer('acme'))!;
  const before = await observe(customer, visits, outbox);
  expect(before.report.totals).toEqual({ page_views: 5, identified: 4, anonymous: 1, accounts: 2 });
  expect(before.sightings).toHaveLength(2);
  expect(before.pending.map((d) => d.attempts).sort()).toEqual([0, 1]);
  expect(before.log).toHaveLength(3);
  await outbox.close();
  await visits.close();
  await first.close();

  const sqlite = { SVC_STATE: join(dir, 'first.db') };
  const viaRedis = { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(dir, 'journal') };
  const exported = await svc(sqlite, 'state', 'export', join(dir, 'one.jsonl'));
  const one = lines(join(dir, 'one.jsonl'));
  expect(exported.entries).toBe(one.length);
  expect(exported.state + exported.visits + exported.webhooks).toBe(one.length);
  expect(new Set(one.map((e) => e.type))).toEqual(
    new Set([
      'customer',
      'token',
      'tag',
      'setting',
      'credit_usage',
      'charge',
      'visit_account',
      'visit_session',
      'visit_account_segments',
      'visit_segment_entries',
      'visit_anonymous',
      'tag_sighting',
      'visit_event',
      'webhook_endpoint',
      'webhook_delivery',
      'webhook_dedupe',
    ]),
  );
  // State first, customers before what belongs to them.
  expect(one.findIndex((e) => storeOf(e) !== 'state')).toBe(exported.state);
  expect(one.slice(0, 2).map((e) => e.type)).toEqual(['customer', 'customer']);

  expect((await svc(viaRedis, 'state', 'import', join(dir, 'one.jsonl'))).entries).toBe(exported.entries);
  // The CLI reads Redis like SQLite.
  const credits = await svc(viaRedis, 'credits', 'show', '--customer', 'acme');
  expect(credits.usage).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ api: 'identification', charges: 1 }),
      expect.objectContaining({ api: 'company-firmographics-v3', charges: 1, partner_charges: 1 }),
    ]),
  );
  await svc(viaRedis, 'state', 'export', join(dir, 'two.jsonl'));
  expect(contents(join(dir, 'two.jsonl'))).toEqual(contents(join(dir, 'one.jsonl')));
  // Into a store that holds something already: refused.
  await expect(svc(viaRedis, 'state', 'import', join(dir, 'one.jsonl'))).rejects.toThrow(
    /already holds customers, page views or tag sightings, webhook endpoints or deliveries/,
  );

  const [redisVisits, redisOutbox] = await Promise.all([RedisVisitStore.open(redis.url), RedisWebhookStore.open(redis.url)]);
  try {
    expect(await observe(customer, redisVisits, redisOutbox)).toEqual(before);
    // The accounts' segments moved: their next view enters none they were already in (no segment.entered again).
    expect(await redisVisits.swapAccountSegments('acme', '900001', [101, 102], at(today, '00:05:00'))).toEqual([101, 102]);
  } finally {
    await redisVisits.close();
    await redisOutbox.close();
  }

  expect((await svc({ SVC_STATE: join(dir, 'back.db') }, 'state', 'import', join(dir, 'two.jsonl'))).entries).toBe(exported.entries);
  const back = new SqliteStateStore(join(dir, 'back.db'), { log: () => {} });
  const backVisits = new SqliteVisitStore(back.sqlite);
  const backOutbox = new SqliteWebhookStore(back.sqlite);
  try {
    const again: TransferEntry[] = [];
    for await (const e of back.exportState()) again.push(e);
    expect(again).toEqual(contents(join(dir, 'one.jsonl')).state);
    expect((await back.authenticateToken(secret))?.name).toBe('crm');
    expect(await observe(customer, backVisits, backOutbox)).toEqual(before);
    // The signing secret moved as it was: what the outbox signs now verifies with the one the receiver holds.
    expect(await signedWith(backOutbox, signingSecret)).toEqual(before.pending.map((d) => d.event_id).sort());
    // Dedupe keys moved: the account's visit of today is not announced again.
    expect((await backOutbox.enqueue([item(`account.visited|900001|${today}`, 'account.visited', '/')], now + 1000)).added).toBe(0);
    // So did the segments, back from Redis (its TTL told their time): nothing entered again.
    expect(await backVisits.swapAccountSegments('acme', '900001', [101, 102], at(today, '00:05:00'))).toEqual([101, 102]);
    expect(await backVisits.swapAccountSegments('acme', '900002', [1, 7], at(today, '00:05:00'))).toEqual([1]);
  } finally {
    await backOutbox.close();
    await backVisits.close();
    await back.close();
  }

  // A file written before page views and webhooks were exported (state entries only) still imports.
  const old = join(dir, 'old.jsonl');
  writeFileSync(
    old,
    contents(join(dir, 'one.jsonl'))
      .state.map((e) => JSON.stringify(e))
      .join('\n') + '\n',
  );
  expect(await svc({ SVC_STATE: join(dir, 'old.db') }, 'state', 'import', old)).toMatchObject({
    entries: exported.state,
    state: exported.state,
    visits: 0,
    webhooks: 0,
  });
}, 180_000);
