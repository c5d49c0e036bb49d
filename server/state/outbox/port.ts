/**
 * What the outbox service needs of a backend: storage only. Enqueue, claim, record and delete are each one
 * atomic step of the backend (an IMMEDIATE transaction, a Lua script); ids, times, the pending cap and the
 * checks before a step are the service's (service.ts).
 */
import type { DeliveryRecord, OutboxEndpoint } from '../../webhooks/schema.ts';
import type { WebhookEntry } from '../transfer/transfer.ts';
import type { AttemptRecord, ClaimedDelivery, ClaimLimits, EndpointChange, EnqueueResult, NewEndpoint, OutboxItem } from './store.ts';

/** An endpoint as the service hands it to storage: its id and creation time decided. */
export interface EndpointToStore extends NewEndpoint {
  id: string;
  created_at: string;
}

/** An item to enqueue with the id its delivery gets if stored. */
export interface DeliveryToStore extends OutboxItem {
  id: string;
}

/** One import's writer: batches in the file's order. */
export interface OutboxImportWriter {
  /** Entries the backend writes in one step (a transaction, a script). */
  batchSize: number;
  write(batch: WebhookEntry[]): Promise<void>;
}

export interface OutboxPort {
  createEndpoint(endpoint: EndpointToStore): Promise<OutboxEndpoint>;
  listEndpoints(customerId: string): Promise<OutboxEndpoint[]>;
  endpointSecret(customerId: string, id: string): Promise<string | null>;
  updateEndpoint(customerId: string, id: string, change: EndpointChange): Promise<OutboxEndpoint | null>;
  getEndpoint(customerId: string, id: string): Promise<OutboxEndpoint | null>;
  deleteEndpoint(customerId: string, id: string): Promise<boolean>;
  /** Stores what is new, under its cap and under `maxPending` per endpoint (WebhookStore.enqueue), in one step. */
  enqueue(items: DeliveryToStore[], nowMs: number, maxPending: number): Promise<EnqueueResult>;
  claimDue(nowMs: number, limit: number, owner: string, leaseMs: number, limits?: ClaimLimits): Promise<ClaimedDelivery[]>;
  /** Records the attempts in one step (WebhookStore.recordAttempts; recordAttempt is a list of one). */
  recordAttempts(attempts: readonly AttemptRecord[], owner: string): Promise<void>;
  oldestDueAt(nowMs: number): Promise<number | null>;
  listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>;
  exportEntries(): AsyncIterable<WebhookEntry>;
  isEmpty(): Promise<boolean>;
  importer(): OutboxImportWriter;
  close(): Promise<void>;
}
