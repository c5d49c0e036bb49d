/**
 * Webhooks at run time: turns recorded page views into outbox entries, and delivers due entries —
 * signed, one POST each, retried on the policy's schedule. Every node runs a dispatcher; the outbox's
 * leases make each delivery one node's job. The clock and (for tests) `fetch` are injected so tests drive
 * the backoff with a fake clock against a real receiver.
 *
 * Deliveries flow, they do not go in batches: at most MAX_IN_FLIGHT attempts at once per node and
 * MAX_PER_ENDPOINT per endpoint; an attempt that ends frees its slot and the next due delivery is claimed
 * then, not when some batch is done. A claim takes only what can start at once (the outbox passes over an
 * endpoint without room), so one customer's hung receiver holds its own slots and nobody else's.
 *
 * Sending goes through destination.ts: public addresses only (unless `allowPrivate`), the address checked
 * is the address connected to, and the delivery log gets generic error text, never an address or a port.
 *
 * Slack endpoints (settings `format: 'slack'`) take Block Kit messages (./slack.ts), and Slack's incoming
 * webhooks take about one message a second per channel. So a Slack endpoint has one message in flight at
 * most, and the claim hands over ALL its due deliveries at once (up to SLACK_DIGEST_MAX): one account's
 * events become its message, several accounts' a digest, and the attempt's result is recorded on every
 * delivery the message covered (the delivery log shows each). After a message the endpoint rests
 * SLACK_MIN_INTERVAL_MS — per node: N nodes may send N messages a second, which Slack's short bursts
 * allow — and a 429 answer rests it (and retries what the message covered) until its Retry-After.
 *
 * Alerts (server/alerts/) are endpoints too (settings `alert`), planned per view by events.ts
 * plannedAlertEvents with the facts `alerts.facts` gathers (owner, stages reached, lists, previous visit
 * day) and delivered by this same dispatcher, so they are durable, leased, retried, logged and deduplicated
 * as every delivery is. Their formats: `slack` (./alert-messages.ts), `teams` (an Adaptive Card,
 * ./teams.ts: batched like Slack, resting TEAMS_MIN_INTERVAL_MS between messages, so ≤ 4 a second per
 * node), `email` (one mail per delivery through `alerts.sendMail`), `json` (the signed body). A delivery
 * whose route says `mail` (the owner, a fallback) is a mail whatever its endpoint's format. A recipient is
 * mailed about an account once a UTC day at most, across alerts and nodes (`alerts.claimMail`, a mark in
 * the state store); a mail held back by that, and every account a digest message covers beyond the first,
 * is counted in svc_alert_overflow_total and said in the delivery log — never dropped silently.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../observability/logger.ts';
import { alertOverflow, alertOwnerFallbacks, webhookDeliveriesDropped, webhookOldestDue } from '../observability/metrics.ts';
import type { ClaimedDelivery, EnqueueResult, WebhookStore } from '../state/outbox/store.ts';
import { type AlertBody, alertMail, alertSlackMessage, alertTeamsMessage, mayBeAlert, readBody } from './alert-messages.ts';
import { AttemptRecorder } from './attempt-recorder.ts';
import { deliveryErrorText, postDelivery } from './destination.ts';
import {
  type AlertFacts,
  type EnrichedFacts,
  needsEnrichment,
  type PageViewForWebhooks,
  type PlanningEndpoint,
  plannedEvents,
  tagInstalledEvent,
} from './events.ts';
import type { WebhookEvent } from './payloads.ts';
import { isDelivered, nextAttemptAt } from './retry-policy.ts';
import { BATCHED_FORMATS } from './schema.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from './signature.ts';
import { type SlackMessage, slackMessage } from './slack.ts';

export interface WebhookServiceOptions {
  store: WebhookStore;
  log: Logger;
  now?: () => number;
  /**
   * Sends with this instead of destination.ts's guarded client (tests that stub the network). The
   * public-address rule is destination.ts's: a `fetch` given here is not held to it.
   */
  fetch?: typeof fetch;
  /** Per attempt; a receiver slower than this counts as failed and is retried. */
  timeoutMs?: number;
  /** Attempts this node has in flight at most (MAX_IN_FLIGHT). */
  maxInFlight?: number;
  /** Attempts to one endpoint this node has in flight at most (MAX_PER_ENDPOINT). */
  maxPerEndpoint?: number;
  /** A lease outlives the attempt's timeout, so a slow send is never taken over while still running. */
  leaseMs?: number;
  /** This node's name in leases. */
  owner?: string;
  /** Deliver to loopback, private and internal addresses too (SVC_WEBHOOK_ALLOW_PRIVATE): tests, private deployments. */
  allowPrivate?: boolean;
  /**
   * Gathers what enriched payloads carry (./enrich.ts), called only for a customer with an endpoint that
   * needs it. Without it, enriched versions and segment.entered are not sent (a receiver parses the
   * version it chose, never another).
   */
  enrich?: (view: PageViewForWebhooks) => Promise<EnrichedFacts | undefined>;
  /** The server's public address (serverBaseUrl: SVC_PUBLIC_URL): Slack messages link to `<it>/console/#…`. */
  publicBaseUrl?: string;
  /** What alerts need beyond webhooks (server/alerts/ gives it, wired by serve.ts); without it alerts raise nothing. */
  alerts?: AlertDispatch;
}

