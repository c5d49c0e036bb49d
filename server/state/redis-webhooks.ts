/**
 * The webhook outbox on Redis, for several nodes. Every key carries the hash tag `{wh}`, so each script
 * below touches one slot and works unchanged on Redis Cluster:
 *
 *   svc:{wh}:endpoints            hash  webhook id → endpoint JSON (with its customer and signing secret)
 *   svc:{wh}:deliveries           hash  delivery id → delivery JSON (status, attempts, lease, last answer …)
 *   svc:{wh}:due                  zset  pending delivery id → when it may next be claimed (next attempt or lease end)
 *   svc:{wh}:dedupe               zset  "<webhook id>|<dedupe key>" → enqueue time (pruned after 3 days)
 *   svc:{wh}:log:<webhook id>     zset  delivery id → creation time (the delivery log; newest 1,000 kept)
 *
 * Enqueue, claim, record and delete are each ONE Lua script: a due delivery is leased to exactly one node.
 */
import { createClient, type RedisClientType } from '@redis/client';
import { randomBytes } from 'node:crypto';
import { WebhookRecord, type DeliveryRecord } from '../webhooks/schema.ts';
import { deliveryRecord, type AttemptResult, type ClaimedDelivery, type NewEndpoint, type OutboxItem, type WebhookStore } from './webhooks.ts';

export const webhookKeys = {
  endpoints: 'svc:{wh}:endpoints',
  deliveries: 'svc:{wh}:deliveries',
  due: 'svc:{wh}:due',
  dedupe: 'svc:{wh}:dedupe',
  log: (webhookId: string) => `svc:{wh}:log:${webhookId}`,
} as const;

/** Dedupe keys name a UTC day, so after three days none of them can come again. */
const DEDUPE_KEEP_MS = 3 * 86_400_000;
const LOG_KEEP = 1_000;

const ENQUEUE = `
local now = tonumber(ARGV[1])
local items = cjson.decode(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - ${DEDUPE_KEEP_MS})
local added = 0
for i, it in ipairs(items) do
  local member = it.webhook_id .. '|' .. it.dedupe_key
  if not redis.call('ZSCORE', KEYS[3], member) then
    redis.call('ZADD', KEYS[3], now, member)
    redis.call('HSET', KEYS[1], it.id, it.record)
    redis.call('ZADD', KEYS[2], now, it.id)
    local log = KEYS[3 + i]
    redis.call('ZADD', log, now, it.id)
    local n = redis.call('ZCARD', log)
    if n > ${LOG_KEEP} then
      for _, old in ipairs(redis.call('ZRANGE', log, 0, n - ${LOG_KEEP} - 1)) do
        local rec = redis.call('HGET', KEYS[1], old)
        if (not rec) or cjson.decode(rec).status ~= 'pending' then
          redis.call('HDEL', KEYS[1], old)
          redis.call('ZREM', log, old)
        end
      end
    end
    added = added + 1
  end
end
return added
`;

const CLAIM = `
local now = tonumber(ARGV[1])
local lease_until = now + tonumber(ARGV[4])
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))) do
  local raw = redis.call('HGET', KEYS[1], id)
  local d = raw and cjson.decode(raw)
  local ep = d and d.status == 'pending' and redis.call('HGET', KEYS[3], d.webhook_id)
  if not ep then
    redis.call('ZREM', KEYS[2], id)
  else
    d.lease_owner = ARGV[3]
    d.lease_until = lease_until
    redis.call('HSET', KEYS[1], id, cjson.encode(d))
    redis.call('ZADD', KEYS[2], lease_until, id)
    local e = cjson.decode(ep)
    table.insert(out, cjson.encode({ id = id, event_id = d.event_id, webhook_id = d.webhook_id, url = e.url, secret = e.secret, body = d.body, attempts = d.attempts }))
  end
end
return out
`;

