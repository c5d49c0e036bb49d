/** The access records' storage on SQLite (port.ts): customers, tokens, tags and settings in the state file. */
import { type CustomerRecord, type TagRecord, TagSettings, type TokenRecord } from '../../../core/access-records.ts';
import type { CustomerPatch, CustomerSeed, Segment } from '../../../core/customer-records.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../../../core/vocabulary.ts';
import type { StateConnection } from '../sqlite/state-conn.ts';
import type { StateEntry } from '../transfer/transfer.ts';
import { type AuthCache, deepFreeze } from './auth-cache.ts';
import type { AccessPort, TagFields } from './port.ts';
import { highWater, refusal } from './rules.ts';
import type { ListState, SegmentState } from './service.ts';
import { customerConfig, type Row, toCustomer, toTag, toToken } from './sqlite-rows.ts';

const now = () => new Date().toISOString();

export class SqliteAccess implements AccessPort {
  constructor(
    private readonly conn: StateConnection,
    /** The service's auth cache (service.ts), kept current here. */
    readonly auth: AuthCache,
  ) {}

  private sql(source: string) {
    return this.conn.sql(source);
  }

  private io<T>(fn: () => T): T {
    return this.conn.io(fn);
  }

  /**
   * Brings the auth cache up to date with changes made by any process: reads the version once per
   * event-loop turn. Requests handled in one turn are concurrent with a change another process commits
   * during that turn, so answering them from the state before it is a valid order; the next turn sees it.
   * Changes made through this store take effect at once (bumpAuth).
   */
  syncAuth(): void {
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

  /** Runs a change to customers, tokens or tags in one transaction with the version bump (an import's pages too). */
  change<T>(fn: () => T): Promise<T> {
    return this.conn.sqlite.write(() =>
      this.conn.db
        .transaction(() => {
          const out = fn();
          this.bumpAuth();
          return out;
        })
        .immediate(),
    );
  }

  async writeCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): Promise<CustomerRecord> {
    await this.change(() => {
      if (mode === 'insert' && this.sql('SELECT 1 FROM customers WHERE id = ?').get(seed.id)) throw refusal.customerExists(seed.id);
      this.insertCustomer(seed, mode);
    });
    return (await this.readCustomer(seed.id))!;
  }

  async updateCustomer(id: string, fields: Partial<CustomerPatch>): Promise<CustomerRecord> {
    await this.change(() => {
      const current = this.customerRow(id);
      const next = { ...current, ...fields };
      next.segment_seq = highWater(current.segment_seq, next.segments);
      this.sql(
        `UPDATE customers SET name = @name, packages = @packages, identification_credits = @identification_credits,
           enrichment_credits = @enrichment_credits, contract_start = @contract_start, config = @config WHERE id = @id`,
      ).run({ ...next, id, packages: JSON.stringify(next.packages), config: customerConfig(next) });
    });
    return (await this.readCustomer(id))!;
  }

  changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord> {
    return this.changeConfig(id, (current) => {
      const next = change({ segments: current.segments, segment_seq: current.segment_seq });
      return { ...current, segments: next.segments, segment_seq: highWater(next.segment_seq, next.segments) };
    });
  }

  changeAccountLists(id: string, change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState): Promise<CustomerRecord> {
    return this.changeConfig(id, (current) => {
      const next = change(current);
      return { ...current, hot_accounts: next.hot_accounts, excluded_accounts: next.excluded_accounts, account_lists: next.account_lists };
    });
  }

  /** Reads, decides and writes a customer's config in one transaction; what `decide` throws is the caller's answer. */
  private async changeConfig(id: string, decide: (current: CustomerRecord) => CustomerRecord): Promise<CustomerRecord> {
    let refused: { error: unknown } | null = null;
    await this.change(() => {
      const current = this.customerRow(id);
      let record: CustomerRecord;
      try {
        record = decide(current);
      } catch (e) {
        // A refusal (a bad file, 404, 409, 422) is the caller's answer, not a store failure: nothing is written.
        refused = { error: e };
        return;
      }
      this.sql('UPDATE customers SET config = ? WHERE id = ?').run(customerConfig(record), id);
    });
    if (refused) throw (refused as { error: unknown }).error;
    return (await this.readCustomer(id))!;
  }

