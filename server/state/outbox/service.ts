/**
 * The webhook outbox's service, once for both backends: ids and creation times, the pending cap per
 * endpoint, the checks before a step (a cap's key, nothing to do), the import's order of steps and its
 * refusal. Storage is an OutboxPort (port.ts): SQLite (sqlite.ts) or Redis (redis.ts), each enqueue,
 * claim, record and delete one atomic step there. The interface callers see is store.ts.
 */
import { randomBytes } from 'node:crypto';
import type { DeliveryRecord, OutboxEndpoint } from '../../webhooks/schema.ts';
import { importInPages } from '../transfer/import.ts';
import { WebhookEntry } from '../transfer/transfer.ts';
import type { OutboxPort } from './port.ts';
import {
  type AttemptRecord,
  type AttemptResult,
  type ClaimedDelivery,
  type ClaimLimits,
  checkCap,
  type EndpointChange,
  type EnqueueResult,
  MAX_PENDING_PER_ENDPOINT,
  type NewEndpoint,
  type OutboxItem,
  type WebhookStore,
  type WebhookStoreOptions,
} from './store.ts';

const newId = (prefix: 'wh_' | 'dl_') => `${prefix}${randomBytes(8).toString('hex')}`;

export class WebhookService implements WebhookStore {
  private readonly maxPending: number;

  constructor(
    protected readonly port: OutboxPort,
    options: WebhookStoreOptions = {},
  ) {
    this.maxPending = options.maxPendingPerEndpoint ?? MAX_PENDING_PER_ENDPOINT;
  }

  createEndpoint(input: NewEndpoint): Promise<OutboxEndpoint> {
    return this.port.createEndpoint({ ...input, id: newId('wh_'), created_at: new Date().toISOString() });
  }

  listEndpoints(customerId: string): Promise<OutboxEndpoint[]> {
    return this.port.listEndpoints(customerId);
  }

  endpointSecret(customerId: string, id: string): Promise<string | null> {
    return this.port.endpointSecret(customerId, id);
  }

  updateEndpoint(customerId: string, id: string, change: EndpointChange): Promise<OutboxEndpoint | null> {
    return this.port.updateEndpoint(customerId, id, change);
  }

  getEndpoint(customerId: string, id: string): Promise<OutboxEndpoint | null> {
    return this.port.getEndpoint(customerId, id);
  }

  deleteEndpoint(customerId: string, id: string): Promise<boolean> {
    return this.port.deleteEndpoint(customerId, id);
  }

  async enqueue(items: OutboxItem[], nowMs: number): Promise<EnqueueResult> {
    if (items.length === 0) return { added: 0, dropped: 0, droppedByEndpoint: {} };
    for (const item of items) checkCap(item);
    return this.port.enqueue(
      items.map((item) => ({ ...item, id: newId('dl_') })),
      nowMs,
      this.maxPending,
    );
  }

  async claimDue(nowMs: number, limit: number, owner: string, leaseMs: number, limits?: ClaimLimits): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return this.port.claimDue(nowMs, limit, owner, leaseMs, limits);
  }

  recordAttempt(delivery: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, owner: string, result: AttemptResult): Promise<void> {
    return this.port.recordAttempts([{ delivery, result }], owner);
  }

  async recordAttempts(attempts: readonly AttemptRecord[], owner: string): Promise<void> {
    if (attempts.length === 0) return;
    return this.port.recordAttempts(attempts, owner);
  }

  oldestDueAt(nowMs: number): Promise<number | null> {
    return this.port.oldestDueAt(nowMs);
  }

  listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    return this.port.listDeliveries(customerId, webhookId, limit);
  }

  exportEntries(): AsyncIterable<WebhookEntry> {
    return this.port.exportEntries();
  }

  isEmpty(): Promise<boolean> {
    return this.port.isEmpty();
  }

  importEntries(entries: AsyncIterable<WebhookEntry> | Iterable<WebhookEntry>): Promise<number> {
    const writer = this.port.importer();
    return importInPages(entries, {
      schema: WebhookEntry,
      isEmpty: () => this.port.isEmpty(),
      notEmpty: 'the target already holds webhook endpoints or deliveries: import into an empty state',
      write: (page) => writer.write(page),
      pageSize: writer.batchSize,
    });
  }

  close(): Promise<void> {
    return this.port.close();
  }
}
