/**
 * The webhook outbox: registered endpoints and the deliveries waiting for them. Durable (a restart loses
 * nothing) and shared by every node: a due delivery is leased to one node at a time, atomically, so with
 * several nodes each event is sent by one of them (and by another only if that node dies mid-send —
 * receivers dedupe on the event id).
 */
import type { DeliveryRecord, WebhookEvent, WebhookRecord } from '../webhooks/schema.ts';

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

export interface WebhookStore {
  createEndpoint(input: NewEndpoint): Promise<WebhookRecord>;
  listEndpoints(customerId: string): Promise<WebhookRecord[]>;
  getEndpoint(customerId: string, id: string): Promise<WebhookRecord | null>;
  /** Removes the endpoint and its undelivered events; false when there was none. */
  deleteEndpoint(customerId: string, id: string): Promise<boolean>;

  /** Adds deliveries due now; returns how many were new (duplicates by dedupe key are skipped). */
  enqueue(items: OutboxItem[], nowMs: number): Promise<number>;
  /** Leases up to `limit` due deliveries to `owner` until `nowMs + leaseMs`; a lease not released by then expires. */
  claimDue(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a delivery this owner holds (ignored when the lease was lost meanwhile). */
  recordAttempt(id: string, owner: string, result: AttemptResult): Promise<void>;
  /** The delivery log, newest first. */
  listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>;

  close(): Promise<void>;
}
