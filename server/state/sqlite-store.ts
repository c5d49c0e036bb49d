/** The embedded state store: one SQLite file (WAL), safe for several processes on one machine. */
import type Database from 'better-sqlite3';
import { CustomerPatch, CustomerSeed, type Segment } from '../../core/customer-records.ts';
import { displayPrefix, generateSecret, hashSecret } from '../auth/token-secret.ts';
import type { CreditPool } from '../credits/rules.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../limits/policy.ts';
import type { ListState, SegmentState } from './access.ts';
import { checkTagGrant, checkTokenGrant, highWater, newTagId, newTokenId } from './access-rules.ts';
import { AuthCache, deepFreeze, LAST_USED_RESOLUTION_MS } from './auth-cache.ts';
import { StateError, type StateLog, StoreUnavailableError } from './errors.ts';
import type { ChargeOutcome, ChargeRequest, CreditBalance, RateLimitHit, RateLimitRequest, UsageRow } from './metering.ts';
import { holdStateDb, isBusy, type SqliteStateDb } from './sqlite-db.ts';
import { type MeteringCache, meteringCacheOf } from './sqlite-metering-cache.ts';
import { CustomerRecord, NewTag, NewToken, type StateStore, TagPatch, TagRecord, TagSettings, TokenRecord } from './store.ts';
import { LedgerEntry, StateEntry } from './transfer.ts';

type Row = Record<string, unknown>;
/** A queued metering operation (charge or rate-limit hit). */
interface Metered {
  rate?: RateLimitRequest;
  charge?: ChargeRequest;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}
const now = () => new Date().toISOString();

/** How often expired rate-limit rows are swept (inside a metering batch). */
const RATE_SWEEP_EVERY_MS = 10_000;

export interface SqliteStoreOptions {
  /** Where operational problems are reported (state file replaced, writes refused). */
  log?: StateLog;
}

export class SqliteStateStore implements StateStore {
  /**
   * The process's connection to the state file and its lock policy (sqlite-db.ts): the visit store and
   * the webhook outbox take it from here (open-store.ts `sharedSqlite`), so the file is opened once.
   */
  readonly sqlite: SqliteStateDb;
  private readonly db: Database.Database;
  private readonly auth = new AuthCache();

  private sql(source: string): Database.Statement {
    // The connection outlives this store while the visit store or the outbox still holds it: a closed
    // store must still refuse (503), not keep answering through the shared connection.
    if (this.closed) throw new StoreUnavailableError('the state store is closed');
    return this.sqlite.sql(source);
  }

  private io<T>(fn: () => T): T {
    return this.sqlite.io(fn);
  }

