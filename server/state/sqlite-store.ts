/** The embedded state store: one SQLite file (WAL), safe for several processes on one machine. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { CustomerPatch, CustomerSeed } from '../../data/sources/schema.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../limits/policy.ts';
import { isEntitled } from '../auth/entitlements.ts';
import { displayPrefix, generateSecret, hashSecret } from '../auth/token-secret.ts';
import type { CreditPool } from '../credits/rules.ts';
import {
  CustomerRecord, NewTag, NewToken, StateError, TagPatch, TagRecord, TagSettings, TokenRecord,
  type ChargeOutcome, type ChargeRequest, type CreditBalance, type RateLimitHit, type StateStore, type UsageRow,
} from './store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS customers (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, packages TEXT NOT NULL,
  identification_credits INTEGER NOT NULL, enrichment_credits INTEGER NOT NULL, contract_start TEXT NOT NULL,
  config TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), api_group TEXT NOT NULL,
  name TEXT NOT NULL, prefix TEXT NOT NULL, secret_hash TEXT NOT NULL UNIQUE, integrations TEXT NOT NULL,
  allowed_domains TEXT NOT NULL, scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, rate_limit INTEGER NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT, rotated_at TEXT);
CREATE INDEX IF NOT EXISTS tokens_customer ON tokens (customer_id);
CREATE TABLE IF NOT EXISTS tags (
  tag_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), allowed_domains TEXT NOT NULL,
  scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, created_at TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}',
  rate_limit INTEGER NOT NULL DEFAULT ${TAG_CEILING}, visitor_rate_limit INTEGER NOT NULL DEFAULT ${TAG_PER_VISITOR_LIMIT}, demo INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS credit_usage (
  customer_id TEXT NOT NULL, pool TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL,
  PRIMARY KEY (customer_id, pool, period)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charges (
  id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, api TEXT NOT NULL, pool TEXT NOT NULL, record TEXT NOT NULL,
  month TEXT NOT NULL, period TEXT NOT NULL, dedupe_key TEXT UNIQUE, token_id TEXT, partner TEXT, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS charges_customer ON charges (customer_id, api, month);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rate_limits (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS auth_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT OR IGNORE INTO auth_version VALUES (1, 0);
`;

type Row = Record<string, unknown>;
/** A queued metering operation (charge or rate-limit hit). */
interface Metered {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
const now = () => new Date().toISOString();

/** `last_used_at` is a "recently used" indicator: written at most once a minute per token and process. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Entries per lookup cache; past it the cache starts over (unknown secrets or tag ids cannot grow it). */
const AUTH_CACHE_LIMIT = 10_000;

/**
 * The records every API request reads (token by secret hash, its customer, a web tag) are cached per
 * process, parsed and frozen. Exact across processes: every change to customers, tokens or tags bumps
 * `auth_version` in the same transaction, and each cached read first checks that number (one indexed
 * read instead of a row read, JSON parsing and zod validation) — a token deactivated or rotated by any
 * process is refused by every process on its next request.
 */
class AuthCache {
  version = -1;
  readonly tokens = new Map<string, TokenRecord | null>();
  readonly customers = new Map<string, CustomerRecord | null>();
  readonly tags = new Map<string, TagRecord | null>();

  /** Forgets everything when the store's version moved on. */
  sync(version: number): void {
    if (version === this.version) return;
    this.version = version;
    this.tokens.clear();
    this.customers.clear();
    this.tags.clear();
  }

  static put<K, V>(map: Map<K, V>, key: K, value: V): V {
    if (map.size >= AUTH_CACHE_LIMIT) map.clear();
    map.set(key, value);
    return value;
  }
}

export class SqliteStateStore implements StateStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly auth = new AuthCache();

  /** A prepared statement, prepared once per connection (preparing costs more than most of our queries). */
  private sql(source: string): Database.Statement {
    let st = this.statements.get(source);
    if (st === undefined) {
      st = this.db.prepare(source);
      this.statements.set(source, st);
    }
    return st;
  }

  /**
   * Brings the auth cache up to date with changes made by any process: reads the version once per
   * event-loop turn. Requests handled in one turn are concurrent with a change another process commits
   * during that turn, so answering them from the state before it is a valid order; the next turn sees it.
   * Changes made through this store take effect at once (bumpAuth).
   */
  private syncAuth(): void {
    if (this.authChecked) return;
    this.auth.sync((this.sql('SELECT version FROM auth_version WHERE id = 1').get() as { version: number }).version);
    this.authChecked = true;
    setImmediate(this.endAuthTurn);
  }

