/**
 * What the access service (service.ts) needs of a backend: storage only. Validation, ids, secrets, grants,
 * the auth cache and the refusals are the service's; an adapter decides nothing but what must be decided
 * atomically where the data is (an existing id, a tag of another customer, an optimistic change's race),
 * and then throws the refusal written once in rules.ts.
 */
import type { CustomerRecord, TagRecord, TokenRecord } from '../../../core/access-records.ts';
import type { CustomerPatch, CustomerSeed, Segment } from '../../../core/customer-records.ts';
import type { StateEntry } from '../transfer/transfer.ts';
import type { ListState, SegmentState } from './service.ts';

/** A tag's stored fields a change may set (TagPatch, parsed; JSON-valued ones whole). */
export type TagFields = Partial<Omit<TagRecord, 'tag_id' | 'customer_id' | 'created_at'>>;

export interface AccessPort {
  /**
   * Brings the auth cache up to date before a cached read. SQLite reads the version once per event-loop
   * turn; Redis keeps it current from pub/sub and polling (nothing to do here).
   */
  syncAuth(): void;

  /** Writes a customer and upserts its seed's tags; `insert` refuses an existing id (customerExists). */
  writeCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): Promise<CustomerRecord>;
  /** Sets the given fields (and the segment high-water mark); unknownCustomer for an unknown id. */
  updateCustomer(id: string, fields: Partial<CustomerPatch>): Promise<CustomerRecord>;
  /** `change` decides, atomically with the read; what it throws is rethrown and nothing is written. */
  changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord>;
  changeAccountLists(id: string, change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState): Promise<CustomerRecord>;
  /** The customer, frozen (it may be cached), or null. */
  readCustomer(id: string): Promise<CustomerRecord | null>;
  listCustomers(): Promise<CustomerRecord[]>;

  insertToken(record: TokenRecord, secretHash: string): Promise<void>;
  /** The active token whose secret has this hash, or null. */
  readActiveToken(secretHash: string): Promise<TokenRecord | null>;
  /** Records a use; the promise when the caller must wait for it (SQLite), undefined when it is written in the background (Redis). */
  touchToken(token: TokenRecord, at: string): Promise<unknown> | undefined;
  readToken(id: string): Promise<TokenRecord | null>;
  listTokens(customerId?: string): Promise<TokenRecord[]>;
  /** False for an unknown token (nothing written). */
  setTokenStatus(id: string, status: TokenRecord['status']): Promise<boolean>;
  rotateToken(id: string, secretHash: string, prefix: string, at: string): Promise<boolean>;
  deleteToken(id: string): Promise<boolean>;

  /** False when the id is taken (first writer wins across processes and nodes). */
  insertTag(record: TagRecord): Promise<boolean>;
  readTag(tagId: string): Promise<TagRecord | null>;
  /** Sets the given fields; the tag as stored after, or null for an unknown tag. */
  patchTag(tagId: string, fields: TagFields): Promise<TagRecord | null>;
  listTags(customerId?: string): Promise<TagRecord[]>;
  deleteTag(tagId: string): Promise<boolean>;

  getSetting(key: string): Promise<string | null>;
  setSettingIfAbsent(key: string, value: string): Promise<boolean>;

  /** Whether no customer is stored (an import goes only into such a store). */
  isEmpty(): Promise<boolean>;
  /** Customers, tokens (with their secret's hash), tags, settings: in that order. */
  exportEntries(): AsyncIterable<StateEntry>;
}