/** An alert mail as the mailer sends it. */
export interface OutgoingMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface AlertDispatch {
  /** The facts alert planning reads for this view (events.ts AlertFacts); gathered once per view, for the customer's live alerts. */
  facts(view: PageViewForWebhooks, alerts: readonly PlanningEndpoint[]): Promise<AlertFacts>;
  /** Sends a mail (SMTP); null when no mail server is configured (SVC_SMTP_URL): mail deliveries then fail, logged. */
  sendMail: ((mail: OutgoingMail) => Promise<void>) | null;
  /**
   * Takes the day's mark of (recipient, account) for `holder` (a delivery id): true when it was free or is
   * the holder's already (a retry), false when another delivery took it — one atomic step across nodes.
   */
  claimMail(customerId: string, recipient: string, companyId: string, day: string, holder: string): Promise<boolean>;
}

export const USER_AGENT = 'svc-webhooks/1.0';
/** How much of a receiver's answer to a test event is shown. */
export const TEST_ANSWER_BYTES = 2048;

/** What a test event got (POST …/webhooks/:id/test). */
export interface TestDelivery {
  event: WebhookEvent;
  /** A Slack endpoint's: the Block Kit message posted (built from `event`). */
  slack?: SlackMessage;
  /** A 2xx answer within the timeout: what counts as delivered for real deliveries too. */
  delivered: boolean;
  status: number | null;
  body: string;
  error: string | null;
  duration_ms: number;
}
/** Endpoints are re-read at most this often per customer on the page-view path. */
const ENDPOINT_CACHE_MS = 2_000;
/** A due delivery waiting longer than this means the dispatchers do not keep up (or stall): logged, once a minute. */
export const OLDEST_DUE_WARN_MS = 60_000;
/** A backlogged endpoint drops events on every page view: its warning is logged once a minute, not once a view. */
const DROP_WARNING_EVERY_MS = 60_000;
/**
 * Attempts one node has in flight at most. 64 rather than 32: on Redis every claim and every turn's record is
 * a round trip redis-server fsyncs (deploy/redis.conf), so the node waits on them; twice the attempts per
 * round trip delivered 1.1–1.5× more a second on Redis in 3 of 4 interleaved pairs of `bench -- webhooks`
 * (same on SQLite). A receiver still gets at most MAX_PER_ENDPOINT of them.
 */
export const MAX_IN_FLIGHT = 64;
/** A receiver gets at most this many requests at once from one node, however long its backlog. */
export const MAX_PER_ENDPOINT = 4;
/** Deliveries one Slack message covers at most (a digest lists DIGEST_LINES accounts and counts the rest). */
export const SLACK_DIGEST_MAX = 50;
/** A Slack endpoint gets at most one message this often from one node (Slack: about one a second per channel). */
export const SLACK_MIN_INTERVAL_MS = 1_000;
/** A Teams endpoint gets at most one message this often from one node (≤ 4 a second: Teams throttles bursts). */
export const TEAMS_MIN_INTERVAL_MS = 250;
/** A Retry-After longer than this is not waited out in full: the delivery is tried again then. */
export const RETRY_AFTER_MAX_MS = 3_600_000;

/** Retry-After (seconds, or an HTTP date) as milliseconds from `nowMs`, or null when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  if (!value) return null;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - nowMs;
  if (!Number.isFinite(ms)) return null;
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms));
}

/** One attempt: a delivery (JSON), or the deliveries of one Slack endpoint sent as one message. */
type Attempt = readonly [ClaimedDelivery, ...ClaimedDelivery[]];