  private authChecked = false;
  private readonly endAuthTurn = () => {
    this.authChecked = false;
  };

  /** Marks a change to customers, tokens or tags; call inside the changing transaction. */
  private bumpAuth(): void {
    this.sql('UPDATE auth_version SET version = version + 1 WHERE id = 1').run();
    this.authChecked = false;
  }

  /** Runs a change to customers, tokens or tags in one transaction with the version bump. */
  private authChange<T>(fn: () => T): T {
    return this.db.transaction(() => {
      const out = fn();
      this.bumpAuth();
      return out;
    })();
  }

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    // WAL + NORMAL: a commit survives a process crash; only an OS crash may lose the last transactions.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.addTagLimitColumns();
    this.chargeOne = (r: ChargeRequest): ChargeOutcome => {
      const usedRow = this.sql('SELECT used FROM credit_usage WHERE customer_id = ? AND pool = ? AND period = ?').get(r.customer_id, r.pool, r.period) as { used: number } | undefined;
      const used = usedRow?.used ?? 0;
      if (r.dedupe_key !== null && this.sql('SELECT 1 FROM charges WHERE dedupe_key = ?').get(r.dedupe_key)) {
        return { outcome: 'free', remaining: Math.max(0, r.quota - used) };
      }
      if (used + 1 > r.quota) return { outcome: 'exhausted', remaining: 0 };
      this.sql('INSERT INTO credit_usage VALUES (?, ?, ?, 1) ON CONFLICT (customer_id, pool, period) DO UPDATE SET used = used + 1')
        .run(r.customer_id, r.pool, r.period);
      this.sql('INSERT INTO charges (customer_id, api, pool, record, month, period, dedupe_key, token_id, partner, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(r.customer_id, r.api, r.pool, r.record, r.month, r.period, r.dedupe_key, r.token_id, r.partner, r.at);
      return { outcome: 'charged', remaining: r.quota - used - 1 };
    };
    this.rateHit = (key: string, limit: number, windowMs: number, nowMs: number): RateLimitHit => {
      const windowStart = nowMs - (nowMs % windowMs);
      const row = this.sql('SELECT window_start, count FROM rate_limits WHERE key = ?').get(key) as { window_start: number; count: number } | undefined;
      const count = row && row.window_start === windowStart ? row.count + 1 : 1;
      this.sql('INSERT INTO rate_limits VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count').run(key, windowStart, count);
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs: windowStart + windowMs - nowMs };
    };
    const batch = this.db.transaction((ops: Metered[]) => ops.map((op) => op.run()));
    this.runBatch = (ops) => (batch as unknown as { immediate(ops: Metered[]): unknown[] }).immediate(ops);
  }

  /**
   * A state file from before per-tag limits has a tags table without their columns (CREATE TABLE IF NOT
   * EXISTS leaves an existing table alone): add them, with the defaults every tag had until then.
   */
  private addTagLimitColumns(): void {
    const have = new Set((this.db.prepare('PRAGMA table_info(tags)').all() as { name: string }[]).map((c) => c.name));
    const wanted: [string, string][] = [
      ['rate_limit', `INTEGER NOT NULL DEFAULT ${TAG_CEILING}`],
      ['visitor_rate_limit', `INTEGER NOT NULL DEFAULT ${TAG_PER_VISITOR_LIMIT}`],
      ['demo', 'INTEGER NOT NULL DEFAULT 0'],
    ];
    for (const [name, type] of wanted) if (!have.has(name)) this.db.exec(`ALTER TABLE tags ADD COLUMN ${name} ${type}`);
  }

  /** One charge (read balance, dedupe, record); runs inside a metering transaction. */
  private readonly chargeOne: (r: ChargeRequest) => ChargeOutcome;
  /** One rate-limit hit; runs inside a metering transaction. */
  private readonly rateHit: (key: string, limit: number, windowMs: number, nowMs: number) => RateLimitHit;
  private readonly runBatch: (ops: Metered[]) => unknown[];
  private metering: Metered[] = [];

  /**
   * Charges and rate-limit hits are write transactions: committing one costs more than the work in it
   * (lock, WAL append, unlock). They are queued and committed together, in arrival order, in one
   * BEGIN IMMEDIATE transaction at the end of the current event-loop turn — every request that reached
   * its metering step in that turn shares the commit. Exactness is unchanged: IMMEDIATE takes the write
   * lock before anything is read, so processes (workers) serialise whole batches, and inside a batch each
   * operation sees the ones before it; nobody can overspend, double-charge or slip past a limit. If the
   * commit fails, every operation of the batch fails (the pipeline answers 503: fail closed).
   */
  private meter<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.metering.push({ run, resolve: resolve as (v: unknown) => void, reject });
      if (this.metering.length === 1) setImmediate(() => this.flushMetering());
    });
  }

  private flushMetering(): void {
    const ops = this.metering;
    if (ops.length === 0) return;
    this.metering = [];
    let results: unknown[];
    try {
      results = this.runBatch(ops);
    } catch (e) {
      for (const op of ops) op.reject(e);
      return;
    }
    for (let i = 0; i < ops.length; i++) ops[i].resolve(results[i]);
  }

  async charge(req: ChargeRequest): Promise<ChargeOutcome> {
    return this.meter(() => this.chargeOne(req));
  }

  async usage(customerId: string): Promise<UsageRow[]> {
    return this.sql(
        `SELECT pool, api, month, COUNT(*) AS charges, COUNT(partner) AS partner_charges FROM charges
         WHERE customer_id = ? GROUP BY pool, api, month ORDER BY month, pool, api`,
      )
      .all(customerId) as UsageRow[];
  }

  async balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance> {
    const row = this.sql('SELECT used FROM credit_usage WHERE customer_id = ? AND pool = ? AND period = ?').get(customerId, pool, period) as { used: number } | undefined;
    const used = row?.used ?? 0;
    return { pool, period, quota, used, remaining: Math.max(0, quota - used) };
  }

  async hitRateLimit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitHit> {
    return this.meter(() => this.rateHit(key, limit, windowMs, nowMs));
  }

  async importCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    const seed = CustomerSeed.parse(input);
    this.db.transaction(() => this.writeCustomer(seed, 'upsert'))();
    return (await this.getCustomer(seed.id))!;
  }

  async createCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    const seed = CustomerSeed.parse(input);
    this.db.transaction(() => {
      if (this.sql('SELECT 1 FROM customers WHERE id = ?').get(seed.id)) {
        throw new StateError(`customer ${seed.id} already exists: change it with customer update (PATCH /admin/api/customers/${seed.id})`, 409);
      }
      this.writeCustomer(seed, 'insert');
    })();
    return (await this.getCustomer(seed.id))!;
  }

  async updateCustomer(id: string, input: CustomerPatch): Promise<CustomerRecord> {
    const patch = CustomerPatch.parse(input);
    this.db.transaction(() => {
      const row = this.sql('SELECT * FROM customers WHERE id = ?').get(id) as Row | undefined;
      if (!row) throw new StateError(`unknown customer ${id}`, 404);
      const current = toCustomer(row);
      const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
      this.sql(
        `UPDATE customers SET name = @name, packages = @packages, identification_credits = @identification_credits,
           enrichment_credits = @enrichment_credits, contract_start = @contract_start, config = @config WHERE id = @id`,
      ).run({ ...next, id, packages: JSON.stringify(next.packages), config: customerConfig(next) });
      this.bumpAuth();
    })();
    return (await this.getCustomer(id))!;
  }

  /** Writes a customer and upserts the tags of its seed; runs inside a transaction. */
  private writeCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): void {
    this.sql(
        `INSERT INTO customers VALUES (@id, @name, @packages, @identification_credits, @enrichment_credits, @contract_start, @config, @created_at)` +
        (mode === 'upsert'
          ? ` ON CONFLICT (id) DO UPDATE SET name = excluded.name, packages = excluded.packages,
             identification_credits = excluded.identification_credits, enrichment_credits = excluded.enrichment_credits,
             contract_start = excluded.contract_start, config = excluded.config`
          : ''),
      )
      .run({ ...seed, packages: JSON.stringify(seed.packages), config: customerConfig(seed), created_at: now() });
    for (const tag of seed.tags) {
      const existing = this.sql('SELECT customer_id FROM tags WHERE tag_id = ?').get(tag.tag_id) as Row | undefined;
      if (existing && existing.customer_id !== seed.id) throw new StateError(`tag ${tag.tag_id} belongs to another customer`, 409);
      this.sql(
          `INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at, settings, rate_limit, visitor_rate_limit, demo)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tag_id) DO UPDATE SET
             allowed_domains = excluded.allowed_domains, scores = excluded.scores, segment_names = excluded.segment_names,
             settings = excluded.settings, rate_limit = excluded.rate_limit, visitor_rate_limit = excluded.visitor_rate_limit, demo = excluded.demo`,
        )
        .run(tag.tag_id, seed.id, JSON.stringify(tag.allowed_domains), +tag.scores, +tag.segment_names, now(), JSON.stringify(TagSettings.parse(tag.settings ?? {})),
          tag.rate_limit ?? TAG_CEILING, tag.visitor_rate_limit ?? TAG_PER_VISITOR_LIMIT, +(tag.demo ?? false));
    }
    this.bumpAuth();
  }

  async getCustomer(id: string): Promise<CustomerRecord | null> {
    this.syncAuth();
    const cached = this.auth.customers.get(id);
    if (cached !== undefined) return cached;
    const row = this.sql('SELECT * FROM customers WHERE id = ?').get(id) as Row | undefined;
    return AuthCache.put(this.auth.customers, id, row ? deepFreeze(toCustomer(row)) : null);
  }

  async listCustomers(): Promise<CustomerRecord[]> {
    return (this.sql('SELECT * FROM customers ORDER BY id').all() as Row[]).map(toCustomer);
  }

  async createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }> {
    const t = NewToken.parse(input);
    const customer = await this.requireCustomer(t.customer_id);
    if (!isEntitled(customer.packages, t.api_group)) {
      throw new StateError(`customer ${customer.id} has no package that covers the ${t.api_group} API group (packages: ${customer.packages.join(', ') || 'none'})`, 403);
    }
    if (t.allowed_domains.length > 0 && t.api_group !== 'identification') {
      throw new StateError('allowed domains exist only for identification tokens: the other APIs are server-to-server');
    }
    const secret = generateSecret();
    const id = 'tok_' + randomBytes(8).toString('hex');
    this.authChange(() =>
      this.sql(
        `INSERT INTO tokens (id, customer_id, api_group, name, prefix, secret_hash, integrations, allowed_domains, scores,
           segment_names, rate_limit, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
      ).run(id, t.customer_id, t.api_group, t.name, displayPrefix(secret), hashSecret(secret), JSON.stringify(t.integrations),
        JSON.stringify(t.allowed_domains), +t.scores, +t.segment_names, t.rate_limit, now()),
    );
    return { record: (await this.getToken(id))!, secret };
  }

  async authenticateToken(secret: string): Promise<TokenRecord | null> {
    // Looked up by hash (through a unique index, or the cache keyed by it): never by the secret itself.
    const hash = hashSecret(secret);
    this.syncAuth();
    let token = this.auth.tokens.get(hash);
    if (token === undefined) {
      const row = this.sql('SELECT * FROM tokens WHERE secret_hash = ?').get(hash) as Row | undefined;
      token = AuthCache.put(this.auth.tokens, hash, row && row.status === 'active' ? deepFreeze(toToken(row)) : null);
    }
    if (token === null) return null;
    const at = new Date();
    if (token.last_used_at === null || at.getTime() - Date.parse(token.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // Not an auth change (no version bump): other processes keep their copy and write theirs within a minute.
      this.sql('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at.toISOString(), token.id);
      token = AuthCache.put(this.auth.tokens, hash, Object.freeze({ ...token, last_used_at: at.toISOString() }));
    }
    return token;
  }

  async getToken(id: string): Promise<TokenRecord | null> {
    const row = this.sql('SELECT * FROM tokens WHERE id = ?').get(id) as Row | undefined;
    return row ? toToken(row) : null;
  }

  async listTokens(customerId?: string): Promise<TokenRecord[]> {
    const rows = customerId
      ? this.sql('SELECT * FROM tokens WHERE customer_id = ? ORDER BY created_at, id').all(customerId)
      : this.sql('SELECT * FROM tokens ORDER BY customer_id, created_at, id').all();
    return (rows as Row[]).map(toToken);
  }

  async setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord> {
    if (this.authChange(() => this.sql('UPDATE tokens SET status = ? WHERE id = ?').run(status, id).changes) === 0) throw notFound(id);
    return (await this.getToken(id))!;
  }

  async rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }> {
    const secret = generateSecret();
    const changes = this.authChange(
      () => this.sql('UPDATE tokens SET secret_hash = ?, prefix = ?, rotated_at = ? WHERE id = ?').run(hashSecret(secret), displayPrefix(secret), now(), id).changes,
    );
    if (changes === 0) throw notFound(id);
    return { record: (await this.getToken(id))!, secret };
  }

  async deleteToken(id: string): Promise<void> {
    if (this.authChange(() => this.sql('DELETE FROM tokens WHERE id = ?').run(id).changes) === 0) throw notFound(id);
  }

  async createTag(input: NewTag): Promise<TagRecord> {
    const t = NewTag.parse(input);
    const customer = await this.requireCustomer(t.customer_id);
    if (!isEntitled(customer.packages, 'identification')) {
      throw new StateError(`customer ${customer.id} has no package that covers the identification API (web tags need platform)`, 403);
    }
    const tagId = t.tag_id ?? 'tag_' + randomBytes(9).toString('base64url');
    try {
      this.authChange(() =>
        this.sql(
          `INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at, settings, rate_limit, visitor_rate_limit, demo)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(tagId, t.customer_id, JSON.stringify(t.allowed_domains), +t.scores, +t.segment_names, now(), JSON.stringify(t.settings), t.rate_limit, t.visitor_rate_limit, +t.demo),
      );
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new StateError(`tag ${tagId} already exists`, 409);
      throw e;
    }
    return (await this.getTag(tagId))!;
  }

  async getTag(tagId: string): Promise<TagRecord | null> {
    this.syncAuth();
    const cached = this.auth.tags.get(tagId);
    if (cached !== undefined) return cached;
    const row = this.sql('SELECT * FROM tags WHERE tag_id = ?').get(tagId) as Row | undefined;
    return AuthCache.put(this.auth.tags, tagId, row ? deepFreeze(toTag(row)) : null);
  }

  async updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord> {
    const valid = TagSettings.parse(settings);
    if (this.authChange(() => this.sql('UPDATE tags SET settings = ? WHERE tag_id = ?').run(JSON.stringify(valid), tagId).changes) === 0) {
      throw new StateError(`unknown tag ${tagId}`, 404);
    }
    return (await this.getTag(tagId))!;
  }

  async updateTag(tagId: string, input: TagPatch): Promise<TagRecord> {
    const patch = TagPatch.parse(input);
    const columns: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      columns[k] = typeof v === 'boolean' ? +v : typeof v === 'object' ? JSON.stringify(v) : v;
    }
    const names = Object.keys(columns);
    const changes = this.authChange(() =>
      names.length === 0
        ? (this.sql('SELECT 1 FROM tags WHERE tag_id = ?').get(tagId) ? 1 : 0)
        : this.db.prepare(`UPDATE tags SET ${names.map((n) => `${n} = @${n}`).join(', ')} WHERE tag_id = @tag_id`).run({ ...columns, tag_id: tagId }).changes,
    );
    if (changes === 0) throw new StateError(`unknown tag ${tagId}`, 404);
    return (await this.getTag(tagId))!;
  }

  async listTags(customerId?: string): Promise<TagRecord[]> {
    const rows = customerId
      ? this.sql('SELECT * FROM tags WHERE customer_id = ? ORDER BY tag_id').all(customerId)
      : this.sql('SELECT * FROM tags ORDER BY tag_id').all();
    return (rows as Row[]).map(toTag);
  }

  async getSetting(key: string): Promise<string | null> {
    const row = this.sql('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return this.sql('INSERT OR IGNORE INTO settings VALUES (?, ?)').run(key, value).changes === 1;
  }

  async close(): Promise<void> {
    this.flushMetering();
    this.db.close();
  }

  private async requireCustomer(id: string): Promise<CustomerRecord> {
    const customer = await this.getCustomer(id);
    if (!customer) throw new StateError(`unknown customer ${id}`, 404);
    return customer;
  }
}

