/**
 * The webhook outbox on Redis, for several nodes. Every key carries the hash tag `{wh}`, so each script
 * below touches one slot and works unchanged on Redis Cluster:
 *
 *   svc:{wh}:endpoints              hash  webhook id → endpoint JSON (with its customer and signing secret)
 *   svc:{wh}:deliveries             hash  delivery id → delivery JSON (status, attempts, lease, last answer …)
 *   svc:{wh}:due:<webhook id>       zset  pending delivery id → when it may next be claimed (next attempt or lease end)
 *   svc:{wh}:ready                  zset  webhook id → the earliest score in its due: zset (absent: nothing pending)
 *   svc:{wh}:dedupe                 zset  "<webhook id>|<dedupe key>" → enqueue time (pruned after 3 days)
 *   svc:{wh}:cap:<webhook id>|<cap> string  keys stored under an item's cap (account.hot per account and day), expires after 3 days
 *   svc:{wh}:pending:<webhook id>   zset  pending delivery id → creation time (its size is the endpoint's backlog)
 *   svc:{wh}:log:<webhook id>       zset  finished (delivered or failed) delivery id → creation time (newest 1,000 kept)
 *   svc:{wh}:due                    zset  legacy: every pending delivery, before due: was per endpoint; claims move it over
 *
 * The delivery log an admin reads is both zsets of the endpoint, merged. Pending deliveries stay out of
 * `log:` so that trimming it never walks a receiver's backlog: enqueue, claim and record do the same work
 * however many deliveries wait (a down receiver can pile up to the cap of pending, never more). A claim
 * reads `ready` for the endpoints with something due, oldest first, and skips an endpoint without room as
 * one entry: a hung receiver's 10,000 due deliveries are never walked past.
 * Enqueue, claim, record and delete are each ONE Lua script: a due delivery is leased to exactly one node.
 * A delivery keeps its dedupe key (`dedupe_key`; absent on those stored before), so an export can hand
 * it to an outbox where the delivery row is the key (SQLite). The scripts are in redis-scripts.ts, export
 * and import in redis-transfer.ts.
 */

import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import { type DeliveryRecord, OutboxEndpoint } from '../../webhooks/schema.ts';
import { StoreUnavailableError } from '../errors.ts';
import type { WebhookEntry } from '../transfer/transfer.ts';
import type { DeliveryToStore, EndpointToStore, OutboxImportWriter, OutboxPort } from './port.ts';
import {
  CLAIM,
  DELETE,
  ENQUEUE,
  LEGACY_MOVE,
  MOVE_LEGACY,
  RECORD,
  type StoredDelivery,
  type StoredEndpoint,
  UPDATE_ENDPOINT,
  webhookKeys,
} from './redis-scripts.ts';
import { exportOutboxKeys, outboxKeysEmpty, outboxKeysImporter } from './redis-transfer.ts';
import { WebhookService } from './service.ts';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type ClaimLimits,
  deliveryRecord,
  type EndpointChange,
  type EnqueueResult,
  settingsFields,
  type WebhookStoreOptions,
} from './store.ts';

export { webhookKeys } from './redis-scripts.ts';

const shas = new Map<string, string>();
const shaOf = (script: string): string => {
  let sha = shas.get(script);
  if (sha === undefined) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
};

/** Storage only (port.ts). */
export class RedisOutboxStorage implements OutboxPort {
  private closed = false;

  constructor(
    private readonly connection: RedisClientType,
    /** Whether the client is this store's own (opened from a URL): closed with it. */
    private readonly owned: boolean,
  ) {}

