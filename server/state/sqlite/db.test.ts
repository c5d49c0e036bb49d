/**
 * One connection per process to the SQLite state file (db.ts): the state store, the visit store and
 * the webhook outbox share it and its schema; a state file written when each had its own connection opens
 * with its data; and no write waits on the event loop for another process's lock — background writes
 * (page views, tag sightings, outbox entries) wait on a timer until the lock is gone, request writes fail
 * with StoreUnavailableError (503) at their deadline.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../../testing/fixtures.ts';
import type { WebhookEvent } from '../../webhooks/schema.ts';
import { StoreUnavailableError } from '../errors.ts';
import { SqliteWebhookStore } from '../outbox/sqlite.ts';
import { SqliteVisitStore } from '../visits/sqlite.ts';
import type { PageViewCount } from '../visits/store.ts';
import { SqliteStateDb } from './db.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { SqliteStateStore } from './store.ts';

const require = createRequire(import.meta.url);
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-db-'));
  file = join(dir, 'svc.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const view = (over: Partial<PageViewCount> = {}): PageViewCount => ({
  customer_id: 'acme',
  day: '2026-11-20',
  company_id: '900001',
  path: '/',
  session_id: 'session-aaaa',
  at: '2026-11-20T10:00:00.000Z',
  ...over,
});
const event = (id: string): WebhookEvent => ({
  id,
  type: 'account.visited',
  created_at: '2026-11-20T10:00:00.000Z',
  customer_id: 'acme',
  data: {
    day: '2026-11-20',
    account: { company_id: '900001', name: null, domain: null, segment_ids: [], hot_account: false, excluded: false },
    page: { path: '/', referrer_host: null, tag_id: 't', origin: null, session_id: null },
  },
});

/** The three stores of one process on one connection, as the server opens them. */
function openProcess(options: ConstructorParameters<typeof SqliteStateStore>[1] = {}) {
  const state = new SqliteStateStore(file, { log: () => {}, ...options });
  const visits = new SqliteVisitStore(state.sqlite);
  const outbox = new SqliteWebhookStore(state.sqlite);
  return { state, visits, outbox, close: () => Promise.all([visits.close(), outbox.close(), state.close()]) };
}

/**
 * Another process holding BEGIN EXCLUSIVE on the state file until `release()` (not for a set time, so
 * nothing here depends on how fast the machine is).
 */
async function holdLock(): Promise<{ release(): Promise<void> }> {
  const holder: ChildProcessWithoutNullStreams = spawn(process.execPath, [
    '-e',
    `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN EXCLUSIVE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`,
  ]);
  holder.stderr.pipe(process.stderr);
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
  return {
    async release() {
      holder.stdin.write('go\n');
      await exited;
    },
  };
}

/** Counts timer ticks: a loop blocked by a busy wait would count none while it lasts. */
function ticker() {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  return { ticks: () => ticks, stop: () => clearInterval(timer) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Whether a promise has settled by now. */
const settled = (p: Promise<unknown>) =>
  Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    sleep(0).then(() => false),
  ]);