const RECORD = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local d = cjson.decode(raw)
if d.status ~= 'pending' or d.lease_owner ~= ARGV[2] then return 0 end
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
  redis.call('ZREM', KEYS[2], ARGV[1])
elseif ARGV[7] == '' then
  d.status = 'failed'
  d.next_attempt_at = cjson.null
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  d.next_attempt_at = tonumber(ARGV[7])
  redis.call('ZADD', KEYS[2], d.next_attempt_at, ARGV[1])
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(d))
return 1
`;

const DELETE = `
local raw = redis.call('HGET', KEYS[1], ARGV[2])
if (not raw) or cjson.decode(raw).customer_id ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[2])
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  local d = redis.call('HGET', KEYS[2], id)
  if d and cjson.decode(d).status == 'pending' then
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
    redis.call('ZREM', KEYS[4], id)
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
  private constructor(private readonly client: RedisClientType) {}

  static async open(url: string): Promise<RedisWebhookStore> {
    const client = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000) } }) as RedisClientType;
    // Errors surface on the calls (the dispatcher retries on its next pass); this keeps them off the process.
    client.on('error', () => {});
    await client.connect();
    return new RedisWebhookStore(client);
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

  async getEndpoint(customerId: string, id: string): Promise<WebhookRecord | null> {
    const raw = await this.client.hGet(webhookKeys.endpoints, id);
    const stored = raw ? (JSON.parse(raw) as StoredEndpoint) : null;
    return stored && stored.customer_id === customerId ? endpoint(stored) : null;
  }

  async deleteEndpoint(customerId: string, id: string): Promise<boolean> {
    const removed = await this.client.eval(DELETE, { keys: [webhookKeys.endpoints, webhookKeys.deliveries, webhookKeys.due, webhookKeys.log(id)], arguments: [customerId, id] });
    return Number(removed) === 1;
  }

  async enqueue(items: OutboxItem[], nowMs: number): Promise<number> {
    if (items.length === 0) return 0;
    const payload = items.map((item) => {
      const record: StoredDelivery = {
        id: `dl_${randomBytes(8).toString('hex')}`,
        event_id: item.event.id,
        webhook_id: item.webhook_id,
        customer_id: item.customer_id,
        type: item.event.type,
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
      return { id: record.id, webhook_id: item.webhook_id, dedupe_key: item.dedupe_key, record: JSON.stringify(record) };
    });
    const added = await this.client.eval(ENQUEUE, {
      keys: [webhookKeys.deliveries, webhookKeys.due, webhookKeys.dedupe, ...items.map((i) => webhookKeys.log(i.webhook_id))],
      arguments: [String(nowMs), JSON.stringify(payload)],
    });
    return Number(added);
  }

  async claimDue(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = (await this.client.eval(CLAIM, { keys: [webhookKeys.deliveries, webhookKeys.due, webhookKeys.endpoints], arguments: [String(nowMs), String(limit), owner, String(leaseMs)] })) as string[];
    return rows.map((row) => JSON.parse(row) as ClaimedDelivery);
  }

  async recordAttempt(id: string, owner: string, result: AttemptResult): Promise<void> {
    await this.client.eval(RECORD, {
      keys: [webhookKeys.deliveries, webhookKeys.due],
      arguments: [id, owner, String(result.atMs), result.status === null ? '' : String(result.status), result.error ?? '', result.delivered ? '1' : '0', result.nextAttemptMs === null ? '' : String(result.nextAttemptMs)],
    });
  }

  async listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const ids = await this.client.zRange(webhookKeys.log(webhookId), 0, limit - 1, { REV: true });
    if (ids.length === 0) return [];
    const rows = await this.client.hmGet(webhookKeys.deliveries, ids);
    return rows
      .filter((raw): raw is string => typeof raw === 'string')
      .map((raw) => JSON.parse(raw) as StoredDelivery)
      .filter((d) => d.customer_id === customerId)
      .map((d) => deliveryRecord(d));
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => {});
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
  });
}