/** Cached records are shared between requests: frozen, so a caller that tried to change one would throw. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function notFound(id: string): StateError {
  return new StateError(`unknown token ${id}`, 404);
}

function toCustomer(row: Row): CustomerRecord {
  const config = JSON.parse(row.config as string);
  return CustomerRecord.parse({ ...row, packages: JSON.parse(row.packages as string), ...config });
}

function toToken(row: Row): TokenRecord {
  return TokenRecord.parse({
    ...row,
    integrations: JSON.parse(row.integrations as string),
    allowed_domains: JSON.parse(row.allowed_domains as string),
    scores: row.scores === 1,
    segment_names: row.segment_names === 1,
  });
}

function customerConfig(c: Pick<CustomerSeed, 'products' | 'segments' | 'excluded_accounts' | 'hot_accounts'>): string {
  return JSON.stringify({ products: c.products, segments: c.segments, excluded_accounts: c.excluded_accounts, hot_accounts: c.hot_accounts });
}

function toTag(row: Row): TagRecord {
  return TagRecord.parse({
    ...row,
    demo: row.demo === 1,
    allowed_domains: JSON.parse(row.allowed_domains as string),
    scores: row.scores === 1,
    segment_names: row.segment_names === 1,
    settings: JSON.parse(row.settings as string),
  });
}
