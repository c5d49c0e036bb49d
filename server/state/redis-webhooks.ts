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
 * it to an outbox where the delivery row is the key (SQLite).
 */

import { randomBytes } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import { type DeliveryRecord, EndpointSettings, WebhookRecord } from '../webhooks/schema.ts';
import { StateError, StoreUnavailableError } from './errors.ts';
import { clientForKey } from './redis-connection.ts';
import { WebhookEntry } from './transfer.ts';
import {
  type AttemptResult,
  type ClaimedDelivery,
  type ClaimLimits,
  capKeysOf,
  checkCap,
  DEDUPE_KEEP_MS,
  deliveryRecord,
  type EndpointChange,
  type EnqueueResult,
  LOG_KEEP,
  MAX_PENDING_PER_ENDPOINT,
  type NewEndpoint,
  type OutboxItem,
  settingsFields,
  type WebhookStore,
  type WebhookStoreOptions,
} from './webhooks.ts';

export const webhookKeys = {
  endpoints: 'svc:{wh}:endpoints',
  deliveries: 'svc:{wh}:deliveries',
  due: (webhookId: string) => `svc:{wh}:due:${webhookId}`,
  ready: 'svc:{wh}:ready',
  legacyDue: 'svc:{wh}:due',
  dedupe: 'svc:{wh}:dedupe',
  cap: (webhookId: string, capKey: string) => `svc:{wh}:cap:${webhookId}|${capKey}`,
  pending: (webhookId: string) => `svc:{wh}:pending:${webhookId}`,
  log: (webhookId: string) => `svc:{wh}:log:${webhookId}`,
} as const;

/**
 * Expired dedupe keys removed per enqueue, on top of one per item: never fewer than the enqueue adds, so
 * the expired ones cannot pile up, and never a sweep of a whole quiet period's worth in one script.
 */
const DEDUPE_PRUNE = 64;
/** Log entries trimmed per finished delivery: one normally; more only while catching up (see RECORD). */
const LOG_TRIM = 16;
/** Legacy due entries moved per claim (while a node of the previous version may still add some). */
const LEGACY_MOVE = 100;

/** After its due: zset changed: the endpoint's entry in `ready` is its earliest score, or none. */
const SET_READY = `
local function set_ready(ready, due, webhook_id)
  local first = redis.call('ZRANGE', due, 0, 0, 'WITHSCORES')
  if first[1] then redis.call('ZADD', ready, first[2], webhook_id) else redis.call('ZREM', ready, webhook_id) end
end
`;

// KEYS: deliveries, dedupe, endpoints, ready, then per item: its pending:, due: and cap: keys (cap: is the
// pending: key again for an item without a cap; it is not touched then).
const ENQUEUE = `
local now = tonumber(ARGV[1])
local items = cjson.decode(ARGV[2])
local cap = tonumber(ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - ${DEDUPE_KEEP_MS}, 'LIMIT', 0, #items + ${DEDUPE_PRUNE})
if #expired > 0 then redis.call('ZREM', KEYS[2], unpack(expired)) end
local added = 0
local dropped = 0
local by_endpoint = {}
for i, it in ipairs(items) do
  local pending, due, capped = KEYS[2 + 3 * i], KEYS[3 + 3 * i], KEYS[4 + 3 * i]
  local member = it.webhook_id .. '|' .. it.dedupe_key
  if redis.call('HEXISTS', KEYS[3], it.webhook_id) == 0 then
    -- its endpoint was deleted after this node read the list: nothing would ever send it
  elseif redis.call('ZSCORE', KEYS[2], member) then
    -- a duplicate: already stored once
  elseif it.cap_max > 0 and tonumber(redis.call('GET', capped) or '0') >= it.cap_max then
    -- past its cap: not a new event
  elseif redis.call('ZCARD', pending) >= cap then
    dropped = dropped + 1
    by_endpoint[it.webhook_id] = (by_endpoint[it.webhook_id] or 0) + 1
  else
    redis.call('ZADD', KEYS[2], now, member)
    redis.call('HSET', KEYS[1], it.id, it.record)
    redis.call('ZADD', due, now, it.id)
    redis.call('ZADD', KEYS[4], 'LT', now, it.webhook_id)
    redis.call('ZADD', pending, now, it.id)
    if it.cap_max > 0 then
      redis.call('INCR', capped)
      redis.call('PEXPIRE', capped, ${DEDUPE_KEEP_MS})
    end
    added = added + 1
  end
end
if dropped == 0 then return cjson.encode({ added = added, dropped = 0 }) end
return cjson.encode({ added = added, dropped = dropped, by_endpoint = by_endpoint })
`;