describe('a state file written by the three connections of before', () => {
  /**
   * What the state store (schema version 3), the visit store and the webhook outbox wrote when each
   * opened the file on its own connection: the statements they ran, in order, and their rows.
   */
  const BEFORE = `
    CREATE TABLE IF NOT EXISTS customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, packages TEXT NOT NULL, identification_credits INTEGER NOT NULL,
      enrichment_credits INTEGER NOT NULL, contract_start TEXT NOT NULL, config TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS tokens (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), api_group TEXT NOT NULL,
      name TEXT NOT NULL, prefix TEXT NOT NULL, secret_hash TEXT NOT NULL UNIQUE, integrations TEXT NOT NULL, allowed_domains TEXT NOT NULL,
      scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, rate_limit INTEGER NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
      last_used_at TEXT, rotated_at TEXT);
    CREATE INDEX IF NOT EXISTS tokens_customer ON tokens (customer_id);
    CREATE TABLE IF NOT EXISTS tags (tag_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), allowed_domains TEXT NOT NULL,
      scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS credit_usage (customer_id TEXT NOT NULL, pool TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL,
      PRIMARY KEY (customer_id, pool, period)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS charges (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, api TEXT NOT NULL, pool TEXT NOT NULL, record TEXT NOT NULL,
      month TEXT NOT NULL, period TEXT NOT NULL, dedupe_key TEXT UNIQUE, token_id TEXT, partner TEXT, at TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS charges_customer ON charges (customer_id, api, month);
    CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS rate_limits (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
    ALTER TABLE tags ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
    CREATE TABLE IF NOT EXISTS auth_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
    INSERT OR IGNORE INTO auth_version VALUES (1, 0);
    CREATE INDEX IF NOT EXISTS rate_limits_window ON rate_limits (window_start);
    ALTER TABLE tags ADD COLUMN rate_limit INTEGER NOT NULL DEFAULT 6000;
    ALTER TABLE tags ADD COLUMN visitor_rate_limit INTEGER NOT NULL DEFAULT 300;
    ALTER TABLE tags ADD COLUMN demo INTEGER NOT NULL DEFAULT 0;
    PRAGMA user_version = 3;

    CREATE TABLE IF NOT EXISTS visit_accounts (customer_id TEXT NOT NULL, day TEXT NOT NULL, company_id TEXT NOT NULL,
      page_views INTEGER NOT NULL, sessions INTEGER NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
      PRIMARY KEY (customer_id, day, company_id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS visit_pages (customer_id TEXT NOT NULL, day TEXT NOT NULL, company_id TEXT NOT NULL, path TEXT NOT NULL,
      page_views INTEGER NOT NULL, PRIMARY KEY (customer_id, day, company_id, path)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS visit_pages_account ON visit_pages (customer_id, company_id, day);
    CREATE TABLE IF NOT EXISTS visit_sessions (customer_id TEXT NOT NULL, day TEXT NOT NULL, company_id TEXT NOT NULL, session_id TEXT NOT NULL,
      PRIMARY KEY (customer_id, day, company_id, session_id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS visit_anonymous (customer_id TEXT NOT NULL, day TEXT NOT NULL, page_views INTEGER NOT NULL,
      PRIMARY KEY (customer_id, day)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS visit_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
    INSERT OR IGNORE INTO visit_version VALUES (1, 0);
    CREATE TABLE IF NOT EXISTS tag_sightings (tag_id TEXT NOT NULL, origin TEXT NOT NULL, last_seen_at TEXT NOT NULL,
      PRIMARY KEY (tag_id, origin)) WITHOUT ROWID;

    CREATE TABLE IF NOT EXISTS webhooks (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL,
      hot_paths TEXT NOT NULL, description TEXT NOT NULL, secret TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS webhooks_customer ON webhooks (customer_id);
    CREATE TABLE IF NOT EXISTS webhook_deliveries (id TEXT PRIMARY KEY, event_id TEXT NOT NULL, webhook_id TEXT NOT NULL, customer_id TEXT NOT NULL,
      type TEXT NOT NULL, dedupe_key TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL, next_attempt_at INTEGER, lease_owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0,
      last_attempt_at INTEGER, last_status INTEGER, last_error TEXT, delivered_at INTEGER, UNIQUE (webhook_id, dedupe_key));
    CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    CREATE INDEX IF NOT EXISTS webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at);
    CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'pending';

    INSERT INTO customers VALUES ('old', 'Old Co', '["platform"]', 10, 0, '2026-01-01', '{"products":[],"segments":[],"excluded_accounts":[],"hot_accounts":[]}', '2026-01-01T00:00:00Z');
    INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at) VALUES ('old-tag', 'old', '["old.example"]', 0, 0, '2026-01-01T00:00:00Z');
    INSERT INTO visit_accounts VALUES ('old', '2026-11-19', '900001', 3, 2, '2026-11-19T08:00:00.000Z', '2026-11-19T09:00:00.000Z');
    INSERT INTO visit_pages VALUES ('old', '2026-11-19', '900001', '/pricing', 3);
    INSERT INTO visit_version VALUES (1, 7) ON CONFLICT (id) DO UPDATE SET version = 7;
    INSERT INTO tag_sightings VALUES ('old-tag', 'https://old.example', '2026-11-19T09:00:00.000Z');
    INSERT INTO webhooks VALUES ('wh_old', 'old', 'https://hooks.old.example/in', '["account.visited"]', '[]', 'old endpoint', 'whsec_old', '2026-11-01T00:00:00Z');
    INSERT INTO webhook_deliveries (id, event_id, webhook_id, customer_id, type, dedupe_key, body, status, created_at, next_attempt_at)
      VALUES ('dl_old', 'evt_old', 'wh_old', 'old', 'account.visited', 'k-old', '{}', 'pending', 1000, 1000);`;

  it('opens on one connection with every row kept, migrated to the one schema version', async () => {
    const before = new Database(file);
    before.pragma('journal_mode = WAL');
    before.exec(BEFORE);
    before.close();

    const p = openProcess();
    try {
      expect(await p.state.getTag('old-tag')).toMatchObject({ customer_id: 'old', rate_limit: 6000, demo: false });
      expect(await p.visits.accountVisits('old', '2026-11-19', '2026-11-19')).toEqual([
        {
          company_id: '900001',
          page_views: 3,
          sessions: 2,
          first_seen: '2026-11-19T08:00:00.000Z',
          last_seen: '2026-11-19T09:00:00.000Z',
          top_pages: [{ path: '/pricing', page_views: 3 }],
        },
      ]);
      expect(await p.visits.tagSightings(['old-tag'])).toEqual([
        { tag_id: 'old-tag', origin: 'https://old.example', last_seen_at: '2026-11-19T09:00:00.000Z' },
      ]);
      expect((await p.outbox.listEndpoints('old')).map((e) => e.id)).toEqual(['wh_old']);
      expect((await p.outbox.claimDue(2000, 10, 'node-a', 60_000)).map((d) => d.id)).toEqual(['dl_old']);
      // And every store writes on it.
      expect(await p.visits.recordPageView(view({ customer_id: 'old', day: '2026-11-19', path: '/docs', at: '2026-11-19T10:00:00.000Z' }))).toEqual({
        first_of_day_for_account: false,
      });
      expect(
        (
          await p.state.charge({
            customer_id: 'old',
            api: 'identification',
            pool: 'identification',
            record: '1.2.3.4',
            period: 'year-0',
            quota: 10,
            dedupe_key: null,
            month: '2026-11',
            token_id: null,
            partner: null,
            at: '2026-11-10T00:00:00Z',
          })
        ).outcome,
      ).toBe('charged');
      expect((await p.outbox.enqueue([{ webhook_id: 'wh_old', customer_id: 'old', dedupe_key: 'k-new', event: event('evt_new') }], 3000)).added).toBe(1);
    } finally {
      await p.close();
    }
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((check.prepare('SELECT version FROM visit_version').get() as { version: number }).version).toBe(8);
    check.close();
  });

  it('creates every table in a new file, once, for the three stores', async () => {
    const p = openProcess();
    try {
      const tables = p.state.sqlite.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
      expect(tables).toEqual(expect.arrayContaining(['customers', 'tags', 'charges', 'visit_accounts', 'tag_sightings', 'webhooks', 'webhook_deliveries']));
      expect(p.state.sqlite.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      await p.close();
    }
  });
});

describe('one connection per process', () => {
  it('is closed by the last store to let go, whatever the order', async () => {
    const p = openProcess();
    await p.state.close();
    await p.visits.recordPageView(view());
    await p.outbox.close();
    expect(p.state.sqlite.db.open).toBe(true);
    expect((await p.visits.accountVisits('acme', '2026-11-20', '2026-11-20'))[0].page_views).toBe(1);
    await p.visits.close();
    expect(p.state.sqlite.db.open).toBe(false);
  });
});

describe('another process holds the write lock', () => {
  let p: ReturnType<typeof openProcess>;
  afterEach(async () => {
    await p?.close();
  });

  it('page views, tag sightings, outbox entries and attempt results wait on a timer and are written once the lock is gone', async () => {
    p = openProcess();
    await p.state.importCustomer(TEST_CUSTOMER);
    const endpoint = await p.outbox.createEndpoint({
      customer_id: 'acme',
      url: 'https://hooks.acme.test/in',
      events: ['account.visited'],
      hot_paths: [],
      description: '',
      secret: 'whsec_x',
    });
    await p.outbox.enqueue([{ webhook_id: endpoint.id, customer_id: 'acme', dedupe_key: 'k0', event: event('evt_0') }], 1000);
    const [claimed] = await p.outbox.claimDue(1000, 1, 'node-a', 60_000);

    const lock = await holdLock();
    const loop = ticker();
    const writes = [
      p.visits.recordPageView(view()),
      p.visits.recordPageView(view({ company_id: null })),
      p.visits.recordTagSighting('acme-tag', 'https://new.acme.test', '2026-11-20T10:00:00.000Z'),
      p.outbox.enqueue([{ webhook_id: endpoint.id, customer_id: 'acme', dedupe_key: 'k1', event: event('evt_1') }], 2000),
      p.outbox.recordAttempt(claimed, 'node-a', { atMs: 2000, status: 200, error: null, delivered: true, nextAttemptMs: null }),
    ];
    // Longer than the request lane's deadline: background work outlasts it.
    await sleep(600);
    const waiting = await Promise.all(writes.map(settled));
    const ticks = loop.ticks();
    await lock.release();
    const results = await Promise.all(writes);
    loop.stop();

    expect(waiting).toEqual([false, false, false, false, false]);
    expect(ticks).toBeGreaterThan(10);
    expect(results[0]).toEqual({ first_of_day_for_account: true });
    expect(results[3]).toMatchObject({ added: 1 });
    expect(await p.visits.dailyTotals('acme', '2026-11-20', '2026-11-20')).toEqual([{ day: '2026-11-20', identified: 1, anonymous: 1 }]);
    expect(await p.visits.tagSightings(['acme-tag'])).toEqual([
      { tag_id: 'acme-tag', origin: 'https://new.acme.test', last_seen_at: '2026-11-20T10:00:00.000Z' },
    ]);
    expect((await p.outbox.listDeliveries('acme', endpoint.id, 10)).map((d) => [d.event_id, d.status])).toEqual([
      ['evt_1', 'pending'],
      ['evt_0', 'delivered'],
    ]);
  });

  it("request writes (token last_used_at, settings, a poll's claim, endpoint changes) fail with StoreUnavailableError at their deadline, without blocking the loop", async () => {
    p = openProcess();
    await p.state.importCustomer(TEST_CUSTOMER);
    const { secret } = await p.state.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
    const lock = await holdLock();
    try {
      const loop = ticker();
      const t = performance.now();
      const outcomes = await Promise.allSettled([
        // Never used: its first use writes last_used_at.
        p.state.authenticateToken(secret),
        p.state.setSettingIfAbsent('k', 'v'),
        p.outbox.claimDue(Date.now(), 10, 'node-a', 60_000),
        p.outbox.createEndpoint({
          customer_id: 'acme',
          url: 'https://hooks.acme.test/in',
          events: ['account.visited'],
          hot_paths: [],
          description: '',
          secret: 'whsec_x',
        }),
      ]);
      const ms = performance.now() - t;
      loop.stop();
      for (const o of outcomes) expect(o.status === 'rejected' && o.reason).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(2000);
      expect(loop.ticks()).toBeGreaterThan(10);
      // Reads take no lock (WAL).
      expect((await p.state.getCustomer('acme'))?.id).toBe('acme');
      expect(await p.visits.tagSightings(['acme-tag'])).toEqual([]);
    } finally {
      await lock.release();
    }
    expect(await p.state.setSettingIfAbsent('k', 'v')).toBe(true);
  });

  it('a background write gives up at its deadline with StoreUnavailableError; the next one after the lock succeeds', async () => {
    const db = new SqliteStateDb(file, { log: () => {}, lockDeadlineMs: { background: 300 } });
    const visits = new SqliteVisitStore(db);
    try {
      const lock = await holdLock();
      try {
        await expect(visits.recordPageView(view())).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await lock.release();
      }
      expect(await visits.recordPageView(view())).toEqual({ first_of_day_for_account: true });
    } finally {
      await visits.close();
    }
  });

  it('runs queued writes once the lock is gone, request lane first, each lane in arrival order', async () => {
    const db = new SqliteStateDb(file, { log: () => {} }).retain();
    try {
      db.db.exec('CREATE TABLE IF NOT EXISTS written (n TEXT)');
      const insert = (n: string) => () => db.sql('INSERT INTO written VALUES (?)').run(n);
      const lock = await holdLock();
      const queued = [db.write(insert('bg-1'), 'background'), db.write(insert('req-1')), db.write(insert('bg-2'), 'background'), db.write(insert('req-2'))];
      await sleep(50);
      await lock.release();
      await Promise.all(queued);
      expect(db.db.prepare('SELECT n FROM written ORDER BY rowid').pluck().all()).toEqual(['req-1', 'req-2', 'bg-1', 'bg-2']);
    } finally {
      db.release();
    }
  });
});