export class WebhookService {
  private readonly store: WebhookStore;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly fetch: typeof fetch | null;
  private readonly timeoutMs: number;
  private readonly maxInFlight: number;
  private readonly maxPerEndpoint: number;
  private readonly leaseMs: number;
  readonly owner: string;
  /** Whether receivers may be on loopback, private or internal addresses (registration checks this too). */
  readonly allowPrivate: boolean;
  private readonly enrich: WebhookServiceOptions['enrich'];
  private timer: NodeJS.Timeout | null = null;
  /** When a failed claim was last logged: an outbox outage is logged once a minute, not once a poll. */
  private lastClaimErrorLoggedAt = -Infinity;
  /** Attempts under way, by webhook id; their count is `inFlight`. */
  private readonly byEndpoint = new Map<string, number>();
  private inFlight = 0;
  private readonly attempts = new Set<Promise<void>>();
  /** Attempts started so far (runDue answers with the difference). */
  private started = 0;
  /** The claim under way (claims never overlap), and whether another is wanted once it is done. */
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  /** Endpoints whose attempt ended while the claim ran (it saw them still busy). */
  private readonly endedDuringClaim = new Set<string>();
  /**
   * What the last claim may have left due: all of it when it filled every free slot, else the deliveries of
   * the endpoints that had no room (passed over). An attempt that ends claims again only then; otherwise
   * the next poll looks (new entries, retries coming due).
   */
  private leftBehind: { all: boolean; endpoints: ReadonlySet<string> } = { all: false, endpoints: new Set() };
  private stopped = false;
  /** The oldest-due check under way (one at a time), and when its warning was last logged. */
  private backlogCheck: Promise<number | null> | null = null;
  private lastBacklogWarningAt = -Infinity;
  /** When drops were last logged, by webhook id. */
  private readonly dropsLoggedAt = new Map<string, number>();
  private readonly endpoints = new Map<string, { at: number; list: Awaited<ReturnType<WebhookStore['listEndpoints']>> }>();
  private readonly publicBaseUrl: string;
  private readonly alerts: AlertDispatch | null;
  /** Slack endpoints resting until then (epoch ms): one message a second, longer after a 429. */
  private readonly restingUntil = new Map<string, number>();
  /** Claims again when the first resting endpoint may send (a poll would too, later). */
  private restTimer: { timer: NodeJS.Timeout; at: number } | null = null;
  /** The claim asked for by attempts that ended in this event-loop turn (claimSoon). */
  private claimTimer: NodeJS.Immediate | null = null;
  /** Records attempt results, those of one event-loop turn in one outbox step. */
  private readonly recorder: AttemptRecorder;

  constructor(opts: WebhookServiceOptions) {
    this.store = opts.store;
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.fetch = opts.fetch ?? null;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
    this.maxPerEndpoint = opts.maxPerEndpoint ?? MAX_PER_ENDPOINT;
    this.leaseMs = opts.leaseMs ?? Math.max(60_000, this.timeoutMs * 2);
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.allowPrivate = opts.allowPrivate ?? false;
    this.enrich = opts.enrich;
    this.publicBaseUrl = opts.publicBaseUrl ?? 'http://localhost:8080';
    this.alerts = opts.alerts ?? null;
    this.recorder = new AttemptRecorder(this.store, this.owner);
  }

  /** Forgets cached endpoint lists (after a registration change on this node). */
  endpointsChanged(customerId: string): void {
    this.endpoints.delete(customerId);
  }

  /**
   * Enqueues the events this page view raises for each of the customer's endpoints; returns how many were
   * added. Enriched facts are gathered once per view, only when an endpoint needs them.
   */
  async onPageView(view: PageViewForWebhooks): Promise<number> {
    if (!view.company_id) return 0;
    const endpoints = await this.endpointsOf(view.customer_id);
    if (endpoints.length === 0) return 0;
    let planned = view;
    if (this.enrich && !view.enriched && endpoints.some(needsEnrichment)) planned = { ...view, enriched: await this.enrich(view) };
    const live = endpoints.filter((e) => e.alert && !e.alert.paused);
    const alertFacts = live.length > 0 && this.alerts && planned.enriched ? await this.alerts.facts(planned, live) : undefined;
    const items = endpoints.flatMap((endpoint) =>
      plannedEvents(planned, endpoint, newEventId, alertFacts).map(({ dedupe_key, cap, event }) => ({
        webhook_id: endpoint.id,
        customer_id: view.customer_id,
        dedupe_key,
        cap,
        event,
      })),
    );
    const result = await this.store.enqueue(items, this.now());
    if (result.dropped > 0) this.noteDropped(result);
    this.deliverSoon(result.added);
    return result.added;
  }

  /** Enqueues tag.installed for the customer's endpoints that subscribe to it (a tag's first sighting on an origin). */
  async onTagInstalled(sighting: { customer_id: string; tag_id: string; origin: string; at: string }): Promise<number> {
    const endpoints = (await this.endpointsOf(sighting.customer_id)).filter((e) => e.events.includes('tag.installed'));
    if (endpoints.length === 0) return 0;
    const items = endpoints.map((endpoint) => ({
      webhook_id: endpoint.id,
      customer_id: sighting.customer_id,
      // An origin evicted from the tag's bounded sightings and seen again is installed again (a day later at least).
      dedupe_key: `tag.installed|${sighting.tag_id}|${sighting.origin}|${sighting.at.slice(0, 10)}`,
      event: tagInstalledEvent(sighting, newEventId),
    }));
    const result = await this.store.enqueue(items, this.now());
    if (result.dropped > 0) this.noteDropped(result);
    this.deliverSoon(result.added);
    return result.added;
  }

