/**
 * The keys and Lua of the webhook outbox on Redis (redis.ts): every key carries the hash tag `{wh}`, so each
 * script touches one slot and runs unchanged on Redis Cluster.
 */
import type { NewEndpoint } from './store.ts';
import { DEDUPE_KEEP_MS, LOG_KEEP } from './store.ts';

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
export const LEGACY_MOVE = 100;

/** After its due: zset changed: the endpoint's entry in `ready` is its earliest score, or none. */
export const SET_READY = `
local function set_ready(ready, due, webhook_id)
  local first = redis.call('ZRANGE', due, 0, 0, 'WITHSCORES')
  if first[1] then redis.call('ZADD', ready, first[2], webhook_id) else redis.call('ZREM', ready, webhook_id) end
end
`;

// KEYS: deliveries, dedupe, endpoints, ready, then per item: its pending:, due: and cap: keys (cap: is the
// pending: key again for an item without a cap; it is not touched then).
export const ENQUEUE = `
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
// or Teams endpoint (settings.format 'slack' / 'teams': BATCHED_FORMATS) with ARGV[7] > 0 takes up to ARGV[7] deliveries as one batch, which
// counts one against ARGV[4], and none while ARGV[8] says the owner has one in flight for it. Every entry
// is checked against its delivery before it is leased: one that finished, or that a node of the previous
// version rescheduled, is dropped or moved instead.
export const CLAIM = `${SET_READY}
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
    if type(e.settings) == 'table' then
      local f = e.settings.format
      if f == 'slack' or f == 'teams' or f == 'email' then format = f end
    end
    local batched = (format == 'slack' or format == 'teams') and slack_batch > 0
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
export const MOVE_LEGACY = `
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
// Several attempts in one call (those a dispatcher saw end in one event-loop turn), each on its own.
// KEYS: deliveries, ready, then per attempt its endpoint's due:, pending: and log:. ARGV: the owner, then
// per attempt: delivery id, at, status ('' none), error ('' none), delivered ('1'/'0'), next ('' none), webhook id.
export const RECORD = `${SET_READY}
local function record(id, owner, at, status, err, delivered, next_at, webhook_id, due, pending, log)
  local raw = redis.call('HGET', KEYS[1], id)
  if not raw then return end
  local d = cjson.decode(raw)
  if d.status ~= 'pending' or d.lease_owner ~= owner or d.webhook_id ~= webhook_id then return end
  d.attempts = d.attempts + 1
  d.last_attempt_at = tonumber(at)
  if status == '' then d.last_status = cjson.null else d.last_status = tonumber(status) end
  if err == '' then d.last_error = cjson.null else d.last_error = err end
  d.lease_owner = cjson.null
  d.lease_until = 0
  if delivered == '1' then
    d.status = 'delivered'
    d.delivered_at = d.last_attempt_at
    d.next_attempt_at = cjson.null
  elseif next_at == '' then
    d.status = 'failed'
    d.next_attempt_at = cjson.null
  else
    d.next_attempt_at = tonumber(next_at)
    redis.call('ZADD', due, d.next_attempt_at, id)
    set_ready(KEYS[2], due, webhook_id)
    redis.call('HSET', KEYS[1], id, cjson.encode(d))
    return
  end
  redis.call('ZREM', due, id)
  set_ready(KEYS[2], due, webhook_id)
  redis.call('ZREM', pending, id)
  redis.call('ZADD', log, d.created_at, id)
  redis.call('HSET', KEYS[1], id, cjson.encode(d))
  local over = redis.call('ZCARD', log) - ${LOG_KEEP}
  if over > 0 then
    for _, old in ipairs(redis.call('ZRANGE', log, 0, math.min(over, ${LOG_TRIM}) - 1)) do
      local rec = redis.call('HGET', KEYS[1], old)
      local o = rec and cjson.decode(rec)
      if o and o.status == 'pending' then
        redis.call('ZADD', pending, o.created_at, old)
      else
        redis.call('HDEL', KEYS[1], old)
      end
      redis.call('ZREM', log, old)
    end
  end
end
for i = 1, (#ARGV - 1) / 7 do
  local a = 1 + (i - 1) * 7
  record(ARGV[a + 1], ARGV[1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7], KEYS[3 * i], KEYS[3 * i + 1], KEYS[3 * i + 2])
end
return 1
`;

// Removes the endpoint and every delivery of it: its backlog (at most the cap) and its log (at most
// LOG_KEEP once trimmed, pending entries of an old log included). A rare admin action, bounded either way;
// nothing else would ever prune the log of an endpoint that finishes no delivery again.
// KEYS: endpoints, deliveries, ready, legacy due, log:, pending:, due:.
export const DELETE = `
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

// Imported deliveries (ARGV[1]: [{id, webhook_id, record, pending, created_at, next}]), indexed as enqueue
// and record leave them: a pending one in due:, pending: and ready, a finished one in log:. KEYS:
// deliveries, ready, then per item its due:, pending: and log: keys.
export const IMPORT_DELIVERIES = `
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
export const IMPORT_DEDUPE = `
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

export interface StoredEndpoint extends NewEndpoint {
  id: string;
  created_at: string;
}

export interface StoredDelivery {
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

/** HSET only when the field exists (an endpoint deleted meanwhile stays deleted). */
export const UPDATE_ENDPOINT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1`;
