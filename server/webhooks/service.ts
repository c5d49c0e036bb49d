/**
 * Webhooks at run time: turns recorded page views into outbox entries, and delivers due entries —
 * signed, one POST each, retried on the policy's schedule. Every node runs a dispatcher; the outbox's
 * leases make each delivery one node's job. The clock and `fetch` are injected so tests drive the
 * backoff with a fake clock against a real receiver.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../http/logger.ts';
import { webhookDeliveriesDropped } from '../observability/metrics.ts';
import type { ClaimedDelivery, EnqueueResult, WebhookStore } from '../state/webhooks.ts';
import { plannedEvents, type PageViewForWebhooks } from './events.ts';
import { isDelivered, nextAttemptAt } from './retry-policy.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';

export interface WebhookServiceOptions {
  store: WebhookStore;
  log: Logger;
  now?: () => number;
  fetch?: typeof fetch;
  /** Per attempt; a receiver slower than this counts as failed and is retried. */
  timeoutMs?: number;
  /** Deliveries leased per tick. */
  batchSize?: number;
  /** A lease outlives the attempt's timeout, so a slow send is never taken over while still running. */
  leaseMs?: number;
  /** This node's name in leases. */
  owner?: string;
}

export const USER_AGENT = 'svc-webhooks/1.0';
/** Endpoints are re-read at most this often per customer on the page-view path. */
const ENDPOINT_CACHE_MS = 2_000;
/** A backlogged endpoint drops events on every page view: its warning is logged once a minute, not once a view. */
const DROP_WARNING_EVERY_MS = 60_000;

export class WebhookService {
  private readonly store: WebhookStore;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  readonly owner: string;
  private timer: NodeJS.Timeout | null = null;
  /** When a failed pass was last logged: an outbox outage is logged once a minute, not once a poll. */
  private lastPassErrorLoggedAt = -Infinity;
  private running: Promise<number> | null = null;
  /** When drops were last logged, by webhook id. */
  private readonly dropsLoggedAt = new Map<string, number>();
  private readonly endpoints = new Map<string, { at: number; list: Awaited<ReturnType<WebhookStore['listEndpoints']>> }>();

  constructor(opts: WebhookServiceOptions) {
    this.store = opts.store;
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.fetch = opts.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.batchSize = opts.batchSize ?? 20;
    this.leaseMs = opts.leaseMs ?? Math.max(60_000, this.timeoutMs * 2);
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  }

  /** Forgets cached endpoint lists (after a registration change on this node). */
  endpointsChanged(customerId: string): void {
    this.endpoints.delete(customerId);
  }

  /** Enqueues the events this page view raises for each of the customer's endpoints; returns how many were added. */
  async onPageView(view: PageViewForWebhooks): Promise<number> {
    if (!view.company_id) return 0;
    const endpoints = await this.endpointsOf(view.customer_id);
    const items = endpoints.flatMap((endpoint) =>
      plannedEvents(view, endpoint, newEventId).map(({ dedupe_key, event }) => ({ webhook_id: endpoint.id, customer_id: view.customer_id, dedupe_key, event })),
    );
    const result = await this.store.enqueue(items, this.now());
    if (result.dropped > 0) this.noteDropped(result);
    return result.added;
  }

  private noteDropped(result: EnqueueResult): void {
    webhookDeliveriesDropped.inc({ reason: 'endpoint_backlog' }, result.dropped);
    const now = this.now();
    for (const [webhookId, count] of Object.entries(result.droppedByEndpoint)) {
      const last = this.dropsLoggedAt.get(webhookId);
      if (last !== undefined && now - last < DROP_WARNING_EVERY_MS && now >= last) continue;
      this.dropsLoggedAt.set(webhookId, now);
      this.log.warn(`webhooks: dropped ${count} event(s) for ${webhookId}: it has as many deliveries pending as it may (is its receiver down?); logged at most once a minute, counted in svc_webhook_deliveries_dropped_total`);
    }
  }

  private async endpointsOf(customerId: string) {
    const cached = this.endpoints.get(customerId);
    if (cached && this.now() - cached.at < ENDPOINT_CACHE_MS && this.now() >= cached.at) return cached.list;
    const list = await this.store.listEndpoints(customerId);
    this.endpoints.set(customerId, { at: this.now(), list });
    return list;
  }

  /** One pass: lease what is due and attempt each; returns the number attempted. Never overlaps itself. */
  runDue(): Promise<number> {
    if (!this.running) {
      this.running = this.deliverDue().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private async deliverDue(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const batch = await this.store.claimDue(this.now(), this.batchSize, this.owner, this.leaseMs);
      if (batch.length === 0) return attempted;
      await Promise.all(batch.map((delivery) => this.attempt(delivery)));
      attempted += batch.length;
      if (batch.length < this.batchSize) return attempted;
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const sentAt = this.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await this.fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual', // a redirect is not a delivery: the receiver's URL should be the final one
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [SIGNATURE_HEADER]: signatureHeader(delivery.secret, delivery.body, Math.floor(sentAt / 1000)),
          [EVENT_ID_HEADER]: delivery.event_id,
          'Svc-Delivery-Attempt': String(delivery.attempts + 1),
        },
        body: delivery.body,
      });
      status = res.status;
      await res.body?.cancel().catch(() => {});
      if (!isDelivered(status)) error = `HTTP ${status}`;
    } catch (e) {
      error = (e as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : `${(e as Error).message}${(e as { cause?: Error }).cause ? `: ${(e as { cause: Error }).cause.message}` : ''}`;
    }
    const delivered = isDelivered(status);
    const attempts = delivery.attempts + 1;
    const next = delivered ? null : nextAttemptAt(attempts, this.now());
    try {
      await this.store.recordAttempt(delivery, this.owner, { atMs: this.now(), status, error: error?.slice(0, 500) ?? null, delivered, nextAttemptMs: next });
    } catch (e) {
      // The lease expires and the delivery is attempted again: at-least-once, receivers dedupe on the event id.
      this.log.error(`webhooks: could not record attempt of ${delivery.id}: ${(e as Error).message}`);
    }
    if (!delivered && next === null) this.log.error(`webhooks: gave up delivering event ${delivery.event_id} to ${delivery.webhook_id} after ${attempts} attempts (${error})`);
  }

  /** Polls the outbox every `intervalMs` until stopped. */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.runDue().catch((e: unknown) => {
        if (Date.now() - this.lastPassErrorLoggedAt < 60_000) return;
        this.lastPassErrorLoggedAt = Date.now();
        this.log.error(`webhooks: delivery pass failed (retrying every ${intervalMs} ms): ${(e as Error).message}`);
      });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops polling and waits for a pass under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }
}

function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}
