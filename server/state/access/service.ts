/**
 * Access records: who may call (customers, tokens, web tags) and small server settings. Every API
 * request reads these (cached per node; a change reaches every node within a second); only the admin
 * API and the CLI write them.
 */

import { type CustomerRecord, NewTag, NewToken, TagPatch, TagRecord, TagSettings, TokenRecord } from '../../../core/access-records.ts';
import { type AccountList, CustomerPatch, CustomerSeed, type HotAccount, type Segment } from '../../../core/customer-records.ts';
import { displayPrefix, generateSecret, hashSecret } from '../../auth/token-secret.ts';
import { AuthCache, deepFreeze, LAST_USED_RESOLUTION_MS } from './auth-cache.ts';
import type { AccessPort } from './port.ts';
import { checkTagGrant, checkTokenGrant, definedOnly, newTagId, newTokenId, refusal } from './rules.ts';

/** A customer's segments and the highest segment id it ever had (never reused). */
export interface SegmentState {
  segments: Segment[];
  segment_seq: number;
}

/** A customer's account lists: the fixed two (hot, excluded) and the named ones. */
export interface ListState {
  hot_accounts: HotAccount[];
  excluded_accounts: string[];
  account_lists: AccountList[];
}

export interface AccessRecords {
  /** Creates or replaces a customer and its web tags (tags of the seed are upserted, others kept). */
  importCustomer(seed: CustomerSeed): Promise<CustomerRecord>;
  /** Creates a customer (and the tags of the seed); an existing id is a StateError 409 and changes nothing. */
  createCustomer(seed: CustomerSeed): Promise<CustomerRecord>;
  /** Changes only the fields given; StateError 404 for an unknown id. */
  updateCustomer(id: string, patch: CustomerPatch): Promise<CustomerRecord>;
  /**
   * Changes a customer's segments in one atomic step (no concurrent change is lost, no id given twice):
   * `change` gets the current segments and high-water mark and returns the next ones; it may throw to
   * refuse (nothing changes). StateError 404 for an unknown customer.
   */
  changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord>;
  /**
   * Changes a customer's account lists in one atomic step (no concurrent change is lost): `change` gets the
   * current lists and the segments (read only: a list a segment uses may be refused deletion, and no
   * segment changes meanwhile) and returns the next lists; it may throw to refuse (nothing changes).
   * StateError 404 for an unknown customer.
   */
  changeAccountLists(id: string, change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState): Promise<CustomerRecord>;
  getCustomer(id: string): Promise<CustomerRecord | null>;
  listCustomers(): Promise<CustomerRecord[]>;

  createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }>;
  /** The active token whose secret this is, or null; records the use. */
  authenticateToken(secret: string): Promise<TokenRecord | null>;
  getToken(id: string): Promise<TokenRecord | null>;
  listTokens(customerId?: string): Promise<TokenRecord[]>;
  setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord>;
  rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }>;
  deleteToken(id: string): Promise<void>;

  createTag(input: NewTag): Promise<TagRecord>;
  getTag(tagId: string): Promise<TagRecord | null>;
  updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord>;
  /** Changes only the fields given; StateError 404 for an unknown tag. */
  updateTag(tagId: string, patch: TagPatch): Promise<TagRecord>;
  listTags(customerId?: string): Promise<TagRecord[]>;
  /** Removes the tag (its id answers as unknown from then on); StateError 404 for an unknown tag. */
  deleteTag(tagId: string): Promise<void>;

  /** Small server settings (e.g. the admin credential's hash). */
  getSetting(key: string): Promise<string | null>;
  /** Sets the value unless the key exists; true when this call set it (first writer wins across nodes). */
  setSettingIfAbsent(key: string, value: string): Promise<boolean>;
}

const now = () => new Date().toISOString();

/**
 * The access records over a backend's storage (port.ts): validation, ids and secrets, grants, the
 * refusals, and the per-node auth cache every API request reads (auth-cache.ts) — once for both backends.
 */
export class AccessService implements AccessRecords {
  constructor(
    private readonly port: AccessPort,
    /** Shared with the backend, which keeps its version current (auth-cache.ts). */
    private readonly auth: AuthCache,
  ) {}

  importCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    return this.port.writeCustomer(CustomerSeed.parse(input), 'upsert');
  }

  createCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    return this.port.writeCustomer(CustomerSeed.parse(input), 'insert');
  }

  updateCustomer(id: string, input: CustomerPatch): Promise<CustomerRecord> {
    return this.port.updateCustomer(id, definedOnly(CustomerPatch.parse(input)));
  }

  changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord> {
    return this.port.changeSegments(id, change);
  }

  changeAccountLists(id: string, change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState): Promise<CustomerRecord> {
    return this.port.changeAccountLists(id, change);
  }

  async getCustomer(id: string): Promise<CustomerRecord | null> {
    this.port.syncAuth();
    const cached = this.auth.customers.get(id);
    if (cached !== undefined) return cached;
    const version = this.auth.version;
    const record = await this.port.readCustomer(id);
    // A change that landed while this read was in flight must not be cached over.
    if (this.auth.version === version) AuthCache.put(this.auth.customers, id, record);
    return record;
  }

  listCustomers(): Promise<CustomerRecord[]> {
    return this.port.listCustomers();
  }

  async createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }> {
    const t = NewToken.parse(input);
    checkTokenGrant(await this.requireCustomer(t.customer_id), t);
    const secret = generateSecret();
    const record = TokenRecord.parse({
      ...t,
      id: newTokenId(),
      prefix: displayPrefix(secret),
      status: 'active',
      created_at: now(),
      last_used_at: null,
      rotated_at: null,
    });
    await this.port.insertToken(record, hashSecret(secret));
    return { record, secret };
  }

  async authenticateToken(secret: string): Promise<TokenRecord | null> {
    // Looked up by hash (through an index, or the cache keyed by it): never by the secret itself.
    const hash = hashSecret(secret);
    this.port.syncAuth();
    let token = this.auth.tokens.get(hash);
    if (token === undefined) {
      const version = this.auth.version;
      const found = await this.port.readActiveToken(hash);
      token = found ? deepFreeze(found) : null;
      if (this.auth.version === version) AuthCache.put(this.auth.tokens, hash, token);
    }
    if (token === null) return null;
    const at = new Date();
    if (token.last_used_at === null || at.getTime() - Date.parse(token.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // An indicator, not an auth change (no version bump): other processes keep their copy and write theirs within a minute.
      const written = this.port.touchToken(token, at.toISOString());
      if (written !== undefined) await written;
      token = AuthCache.put(this.auth.tokens, hash, Object.freeze({ ...token, last_used_at: at.toISOString() }));
    }
    return token;
  }

  getToken(id: string): Promise<TokenRecord | null> {
    return this.port.readToken(id);
  }

  listTokens(customerId?: string): Promise<TokenRecord[]> {
    return this.port.listTokens(customerId);
  }

  async setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord> {
    if (!(await this.port.setTokenStatus(id, status))) throw refusal.unknownToken(id);
    return (await this.getToken(id))!;
  }

  async rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }> {
    const secret = generateSecret();
    if (!(await this.port.rotateToken(id, hashSecret(secret), displayPrefix(secret), now()))) throw refusal.unknownToken(id);
    return { record: (await this.getToken(id))!, secret };
  }

  async deleteToken(id: string): Promise<void> {
    if (!(await this.port.deleteToken(id))) throw refusal.unknownToken(id);
  }

  async createTag(input: NewTag): Promise<TagRecord> {
    const t = NewTag.parse(input);
    checkTagGrant(await this.requireCustomer(t.customer_id));
    const record = TagRecord.parse({ ...t, tag_id: t.tag_id ?? newTagId(), created_at: now() });
    if (!(await this.port.insertTag(record))) throw refusal.tagExists(record.tag_id);
    return record;
  }

  async getTag(tagId: string): Promise<TagRecord | null> {
    this.port.syncAuth();
    const cached = this.auth.tags.get(tagId);
    if (cached !== undefined) return cached;
    const version = this.auth.version;
    const tag = await this.port.readTag(tagId);
    const frozen = tag ? deepFreeze(tag) : null;
    if (this.auth.version === version) AuthCache.put(this.auth.tags, tagId, frozen);
    return frozen;
  }

  updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord> {
    return this.patchTag(tagId, { settings: TagSettings.parse(settings) });
  }

  updateTag(tagId: string, input: TagPatch): Promise<TagRecord> {
    return this.patchTag(tagId, definedOnly(TagPatch.parse(input)));
  }

  private async patchTag(tagId: string, fields: Parameters<AccessPort['patchTag']>[1]): Promise<TagRecord> {
    const tag = await this.port.patchTag(tagId, fields);
    if (!tag) throw refusal.unknownTag(tagId);
    return tag;
  }

  listTags(customerId?: string): Promise<TagRecord[]> {
    return this.port.listTags(customerId);
  }

  async deleteTag(tagId: string): Promise<void> {
    if (!(await this.port.deleteTag(tagId))) throw refusal.unknownTag(tagId);
  }

  getSetting(key: string): Promise<string | null> {
    return this.port.getSetting(key);
  }

  setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return this.port.setSettingIfAbsent(key, value);
  }

  private async requireCustomer(id: string): Promise<CustomerRecord> {
    const customer = await this.getCustomer(id);
    if (!customer) throw refusal.unknownCustomer(id);
    return customer;
  }
}