  /**
   * Brings the auth cache up to date with changes made by any process: reads the version once per
   * event-loop turn. Requests handled in one turn are concurrent with a change another process commits
   * during that turn, so answering them from the state before it is a valid order; the next turn sees it.
   * Changes made through this store take effect at once (bumpAuth).
   */
  private syncAuth(): void {
    if (this.authChecked) return;
    this.auth.sync((this.io(() => this.sql('SELECT version FROM auth_version WHERE id = 1').get()) as { version: number }).version);
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
  private authChange<T>(fn: () => T): Promise<T> {
    return this.sqlite.write(() =>
      this.db
        .transaction(() => {
          const out = fn();
          this.bumpAuth();
          return out;
        })
        .immediate(),
    );
  }

  constructor(file: string, options: SqliteStoreOptions = {}) {
    this.sqlite = holdStateDb(file, { log: options.log });
    this.db = this.sqlite.db;
    this.meteringCache = meteringCacheOf(this.sqlite);
    const batch = this.db.transaction((ops: Metered[]) => this.meterBatch(ops));
    this.runBatch = (ops) => (batch as unknown as { immediate(ops: Metered[]): unknown[] }).immediate(ops);
  }

  /**
   * One metering batch, inside its IMMEDIATE transaction, in arrival order. Amortised: each rate-limit
   * counter and each credit balance (customer, pool, period) the batch touches is read once and written
   * at most once (not when nothing counted on it), the operations in between are map updates in JS — so a request costs its share of a few
   * statements, not a read and a write per counter and per charge (measured: the batch was ~15% of a
   * tag-mode lookup's CPU with per-request statements). The answers are those of running the operations
   * one by one: the write lock is held from the first read to the commit, so nobody else sees or changes
   * a counter or balance in between. The ledger keeps one row per charge (inserted as it is made, so a
   * dedupe key charged earlier in the batch is seen by a later charge). What a counter, balance or dedupe
   * key was after the last batches comes from memory while no other connection has committed since
   * (sqlite-metering-cache.ts): in one process, the read of a counter happens once, at its first hit.
   */
  private meterBatch(ops: Metered[]): unknown[] {
    const cache = this.meteringCache;
    cache.check(this.sql('PRAGMA data_version').pluck().get() as number);
    const counters = new Map<string, { windowStart: number; count: number; storedWindow: number | null; changed: boolean }>();
    const balances = new Map<string, { r: ChargeRequest; used: number; changed: boolean }>();
    const out = new Array<unknown>(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      if (op.rate) {
        const { windowMs, nowMs } = op.rate;
        const windowStart = nowMs - (nowMs % windowMs);
        this.sweepRateLimits(nowMs, windowMs);
        const hit = op.rate.counters.map(({ key, limit }) => {
          let c = counters.get(key);
          if (c === undefined) {
            const known = cache.counter(key);
            if (known !== undefined) c = { windowStart: known.windowStart, count: known.count, storedWindow: known.windowStart, changed: false };
            else {
              const row = this.sql('SELECT window_start, count FROM rate_limits WHERE key = ?').get(key) as { window_start: number; count: number } | undefined;
              c = { windowStart: row?.window_start ?? -1, count: row?.count ?? 0, storedWindow: row?.window_start ?? null, changed: false };
            }
            counters.set(key, c);
          }
          return { c, count: c.windowStart === windowStart ? c.count + 1 : 1, limit };
        });
        // A request refused by any of its counters counts against none: otherwise one visitor address
        // past its own limit would keep filling the tag-wide counter and lock every other visitor out.
        // A refusal reports the counts it would have made, so its hits read as refused with 0 remaining.
        if (hit.every(({ count, limit }) => count <= limit)) {
          for (const { c, count } of hit) {
            c.count = count;
            c.windowStart = windowStart;
            c.changed = true;
          }
        }
        out[i] = hit.map(({ count, limit }) => ({
          allowed: count <= limit,
          limit,
          remaining: Math.max(0, limit - count),
          resetMs: windowStart + windowMs - nowMs,
        }));
      } else {
        const r = op.charge!;
        const k = `${r.customer_id}\n${r.pool}\n${r.period}`;
        let b = balances.get(k);
        if (b === undefined) {
          let used = cache.balance(k);
          if (used === undefined) {
            const row = this.sql('SELECT used FROM credit_usage WHERE customer_id = ? AND pool = ? AND period = ?').get(r.customer_id, r.pool, r.period) as
              | { used: number }
              | undefined;
            used = row?.used ?? 0;
          }
          b = { r, used, changed: false };
          balances.set(k, b);
        }
        if (r.dedupe_key !== null && this.isCharged(r.dedupe_key)) {
          out[i] = { outcome: 'free', remaining: Math.max(0, r.quota - b.used) } satisfies ChargeOutcome;
        } else if (b.used + 1 > r.quota) {
          out[i] = { outcome: 'exhausted', remaining: 0 } satisfies ChargeOutcome;
        } else {
          b.used++;
          b.changed = true;
          this.insertCharge(r);
          if (r.dedupe_key !== null) cache.setCharged(r.dedupe_key);
          out[i] = { outcome: 'charged', remaining: r.quota - b.used } satisfies ChargeOutcome;
        }
      }
    }
    // Counters only read (by requests refused) are left as they are.
    for (const [key, c] of counters) {
      if (!c.changed) continue;
      cache.setCounter(key, c.windowStart, c.count);
      // A counter still in its stored window only counts up: updating the count alone leaves the
      // window index untouched (a quarter of the batch's cost in a micro-benchmark of 26 counters).
      if (c.storedWindow === c.windowStart) this.sql('UPDATE rate_limits SET count = ? WHERE key = ?').run(c.count, key);
      else
        this.sql('INSERT INTO rate_limits VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count').run(
          key,
          c.windowStart,
          c.count,
        );
    }
    for (const [k, { r, used, changed }] of balances) {
      cache.setBalance(k, used);
      if (changed)
        this.sql('INSERT INTO credit_usage VALUES (?, ?, ?, ?) ON CONFLICT (customer_id, pool, period) DO UPDATE SET used = excluded.used').run(
          r.customer_id,
          r.pool,
          r.period,
          used,
        );
    }
    return out;
  }

  /** Whether the ledger holds a charge under the dedupe key (known ones from the cache). */
  private isCharged(dedupeKey: string): boolean {
    if (this.meteringCache.isCharged(dedupeKey)) return true;
    if (this.sql('SELECT 1 FROM charges WHERE dedupe_key = ?').get(dedupeKey) === undefined) return false;
    this.meteringCache.setCharged(dedupeKey);
    return true;
  }

  private insertCharge(r: LedgerEntry): void {
    this.sql(
      'INSERT INTO charges (customer_id, api, pool, record, month, period, dedupe_key, token_id, partner, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(r.customer_id, r.api, r.pool, r.record, r.month, r.period, r.dedupe_key, r.token_id, r.partner, r.at);
  }

  private lastSweepMs = 0;
  /** Rate-limit rows of past windows are deleted, so the table stays bounded under traffic from many IPs. */
  private sweepRateLimits(nowMs: number, windowMs: number): void {
    if (nowMs - this.lastSweepMs < RATE_SWEEP_EVERY_MS) return;
    this.lastSweepMs = nowMs;
    this.sql('DELETE FROM rate_limits WHERE window_start < ?').run(nowMs - (nowMs % windowMs));
  }

  private readonly runBatch: (ops: Metered[]) => unknown[];
  private readonly meteringCache: MeteringCache;
  private metering: Metered[] = [];

  /**
   * Charges and rate-limit hits are write transactions: committing one costs more than the work in it
   * (lock, WAL append, unlock). They are queued and committed together, in arrival order, in one
   * BEGIN IMMEDIATE transaction at the end of the current event-loop turn — every request that reached
   * its metering step in that turn shares the commit. Exactness is unchanged: IMMEDIATE takes the write
   * lock before anything is read, so processes (workers) serialise whole batches, and inside a batch each
   * operation sees the ones before it; nobody can overspend, double-charge or slip past a limit.
   * A locked file (another process holding the write lock, or a busy worker) never blocks the loop: the
   * batch waits in the connection's queue of the request lane (sqlite-db.ts, retried on a timer), then
   * every operation fails with StoreUnavailableError (the pipeline answers 503: fail closed).
   */
  private meter<T>(rate: RateLimitRequest | undefined, charge: ChargeRequest | undefined): Promise<T> {
    let resolve!: (value: unknown) => void;
    let reject!: (error: unknown) => void;
    const answer = new Promise<T>((ok, fail) => {
      resolve = ok as (value: unknown) => void;
      reject = fail;
    });
    // One object shape for every queued operation (rate and charge both present, one undefined).
    if (this.metering.push({ rate, charge, resolve, reject }) === 1) setImmediate(this.flushMetering);
    return answer;
  }

  private readonly flushMetering = (): void => {
    const ops = this.metering;
    if (ops.length === 0) return;
    this.metering = [];
    this.sqlite
      .write(() => {
        try {
          return this.runBatch(ops);
        } catch (e) {
          // Rolled back: what the batch put in the cache was never committed.
          this.meteringCache.clear();
          if (isBusy(e)) throw e;
          // Any other failure (a constraint included) is the store's, not one caller's: all get a 503.
          throw Object.assign(new Error('metering batch failed'), { code: 'SQLITE_BATCH', cause: e });
        }
      })
      .then(
        (results) => {
          for (let i = 0; i < ops.length; i++) ops[i].resolve(results[i]);
        },
        (e: unknown) => {
          for (const op of ops) op.reject(e);
        },
      );
  };

  charge(req: ChargeRequest): Promise<ChargeOutcome> {
    return this.meter(undefined, req);
  }

  hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]> {
    return this.meter(req, undefined);
  }

  async usage(customerId: string): Promise<UsageRow[]> {
    return this.io(
      () =>
        this.sql(
          `SELECT pool, api, month, COUNT(*) AS charges, COUNT(partner) AS partner_charges FROM charges
           WHERE customer_id = ? GROUP BY pool, api, month ORDER BY month, pool, api`,
        ).all(customerId) as UsageRow[],
    );
  }

  async balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance> {
    const row = this.io(() => this.sql('SELECT used FROM credit_usage WHERE customer_id = ? AND pool = ? AND period = ?').get(customerId, pool, period)) as
      | { used: number }
      | undefined;
    const used = row?.used ?? 0;
    return { pool, period, quota, used, remaining: Math.max(0, quota - used) };
  }

  async importCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    const seed = CustomerSeed.parse(input);
    await this.authChange(() => this.writeCustomer(seed, 'upsert'));
    return (await this.getCustomer(seed.id))!;
  }

