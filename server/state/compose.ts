/**
 * A whole state store (store.ts `StateStore`) composed of the concerns' services: the access records
 * (access/service.ts), metering and usage reports (metering/service.ts) and the state's export and import.
 * Each backend's store (sqlite/store.ts, redis/store.ts) builds the services over its adapters and adds
 * what is its own (its connection, close). Calls go straight on: no await or allocation is added here.
 */
import type { CustomerRecord, NewTag, NewToken, TagPatch, TagRecord, TagSettings, TokenRecord } from '../../core/access-records.ts';
import type { CustomerPatch, CustomerSeed, Segment } from '../../core/customer-records.ts';
import type { CreditPool, UsageRow } from '../../core/usage-records.ts';
import type { AccessService, ListState, SegmentState } from './access/service.ts';
import type { ChargeOutcome, ChargeRequest, CreditBalance, MeteringService, MeterResult, RateLimitHit, RateLimitRequest } from './metering/service.ts';
import type { StateStore } from './store.ts';
import type { StateEntry, StateTransfer } from './transfer/transfer.ts';

export abstract class ComposedStateStore implements StateStore {
  constructor(
    protected readonly access: AccessService,
    protected readonly metering: MeteringService,
    protected readonly transfer: StateTransfer,
  ) {}

  abstract close(): Promise<void>;

  hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]> {
    return this.metering.hitRateLimits(req);
  }
  charge(req: ChargeRequest): Promise<ChargeOutcome> {
    return this.metering.charge(req);
  }
  hitAndCharge(rate: RateLimitRequest, charge: ChargeRequest): Promise<MeterResult> {
    return this.metering.hitAndCharge(rate, charge);
  }
  usage(customerId: string): Promise<UsageRow[]> {
    return this.metering.usage(customerId);
  }
  balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance> {
    return this.metering.balance(customerId, pool, period, quota);
  }

  importCustomer(seed: CustomerSeed): Promise<CustomerRecord> {
    return this.access.importCustomer(seed);
  }
  createCustomer(seed: CustomerSeed): Promise<CustomerRecord> {
    return this.access.createCustomer(seed);
  }
  updateCustomer(id: string, patch: CustomerPatch): Promise<CustomerRecord> {
    return this.access.updateCustomer(id, patch);
  }
  changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord> {
    return this.access.changeSegments(id, change);
  }
  changeAccountLists(id: string, change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState): Promise<CustomerRecord> {
    return this.access.changeAccountLists(id, change);
  }
  getCustomer(id: string): Promise<CustomerRecord | null> {
    return this.access.getCustomer(id);
  }
  listCustomers(): Promise<CustomerRecord[]> {
    return this.access.listCustomers();
  }

  createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }> {
    return this.access.createToken(input);
  }
  authenticateToken(secret: string): Promise<TokenRecord | null> {
    return this.access.authenticateToken(secret);
  }
  getToken(id: string): Promise<TokenRecord | null> {
    return this.access.getToken(id);
  }
  listTokens(customerId?: string): Promise<TokenRecord[]> {
    return this.access.listTokens(customerId);
  }
  setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord> {
    return this.access.setTokenStatus(id, status);
  }
  rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }> {
    return this.access.rotateToken(id);
  }
  deleteToken(id: string): Promise<void> {
    return this.access.deleteToken(id);
  }

  createTag(input: NewTag): Promise<TagRecord> {
    return this.access.createTag(input);
  }
  getTag(tagId: string): Promise<TagRecord | null> {
    return this.access.getTag(tagId);
  }
  updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord> {
    return this.access.updateTagSettings(tagId, settings);
  }
  updateTag(tagId: string, patch: TagPatch): Promise<TagRecord> {
    return this.access.updateTag(tagId, patch);
  }
  listTags(customerId?: string): Promise<TagRecord[]> {
    return this.access.listTags(customerId);
  }
  deleteTag(tagId: string): Promise<void> {
    return this.access.deleteTag(tagId);
  }

  getSetting(key: string): Promise<string | null> {
    return this.access.getSetting(key);
  }
  setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return this.access.setSettingIfAbsent(key, value);
  }

  exportState(): AsyncIterable<StateEntry> {
    return this.transfer.exportState();
  }
  isEmpty(): Promise<boolean> {
    return this.transfer.isEmpty();
  }
  importState(entries: AsyncIterable<StateEntry> | Iterable<StateEntry>): Promise<number> {
    return this.transfer.importState(entries);
  }
}
