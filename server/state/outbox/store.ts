/**
 * The webhook outbox as callers see it: registered endpoints and the deliveries waiting for them. Durable
 * (a restart loses nothing) and shared by every node: a due delivery is leased to one node at a time,
 * atomically, so with several nodes each event is sent by one of them (and by another only if that node
 * dies mid-send — receivers dedupe on the event id). The service over a backend is service.ts (SQLite:
 * sqlite.ts, Redis: redis.ts); one contract test for both (webhooks.contract.test.ts).
 */
import { DeliveryRecord, type EndpointSettings, type OutboxEndpoint, type OutboxFormat, type WebhookEvent } from '../../webhooks/schema.ts';
import type { EntryTransfer, WebhookEntry } from '../transfer/transfer.ts';

export interface NewEndpoint {
  customer_id: string;
  url: string;
  events: OutboxEndpoint['events'];
  hot_paths: string[];
  description: string;
  secret: string;
  /** Absent: the defaults (v1 payloads, no names, no scores). */
  settings?: EndpointSettings;
}

/** What PATCH …/webhooks/:id may change (the secret never: re-create the endpoint for a new one). */
export type EndpointChange = Partial<Pick<NewEndpoint, 'url' | 'events' | 'hot_paths' | 'description' | 'settings'>>;

export interface OutboxItem {
  webhook_id: string;
  customer_id: string;
  /** The same key for the same endpoint is enqueued once (see webhooks/events.ts). */
  dedupe_key: string;
  event: WebhookEvent;
  /**
   * At most `max` distinct dedupe keys of the endpoint share this cap (account.hot: paths per account and
   * day), counted in the store in the same step as the enqueue, so nodes racing still stop at `max`. `key`
   * is the dedupe key's start up to a `|` (SQLite counts the stored keys under it) and names a UTC day: it
   * counts for three days, as dedupe keys do. An item past its cap is neither added nor dropped.
   */
  cap?: { key: string; max: number };
}

/** The dedupe key `item` must have for its cap (see OutboxItem.cap); throws on a mismatch, a planner bug. */
export function checkCap(item: OutboxItem): void {
  if (item.cap && !item.dedupe_key.startsWith(`${item.cap.key}|`))
    throw new Error(`webhook outbox: dedupe key ${item.dedupe_key} is not under its cap key ${item.cap.key}`);
}

/** How a dispatcher limits a claim: deliveries per endpoint it may have in flight at once. */
export interface ClaimLimits {
  /** In flight per endpoint for this owner, those it already has included. */
  perEndpoint: number;
  /** What the owner has in flight now, by webhook id (a Slack message counts one, however many deliveries it covers). */
  inFlight: ReadonlyMap<string, number>;
  /**
   * Slack and Teams endpoints (settings `format: 'slack' | 'teams'`: BATCHED_FORMATS) are claimed as one batch: with nothing in flight for this
   * owner, up to `slackBatch` of their due deliveries at once, together taking ONE of the claim's `limit`
   * (they go out as one message); with anything in flight, none. Absent: claimed one by one as others.
   */
  slackBatch?: number;
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
  /** The endpoint's format (its settings): how the body is sent. */
  format: OutboxFormat;
}

/** One attempt's result with the delivery it was of (WebhookStore.recordAttempts). */
export interface AttemptRecord {
  delivery: Pick<ClaimedDelivery, 'id' | 'webhook_id'>;
  result: AttemptResult;
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

/** Dedupe keys name a UTC day, so after three days none of them can come again: kept that long, no longer. */
export const DEDUPE_KEEP_MS = 3 * 86_400_000;
/** Finished (delivered or failed) deliveries kept per endpoint for its delivery log; older ones are pruned. */
export const LOG_KEEP = 1_000;
/** SQLite also prunes finished deliveries older than this, however few its endpoint has. */
export const FINISHED_KEEP_MS = 30 * 86_400_000;

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

/** Moves endpoints, deliveries and recent dedupe keys (`svc state export/import`, transfer.ts WebhookEntry). */
export interface WebhookStore extends EntryTransfer<WebhookEntry> {
  createEndpoint(input: NewEndpoint): Promise<OutboxEndpoint>;
  listEndpoints(customerId: string): Promise<OutboxEndpoint[]>;
  /** The endpoint's signing secret (a test event is signed as deliveries are); null when there is no such endpoint. */
  endpointSecret(customerId: string, id: string): Promise<string | null>;
  /** Applies the change to the customer's endpoint; null when there is no such endpoint. */
  updateEndpoint(customerId: string, id: string, change: EndpointChange): Promise<OutboxEndpoint | null>;
  getEndpoint(customerId: string, id: string): Promise<OutboxEndpoint | null>;
  /** Removes the endpoint and every delivery of it (its log too); false when there was none. */
  deleteEndpoint(customerId: string, id: string): Promise<boolean>;