// KEYS: deliveries, ready, endpoints, then the due: zset of each endpoint in ARGV[5] (webhook ids, in the
// order to serve them), each taking up to its room in ARGV[6] and all together up to ARGV[4]. A Slack
// endpoint (settings.format 'slack') with ARGV[7] > 0 takes up to ARGV[7] deliveries as one batch, which
// counts one against ARGV[4], and none while ARGV[8] says the owner has one in flight for it. Every entry
// is checked against its delivery before it is leased: one that finished, or that a node of the previous
// version rescheduled, is dropped or moved instead.
const CLAIM = `${SET_READY}
local now = tonumber(ARGV[1])
local lease_until = now + tonumber(ARGV[3])
local left = tonumber(ARGV[4])
local webhooks = cjson.decode(ARGV[5])
local rooms = cjson.decode(ARGV[6])
local slack_batch = tonumber(ARGV[7])
local busy = cjson.decode(ARGV[8])
local out = {}
for i, webhook_id in ipairs(webhooks) do
  if left <= 0 then break end
  local due = KEYS[3 + i]
  local ep = redis.call('HGET', KEYS[3], webhook_id)
  if not ep then
    redis.call('DEL', due)
    redis.call('ZREM', KEYS[2], webhook_id)
  else
    local e = cjson.decode(ep)
    local format = 'json'
    if type(e.settings) == 'table' and e.settings.format == 'slack' then format = 'slack' end
    local batched = format == 'slack' and slack_batch > 0
    local take = math.min(rooms[i], left)
    if batched then
      if busy[i] > 0 then take = 0 else take = slack_batch end
    end
    local leased = 0
    if take > 0 then
      for _, id in ipairs(redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, take)) do
        local raw = redis.call('HGET', KEYS[1], id)
        local d = raw and cjson.decode(raw)
        if not d or d.status ~= 'pending' or d.webhook_id ~= webhook_id then
          redis.call('ZREM', due, id)
        elseif type(d.next_attempt_at) == 'number' and d.next_attempt_at > now then
          redis.call('ZADD', due, d.next_attempt_at, id)
        else
          d.lease_owner = ARGV[2]
          d.lease_until = lease_until
          redis.call('HSET', KEYS[1], id, cjson.encode(d))
          redis.call('ZADD', due, lease_until, id)
          table.insert(out, cjson.encode({ id = id, event_id = d.event_id, webhook_id = d.webhook_id, url = e.url, secret = e.secret, body = d.body, attempts = d.attempts, format = format }))
          leased = leased + 1
          if not batched then left = left - 1 end
        end
      end
    end
    if batched and leased > 0 then left = left - 1 end
    set_ready(KEYS[2], due, webhook_id)
  end
end
return out
`;

