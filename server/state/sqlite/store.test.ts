/**
 * What only the SQLite backend has to prove (the shared behaviour is in store.contract.test.ts): no
 * secret in the file, schema migrations, rate-limit rows expiring, a lock held by another process, the
 * state file replaced under a running store.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../../testing/fixtures.ts';
import { StoreUnavailableError } from '../errors.ts';
import type { ChargeRequest } from '../metering/service.ts';
import { SCHEMA_VERSION } from './schema.ts';
import { SqliteStateStore } from './store.ts';

let dir: string;
let store: SqliteStateStore;
let logged: string[];
const open = () => new SqliteStateStore(join(dir, 'svc.db'), { log: (m) => logged.push(m) });
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-'));
  logged = [];
  store = open();
  await store.importCustomer(TEST_CUSTOMER);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const identification = (quota = 10): ChargeRequest => ({
  customer_id: 'acme',
  api: 'identification',
  pool: 'identification',
  record: '1.2.3.4',
  period: 'year-0',
  quota,
  dedupe_key: null,
  month: '2026-11',
  token_id: null,
  partner: null,
  at: '2026-11-10T00:00:00Z',
});

it('never keeps a secret in plaintext in the state file', async () => {
  const secrets = [];
  for (let i = 0; i < 5; i++) secrets.push((await store.createToken({ customer_id: 'acme', api_group: 'identification', name: `t${i}` })).secret);
  const { secret: rotated } = await store.rotateToken((await store.listTokens('acme'))[0].id);
  secrets.push(rotated);
  await store.close();
  const bytes = readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString('latin1'))
    .join('');
  for (const s of secrets) expect(bytes.includes(s)).toBe(false);
  store = open();
});

describe('schema versions', () => {
  /** The schema as files were written before versioning (no tags.settings, no auth_version). */
  const OLD_SCHEMA = `
    CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, packages TEXT NOT NULL, identification_credits INTEGER NOT NULL,
      enrichment_credits INTEGER NOT NULL, contract_start TEXT NOT NULL, config TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE tokens (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), api_group TEXT NOT NULL, name TEXT NOT NULL,
      prefix TEXT NOT NULL, secret_hash TEXT NOT NULL UNIQUE, integrations TEXT NOT NULL, allowed_domains TEXT NOT NULL, scores INTEGER NOT NULL,
      segment_names INTEGER NOT NULL, rate_limit INTEGER NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT, rotated_at TEXT);
    CREATE INDEX tokens_customer ON tokens (customer_id);
    CREATE TABLE tags (tag_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), allowed_domains TEXT NOT NULL,
      scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE credit_usage (customer_id TEXT NOT NULL, pool TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL,
      PRIMARY KEY (customer_id, pool, period)) WITHOUT ROWID;
    CREATE TABLE charges (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, api TEXT NOT NULL, pool TEXT NOT NULL, record TEXT NOT NULL,
      month TEXT NOT NULL, period TEXT NOT NULL, dedupe_key TEXT UNIQUE, token_id TEXT, partner TEXT, at TEXT NOT NULL);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE rate_limits (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO customers VALUES ('old', 'Old Co', '["platform"]', 10, 0, '2026-01-01', '{"products":[],"segments":[],"excluded_accounts":[],"hot_accounts":[]}', '2026-01-01T00:00:00Z');
    INSERT INTO tags VALUES ('old-tag', 'old', '["old.example"]', 0, 0, '2026-01-01T00:00:00Z');`;

  it('migrates a file created by the older schema forward: new columns, data kept, version recorded', async () => {
    const file = join(dir, 'old.db');
    const db = new Database(file);
    db.exec(OLD_SCHEMA);
    // A counter of the current window, in the layout before rate limits were keyed by window.
    const window = Date.now() - (Date.now() % 60_000);
    db.prepare('INSERT INTO rate_limits VALUES (?, ?, ?)').run('token:old', window, 2);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    db.close();
    const migrated = new SqliteStateStore(file, { log: () => {} });
    try {
      expect(await migrated.getTag('old-tag')).toMatchObject({ customer_id: 'old', settings: {} });
      // The migrated counter keeps counting: its third hit of a limit of 3 is the last allowed.
      const [counted] = await migrated.hitRateLimits({
        customer_id: 'old',
        counters: [{ key: 'token:old', limit: 3 }],
        windowMs: 60_000,
        nowMs: window + 1,
        degradable: false,
      });
      expect(counted).toMatchObject({ allowed: true, remaining: 0 });
      expect((await migrated.updateTagSettings('old-tag', { honor_gpc: false })).settings).toEqual({ honor_gpc: false });
      expect((await migrated.charge({ ...identification(), customer_id: 'old' })).outcome).toBe('charged');
    } finally {
      await migrated.close();
    }
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('refuses a file from a newer version instead of guessing', async () => {
    const file = join(dir, 'new.db');
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new SqliteStateStore(file)).toThrow(/newer than this server/);
  });
});

