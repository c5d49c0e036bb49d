/**
 * The webhook outbox: registered endpoints and the deliveries waiting for them. Durable (a restart loses
 * nothing) and shared by every node: a due delivery is leased to one node at a time, atomically, so with
 * several nodes each event is sent by one of them (and by another only if that node dies mid-send —
 * receivers dedupe on the event id).
 */
import { DeliveryRecord, type WebhookEvent, type WebhookRecord } from '../webhooks/schema.ts';

export interface NewEndpoint {
  customer_id: string;
  url: string;
  events: WebhookRecord['events'];
  hot_paths: string[];
  description: string;
  secret: string;
}

export interface OutboxItem {
  webhook_id: string;
  customer_id: string;
  /** The same key for the same endpoint is enqueued once (see webhooks/events.ts). */
  dedupe_key: string;
  event: WebhookEvent;
}

/** A delivery leased to this node: everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  webhook_id: string;
  url: string;
  secret: string;
  body: string;
  attempts: number;
}

export interface AttemptResult {
  atMs: number;
  status: number | null;
  error: string | null;
  delivered: boolean;
  /** When to try again; null with `delivered: false` gives the delivery up. */
  nextAttemptMs: number | null;
}

/**
 * Pending deliveries an endpoint may have before new events for it are dropped: a receiver that stays down
 * must not let visitors grow the outbox without bound (every node shares it).
 */
export const MAX_PENDING_PER_ENDPOINT = 10_000;

export interface WebhookStoreOptions {
  /** Defaults to `MAX_PENDING_PER_ENDPOINT`. */
  maxPendingPerEndpoint?: number;
}

export interface EnqueueResult {
  /** Deliveries stored (a duplicate by dedupe key is skipped: neither added nor dropped). */
  added: number;
  /** Deliveries not stored because their endpoint was at its pending cap. */
  dropped: number;
  /** `dropped` by webhook id (absent when none was dropped for it). */
  droppedByEndpoint: Record<string, number>;
}

export interface WebhookStore {
  createEndpoint(input: NewEndpoint): Promise<WebhookRecord>;
  listEndpoints(customerId: string): Promise<WebhookRecord[]>;
  getEndpoint(customerId: string, id: string): Promise<WebhookRecord | null>;
  /** Removes the endpoint and its undelivered events; false when there was none. */
  deleteEndpoint(customerId: string, id: string): Promise<boolean>;

  /**
   * Adds deliveries due now. Duplicates by dedupe key are skipped; an item whose endpoint already has
   * `maxPendingPerEndpoint` pending deliveries is dropped (counted in the result, not stored, and its dedupe
   * key stays free so a later event may be enqueued once the backlog drains).
   */
  enqueue(items: OutboxItem[], nowMs: number): Promise<EnqueueResult>;
  /** Leases up to `limit` due deliveries to `owner` until `nowMs + leaseMs`; a lease not released by then expires. */
  claimDue(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt of a delivery this owner holds (ignored when the lease was lost meanwhile). Takes the
   * endpoint too: a Redis script must be given every key it touches, and the endpoint names two of them.
   */
  recordAttempt(delivery: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, owner: string, result: AttemptResult): Promise<void>;
  /** The delivery log, newest first. */
  listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>;

  close(): Promise<void>;
}

/** A delivery as both backends store it: times in epoch milliseconds. */
export interface StoredDeliveryRow {
  id: unknown;
  event_id: unknown;
  webhook_id: unknown;
  customer_id: unknown;
  type: unknown;
  status: unknown;
  attempts: unknown;
  created_at: unknown;
  next_attempt_at: unknown;
  delivered_at: unknown;
  last_attempt_at: unknown;
  last_status: unknown;
  last_error: unknown;
}

const iso = (ms: unknown) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);

/** The delivery log entry of a stored delivery (a next attempt only while it is pending). */
export function deliveryRecord(row: StoredDeliveryRow): DeliveryRecord {
  return DeliveryRecord.parse({
    id: row.id,
    event_id: row.event_id,
    webhook_id: row.webhook_id,
    customer_id: row.customer_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    created_at: iso(row.created_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    delivered_at: iso(row.delivered_at),
    last_attempt_at: iso(row.last_attempt_at),
    last_status: row.last_status ?? null,
    last_error: row.last_error ?? null,
  });
}