// Moves legacy due entries (ARGV[1]: [{id, webhook_id}], as read before the script) to their endpoint's
// due: zset with the same score. KEYS: deliveries, legacy due, ready, endpoints, then per entry its due:
// and pending: keys. An entry of a deleted endpoint is removed with its delivery.
const MOVE_LEGACY = `
for i, entry in ipairs(cjson.decode(ARGV[1])) do
  local due, pending = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
  local score = redis.call('ZSCORE', KEYS[2], entry.id)
  local raw = score and redis.call('HGET', KEYS[1], entry.id)
  local d = raw and cjson.decode(raw)
  if d and d.webhook_id == entry.webhook_id then
    if redis.call('HEXISTS', KEYS[4], d.webhook_id) == 0 then
      redis.call('HDEL', KEYS[1], entry.id)
      redis.call('ZREM', pending, entry.id)
    elseif d.status == 'pending' then
      redis.call('ZADD', due, score, entry.id)
      redis.call('ZADD', KEYS[3], 'LT', score, d.webhook_id)
    end
  end
  if score and (not d or d.webhook_id == entry.webhook_id) then redis.call('ZREM', KEYS[2], entry.id) end
end
return 1
`;

// A finished delivery moves from pending: to log:, and the log's oldest entries past LOG_KEEP go. An entry
// found pending there was logged before pending deliveries had a zset of their own: it moves over instead
// of being dropped, so the trim also migrates such a log, LOG_TRIM entries per finished delivery.
// KEYS: deliveries, due:, pending:, log:, ready.
const RECORD = `${SET_READY}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local d = cjson.decode(raw)
if d.status ~= 'pending' or d.lease_owner ~= ARGV[2] or d.webhook_id ~= ARGV[8] then return 0 end
d.attempts = d.attempts + 1
d.last_attempt_at = tonumber(ARGV[3])
if ARGV[4] == '' then d.last_status = cjson.null else d.last_status = tonumber(ARGV[4]) end
if ARGV[5] == '' then d.last_error = cjson.null else d.last_error = ARGV[5] end
d.lease_owner = cjson.null
d.lease_until = 0
if ARGV[6] == '1' then
  d.status = 'delivered'
  d.delivered_at = d.last_attempt_at
  d.next_attempt_at = cjson.null
elseif ARGV[7] == '' then
  d.status = 'failed'
  d.next_attempt_at = cjson.null
else
  d.next_attempt_at = tonumber(ARGV[7])
  redis.call('ZADD', KEYS[2], d.next_attempt_at, ARGV[1])
  set_ready(KEYS[5], KEYS[2], ARGV[8])
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(d))
  return 1
end
redis.call('ZREM', KEYS[2], ARGV[1])
set_ready(KEYS[5], KEYS[2], ARGV[8])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[4], d.created_at, ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(d))
local over = redis.call('ZCARD', KEYS[4]) - ${LOG_KEEP}
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[4], 0, math.min(over, ${LOG_TRIM}) - 1)) do
    local rec = redis.call('HGET', KEYS[1], old)
    local o = rec and cjson.decode(rec)
    if o and o.status == 'pending' then
      redis.call('ZADD', KEYS[3], o.created_at, old)
    else
      redis.call('HDEL', KEYS[1], old)
    end
    redis.call('ZREM', KEYS[4], old)
  end
end
return 1
`;

// Removes the endpoint and every delivery of it: its backlog (at most the cap) and its log (at most
// LOG_KEEP once trimmed, pending entries of an old log included). A rare admin action, bounded either way;
// nothing else would ever prune the log of an endpoint that finishes no delivery again.
// KEYS: endpoints, deliveries, ready, legacy due, log:, pending:, due:.
const DELETE = `
local raw = redis.call('HGET', KEYS[1], ARGV[2])
if (not raw) or cjson.decode(raw).customer_id ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2])
for _, zset in ipairs({ KEYS[6], KEYS[5] }) do
  for _, id in ipairs(redis.call('ZRANGE', zset, 0, -1)) do
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[4], id)
  end
end
redis.call('DEL', KEYS[5], KEYS[6], KEYS[7])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
`;

/** Entries an import sends in one script (one round trip each, not one per entry). */
const IMPORT_BATCH = 200;