  /** The client while open: a closed outbox refuses, even while the shared client still serves the state store. */
  private get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the webhook outbox is closed');
    return this.connection;
  }

  async createEndpoint(input: EndpointToStore): Promise<OutboxEndpoint> {
    const stored: StoredEndpoint = input;
    await this.client.hSet(webhookKeys.endpoints, stored.id, JSON.stringify(stored));
    return endpoint(stored);
  }

  async listEndpoints(customerId: string): Promise<OutboxEndpoint[]> {
    const all = (await this.client.hVals(webhookKeys.endpoints)).map((raw) => JSON.parse(raw) as StoredEndpoint);
    return all
      .filter((e) => e.customer_id === customerId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
      .map(endpoint);
  }

  async endpointSecret(customerId: string, id: string): Promise<string | null> {
    const raw = await this.client.hGet(webhookKeys.endpoints, id);
    const stored = raw ? (JSON.parse(raw) as StoredEndpoint) : null;
    return stored && stored.customer_id === customerId ? stored.secret : null;
  }

  async updateEndpoint(customerId: string, id: string, change: EndpointChange): Promise<OutboxEndpoint | null> {
    const raw = await this.client.hGet(webhookKeys.endpoints, id);
    const stored = raw ? (JSON.parse(raw) as StoredEndpoint) : null;
    if (!stored || stored.customer_id !== customerId) return null;
    const next: StoredEndpoint = { ...stored, ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) };
    // Written only while the endpoint exists: a delete racing this edit is not undone by it.
    const written = await this.client.eval(UPDATE_ENDPOINT, { keys: [webhookKeys.endpoints], arguments: [id, JSON.stringify(next)] });
    return Number(written) === 1 ? endpoint(next) : null;
  }

  async getEndpoint(customerId: string, id: string): Promise<OutboxEndpoint | null> {
    const raw = await this.client.hGet(webhookKeys.endpoints, id);
    const stored = raw ? (JSON.parse(raw) as StoredEndpoint) : null;
    return stored && stored.customer_id === customerId ? endpoint(stored) : null;
  }

  async deleteEndpoint(customerId: string, id: string): Promise<boolean> {
    const removed = await this.client.eval(DELETE, {
      keys: [
        webhookKeys.endpoints,
        webhookKeys.deliveries,
        webhookKeys.ready,
        webhookKeys.legacyDue,
        webhookKeys.log(id),
        webhookKeys.pending(id),
        webhookKeys.due(id),
      ],
      arguments: [customerId, id],
    });
    return Number(removed) === 1;
  }

  async enqueue(items: DeliveryToStore[], nowMs: number, maxPending: number): Promise<EnqueueResult> {
    const payload = items.map((item) => {
      const record: StoredDelivery = {
        id: item.id,
        event_id: item.event.id,
        webhook_id: item.webhook_id,
        customer_id: item.customer_id,
        type: item.event.type,
        dedupe_key: item.dedupe_key,
        body: JSON.stringify(item.event),
        status: 'pending',
        attempts: 0,
        created_at: nowMs,
        next_attempt_at: nowMs,
        lease_owner: null,
        lease_until: 0,
        last_attempt_at: null,
        last_status: null,
        last_error: null,
        delivered_at: null,
      };
      return { id: record.id, webhook_id: item.webhook_id, dedupe_key: item.dedupe_key, cap_max: item.cap?.max ?? 0, record: JSON.stringify(record) };
    });
    const reply = await this.script(ENQUEUE, {
      keys: [
        webhookKeys.deliveries,
        webhookKeys.dedupe,
        webhookKeys.endpoints,
        webhookKeys.ready,
        ...items.flatMap((i) => [
          webhookKeys.pending(i.webhook_id),
          webhookKeys.due(i.webhook_id),
          i.cap ? webhookKeys.cap(i.webhook_id, i.cap.key) : webhookKeys.pending(i.webhook_id),
        ]),
      ],
      arguments: [String(nowMs), JSON.stringify(payload), String(maxPending)],
    });
    const { added, dropped, by_endpoint } = JSON.parse(reply as string) as { added: number; dropped: number; by_endpoint?: Record<string, number> };
    return { added, dropped, droppedByEndpoint: by_endpoint ?? {} };
  }

  async claimDue(nowMs: number, limit: number, owner: string, leaseMs: number, limits?: ClaimLimits): Promise<ClaimedDelivery[]> {
    const full = new Set(limits ? [...limits.inFlight].filter(([, n]) => n >= limits.perEndpoint).map(([webhookId]) => webhookId) : []);
    // Every endpoint with room gives at least one delivery, so `limit` of them past the full ones is enough.
    const readyRange = { LIMIT: { offset: 0, count: limit + full.size } };
    const [legacy, ready] = (await this.client
      .multi()
      .zRange(webhookKeys.legacyDue, 0, LEGACY_MOVE - 1)
      .zRangeByScore(webhookKeys.ready, '-inf', nowMs, readyRange)
      .exec()) as unknown as [string[], string[]];
    let candidates = ready;
    if (legacy.length > 0) {
      await this.moveLegacy(legacy);
      candidates = await this.client.zRangeByScore(webhookKeys.ready, '-inf', nowMs, readyRange);
    }
    const webhooks = candidates.filter((webhookId) => !full.has(webhookId)).slice(0, limit);
    if (webhooks.length === 0) return [];
    const rooms = webhooks.map((webhookId) => (limits ? limits.perEndpoint - (limits.inFlight.get(webhookId) ?? 0) : limit));
    const busy = webhooks.map((webhookId) => limits?.inFlight.get(webhookId) ?? 0);
    const rows = (await this.script(CLAIM, {
      keys: [webhookKeys.deliveries, webhookKeys.ready, webhookKeys.endpoints, ...webhooks.map((webhookId) => webhookKeys.due(webhookId))],
      arguments: [
        String(nowMs),
        owner,
        String(leaseMs),
        String(limit),
        JSON.stringify(webhooks),
        JSON.stringify(rooms),
        String(limits?.slackBatch ?? 0),
        JSON.stringify(busy),
      ],
    })) as string[];
    return rows.map((row) => JSON.parse(row) as ClaimedDelivery);
  }

  /** Moves legacy due entries to their endpoints' due: zsets (their endpoints read first: a script names its keys). */
  private async moveLegacy(ids: string[]): Promise<void> {
    const raws = await this.client.hmGet(webhookKeys.deliveries, ids);
    const entries = ids.map((id, i) => ({ id, webhook_id: raws[i] ? (JSON.parse(raws[i]!) as StoredDelivery).webhook_id : '' }));
    await this.client.eval(MOVE_LEGACY, {
      keys: [
        webhookKeys.deliveries,
        webhookKeys.legacyDue,
        webhookKeys.ready,
        webhookKeys.endpoints,
        ...entries.flatMap((e) => [webhookKeys.due(e.webhook_id), webhookKeys.pending(e.webhook_id)]),
      ],
      arguments: [JSON.stringify(entries)],
    });
  }

  async recordAttempts(attempts: readonly AttemptRecord[], owner: string): Promise<void> {
    await this.script(RECORD, {
      keys: [
        webhookKeys.deliveries,
        webhookKeys.ready,
        ...attempts.flatMap(({ delivery: { webhook_id } }) => [webhookKeys.due(webhook_id), webhookKeys.pending(webhook_id), webhookKeys.log(webhook_id)]),
      ],
      arguments: [
        owner,
        ...attempts.flatMap(({ delivery, result }) => [
          delivery.id,
          String(result.atMs),
          result.status === null ? '' : String(result.status),
          result.error ?? '',
          result.delivered ? '1' : '0',
          result.nextAttemptMs === null ? '' : String(result.nextAttemptMs),
          delivery.webhook_id,
        ]),
      ],
    });
  }

  /**
   * A script by its SHA (EVALSHA), its source sent only to a Redis that does not know it yet: EVAL sent the
   * whole source (1–3 KB) with every claim and record, and Redis hashed it each time.
   */
  private async script(source: string, call: { keys: string[]; arguments: string[] }): Promise<unknown> {
    try {
      return await this.client.evalSha(shaOf(source), call);
    } catch (e) {
      if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
      return this.client.eval(source, call);
    }
  }

  async oldestDueAt(nowMs: number): Promise<number | null> {
    // `ready` holds each endpoint's earliest due score (a leased delivery scores its lease's end).
    const first = await this.client.zRangeWithScores(webhookKeys.ready, 0, 0);
    return first.length > 0 && first[0].score <= nowMs ? first[0].score : null;
  }

  async listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    // One transaction: a delivery finishing between two reads would move from one zset to the other.
    const [pending, finished] = (await this.client
      .multi()
      .zRangeWithScores(webhookKeys.pending(webhookId), 0, limit - 1, { REV: true })
      .zRangeWithScores(webhookKeys.log(webhookId), 0, limit - 1, { REV: true })
      .exec()) as unknown as [Array<{ value: string; score: number }>, Array<{ value: string; score: number }>];
    const ids = [...new Map([...pending, ...finished].map((e) => [e.value, e])).values()]
      .sort((x, y) => y.score - x.score || (x.value < y.value ? 1 : x.value > y.value ? -1 : 0))
      .slice(0, limit)
      .map((e) => e.value);
    if (ids.length === 0) return [];
    const rows = await this.client.hmGet(webhookKeys.deliveries, ids);
    return rows
      .filter((raw): raw is string => typeof raw === 'string')
      .map((raw) => JSON.parse(raw) as StoredDelivery)
      .filter((d) => d.customer_id === customerId)
      .map((d) => deliveryRecord(d));
  }

  exportEntries(): AsyncIterable<WebhookEntry> {
    return exportOutboxKeys(this.client);
  }

  isEmpty(): Promise<boolean> {
    return outboxKeysEmpty(this.client);
  }

  importer(): OutboxImportWriter {
    return outboxKeysImporter(this.client);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.connection.close().catch(() => {});
  }
}