  private customerRow(id: string): CustomerRecord {
    const row = this.sql('SELECT * FROM customers WHERE id = ?').get(id) as Row | undefined;
    if (!row) throw refusal.unknownCustomer(id);
    return toCustomer(row);
  }

  /** Writes a customer and upserts the tags of its seed; runs inside a change. */
  private insertCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): void {
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
      if (existing && existing.customer_id !== seed.id) throw refusal.tagOfAnotherCustomer(tag.tag_id);
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

  async readCustomer(id: string): Promise<CustomerRecord | null> {
    const row = this.io(() => this.sql('SELECT * FROM customers WHERE id = ?').get(id)) as Row | undefined;
    return row ? deepFreeze(toCustomer(row)) : null;
  }

  async listCustomers(): Promise<CustomerRecord[]> {
    return (this.io(() => this.sql('SELECT * FROM customers ORDER BY id').all()) as Row[]).map(toCustomer);
  }

  async insertToken(t: TokenRecord, secretHash: string): Promise<void> {
    await this.change(() =>
      this.sql(
        `INSERT INTO tokens (id, customer_id, api_group, name, prefix, secret_hash, integrations, allowed_domains, scores,
           segment_names, intent_topics, rate_limit, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
      ).run(
        t.id,
        t.customer_id,
        t.api_group,
        t.name,
        t.prefix,
        secretHash,
        JSON.stringify(t.integrations),
        JSON.stringify(t.allowed_domains),
        +t.scores,
        +t.segment_names,
        +t.intent_topics,
        t.rate_limit,
        t.created_at,
      ),
    );
  }

  async readActiveToken(secretHash: string): Promise<TokenRecord | null> {
    const row = this.io(() => this.sql('SELECT * FROM tokens WHERE secret_hash = ?').get(secretHash)) as Row | undefined;
    return row && row.status === 'active' ? toToken(row) : null;
  }

  touchToken(token: TokenRecord, at: string): Promise<unknown> {
    const id = token.id;
    return this.conn.sqlite.write(() => this.sql('UPDATE tokens SET last_used_at = ? WHERE id = ?').run(at, id));
  }

  async readToken(id: string): Promise<TokenRecord | null> {
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

  async setTokenStatus(id: string, status: TokenRecord['status']): Promise<boolean> {
    return (await this.change(() => this.sql('UPDATE tokens SET status = ? WHERE id = ?').run(status, id).changes)) > 0;
  }

  async rotateToken(id: string, secretHash: string, prefix: string, at: string): Promise<boolean> {
    const changes = await this.change(
      () => this.sql('UPDATE tokens SET secret_hash = ?, prefix = ?, rotated_at = ? WHERE id = ?').run(secretHash, prefix, at, id).changes,
    );
    return changes > 0;
  }

  async deleteToken(id: string): Promise<boolean> {
    return (await this.change(() => this.sql('DELETE FROM tokens WHERE id = ?').run(id).changes)) > 0;
  }

  async insertTag(t: TagRecord): Promise<boolean> {
    try {
      await this.change(() =>
        this.sql(
          `INSERT INTO tags (tag_id, customer_id, allowed_domains, scores, segment_names, created_at, settings, rate_limit, visitor_rate_limit, demo)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        ),
      );
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw e;
    }
    return true;
  }

  async readTag(tagId: string): Promise<TagRecord | null> {
    const row = this.io(() => this.sql('SELECT * FROM tags WHERE tag_id = ?').get(tagId)) as Row | undefined;
    return row ? deepFreeze(toTag(row)) : null;
  }

  async patchTag(tagId: string, fields: TagFields): Promise<TagRecord | null> {
    const columns: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) columns[k] = typeof v === 'boolean' ? +v : typeof v === 'object' ? JSON.stringify(v) : v;
    // Column names come from TagPatch's strict keys, never from the caller.
    const names = Object.keys(columns);
    const changes = await this.change(() =>
      names.length === 0
        ? this.sql('SELECT 1 FROM tags WHERE tag_id = ?').get(tagId)
          ? 1
          : 0
        : this.conn.db.prepare(`UPDATE tags SET ${names.map((n) => `${n} = @${n}`).join(', ')} WHERE tag_id = @tag_id`).run({ ...columns, tag_id: tagId })
            .changes,
    );
    return changes === 0 ? null : this.readTag(tagId);
  }

  async listTags(customerId?: string): Promise<TagRecord[]> {
    const rows = this.io(() =>
      customerId ? this.sql('SELECT * FROM tags WHERE customer_id = ? ORDER BY tag_id').all(customerId) : this.sql('SELECT * FROM tags ORDER BY tag_id').all(),
    );
    return (rows as Row[]).map(toTag);
  }

  async deleteTag(tagId: string): Promise<boolean> {
    return (await this.change(() => this.sql('DELETE FROM tags WHERE tag_id = ?').run(tagId).changes)) > 0;
  }

  async getSetting(key: string): Promise<string | null> {
    const row = this.io(() => this.sql('SELECT value FROM settings WHERE key = ?').get(key)) as { value: string } | undefined;
    return row?.value ?? null;
  }

  async setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return this.conn.sqlite.write(() => this.sql('INSERT OR IGNORE INTO settings VALUES (?, ?)').run(key, value).changes === 1);
  }

  async isEmpty(): Promise<boolean> {
    return this.io(() => this.sql('SELECT EXISTS (SELECT 1 FROM customers)').pluck().get()) === 0;
  }

  async *exportEntries(): AsyncIterable<StateEntry> {
    for (const record of await this.listCustomers()) yield { type: 'customer', record };
    for (const row of this.io(() => this.sql('SELECT * FROM tokens ORDER BY customer_id, created_at, id').all()) as Row[]) {
      yield { type: 'token', record: toToken(row), secret_hash: row.secret_hash as string };
    }
    for (const record of await this.listTags()) yield { type: 'tag', record };
    for (const row of this.io(() => this.sql('SELECT key, value FROM settings ORDER BY key').all()) as { key: string; value: string }[]) {
      yield { type: 'setting', ...row };
    }
  }

  /** Writes one imported entry of the access records (false: not one of theirs); inside a change. */
  importEntry(e: StateEntry): boolean {
    switch (e.type) {
      case 'customer': {
        const { products, segments, excluded_accounts, hot_accounts, account_lists, grants, segment_seq, kept_query_params, topics, packages, ...c } = e.record;
        this.sql(
          'INSERT INTO customers VALUES (@id, @name, @packages, @identification_credits, @enrichment_credits, @contract_start, @config, @created_at)',
        ).run({
          ...c,
          packages: JSON.stringify(packages),
          config: customerConfig({ products, segments, excluded_accounts, hot_accounts, account_lists, grants, segment_seq, kept_query_params, topics }),
        });
        return true;
      }
      case 'token': {
        const t = e.record;
        this.sql(
          `INSERT INTO tokens (id, customer_id, api_group, name, prefix, secret_hash, integrations, allowed_domains, scores, segment_names,
             intent_topics, rate_limit, status, created_at, last_used_at, rotated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
          +t.intent_topics,
          t.rate_limit,
          t.status,
          t.created_at,
          t.last_used_at,
          t.rotated_at,
        );
        return true;
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
        return true;
      }
      case 'setting':
        this.sql('INSERT OR REPLACE INTO settings VALUES (?, ?)').run(e.key, e.value);
        return true;
      default:
        return false;
    }
  }
}