// Imported deliveries (ARGV[1]: [{id, webhook_id, record, pending, created_at, next}]), indexed as enqueue
// and record leave them: a pending one in due:, pending: and ready, a finished one in log:. KEYS:
// deliveries, ready, then per item its due:, pending: and log: keys.
const IMPORT_DELIVERIES = `
for i, it in ipairs(cjson.decode(ARGV[1])) do
  local due, pending, log = KEYS[3 * i], KEYS[1 + 3 * i], KEYS[2 + 3 * i]
  redis.call('HSET', KEYS[1], it.id, it.record)
  if it.pending then
    redis.call('ZADD', due, it.next, it.id)
    redis.call('ZADD', KEYS[2], 'LT', it.next, it.webhook_id)
    redis.call('ZADD', pending, it.created_at, it.id)
  else
    redis.call('ZADD', log, it.created_at, it.id)
  end
end
return 1
`;

// Imported dedupe keys (ARGV[2]: [{member, at, caps}]): each stored once, and a key stored now counts
// under its cap keys (the next `caps` of KEYS), which expire as ENQUEUE's do, three days after the
// latest key counted. ARGV[1]: now. KEYS: dedupe, then each item's cap keys in turn.
const IMPORT_DEDUPE = `
local now = tonumber(ARGV[1])
local k = 2
for _, it in ipairs(cjson.decode(ARGV[2])) do
  local added = redis.call('ZADD', KEYS[1], 'NX', it.at, it.member)
  for _ = 1, it.caps do
    if added == 1 then
      redis.call('INCR', KEYS[k])
      local ttl = redis.call('PTTL', KEYS[k])
      local until_ms = it.at + ${DEDUPE_KEEP_MS}
      -- Formatted: Lua would print a number this large in exponent notation, which Redis refuses.
      if ttl < 0 or now + ttl < until_ms then redis.call('PEXPIREAT', KEYS[k], string.format('%.0f', until_ms)) end
    end
    k = k + 1
  end
end
return 1
`;

interface StoredEndpoint extends NewEndpoint {
  id: string;
  created_at: string;
}

interface StoredDelivery {
  id: string;
  event_id: string;
  webhook_id: string;
  customer_id: string;
  type: string;
  /** Absent on deliveries stored before it was kept. */
  dedupe_key?: string;
  body: string;
  status: string;
  attempts: number;
  created_at: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
}

export class RedisWebhookStore implements WebhookStore {
  private closed = false;

  private constructor(
    private readonly connection: RedisClientType,
    /** Whether the client is this store's own (opened from a URL): closed with it. */
    private readonly owned: boolean,
    private readonly maxPending: number,
  ) {}