/** The webhook outbox on Redis: the service over this storage. */
export class RedisWebhookStore extends WebhookService {
  private constructor(connection: RedisClientType, owned: boolean, opts: WebhookStoreOptions) {
    super(new RedisOutboxStorage(connection, owned), opts);
  }

  /**
   * On the state store's client (what backend.ts passes), left open on close;
   * or on a client of its own from a URL (tests, tools), closed with the outbox.
   */
  static async open(source: string | RedisClientType, opts: WebhookStoreOptions = {}): Promise<RedisWebhookStore> {
    if (typeof source !== 'string') return new RedisWebhookStore(source, false, opts);
    const url = source;
    const client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000) },
    }) as RedisClientType;
    // Errors surface on the calls (the dispatcher retries on its next pass); this keeps them off the process.
    client.on('error', () => {});
    await client.connect();
    return new RedisWebhookStore(client, true, opts);
  }
}

function endpoint(stored: StoredEndpoint): OutboxEndpoint {
  return OutboxEndpoint.parse({
    id: stored.id,
    customer_id: stored.customer_id,
    url: stored.url,
    events: stored.events,
    hot_paths: stored.hot_paths,
    description: stored.description,
    secret_prefix: stored.secret.slice(0, 10),
    created_at: stored.created_at,
    ...settingsFields(stored.settings),
  });
}