it('expires rate-limit rows of past windows, so many visitor IPs do not grow the table', async () => {
  const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
  const rows = () => (new Database(join(dir, 'svc.db'), { readonly: true }).prepare('SELECT COUNT(*) AS n FROM rate_limits').get() as { n: number }).n;
  for (let minute = 0; minute < 5; minute++) {
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.hitRateLimits({
          customer_id: 'acme',
          counters: [{ key: `tag:t:ip:10.${minute}.0.${i}`, limit: 300 }],
          windowMs: 60_000,
          nowMs: t0 + minute * 60_000 + 1,
          degradable: true,
        }),
      ),
    );
  }
  expect(rows()).toBeLessThanOrEqual(400);
});

describe('metering read from memory between batches', () => {
  const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
  const hitK = () =>
    store.hitRateLimits({ customer_id: 'acme', counters: [{ key: 'token:k', limit: 5 }], windowMs: 60_000, nowMs: t0 + 1000, degradable: false });

  it('reads a counter and a balance again once another process committed to the file (data_version)', async () => {
    expect((await hitK())[0].remaining).toBe(4);
    expect((await hitK())[0].remaining).toBe(3);
    expect((await store.charge(identification(3))).remaining).toBe(2);
    // Another process (a worker, the CLI) changes both behind this store's back.
    const other = new Database(join(dir, 'svc.db'));
    other.prepare("UPDATE rate_limits SET count = 4 WHERE key = 'token:k'").run();
    other.prepare("UPDATE credit_usage SET used = 3 WHERE customer_id = 'acme'").run();
    other.close();
    expect((await hitK())[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect((await hitK())[0].allowed).toBe(false);
    expect((await store.charge(identification(3))).outcome).toBe('exhausted');
  });

  it('forgets what a failed batch counted: its transaction rolled back', async () => {
    expect((await hitK())[0].remaining).toBe(4);
    // A charge the ledger refuses (a NOT NULL column) fails the whole batch, the counter's hit in it included.
    const broken = { ...identification(), at: null as unknown as string };
    const [hit, charged] = await Promise.allSettled([hitK(), store.charge(broken)]);
    expect(hit.status).toBe('rejected');
    expect(charged.status).toBe('rejected');
    // The next batch counts from the file (1 hit), not from the failed batch's memory (2).
    expect((await hitK())[0].remaining).toBe(3);
  });

  it('knows a dedupe key charged earlier without losing one charged by another process', async () => {
    const enrichment = (record: string): ChargeRequest => ({
      ...identification(),
      api: 'company-firmographics-v3',
      pool: 'enrichment',
      record,
      dedupe_key: `acme|v3|${record}|2026-11`,
    });
    expect((await store.charge(enrichment('a@x.example'))).outcome).toBe('charged');
    expect((await store.charge(enrichment('a@x.example'))).outcome).toBe('free');
    const other = open();
    try {
      expect((await other.charge(enrichment('b@x.example'))).outcome).toBe('charged');
    } finally {
      await other.close();
    }
    expect((await store.charge(enrichment('b@x.example'))).outcome).toBe('free');
    expect((await store.charge(enrichment('a@x.example'))).outcome).toBe('free');
  });
});

describe('outside interference', () => {
  it('fails a write fast with StoreUnavailableError while another process holds the write lock, and works again after', async () => {
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `
      const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
      const db = new Database(${JSON.stringify(join(dir, 'svc.db'))});
      db.exec('BEGIN EXCLUSIVE');
      process.stdout.write('locked\\n');
      setTimeout(() => { db.exec('COMMIT'); process.exit(0); }, 1500);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const t = Date.now();
    // The loop is never blocked for long: a timer scheduled now fires while the charge waits for the lock.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await expect(store.charge(identification())).rejects.toBeInstanceOf(StoreUnavailableError);
    clearInterval(ticker);
    expect(Date.now() - t).toBeLessThan(1000);
    expect(ticks).toBeGreaterThan(5);
    await expect(store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'x' })).rejects.toBeInstanceOf(StoreUnavailableError);
    // Reads are not blocked by a writer (WAL).
    expect((await store.getCustomer('acme'))?.id).toBe('acme');
    await new Promise((r) => holder.once('exit', r));
    expect((await store.charge(identification())).outcome).toBe('charged');
  });

  it.each([
    ['deleted', (file: string) => unlinkSync(file)],
    [
      'replaced',
      (file: string) => {
        copyFileSync(file, `${file}.copy`);
        renameSync(`${file}.copy`, file);
      },
    ],
  ])('refuses writes (and says so in the log) when the state file is %s under it', async (_what, change) => {
    change(join(dir, 'svc.db'));
    await expect(store.charge(identification())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.setSettingIfAbsent('k', 'v')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(logged.join('\n')).toMatch(/state file .* (deleted|replaced)/);
  });
});
