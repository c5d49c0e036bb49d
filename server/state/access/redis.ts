/**
 * The access records' storage on Redis (port.ts): customers, tokens and tags as hashes of JSON fields in
 * each customer's slot, and the global indexes (customer list, token hash → owner, tag → customer,
 * settings). Every change bumps the auth version (redis/auth-poll.ts) so each node's cache drops it.
 */
import { CustomerRecord, TagRecord, TagSettings, TokenRecord } from '../../../core/access-records.ts';
import type { CustomerPatch, CustomerSeed, Segment } from '../../../core/customer-records.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../../../core/vocabulary.ts';
import { fromHash, keys, toHash } from '../redis/keys.ts';
import type { RedisBackend } from '../redis/lifecycle.ts';
import { FIELDS_CAS_SCRIPT, SEGMENTS_CAS_SCRIPT } from '../redis/scripts.ts';
import type { StateEntry } from '../transfer/transfer.ts';
import { deepFreeze } from './auth-cache.ts';
import type { AccessPort, TagFields } from './port.ts';
import { definedOnly, highWater, refusal } from './rules.ts';
import type { ListState, SegmentState } from './service.ts';

const now = () => new Date().toISOString();
/** What a tag written before per-tag limits and demo tags had (TagRecord keeps only the fields it knows). */
const TAG_DEFAULTS = { rate_limit: TAG_CEILING, visitor_rate_limit: TAG_PER_VISITOR_LIMIT, demo: false };
/** Optimistic changes (CAS scripts) tried this often before the caller is asked to try again. */
const CAS_ATTEMPTS = 20;

export class RedisAccess implements AccessPort {
  constructor(private readonly b: RedisBackend) {}

  private get client() {
    return this.b.client;
  }

  private io<T>(fn: () => Promise<T>, timed = true): Promise<T> {
    return this.b.io(fn, timed);
  }

  private bumpAuth(): Promise<void> {
    return this.b.authVersion.bump();
  }

  // Kept current by pub/sub and the poll (redis/auth-poll.ts).
  syncAuth(): void {}

  async updateCustomer(id: string, patch: Partial<CustomerPatch>): Promise<CustomerRecord> {
    const fields: Record<string, unknown> = { ...patch };
    return this.io(async () => {
      if (!(await this.client.exists(keys.customer(id)))) throw refusal.unknownCustomer(id);
      if (fields.segments) {
        const seq = await this.client.hGet(keys.customer(id), 'segment_seq');
        fields.segment_seq = highWater(seq ? JSON.parse(seq) : 0, fields.segments as Segment[]);
      }
      // Only the given fields are written (one HSET): a concurrent change to other fields is kept.
      if (Object.keys(fields).length > 0) {
        await this.client.hSet(keys.customer(id), toHash(fields));
        await this.bumpAuth();
      }
      return (await this.readCustomer(id))!;
    });
  }