  async createCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    const seed = CustomerSeed.parse(input);
    await this.authChange(() => {
      if (this.sql('SELECT 1 FROM customers WHERE id = ?').get(seed.id)) {
        throw new StateError(`customer ${seed.id} already exists: change it with customer update (PATCH /admin/api/customers/${seed.id})`, 'conflict');
      }
      this.writeCustomer(seed, 'insert');
    });
    return (await this.getCustomer(seed.id))!;
  }

  async updateCustomer(id: string, input: CustomerPatch): Promise<CustomerRecord> {
    const patch = CustomerPatch.parse(input);
    await this.authChange(() => {
      const row = this.sql('SELECT * FROM customers WHERE id = ?').get(id) as Row | undefined;
      if (!row) throw new StateError(`unknown customer ${id}`, 'not_found');
      const current = toCustomer(row);
      const next = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
      next.segment_seq = highWater(current.segment_seq, next.segments);
      this.sql(
        `UPDATE customers SET name = @name, packages = @packages, identification_credits = @identification_credits,
           enrichment_credits = @enrichment_credits, contract_start = @contract_start, config = @config WHERE id = @id`,
      ).run({ ...next, id, packages: JSON.stringify(next.packages), config: customerConfig(next) });
    });
    return (await this.getCustomer(id))!;
  }

  async changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord> {
    let refusal: { error: unknown } | null = null;
    await this.authChange(() => {
      const row = this.sql('SELECT * FROM customers WHERE id = ?').get(id) as Row | undefined;
      if (!row) throw new StateError(`unknown customer ${id}`, 'not_found');
      const current = toCustomer(row);
      let next: SegmentState;
      try {
        next = change({ segments: current.segments, segment_seq: current.segment_seq });
      } catch (e) {
        // A refusal (409, 404, 422) is the caller's answer, not a store failure: nothing is written.
        refusal = { error: e };
        return;
      }
      const record = { ...current, segments: next.segments, segment_seq: highWater(next.segment_seq, next.segments) };
      this.sql('UPDATE customers SET config = ? WHERE id = ?').run(customerConfig(record), id);
    });
    if (refusal) throw (refusal as { error: unknown }).error;
    return (await this.getCustomer(id))!;
  }

  async changeAccountLists(
    id: string,
    change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState,
  ): Promise<CustomerRecord> {
    let refusal: { error: unknown } | null = null;
    await this.authChange(() => {
      const row = this.sql('SELECT * FROM customers WHERE id = ?').get(id) as Row | undefined;
      if (!row) throw new StateError(`unknown customer ${id}`, 'not_found');
      const current = toCustomer(row);
      let next: ListState;
      try {
        next = change(current);
      } catch (e) {
        // A refusal (a bad file, 404, 409, 422) is the caller's answer: nothing is written.
        refusal = { error: e };
        return;
      }
      const record = { ...current, hot_accounts: next.hot_accounts, excluded_accounts: next.excluded_accounts, account_lists: next.account_lists };
      this.sql('UPDATE customers SET config = ? WHERE id = ?').run(customerConfig(record), id);
    });
    if (refusal) throw (refusal as { error: unknown }).error;
    return (await this.getCustomer(id))!;
  }

  /** Writes a customer and upserts the tags of its seed; runs inside an auth change. */
  private writeCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): void {
    // A replaced customer keeps its segment high-water mark: ids of segments deleted before stay unused.
    const prior = this.sql('SELECT config FROM customers WHERE id = ?').get(seed.id) as Row | undefined;
    const seq = prior ? ((JSON.parse(prior.config as string) as { segment_seq?: number }).segment_seq ?? 0) : 0;
    this.sql(
      `INSERT INTO customers VALUES (@id, @name, @packages, @identification_credits, @enrichment_credits, @contract_start, @config, @created_at)` +
        (mode === 'upsert'
          ? ` ON CONFLICT (id) DO UPDATE SET name = excluded.name, packages = excluded.packages,
             identification_credits = excluded.identification_credits, enrichment_credits = excluded.enrichment_credits,
             contract_start = excluded.contract_start, config = excluded.config`
          : ''),
    ).run({
      ...seed,
      packages: JSON.stringify(seed.packages),
      config: customerConfig({ ...seed, grants: seed.grants ?? [], segment_seq: highWater(seq, seed.segments) }),
      created_at: now(),
    });
    for (const tag of seed.tags) {
      const existing = this.sql('SELECT customer_id FROM tags WHERE tag_id = ?').get(tag.tag_id) as Row | undefined;
      if (existing && existing.customer_id !== seed.id) throw new StateError(`tag ${tag.tag_id} belongs to another customer`, 'conflict');
      this.sql(
        `INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at, settings, rate_limit, visitor_rate_limit, demo)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tag_id) DO UPDATE SET
             allowed_domains = excluded.allowed_domains, scores = excluded.scores, segment_names = excluded.segment_names,
             settings = excluded.settings, rate_limit = excluded.rate_limit, visitor_rate_limit = excluded.visitor_rate_limit, demo = excluded.demo`,
      ).run(
        tag.tag_id,
        seed.id,
        JSON.stringify(tag.allowed_domains),
        +tag.scores,
        +tag.segment_names,
        now(),
        JSON.stringify(TagSettings.parse(tag.settings ?? {})),
        tag.rate_limit ?? TAG_CEILING,
        tag.visitor_rate_limit ?? TAG_PER_VISITOR_LIMIT,
        +(tag.demo ?? false),
      );
    }
  }

  async getCustomer(id: string): Promise<CustomerRecord | null> {
    this.syncAuth();
    const cached = this.auth.customers.get(id);
    if (cached !== undefined) return cached;
    const row = this.io(() => this.sql('SELECT * FROM customers WHERE id = ?').get(id)) as Row | undefined;
    return AuthCache.put(this.auth.customers, id, row ? deepFreeze(toCustomer(row)) : null);
  }

  async listCustomers(): Promise<CustomerRecord[]> {
    return (this.io(() => this.sql('SELECT * FROM customers ORDER BY id').all()) as Row[]).map(toCustomer);
  }

  async createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }> {
    const t = NewToken.parse(input);
    const customer = await this.requireCustomer(t.customer_id);
    checkTokenGrant(customer, t);
    const secret = generateSecret();
    const id = newTokenId();
    await this.authChange(() =>
      this.sql(
        `INSERT INTO tokens (id, customer_id, api_group, name, prefix, secret_hash, integrations, allowed_domains, scores,
           segment_names, rate_limit, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
      ).run(
        id,
        t.customer_id,
        t.api_group,
        t.name,
        displayPrefix(secret),
        hashSecret(secret),
        JSON.stringify(t.integrations),
        JSON.stringify(t.allowed_domains),
        +t.scores,
        +t.segment_names,
        t.rate_limit,
        now(),
      ),
    );
    return { record: (await this.getToken(id))!, secret };
  }

  async authenticateToken(secret: string): Promise<TokenRecord | null> {
    // Looked up by hash (through a unique index, or the cache keyed by it): never by the secret itself.
    const hash = hashSecret(secret);
    this.syncAuth();
    let token = this.auth.tokens.get(hash);
    if (token === undefined) {
      const row = this.io(() => this.sql('SELECT * FROM tokens WHERE secret_hash = ?').get(hash)) as Row | undefined;
      token = AuthCache.put(this.auth.tokens, hash, row && row.status === 'active' ? deepFreeze(toToken(row)) : null);
    }
    if (token === null) return null;
    const at = new Date();
    if (token.last_used_at === null || at.getTime() - Date.parse(token.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // Not an auth change (no version bump): other processes keep their copy and write theirs within a minute.
      const id = token.id;
      await this.sqlite.write(() => this.sql('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at.toISOString(), id));
      token = AuthCache.put(this.auth.tokens, hash, Object.freeze({ ...token, last_used_at: at.toISOString() }));
    }
    return token;
  }

  async getToken(id: string): Promise<TokenRecord | null> {
    const row = this.io(() => this.sql('SELECT * FROM tokens WHERE id = ?').get(id)) as Row | undefined;
    return row ? toToken(row) : null;
  }

  async listTokens(customerId?: string): Promise<TokenRecord[]> {
    const rows = this.io(() =>
      customerId
        ? this.sql('SELECT * FROM tokens WHERE customer_id = ? ORDER BY created_at, id').all(customerId)
        : this.sql('SELECT * FROM tokens ORDER BY customer_id, created_at, id').all(),
    );
    return (rows as Row[]).map(toToken);
  }

  async setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord> {
    if ((await this.authChange(() => this.sql('UPDATE tokens SET status = ? WHERE id = ?').run(status, id).changes)) === 0) throw notFound(id);
    return (await this.getToken(id))!;
  }

  async rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }> {
    const secret = generateSecret();
    const changes = await this.authChange(
      () =>
        this.sql('UPDATE tokens SET secret_hash = ?, prefix = ?, rotated_at = ? WHERE id = ?').run(hashSecret(secret), displayPrefix(secret), now(), id)
          .changes,
    );
    if (changes === 0) throw notFound(id);
    return { record: (await this.getToken(id))!, secret };
  }

  async deleteToken(id: string): Promise<void> {
    if ((await this.authChange(() => this.sql('DELETE FROM tokens WHERE id = ?').run(id).changes)) === 0) throw notFound(id);
  }

  async createTag(input: NewTag): Promise<TagRecord> {
    const t = NewTag.parse(input);
    const customer = await this.requireCustomer(t.customer_id);
    checkTagGrant(customer);
    const tagId = t.tag_id ?? newTagId();
    try {
      await this.authChange(() =>
        this.sql(
          `INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at, settings, rate_limit, visitor_rate_limit, demo)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          tagId,
          t.customer_id,
          JSON.stringify(t.allowed_domains),
          +t.scores,
          +t.segment_names,
          now(),
          JSON.stringify(t.settings),
          t.rate_limit,
          t.visitor_rate_limit,
          +t.demo,
        ),
      );
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new StateError(`tag ${tagId} already exists`, 'conflict');
      throw e;
    }
    return (await this.getTag(tagId))!;
  }

  async getTag(tagId: string): Promise<TagRecord | null> {
    this.syncAuth();
    const cached = this.auth.tags.get(tagId);
    if (cached !== undefined) return cached;
    const row = this.io(() => this.sql('SELECT * FROM tags WHERE tag_id = ?').get(tagId)) as Row | undefined;
    return AuthCache.put(this.auth.tags, tagId, row ? deepFreeze(toTag(row)) : null);
  }

  async updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord> {
    const valid = TagSettings.parse(settings);
    if ((await this.authChange(() => this.sql('UPDATE tags SET settings = ? WHERE tag_id = ?').run(JSON.stringify(valid), tagId).changes)) === 0) {
      throw new StateError(`unknown tag ${tagId}`, 'not_found');
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
    // Column names come from TagPatch's strict keys, never from the caller.
    const names = Object.keys(columns);
    const changes = await this.authChange(() =>
      names.length === 0
        ? this.sql('SELECT 1 FROM tags WHERE tag_id = ?').get(tagId)
          ? 1
          : 0
        : this.db.prepare(`UPDATE tags SET ${names.map((n) => `${n} = @${n}`).join(', ')} WHERE tag_id = @tag_id`).run({ ...columns, tag_id: tagId }).changes,
    );
    if (changes === 0) throw new StateError(`unknown tag ${tagId}`, 'not_found');
    return (await this.getTag(tagId))!;
  }

  async listTags(customerId?: string): Promise<TagRecord[]> {
    const rows = this.io(() =>
      customerId ? this.sql('SELECT * FROM tags WHERE customer_id = ? ORDER BY tag_id').all(customerId) : this.sql('SELECT * FROM tags ORDER BY tag_id').all(),
    );
    return (rows as Row[]).map(toTag);
  }

  async deleteTag(tagId: string): Promise<void> {
    if ((await this.authChange(() => this.sql('DELETE FROM tags WHERE tag_id = ?').run(tagId).changes)) === 0) {
      throw new StateError(`unknown tag ${tagId}`, 'not_found');
    }
  }

  async getSetting(key: string): Promise<string | null> {
    const row = this.io(() => this.sql('SELECT value FROM settings WHERE key = ?').get(key)) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return this.sqlite.write(() => this.sql('INSERT OR IGNORE INTO settings VALUES (?, ?)').run(key, value).changes === 1);
  }

  async *exportState(): AsyncIterable<StateEntry> {
    for (const record of await this.listCustomers()) yield { type: 'customer', record };
    for (const row of this.io(() => this.sql('SELECT * FROM tokens ORDER BY customer_id, created_at, id').all()) as Row[]) {
      yield { type: 'token', record: toToken(row), secret_hash: row.secret_hash as string };
    }
    for (const record of await this.listTags()) yield { type: 'tag', record };
    for (const row of this.io(() => this.sql('SELECT key, value FROM settings ORDER BY key').all()) as { key: string; value: string }[]) {
      yield { type: 'setting', ...row };
    }
    for (const row of this.io(() => this.sql('SELECT * FROM credit_usage ORDER BY customer_id, pool, period').all()) as Row[]) {
      yield StateEntry.parse({ type: 'credit_usage', ...row });
    }
    for (const row of this.io(() => this.sql('SELECT * FROM charges ORDER BY customer_id, id').iterate()) as Iterable<Row>) {
      yield { type: 'charge', charge: LedgerEntry.parse(row) };
    }
  }

  async isEmpty(): Promise<boolean> {
    return this.io(() => this.sql('SELECT EXISTS (SELECT 1 FROM customers)').pluck().get()) === 0;
  }

  async importState(entries: AsyncIterable<StateEntry> | Iterable<StateEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target state already holds customers: import into an empty state', 'conflict');
    const all: StateEntry[] = [];
    for await (const e of entries) all.push(StateEntry.parse(e));
    await this.authChange(() => {
      // Balances and the ledger change outside a metering batch, on this connection: data_version would not tell.
      this.meteringCache.clear();
      for (const e of all) {
        switch (e.type) {
          case 'customer': {
            const { products, segments, excluded_accounts, hot_accounts, account_lists, grants, segment_seq, kept_query_params, packages, ...c } = e.record;
            this.sql(
              'INSERT INTO customers VALUES (@id, @name, @packages, @identification_credits, @enrichment_credits, @contract_start, @config, @created_at)',
            ).run({
              ...c,
              packages: JSON.stringify(packages),
              config: customerConfig({ products, segments, excluded_accounts, hot_accounts, account_lists, grants, segment_seq, kept_query_params }),
            });
            break;
          }
          case 'token': {
            const t = e.record;
            this.sql(
              `INSERT INTO tokens (id, customer_id, api_group, name, prefix, secret_hash, integrations, allowed_domains, scores, segment_names,
                 rate_limit, status, created_at, last_used_at, rotated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            ).run(
              t.id,
              t.customer_id,
              t.api_group,
              t.name,
              t.prefix,
              e.secret_hash,
              JSON.stringify(t.integrations),
              JSON.stringify(t.allowed_domains),
              +t.scores,
              +t.segment_names,
              t.rate_limit,
              t.status,
              t.created_at,
              t.last_used_at,
              t.rotated_at,
            );
            break;
          }
          case 'tag': {
            const t = e.record;
            this.sql(
              `INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at, settings, rate_limit, visitor_rate_limit, demo, disabled)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            ).run(
              t.tag_id,
              t.customer_id,
              JSON.stringify(t.allowed_domains),
              +t.scores,
              +t.segment_names,
              t.created_at,
              JSON.stringify(t.settings),
              t.rate_limit,
              t.visitor_rate_limit,
              +t.demo,
              +t.disabled,
            );
            break;
          }
          case 'setting':
            this.sql('INSERT OR REPLACE INTO settings VALUES (?, ?)').run(e.key, e.value);
            break;
          case 'credit_usage':
            this.sql('INSERT OR REPLACE INTO credit_usage VALUES (?, ?, ?, ?)').run(e.customer_id, e.pool, e.period, e.used);
            break;
          case 'charge':
            this.insertCharge(e.charge);
            break;
        }
      }
    });
    return all.length;
  }

  private closed = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.flushMetering();
    this.closed = true;
    this.sqlite.release();
  }

  private async requireCustomer(id: string): Promise<CustomerRecord> {
    const customer = await this.getCustomer(id);
    if (!customer) throw new StateError(`unknown customer ${id}`, 'not_found');
    return customer;
  }
}

function notFound(id: string): StateError {
  return new StateError(`unknown token ${id}`, 'not_found');
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

/** What the `config` column holds (JSON): the customer's settings beyond its contract columns. */
function customerConfig(
  c: Pick<CustomerRecord, 'products' | 'segments' | 'excluded_accounts' | 'hot_accounts' | 'grants' | 'segment_seq'> & {
    account_lists?: CustomerRecord['account_lists'];
    kept_query_params?: string[];
  },
): string {
  return JSON.stringify({
    products: c.products,
    segments: c.segments,
    excluded_accounts: c.excluded_accounts,
    hot_accounts: c.hot_accounts,
    account_lists: c.account_lists ?? [],
    grants: c.grants,
    segment_seq: c.segment_seq,
    kept_query_params: c.kept_query_params ?? [],
  });
}

function toTag(row: Row): TagRecord {
  return TagRecord.parse({
    ...row,
    demo: row.demo === 1,
    disabled: row.disabled === 1,
    allowed_domains: JSON.parse(row.allowed_domains as string),
    scores: row.scores === 1,
    segment_names: row.segment_names === 1,
    settings: JSON.parse(row.settings as string),
  });
}