  /**
   * Adds deliveries due now. Duplicates by dedupe key are skipped; an item whose endpoint already has
   * `maxPendingPerEndpoint` pending deliveries is dropped (counted in the result, not stored, and its dedupe
   * key stays free so a later event may be enqueued once the backlog drains). An item whose endpoint is gone
   * (deleted after a node read its list) or that is past its `cap` is neither added nor dropped.
   */
  enqueue(items: OutboxItem[], nowMs: number): Promise<EnqueueResult>;
  /**
   * Leases up to `limit` due deliveries to `owner` until `nowMs + leaseMs`; a lease not released by then
   * expires. With `limits`, an endpoint gets at most its room (`perEndpoint` less what the owner has in
   * flight): the deliveries of an endpoint without room are passed over, not leased, so they neither wait
   * on this owner nor hold back other endpoints. A delivery whose endpoint is gone is never leased.
   */
  claimDue(nowMs: number, limit: number, owner: string, leaseMs: number, limits?: ClaimLimits): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt of a delivery this owner holds (ignored when the lease was lost meanwhile). Takes the
   * endpoint too: a Redis script must be given every key it touches, and the endpoint names two of them.
   */
  recordAttempt(delivery: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, owner: string, result: AttemptResult): Promise<void>;
  /**
   * Records several attempts, each as recordAttempt does, in one step of the backend (one transaction, one
   * script): a dispatcher records the attempts that end in the same event-loop turn together, so a fast
   * receiver costs one write per turn rather than one per delivery.
   */
  recordAttempts(attempts: readonly AttemptRecord[], owner: string): Promise<void>;
  /**
   * When the longest-waiting delivery that is due now and not leased became due (epoch ms), or null when
   * none waits: the dispatcher's health (svc_webhook_oldest_due_seconds), nonzero for long only if it stalls.
   */
  oldestDueAt(nowMs: number): Promise<number | null>;
  /** The delivery log, newest first. */
  listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>;

  close(): Promise<void>;
}

/**
 * The caps a dedupe key counts under, for an import that has only the keys: each start of it up to a `|`
 * whose last part names a UTC day (OutboxItem.cap: a cap key is such a start, and names a day).
 */
export function capKeysOf(dedupeKey: string): string[] {
  const caps: string[] = [];
  for (let bar = dedupeKey.indexOf('|'); bar !== -1; bar = dedupeKey.indexOf('|', bar + 1)) {
    const start = dedupeKey.slice(0, bar);
    if (/(^|\|)\d{4}-\d{2}-\d{2}$/.test(start)) caps.push(start);
  }
  return caps;
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
  /** The event's JSON body (both backends keep it until the delivery leaves the log). */
  body?: unknown;
}

/** The record's settings fields from stored settings (absent in endpoints stored before they existed: the defaults). */
export function settingsFields(
  settings: Partial<EndpointSettings> | undefined,
): Pick<OutboxEndpoint, 'event_versions' | 'segment_names' | 'scores' | 'format' | 'filters' | 'alert'> {
  return {
    event_versions: settings?.event_versions ?? {},
    segment_names: settings?.segment_names ?? false,
    scores: settings?.scores ?? false,
    format: settings?.format ?? 'json',
    filters: settings?.filters ?? {},
    ...(settings?.alert ? { alert: settings.alert } : {}),
  };
}

/** Whether a stored body is an alert's "send test" (its `alert.test`: AlertRoute), for the delivery log. */
export function isTestBody(body: unknown): boolean {
  if (typeof body !== 'string' || !body.includes('"test":true')) return false;
  try {
    return (JSON.parse(body) as { alert?: { test?: unknown } })?.alert?.test === true;
  } catch {
    return false;
  }
}

/** The stored format of an endpoint as a claim hands it on (anything unknown is sent as signed JSON). */
export const claimFormat = (format: unknown): OutboxFormat => (format === 'slack' || format === 'teams' || format === 'email' ? format : 'json');

/** The account a stored event body names (WebhookEvent `data.account.company_id`), or null. */
export function companyOfBody(body: unknown): string | null {
  if (typeof body !== 'string') return null;
  try {
    // Every account event (both versions) and segment.entered name the account; tag.installed names none.
    const id = (JSON.parse(body) as { data?: { account?: { company_id?: unknown } } })?.data?.account?.company_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
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
    company_id: companyOfBody(row.body),
    status: row.status,
    attempts: row.attempts,
    created_at: iso(row.created_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    delivered_at: iso(row.delivered_at),
    last_attempt_at: iso(row.last_attempt_at),
    last_status: row.last_status ?? null,
    last_error: row.last_error ?? null,
    ...(isTestBody(row.body) ? { test: true } : {}),
  });
}