  /**
   * New deliveries go out in the next event-loop turn, not at the next poll (up to SVC_WEBHOOK_POLL_MS
   * later), when this node delivers at all (started) and has a free slot; other nodes' polls see them too.
   */
  private deliverSoon(added: number): void {
    if (added > 0 && this.timer !== null && this.inFlight < this.maxInFlight) this.claimSoon();
  }

  private noteDropped(result: EnqueueResult): void {
    webhookDeliveriesDropped.inc({ reason: 'endpoint_backlog' }, result.dropped);
    const now = this.now();
    for (const [webhookId, count] of Object.entries(result.droppedByEndpoint)) {
      const last = this.dropsLoggedAt.get(webhookId);
      if (last !== undefined && now - last < DROP_WARNING_EVERY_MS && now >= last) continue;
      this.dropsLoggedAt.set(webhookId, now);
      this.log.warn(
        `webhooks: dropped ${count} event(s) for ${webhookId}: it has as many deliveries pending as it may (is its receiver down?); logged at most once a minute, counted in svc_webhook_deliveries_dropped_total`,
      );
    }
  }

  private async endpointsOf(customerId: string) {
    const cached = this.endpoints.get(customerId);
    if (cached && this.now() - cached.at < ENDPOINT_CACHE_MS && this.now() >= cached.at) return cached.list;
    const list = await this.store.listEndpoints(customerId);
    this.endpoints.set(customerId, { at: this.now(), list });
    return list;
  }

  /**
   * Delivers everything due now and waits until nothing is in flight: claims, starts, and claims again as
   * attempts end. Returns the number of attempts started meanwhile (those the poll or an ending attempt
   * started included). For tests and tools; a running server's poll does the same without waiting.
   */
  async runDue(): Promise<number> {
    const before = this.started;
    for (;;) {
      await this.claim();
      if (this.inFlight === 0) return this.started - before;
      await Promise.race(this.attempts);
    }
  }