  async changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord> {
    const key = keys.customer(id);
    // Optimistic: read, decide, then write only if neither field changed meanwhile (CAS script); else again.
    // `change` runs outside `io`: what it throws (a refusal) is the caller's answer, not a store outage.
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const [exists, segments, seq] = await this.io(() => this.client.hmGet(key, ['id', 'segments', 'segment_seq']));
      if (!exists) throw refusal.unknownCustomer(id);
      const next = change({ segments: segments ? JSON.parse(segments) : [], segment_seq: seq ? JSON.parse(seq) : 0 });
      const args = [segments ?? '', seq ?? '', JSON.stringify(next.segments), JSON.stringify(highWater(next.segment_seq, next.segments))];
      const written = await this.io(() => this.client.eval(SEGMENTS_CAS_SCRIPT, { keys: [key], arguments: args }));
      if (written === 1) {
        await this.io(() => this.bumpAuth());
        return (await this.readCustomer(id))!;
      }
    }
    throw refusal.changedByOthers('segments', id);
  }

  async changeAccountLists(
    id: string,
    change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState,
  ): Promise<CustomerRecord> {
    const key = keys.customer(id);
    const read = ['hot_accounts', 'excluded_accounts', 'account_lists', 'segments'] as const;
    // Optimistic as changeSegments: write only if none of the fields read changed meanwhile (CAS script); else again.
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const [exists, ...values] = await this.io(() => this.client.hmGet(key, ['id', ...read]));
      if (!exists) throw refusal.unknownCustomer(id);
      const field = (i: number) => (values[i] ? JSON.parse(values[i]!) : []);
      const next = change({ hot_accounts: field(0), excluded_accounts: field(1), account_lists: field(2), segments: field(3) });
      const args = [
        String(read.length),
        ...read.flatMap((f, i) => [f, values[i] ?? '']),
        ...(['hot_accounts', 'excluded_accounts', 'account_lists'] as const).flatMap((f) => [f, JSON.stringify(next[f])]),
      ];
      const written = await this.io(() => this.client.eval(FIELDS_CAS_SCRIPT, { keys: [key], arguments: args }));
      if (written === 1) {
        await this.io(() => this.bumpAuth());
        return (await this.readCustomer(id))!;
      }
    }
    throw refusal.changedByOthers('account lists', id);
  }

  /** `insert`: HSETNX of the customer's id is the existence check (first writer wins across nodes). */
  async writeCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): Promise<CustomerRecord> {
    return this.io(async () => {
      for (const tag of seed.tags) {
        const owner = await this.client.hGet(keys.tagOwner, tag.tag_id);
        if (owner && owner !== seed.id) throw refusal.tagOfAnotherCustomer(tag.tag_id);
      }
      const [existing, priorSeq] = await this.client.hmGet(keys.customer(seed.id), ['created_at', 'segment_seq']);
      if (mode === 'insert' && (existing || !(await this.client.hSetNX(keys.customer(seed.id), 'id', JSON.stringify(seed.id))))) {
        throw refusal.customerExists(seed.id);
      }
      // A replaced customer keeps its segment high-water mark: ids of segments deleted before stay unused.
      const segment_seq = highWater(priorSeq ? JSON.parse(priorSeq) : 0, seed.segments);
      const record = CustomerRecord.parse({ ...seed, segment_seq, created_at: existing ? JSON.parse(existing) : now() });
      // A hash of JSON fields: a later change to some fields is one HSET, never read-modify-write.
      const m = this.client.multi().del(keys.customer(seed.id)).hSet(keys.customer(seed.id), toHash(record));
      for (const tag of seed.tags) {
        const prior = await this.client.hGetAll(keys.tag(seed.id, tag.tag_id));
        const t = TagRecord.parse({
          ...TAG_DEFAULTS,
          ...definedOnly(tag),
          customer_id: seed.id,
          settings: TagSettings.parse(tag.settings ?? {}),
          created_at: prior.created_at ? JSON.parse(prior.created_at) : now(),
          // Not a field of the seed: an import keeps a disabled tag disabled (as SQLite's upsert does).
          disabled: prior.disabled ? JSON.parse(prior.disabled) : false,
        });
        m.hSet(keys.tag(seed.id, tag.tag_id), toHash(t)).sAdd(keys.tags(seed.id), tag.tag_id);
      }
      await m.exec();
      if (seed.tags.length > 0) await this.client.hSet(keys.tagOwner, Object.fromEntries(seed.tags.map((t) => [t.tag_id, seed.id])));
      await this.client.sAdd(keys.customers, seed.id);
      await this.bumpAuth();
      return deepFreeze(record);
    });
  }

  async readCustomer(id: string): Promise<CustomerRecord | null> {
    const h = await this.io(() => this.client.hGetAll(keys.customer(id)));
    return h.id ? deepFreeze(CustomerRecord.parse(fromHash(h))) : null;
  }

  async listCustomers(): Promise<CustomerRecord[]> {
    const out: CustomerRecord[] = [];
    for (const id of await this.customerIds()) {
      const record = await this.readCustomer(id);
      if (record) out.push(record);
    }
    return out;
  }

  /** Every customer id, in order. */
  async customerIds(): Promise<string[]> {
    return (await this.io(() => this.client.sMembers(keys.customers))).sort();
  }

  private async readTokenWithHash(customerId: string, id: string): Promise<{ record: TokenRecord; secret_hash: string } | null> {
    const [h, used] = await this.io(() => Promise.all([this.client.hGetAll(keys.token(customerId, id)), this.client.hGet(keys.tokenUsed(customerId), id)]));
    if (!h.id) return null;
    const { secret_hash, ...rest } = fromHash(h);
    const record = TokenRecord.parse({ ...rest, last_used_at: used ?? rest.last_used_at ?? null });
    return { record, secret_hash: secret_hash as string };
  }

  private async ownerOfToken(id: string): Promise<string | null> {
    return (await this.io(() => this.client.hGet(keys.tokenOwner, id))) ?? null;
  }

  private async findToken(id: string): Promise<{ record: TokenRecord; secret_hash: string } | null> {
    const owner = await this.ownerOfToken(id);
    return owner ? this.readTokenWithHash(owner, id) : null;
  }

  async insertToken(record: TokenRecord, secretHash: string): Promise<void> {
    await this.io(async () => {
      await this.client
        .multi()
        .hSet(keys.token(record.customer_id, record.id), toHash({ ...record, secret_hash: secretHash }))
        .sAdd(keys.tokens(record.customer_id), record.id)
        .exec();
      await this.client.hSet(keys.tokenOwner, record.id, record.customer_id);
      await this.client.set(keys.tokenHash(secretHash), `${record.customer_id}/${record.id}`);
      await this.bumpAuth();
    });
  }

  async readActiveToken(secretHash: string): Promise<TokenRecord | null> {
    const owner = await this.io(() => this.client.get(keys.tokenHash(secretHash)));
    if (!owner) return null;
    const [customerId, id] = owner.split('/');
    const t = await this.readTokenWithHash(customerId, id);
    // The index may briefly outlive a rotation: the record's own hash decides.
    return t && t.secret_hash === secretHash && t.record.status === 'active' ? t.record : null;
  }

  touchToken(token: TokenRecord, at: string): undefined {
    // Written in the background: an outage must not refuse the caller.
    this.client.hSet(keys.tokenUsed(token.customer_id), token.id, at).catch(() => {});
    return undefined;
  }

  async readToken(id: string): Promise<TokenRecord | null> {
    return (await this.findToken(id))?.record ?? null;
  }

  async listTokens(customerId?: string): Promise<TokenRecord[]> {
    const out: TokenRecord[] = [];
    for (const c of customerId ? [customerId] : await this.customerIds()) out.push(...(await this.tokensOf(c)).map((t) => t.record));
    return out;
  }

  /** A customer's tokens with their secret's hash, in creation order. */
  private async tokensOf(customerId: string): Promise<{ record: TokenRecord; secret_hash: string }[]> {
    const ids = await this.io(() => this.client.sMembers(keys.tokens(customerId)));
    const tokens = (await Promise.all(ids.map((id) => this.readTokenWithHash(customerId, id)))).flatMap((t) => (t ? [t] : []));
    return tokens.sort((a, b) => byCreation(a.record, b.record));
  }

  async setTokenStatus(id: string, status: TokenRecord['status']): Promise<boolean> {
    const t = await this.findToken(id);
    if (!t) return false;
    await this.io(async () => {
      await this.client.hSet(keys.token(t.record.customer_id, id), 'status', JSON.stringify(status));
      await this.bumpAuth();
    });
    return true;
  }

  async rotateToken(id: string, secretHash: string, prefix: string, at: string): Promise<boolean> {
    const t = await this.findToken(id);
    if (!t) return false;
    const c = t.record.customer_id;
    await this.io(async () => {
      await this.client.hSet(keys.token(c, id), toHash({ secret_hash: secretHash, prefix, rotated_at: at }));
      await this.client.set(keys.tokenHash(secretHash), `${c}/${id}`);
      await this.client.del(keys.tokenHash(t.secret_hash));
      await this.bumpAuth();
    });
    return true;
  }

  async deleteToken(id: string): Promise<boolean> {
    const t = await this.findToken(id);
    if (!t) return false;
    const c = t.record.customer_id;
    await this.io(async () => {
      await this.client.del(keys.tokenHash(t.secret_hash));
      await this.client.multi().del(keys.token(c, id)).sRem(keys.tokens(c), id).hDel(keys.tokenUsed(c), id).exec();
      await this.client.hDel(keys.tokenOwner, id);
      await this.bumpAuth();
    });
    return true;
  }

  async insertTag(record: TagRecord): Promise<boolean> {
    return this.io(async () => {
      // HSETNX on the owner index is the uniqueness check (first writer wins across nodes).
      if (!(await this.client.hSetNX(keys.tagOwner, record.tag_id, record.customer_id))) return false;
      await this.client.multi().hSet(keys.tag(record.customer_id, record.tag_id), toHash(record)).sAdd(keys.tags(record.customer_id), record.tag_id).exec();
      await this.bumpAuth();
      return true;
    });
  }

  private async readTagOf(customerId: string, tagId: string): Promise<TagRecord | null> {
    const h = await this.io(() => this.client.hGetAll(keys.tag(customerId, tagId)));
    // Fields added to tags later read as their defaults on tags written before them.
    return h.tag_id ? TagRecord.parse({ ...TAG_DEFAULTS, ...fromHash(h) }) : null;
  }

  async readTag(tagId: string): Promise<TagRecord | null> {
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    return owner ? this.readTagOf(owner, tagId) : null;
  }

  async patchTag(tagId: string, fields: TagFields): Promise<TagRecord | null> {
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    if (!owner) return null;
    if (Object.keys(fields).length > 0) {
      await this.io(async () => {
        // The hash stores each field as JSON (toHash): only the given fields are written.
        await this.client.hSet(keys.tag(owner, tagId), toHash(fields));
        await this.bumpAuth();
      });
    }
    return (await this.readTagOf(owner, tagId))!;
  }

  async deleteTag(tagId: string): Promise<boolean> {
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    if (!owner) return false;
    await this.io(async () => {
      await this.client.multi().del(keys.tag(owner, tagId)).sRem(keys.tags(owner), tagId).exec();
      // The owner index last: until then the id stays taken (a create of the same id meanwhile is a 409).
      await this.client.hDel(keys.tagOwner, tagId);
      await this.bumpAuth();
    });
    return true;
  }

  async listTags(customerId?: string): Promise<TagRecord[]> {
    const out: TagRecord[] = [];
    for (const c of customerId ? [customerId] : await this.customerIds()) {
      const ids = await this.io(() => this.client.sMembers(keys.tags(c)));
      out.push(...(await Promise.all(ids.map((id) => this.readTagOf(c, id)))).flatMap((t) => (t ? [t] : [])));
    }
    return out.sort((a, b) => (a.tag_id < b.tag_id ? -1 : a.tag_id > b.tag_id ? 1 : 0));
  }

  async getSetting(key: string): Promise<string | null> {
    return (await this.io(() => this.client.hGet(keys.settings, key))) ?? null;
  }

  async setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return (await this.io(() => this.client.hSetNX(keys.settings, key, value))) === 1;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.io(() => this.client.sCard(keys.customers))) === 0;
  }

  async *exportEntries(): AsyncIterable<StateEntry> {
    const customers = await this.listCustomers();
    for (const record of customers) yield { type: 'customer', record };
    for (const c of customers) for (const t of await this.tokensOf(c.id)) yield { type: 'token', record: t.record, secret_hash: t.secret_hash };
    for (const record of await this.listTags()) yield { type: 'tag', record };
    const settings = await this.io(() => this.client.hGetAll(keys.settings));
    for (const key of Object.keys(settings).sort()) yield { type: 'setting', key, value: settings[key] };
  }

  /** Writes one imported entry of the access records (false: not one of theirs); inside the import's io. */
  async importEntry(e: StateEntry): Promise<boolean> {
    const { client } = this;
    switch (e.type) {
      case 'customer':
        await client.hSet(keys.customer(e.record.id), toHash(e.record));
        await client.sAdd(keys.customers, e.record.id);
        return true;
      case 'token': {
        const r = e.record;
        await client
          .multi()
          .hSet(keys.token(r.customer_id, r.id), toHash({ ...r, last_used_at: null, secret_hash: e.secret_hash }))
          .sAdd(keys.tokens(r.customer_id), r.id)
          .exec();
        if (r.last_used_at) await client.hSet(keys.tokenUsed(r.customer_id), r.id, r.last_used_at);
        await client.hSet(keys.tokenOwner, r.id, r.customer_id);
        await client.set(keys.tokenHash(e.secret_hash), `${r.customer_id}/${r.id}`);
        return true;
      }
      case 'tag':
        await client
          .multi()
          .hSet(keys.tag(e.record.customer_id, e.record.tag_id), toHash(e.record))
          .sAdd(keys.tags(e.record.customer_id), e.record.tag_id)
          .exec();
        await client.hSet(keys.tagOwner, e.record.tag_id, e.record.customer_id);
        return true;
      case 'setting':
        await client.hSet(keys.settings, e.key, e.value);
        return true;
      default:
        return false;
    }
  }

  /** After an import's page: every node drops its cache. */
  imported(): Promise<void> {
    return this.bumpAuth();
  }
}

/** Tokens in creation order (then id), as SQLite lists them. */
function byCreation(a: TokenRecord, b: TokenRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
