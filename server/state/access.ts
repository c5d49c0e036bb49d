/**
 * Access records: who may call (customers, tokens, web tags) and small server settings. Every API
 * request reads these (cached per node; a change reaches every node within a second); only the admin
 * API and the CLI write them.
 */
import type { AccountList, CustomerPatch, CustomerSeed, HotAccount, Segment } from '../../core/customer-records.ts';
import type { CustomerRecord, NewTag, NewToken, TagPatch, TagRecord, TagSettings, TokenRecord } from './store.ts';

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