  /** The client while open: a closed outbox refuses, even while the shared client still serves the state store. */
  private get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the webhook outbox is closed');
    return this.connection;
  }

  /**
   * On the state store's client (what a server passes: open-store.ts `sharedRedis`), left open on close;
   * or on a client of its own from a URL (tests, tools), closed with the outbox.
   */
  static async open(source: string | RedisClientType, opts: WebhookStoreOptions = {}): Promise<RedisWebhookStore> {
    const maxPending = opts.maxPendingPerEndpoint ?? MAX_PENDING_PER_ENDPOINT;
    if (typeof source !== 'string') return new RedisWebhookStore(source, false, maxPending);
    const url = source;
    const client = createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000) },
    }) as RedisClientType;
    // Errors surface on the calls (the dispatcher retries on its next pass); this keeps them off the process.
    client.on('error', () => {});
    await client.connect();
    return new RedisWebhookStore(client, true, maxPending);
  }

  async createEndpoint(input: NewEndpoint): Promise<WebhookRecord> {
    const stored: StoredEndpoint = { ...input, id: `wh_${randomBytes(8).toString('hex')}`, created_at: new Date().toISOString() };
    await this.client.hSet(webhookKeys.endpoints, stored.id, JSON.stringify(stored));
    return endpoint(stored);
  }

  async listEndpoints(customerId: string): Promise<WebhookRecord[]> {
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

  async updateEndpoint(customerId: string, id: string, change: EndpointChange): Promise<WebhookRecord | null> {
    const raw = await this.client.hGet(webhookKeys.endpoints, id);
    const stored = raw ? (JSON.parse(raw) as StoredEndpoint) : null;
    if (!stored || stored.customer_id !== customerId) return null;
    const next: StoredEndpoint = { ...stored, ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) };
    // Written only while the endpoint exists: a delete racing this edit is not undone by it.
    const written = await this.client.eval(UPDATE_ENDPOINT, { keys: [webhookKeys.endpoints], arguments: [id, JSON.stringify(next)] });
    return Number(written) === 1 ? endpoint(next) : null;
  }

  async getEndpoint(customerId: string, id: string): Promise<WebhookRecord | null> {
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

  async enqueue(items: OutboxItem[], nowMs: number): Promise<EnqueueResult> {
    if (items.length === 0) return { added: 0, dropped: 0, droppedByEndpoint: {} };
    for (const item of items) checkCap(item);
    const payload = items.map((item) => {
      const record: StoredDelivery = {
        id: `dl_${randomBytes(8).toString('hex')}`,
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
    const reply = await this.client.eval(ENQUEUE, {
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
      arguments: [String(nowMs), JSON.stringify(payload), String(this.maxPending)],
    });
    const { added, dropped, by_endpoint } = JSON.parse(reply as string) as { added: number; dropped: number; by_endpoint?: Record<string, number> };
    return { added, dropped, droppedByEndpoint: by_endpoint ?? {} };
  }

  async claimDue(nowMs: number, limit: number, owner: string, leaseMs: number, limits?: ClaimLimits): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
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
    const rows = (await this.client.eval(CLAIM, {
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

  async recordAttempt({ id, webhook_id }: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, owner: string, result: AttemptResult): Promise<void> {
    await this.client.eval(RECORD, {
      keys: [webhookKeys.deliveries, webhookKeys.due(webhook_id), webhookKeys.pending(webhook_id), webhookKeys.log(webhook_id), webhookKeys.ready],
      arguments: [
        id,
        owner,
        String(result.atMs),
        result.status === null ? '' : String(result.status),
        result.error ?? '',
        result.delivered ? '1' : '0',
        result.nextAttemptMs === null ? '' : String(result.nextAttemptMs),
        webhook_id,
      ],
    });
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

  async *exportEntries(): AsyncIterable<WebhookEntry> {
    // Endpoints are few (a cap per customer): read at once, in the order SQLite lists them.
    const endpoints = (await this.client.hVals(webhookKeys.endpoints))
      .map((raw) => JSON.parse(raw) as StoredEndpoint)
      .sort((a, b) => a.customer_id.localeCompare(b.customer_id) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    for (const e of endpoints) {
      yield WebhookEntry.parse({
        type: 'webhook_endpoint',
        endpoint: {
          id: e.id,
          customer_id: e.customer_id,
          url: e.url,
          events: e.events,
          hot_paths: e.hot_paths,
          description: e.description,
          secret: e.secret,
          created_at: e.created_at,
          settings: e.settings ?? {},
        },
      });
    }
    const live = new Set(endpoints.map((e) => e.id));
    // HSCAN/ZSCAN, a page at a time: an export must not block a live Redis, nor hold the outbox in memory.
    for await (const page of (await clientForKey(this.client, webhookKeys.deliveries)).hScanIterator(webhookKeys.deliveries, { COUNT: 500 })) {
      for (const { value } of page) {
        const d = JSON.parse(value) as StoredDelivery;
        // Left behind by an endpoint deleted before deletes took its deliveries along: never sent, not moved.
        if (!live.has(d.webhook_id)) continue;
        yield WebhookEntry.parse({ type: 'webhook_delivery', delivery: { ...d, dedupe_key: d.dedupe_key ?? null } });
      }
    }
    const recent = Date.now() - DEDUPE_KEEP_MS;
    for await (const page of (await clientForKey(this.client, webhookKeys.dedupe)).zScanIterator(webhookKeys.dedupe, { COUNT: 500 })) {
      for (const { value, score } of page) {
        const bar = value.indexOf('|');
        if (score < recent || bar === -1 || !live.has(value.slice(0, bar))) continue;
        yield WebhookEntry.parse({ type: 'webhook_dedupe', webhook_id: value.slice(0, bar), dedupe_key: value.slice(bar + 1), at: score });
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    return (await this.client.exists([webhookKeys.endpoints, webhookKeys.deliveries, webhookKeys.dedupe, webhookKeys.ready, webhookKeys.legacyDue])) === 0;
  }

  async importEntries(entries: AsyncIterable<WebhookEntry> | Iterable<WebhookEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds webhook endpoints or deliveries: import into an empty state', 'conflict');
    let n = 0;
    let batch: WebhookEntry[] = [];
    const flush = async () => {
      const b = batch;
      batch = [];
      const endpoints = new Map<string, string>();
      const deliveries: { id: string; webhook_id: string; record: string; pending: boolean; created_at: number; next: number }[] = [];
      const keys: { member: string; at: number; caps: string[] }[] = [];
      // Dedupe keys older than this can never come again (ENQUEUE prunes them): not stored.
      const recent = Date.now() - DEDUPE_KEEP_MS;
      const key = (webhookId: string, dedupeKey: string, at: number) => {
        if (at >= recent) keys.push({ member: `${webhookId}|${dedupeKey}`, at, caps: capKeysOf(dedupeKey).map((cap) => webhookKeys.cap(webhookId, cap)) });
      };
      for (const e of b) {
        switch (e.type) {
          case 'webhook_endpoint': {
            const stored: StoredEndpoint = { ...e.endpoint, settings: EndpointSettings.parse(e.endpoint.settings ?? {}) };
            endpoints.set(stored.id, JSON.stringify(stored));
            break;
          }
          case 'webhook_delivery': {
            const { dedupe_key, ...d } = e.delivery;
            const record: StoredDelivery = { ...d, ...(dedupe_key === null ? {} : { dedupe_key }), lease_owner: null, lease_until: 0 };
            deliveries.push({
              id: d.id,
              webhook_id: d.webhook_id,
              record: JSON.stringify(record),
              pending: d.status === 'pending',
              created_at: d.created_at,
              next: d.next_attempt_at ?? d.created_at,
            });
            if (dedupe_key !== null) key(d.webhook_id, dedupe_key, d.created_at);
            break;
          }
          case 'webhook_dedupe':
            key(e.webhook_id, e.dedupe_key, e.at);
            break;
        }
      }
      if (endpoints.size > 0) await this.client.hSet(webhookKeys.endpoints, endpoints);
      if (deliveries.length > 0) {
        await this.client.eval(IMPORT_DELIVERIES, {
          keys: [
            webhookKeys.deliveries,
            webhookKeys.ready,
            ...deliveries.flatMap((d) => [webhookKeys.due(d.webhook_id), webhookKeys.pending(d.webhook_id), webhookKeys.log(d.webhook_id)]),
          ],
          arguments: [JSON.stringify(deliveries)],
        });
      }
      if (keys.length > 0) {
        await this.client.eval(IMPORT_DEDUPE, {
          keys: [webhookKeys.dedupe, ...keys.flatMap((k) => k.caps)],
          arguments: [String(Date.now()), JSON.stringify(keys.map((k) => ({ member: k.member, at: k.at, caps: k.caps.length })))],
        });
      }
    };
    for await (const raw of entries) {
      batch.push(WebhookEntry.parse(raw));
      n++;
      if (batch.length >= IMPORT_BATCH) await flush();
    }
    await flush();
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.connection.close().catch(() => {});
  }
}

function endpoint(stored: StoredEndpoint): WebhookRecord {
  return WebhookRecord.parse({
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

/** HSET only when the field exists (an endpoint deleted meanwhile stays deleted). */
const UPDATE_ENDPOINT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