  /** Claims for the free slots and starts what it got; a call while a claim runs asks for one more after it. */
  private claim(): Promise<void> {
    if (this.claiming) {
      this.claimAgain = true;
      return this.claiming;
    }
    // `.finally` is attached to the loop's promise, so it always runs after `claiming` is assigned: a claim
    // that ends without awaiting (no free slot) used to clear `claiming` synchronously, before the
    // assignment stored its already-settled promise — every later claim then joined that one and nothing
    // was claimed again until a restart (19 endpoints × 240 page views stalled after ~1,000 deliveries).
    this.claiming = this.claimLoop().finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  private async claimLoop(): Promise<void> {
    do {
      this.claimAgain = false;
      this.endedDuringClaim.clear();
      const free = this.maxInFlight - this.inFlight;
      if (free <= 0) {
        // Nothing was looked at: the first attempt to end claims again (due deliveries may be waiting).
        this.leftBehind = { all: true, endpoints: new Set() };
        return;
      }
      // A copy: attempts ending during the claim only free room, so the claim never takes more than fits.
      const inFlight = new Map(this.byEndpoint);
      // A resting Slack endpoint is passed over as a full one is (its deliveries stay due for after the rest).
      const now = this.now();
      for (const [webhookId, until] of this.restingUntil) {
        if (until <= now) this.restingUntil.delete(webhookId);
        else inFlight.set(webhookId, this.maxPerEndpoint);
      }
      const limits = { perEndpoint: this.maxPerEndpoint, inFlight, slackBatch: SLACK_DIGEST_MAX };
      const claimed = await this.store.claimDue(now, free, this.owner, this.leaseMs, limits);
      const attempts = attemptsOf(claimed);
      for (const attempt of attempts) {
        inFlight.set(attempt[0].webhook_id, (inFlight.get(attempt[0].webhook_id) ?? 0) + 1);
        this.startAttempt(attempt);
      }
      this.wakeAfterRest();
      this.leftBehind = {
        all: attempts.length >= free,
        endpoints: new Set([...inFlight].filter(([, n]) => n >= this.maxPerEndpoint).map(([webhookId]) => webhookId)),
      };
      if ([...this.endedDuringClaim].some((webhookId) => this.mayHaveLeftBehind(webhookId))) this.claimAgain = true;
    } while (this.claimAgain);
  }

  private startAttempt(deliveries: Attempt): void {
    const webhookId = deliveries[0].webhook_id;
    this.started++;
    this.inFlight++;
    this.byEndpoint.set(webhookId, (this.byEndpoint.get(webhookId) ?? 0) + 1);
    const attempt = this.attemptOf(deliveries).finally(() => {
      this.attempts.delete(attempt);
      this.inFlight--;
      const left = this.byEndpoint.get(webhookId)! - 1;
      if (left > 0) this.byEndpoint.set(webhookId, left);
      else this.byEndpoint.delete(webhookId);
      if (this.claiming) this.endedDuringClaim.add(webhookId);
      if (!this.stopped && this.mayHaveLeftBehind(webhookId)) this.claimSoon();
    });
    this.attempts.add(attempt);
  }

  /** How an attempt goes out: by its endpoint's format, a mail when its route says so. */
  private attemptOf(deliveries: Attempt): Promise<void> {
    const first = deliveries[0];
    if (first.format === 'teams' || (first.format === 'slack' && deliveries.some((d) => mayBeAlert(d.body) && readBody(d.body)?.route)))
      return this.attemptAlertChannel(deliveries);
    if (first.format === 'slack') return this.attemptSlack(deliveries);
    if (first.format === 'email' || (mayBeAlert(first.body) && readBody(first.body)?.route?.via === 'mail')) return this.attemptMail(first);
    return this.attempt(first);
  }

  /** Claims again once the first resting Slack endpoint may send (its due deliveries wait for that, not for a poll). */
  private wakeAfterRest(): void {
    if (this.stopped || this.restingUntil.size === 0) return;
    const at = Math.min(...this.restingUntil.values());
    if (this.restTimer && this.restTimer.at <= at) return;
    if (this.restTimer) clearTimeout(this.restTimer.timer);
    const timer = setTimeout(
      () => {
        this.restTimer = null;
        if (!this.stopped) this.claimLogged();
      },
      Math.max(0, at - this.now()),
    );
    timer.unref();
    this.restTimer = { timer, at };
  }

  /** Whether the node holds back messages to this Slack endpoint now, and until when (epoch ms); for tests. */
  restingUntilOf(webhookId: string): number | null {
    const until = this.restingUntil.get(webhookId);
    return until !== undefined && until > this.now() ? until : null;
  }

  private mayHaveLeftBehind(webhookId: string): boolean {
    return this.leftBehind.all || this.leftBehind.endpoints.has(webhookId);
  }

  /**
   * A claim in the next event-loop turn, for every attempt that ends in this one: with a fast receiver a
   * claim per ended attempt (one slot each) was a backend step per delivery.
   */
  private claimSoon(): void {
    this.claimTimer ??= setImmediate(() => {
      this.claimTimer = null;
      if (!this.stopped) this.claimLogged();
    });
  }

  /** A claim nobody awaits: its failure is logged (once a minute), and the next poll tries again. */
  private claimLogged(): void {
    this.claim().catch((e: unknown) => {
      if (Date.now() - this.lastClaimErrorLoggedAt < 60_000) return;
      this.lastClaimErrorLoggedAt = Date.now();
      this.log.error(`webhooks: claiming due deliveries failed (the next poll tries again): ${(e as Error).message}`);
    });
  }

  private async send(delivery: { url: string; body: string }, headers: Record<string, string>): Promise<{ status: number; retryAfter: string | null }> {
    if (this.fetch === null) {
      const answer = await postDelivery(delivery.url, { headers, body: delivery.body, timeoutMs: this.timeoutMs, allowPrivate: this.allowPrivate });
      return { status: answer.status, retryAfter: answer.retryAfter ?? null };
    }
    const res = await this.fetch(delivery.url, {
      method: 'POST',
      redirect: 'manual', // a redirect is not a delivery: the receiver's URL should be the final one
      signal: AbortSignal.timeout(this.timeoutMs),
      headers,
      body: delivery.body,
    });
    await res.body?.cancel().catch(() => {});
    return { status: res.status, retryAfter: res.headers.get('retry-after') };
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const sentAt = this.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const answer = await this.send(delivery, {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER]: signatureHeader(delivery.secret, delivery.body, Math.floor(sentAt / 1000)),
        [EVENT_ID_HEADER]: delivery.event_id,
        'Svc-Delivery-Attempt': String(delivery.attempts + 1),
        // An alert's "send test" says so, as the test events of the webhook API do.
        ...(mayBeAlert(delivery.body) && readBody(delivery.body)?.route?.test ? { 'Svc-Test-Event': 'true' } : {}),
      });
      status = answer.status;
      if (!isDelivered(status)) error = `HTTP ${status}`;
    } catch (e) {
      // The customer reads this in the delivery log: what went wrong, never where (addresses, ports).
      error = deliveryErrorText(e, this.timeoutMs);
    }
    const delivered = isDelivered(status);
    const attempts = delivery.attempts + 1;
    const next = delivered ? null : nextAttemptAt(attempts, this.now());
    // Not recorded: the lease expires and the delivery is attempted again (at-least-once, receivers dedupe on the event id).
    await this.record(delivery, { atMs: this.now(), status, error, delivered, next });
    if (!delivered && next === null)
      this.log.error(`webhooks: gave up delivering event ${delivery.event_id} to ${delivery.webhook_id} after ${attempts} attempts (${error})`);
  }

  /**
   * One Slack message for the deliveries of one Slack endpoint (./slack.ts: one account's message or a
   * digest), its result recorded on each of them. Slack needs no signature (the URL is the secret); the
   * endpoint then rests a second, or as long as a 429's Retry-After asks, and the deliveries a 429 covered
   * are tried again after it (each still within its own attempts).
   */
  private async attemptSlack(deliveries: Attempt): Promise<void> {
    const { webhook_id: webhookId, url } = deliveries[0];
    const sentAt = this.now();
    this.restingUntil.set(webhookId, sentAt + SLACK_MIN_INTERVAL_MS);
    const events = deliveries.flatMap((d) => {
      try {
        return [JSON.parse(d.body) as WebhookEvent];
      } catch {
        return [];
      }
    });
    const message = slackMessage(events, { publicBaseUrl: this.publicBaseUrl });
    let status: number | null = null;
    let error: string | null = null;
    let retryAfter: number | null = null;
    if (message === null) {
      // Nothing about an account (tag.installed, which a Slack endpoint cannot subscribe to): nothing to say.
      error = 'no message: a Slack endpoint is sent account events only';
    } else {
      try {
        const answer = await this.send({ url, body: JSON.stringify(message) }, { 'content-type': 'application/json', 'user-agent': USER_AGENT });
        status = answer.status;
        if (!isDelivered(status)) {
          retryAfter = status === 429 ? retryAfterMs(answer.retryAfter, this.now()) : null;
          error = retryAfter === null ? `HTTP ${status}` : `HTTP ${status} (rate limited: retry after ${Math.ceil(retryAfter / 1000)} s)`;
        }
      } catch (e) {
        error = deliveryErrorText(e, this.timeoutMs);
      }
    }
    const atMs = this.now();
    if (retryAfter !== null) this.restingUntil.set(webhookId, Math.max(sentAt + SLACK_MIN_INTERVAL_MS, atMs + retryAfter));
    const delivered = isDelivered(status);
    // Together: one step of the outbox for the message's deliveries.
    await Promise.all(
      deliveries.map(async (delivery) => {
        const attempts = delivery.attempts + 1;
        const policy = delivered || message === null ? null : nextAttemptAt(attempts, atMs);
        const next = policy !== null && retryAfter !== null ? atMs + retryAfter : policy;
        await this.record(delivery, { atMs, status, error, delivered, next });
        if (!delivered && next === null)
          this.log.error(`webhooks: gave up delivering event ${delivery.event_id} to ${webhookId} after ${attempts} attempts (${error})`);
      }),
    );
    this.wakeAfterRest();
  }

  /**
   * Records one attempt's result on a delivery (a failure to record is logged: the lease runs out and it is
   * tried again), with the other results of this event-loop turn: one outbox step for them all.
   */
  private async record(
    delivery: ClaimedDelivery,
    result: { atMs: number; status: number | null; error: string | null; delivered: boolean; next: number | null },
  ) {
    try {
      await this.recorder.record(delivery, {
        atMs: result.atMs,
        status: result.status,
        error: result.error?.slice(0, 500) ?? null,
        delivered: result.delivered,
        nextAttemptMs: result.next,
      });
    } catch (e) {
      this.log.error(`webhooks: could not record attempt of ${delivery.id}: ${(e as Error).message}`);
    }
  }

  /** A fallback of the owner routing is counted once, at its delivery's first attempt. */
  private countFallback(delivery: ClaimedDelivery, body: AlertBody | null): void {
    if (delivery.attempts === 0 && body?.route?.fallback) alertOwnerFallbacks.inc({ reason: body.route.fallback });
  }

  /**
   * One alert mail: to the route's addresses (the owner, the fallback) or the email endpoint's. A recipient
   * already mailed about the account today (by any alert, on any node) is left out and counted; a test is
   * always sent. SMTP failures are retried on the policy's schedule.
   */
  private async attemptMail(delivery: ClaimedDelivery): Promise<void> {
    const body = readBody(delivery.body);
    this.countFallback(delivery, body);
    const route = body?.route ?? null;
    const mail = body ? alertMail(body, { publicBaseUrl: this.publicBaseUrl }) : null;
    // The addresses are the route's, fixed when the delivery was planned (an email alert's, the owner's, the fallback's).
    const recipients = route?.to ?? [];
    let error: string | null = null;
    let delivered = false;
    let retry = false;
    if (!mail || !body || recipients.length === 0) error = 'no mail: the delivery names no account or no recipient';
    else if (!this.alerts?.sendMail) {
      error = 'no mail server: set SVC_SMTP_URL';
      retry = true;
    } else {
      try {
        const companyId = 'account' in body.event.data ? body.event.data.account.company_id : '';
        const day = 'day' in body.event.data ? body.event.data.day : new Date(this.now()).toISOString().slice(0, 10);
        const to: string[] = [];
        for (const r of recipients) {
          if (route?.test || (await this.alerts.claimMail(body.event.customer_id, r, companyId, day, delivery.id))) to.push(r);
        }
        const held = recipients.length - to.length;
        if (held > 0) alertOverflow.inc({ destination: 'email' }, held);
        if (to.length > 0) await this.alerts.sendMail({ to, ...mail });
        delivered = to.length > 0;
        if (held > 0)
          error = `${held} of ${recipients.length} recipient(s) not mailed: already mailed about this account today (at most one alert mail per person, account and day; counted in svc_alert_overflow_total)`;
      } catch (e) {
        error = `mail not sent: ${(e as Error).message.replace(/\s+/g, ' ').slice(0, 200)}`;
        retry = true;
      }
    }
    const atMs = this.now();
    const next = retry ? nextAttemptAt(delivery.attempts + 1, atMs) : null;
    await this.record(delivery, { atMs, status: null, error, delivered, next });
    if (!delivered && next === null && retry)
      this.log.error(`webhooks: gave up mailing alert ${delivery.event_id} of ${delivery.webhook_id} after ${delivery.attempts + 1} attempts (${error})`);
  }

  /**
   * An alert's channel message (Slack or Teams) for its due channel deliveries, one account's or a digest;
   * its mails (owner, fallback) sent one by one beside it. The endpoint rests between messages (Slack 1 s,
   * Teams 250 ms) and as long as a 429 asks; accounts a digest covers beyond the first are counted as overflow.
   */
  private async attemptAlertChannel(deliveries: Attempt): Promise<void> {
    const { webhook_id: webhookId, url, format } = deliveries[0];
    const sentAt = this.now();
    const interval = format === 'teams' ? TEAMS_MIN_INTERVAL_MS : SLACK_MIN_INTERVAL_MS;
    this.restingUntil.set(webhookId, sentAt + interval);
    const bodies = new Map<ClaimedDelivery, AlertBody | null>(deliveries.map((d) => [d, readBody(d.body)]));
    const mails = deliveries.filter((d) => bodies.get(d)?.route?.via === 'mail');
    const channel = deliveries.filter((d) => !mails.includes(d));
    for (const mail of mails) await this.attemptMail(mail);
    if (channel.length === 0) return;
    for (const d of channel) this.countFallback(d, bodies.get(d) ?? null);
    const readable = channel.map((d) => bodies.get(d)).filter((b): b is AlertBody => !!b);
    const ctx = { publicBaseUrl: this.publicBaseUrl };
    const message = format === 'teams' ? alertTeamsMessage(readable, ctx) : alertSlackMessage(readable, ctx);
    let status: number | null = null;
    let error: string | null = null;
    let retryAfter: number | null = null;
    if (message === null) error = 'no message: the deliveries name no account';
    else {
      try {
        const answer = await this.send({ url, body: JSON.stringify(message) }, { 'content-type': 'application/json', 'user-agent': USER_AGENT });
        status = answer.status;
        if (!isDelivered(status)) {
          retryAfter = status === 429 ? retryAfterMs(answer.retryAfter, this.now()) : null;
          error = retryAfter === null ? `HTTP ${status}` : `HTTP ${status} (rate limited: retry after ${Math.ceil(retryAfter / 1000)} s)`;
        }
      } catch (e) {
        error = deliveryErrorText(e, this.timeoutMs);
      }
    }
    const atMs = this.now();
    if (retryAfter !== null) this.restingUntil.set(webhookId, Math.max(sentAt + interval, atMs + retryAfter));
    const delivered = isDelivered(status);
    const accounts = new Set(readable.map((b) => ('account' in b.event.data ? b.event.data.account.company_id : '')));
    if (delivered && accounts.size > 1) alertOverflow.inc({ destination: format }, accounts.size - 1);
    const digestNote =
      delivered && accounts.size > 1 ? `sent in a digest of ${accounts.size} accounts (the destination's pace; counted in svc_alert_overflow_total)` : null;
    for (const delivery of channel) {
      const attempts = delivery.attempts + 1;
      const policy = delivered || message === null ? null : nextAttemptAt(attempts, atMs);
      const next = policy !== null && retryAfter !== null ? atMs + retryAfter : policy;
      await this.record(delivery, { atMs, status, error: error ?? digestNote, delivered, next });
      if (!delivered && next === null)
        this.log.error(`webhooks: gave up delivering alert ${delivery.event_id} to ${webhookId} after ${attempts} attempts (${error})`);
    }
    this.wakeAfterRest();
  }

  /**
   * Sends one event to one endpoint now, signed as a delivery is, outside the outbox (not retried, not in
   * the delivery log): the console's and the admin API's "send a test event". The answer says what the
   * receiver said (its first 2 KB); the error text is the delivery log's (never an address).
   */
  async sendTest(endpoint: { url: string; secret: string; format?: 'json' | 'slack' }, event: WebhookEvent): Promise<TestDelivery> {
    const started = this.now();
    let body = JSON.stringify(event);
    let headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader(endpoint.secret, body, Math.floor(started / 1000)),
      [EVENT_ID_HEADER]: event.id,
      'Svc-Delivery-Attempt': '1',
      'Svc-Test-Event': 'true',
    };
    let slack: SlackMessage | undefined;
    if (endpoint.format === 'slack') {
      // What a real delivery of this event would post to the channel.
      slack = slackMessage([event], { publicBaseUrl: this.publicBaseUrl }) ?? undefined;
      if (!slack) return { event, delivered: false, status: null, body: '', error: 'no message: a Slack endpoint is sent account events only', duration_ms: 0 };
      body = JSON.stringify(slack);
      headers = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
    }
    try {
      const answer =
        this.fetch === null
          ? await postDelivery(endpoint.url, { headers, body, timeoutMs: this.timeoutMs, allowPrivate: this.allowPrivate, readBody: TEST_ANSWER_BYTES })
          : await this.fetch(endpoint.url, { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs), headers, body }).then(
              async (r) => ({
                status: r.status,
                body: (await r.text()).slice(0, TEST_ANSWER_BYTES),
              }),
            );
      return {
        event,
        ...(slack ? { slack } : {}),
        delivered: isDelivered(answer.status),
        status: answer.status,
        body: answer.body ?? '',
        error: null,
        duration_ms: this.now() - started,
      };
    } catch (e) {
      return {
        event,
        ...(slack ? { slack } : {}),
        delivered: false,
        status: null,
        body: '',
        error: deliveryErrorText(e, this.timeoutMs),
        duration_ms: this.now() - started,
      };
    }
  }

  /** Polls the outbox every `intervalMs` until stopped (attempts that end claim in between, see leftBehind). */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => {
      this.claimLogged();
      void this.checkBacklog();
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * Reads the age of the oldest due delivery into svc_webhook_oldest_due_seconds, and logs when it passes
   * OLDEST_DUE_WARN_MS: a dispatcher that stopped claiming is seen, not silent. Returns the age (ms).
   */
  checkBacklog(): Promise<number | null> {
    // One read at a time: a poll that comes while one runs joins it.
    this.backlogCheck ??= this.readBacklog().finally(() => {
      this.backlogCheck = null;
    });
    return this.backlogCheck;
  }

  private async readBacklog(): Promise<number | null> {
    try {
      const now = this.now();
      const at = await this.store.oldestDueAt(now);
      const age = at === null ? 0 : Math.max(0, now - at);
      webhookOldestDue.set(age / 1000);
      if (age > OLDEST_DUE_WARN_MS && (now - this.lastBacklogWarningAt >= 60_000 || now < this.lastBacklogWarningAt)) {
        this.lastBacklogWarningAt = now;
        this.log.warn(
          `webhooks: the oldest due delivery has waited ${Math.round(age / 1000)} s (this node has ${this.inFlight} of ${this.maxInFlight} attempts in flight); svc_webhook_oldest_due_seconds shows it, logged at most once a minute`,
        );
      }
      return age;
    } catch {
      return null; // an outbox outage is the claim's to log
    }
  }

  /** Stops polling and waits for the claim and the attempts under way (each ends within the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.restTimer) clearTimeout(this.restTimer.timer);
    this.restTimer = null;
    if (this.claimTimer) clearImmediate(this.claimTimer);
    this.claimTimer = null;
    await this.claiming?.catch(() => {});
    await this.backlogCheck;
    await Promise.all(this.attempts);
  }
}

/** The claimed deliveries as attempts: each JSON or email delivery its own, each Slack or Teams endpoint's deliveries one. */
function attemptsOf(claimed: readonly ClaimedDelivery[]): Attempt[] {
  const attempts: Attempt[] = [];
  const slack = new Map<string, ClaimedDelivery[]>();
  for (const delivery of claimed) {
    if (!BATCHED_FORMATS.includes(delivery.format)) attempts.push([delivery]);
    else {
      const batch = slack.get(delivery.webhook_id);
      if (batch) batch.push(delivery);
      else {
        const started: [ClaimedDelivery] = [delivery];
        slack.set(delivery.webhook_id, started);
        attempts.push(started);
      }
    }
  }
  return attempts;
}

function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}
