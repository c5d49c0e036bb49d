/**
 * The keys and Lua of the CRM store on Redis (redis.ts). Every key of a connection carries its customer's
 * hash tag `{cust:<id>}`, so each script and MULTI below touches one slot and runs unchanged on Redis
 * Cluster; the one global key, the set of connections, is only read or written by single commands.
 *
 * Orders are kept as text, in zsets whose members all score 0 (Redis then orders them by their bytes, as
 * SQLite orders TEXT): pending accounts as `<at, 16 digits>|<company id>`, runs as `<started_at>|<run id>`
 * (started_at in its one ISO spelling, so of one length), account records by company id.
 */
import type { CrmProvider } from '../../../core/crm-records.ts';

const base = (c: string, p: CrmProvider) => `svc:{cust:${c}}:crm:${p}`;

export const crmKeys = {
  /** hash (JSON values): the connection record. */
  connection: base,
  /** string: the connection's secret, apart from its record (a read of the record never carries it). */
  secret: (c: string, p: CrmProvider) => `${base(c, p)}:secret`,
  /** hash: company id → `<at, 16 digits>:<force 0|1>`. */
  pending: (c: string, p: CrmProvider) => `${base(c, p)}:pending`,
  /** zset (score 0): `<at, 16 digits>|<company id>`, the order pending accounts are drained in. */
  queue: (c: string, p: CrmProvider) => `${base(c, p)}:queue`,
  /** hash: `owner`, `until` (epoch ms). */
  lease: (c: string, p: CrmProvider) => `${base(c, p)}:lease`,
  /** hash: run id → run JSON. */
  runs: (c: string, p: CrmProvider) => `${base(c, p)}:runs`,
  /** zset (score 0): `<started_at>|<run id>`. */
  runOrder: (c: string, p: CrmProvider) => `${base(c, p)}:run-order`,
  /** hash: company id → account record JSON. */
  accounts: (c: string, p: CrmProvider) => `${base(c, p)}:accounts`,
  /** zset (score 0): company ids, the order account records are listed in. */
  accountIds: (c: string, p: CrmProvider) => `${base(c, p)}:account-ids`,
  /** set: `<customer id>/<provider>` of every connection (global: read by single commands only). */
  connections: 'svc:crm:connections',
} as const;

/** Every key of the CRM store in a customer's slot (SCAN pattern: what isEmpty looks for). */
export const CRM_KEYS = 'svc:{cust:*}:crm:*';

/** Every key of one connection, its record first (DELETE_CONNECTION's KEYS). */
export const connectionKeys = (c: string, p: CrmProvider): string[] => [
  crmKeys.connection(c, p),
  crmKeys.secret(c, p),
  crmKeys.pending(c, p),
  crmKeys.queue(c, p),
  crmKeys.lease(c, p),
  crmKeys.runs(c, p),
  crmKeys.runOrder(c, p),
  crmKeys.accounts(c, p),
  crmKeys.accountIds(c, p),
];

/** A pending time as text that orders as the number (the digits of the largest safe integer). */
export const padAt = (atMs: number) => String(atMs).padStart(16, '0');

// KEYS: connection, pending, queue. ARGV: company id, padded at, force ('0'|'1'), for each item in turn.
// An item already pending keeps the later time (texts of one length compare as their numbers) and its force.
export const MARK_PENDING = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 3 do
  local company, at, force = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local old = redis.call('HGET', KEYS[2], company)
  if old then
    local old_at = string.sub(old, 1, 16)
    if string.sub(old, 18, 18) == '1' then force = '1' end
    if at > old_at then
      redis.call('ZREM', KEYS[3], old_at .. '|' .. company)
      redis.call('ZADD', KEYS[3], 0, at .. '|' .. company)
    else
      at = old_at
    end
  else
    redis.call('ZADD', KEYS[3], 0, at .. '|' .. company)
  end
  redis.call('HSET', KEYS[2], company, at .. ':' .. force)
end
return 1
`;

// KEYS: pending, queue. ARGV: where to start ('-' or '(<member>'), how many. Member and value pairs.
export const PENDING_PAGE = `
local out = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[2], ARGV[1], '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))) do
  local v = redis.call('HGET', KEYS[1], string.sub(m, 18))
  if v then
    table.insert(out, m)
    table.insert(out, v)
  end
end
return out
`;

// KEYS: pending, queue. ARGV: company id, padded at, for each item: removed unless marked later than that.
export const ACK_PENDING = `
for i = 1, #ARGV, 2 do
  local old = redis.call('HGET', KEYS[1], ARGV[i])
  if old and string.sub(old, 1, 16) <= ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], string.sub(old, 1, 16) .. '|' .. ARGV[i])
  end
end
return 1
`;

// KEYS: connection, lease. ARGV: owner, now, until. 1 when taken (nobody, expired, or the same owner).
export const ACQUIRE_LEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local held = redis.call('HMGET', KEYS[2], 'owner', 'until')
if held[1] and held[1] ~= ARGV[1] and tonumber(held[2]) > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[2], 'owner', ARGV[1], 'until', ARGV[3])
return 1
`;

// KEYS: lease. ARGV: owner.
export const RELEASE_LEASE = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

// KEYS: connection, runs, run order. ARGV: run id, its order member, its JSON, runs kept. A run put again
// leaves its old place first (its started_at may have changed); past the cap the oldest go.
export const PUT_RUN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('ZREM', KEYS[3], cjson.decode(old).started_at .. '|' .. ARGV[1]) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], 0, ARGV[2])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if over > 0 then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
    redis.call('HDEL', KEYS[2], string.sub(m, string.find(m, '|', 1, true) + 1))
  end
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, over - 1)
end
return 1
`;

// KEYS: runs, run order. ARGV: how many. The newest runs' JSON, newest first.
export const RUNS_PAGE = `
local out = {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[2], '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, tonumber(ARGV[1]))) do
  local r = redis.call('HGET', KEYS[1], string.sub(m, string.find(m, '|', 1, true) + 1))
  if r then table.insert(out, r) end
end
return out
`;

// KEYS: connection, accounts, account ids. ARGV: company id, record JSON, for each row.
export const PUT_ACCOUNTS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[3], 0, ARGV[i])
end
return 1
`;

// KEYS: accounts, account ids. ARGV: where to start ('-' or '(<company id>'), how many. Records in company id order.
export const ACCOUNTS_PAGE = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], ARGV[1], '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))) do
  local r = redis.call('HGET', KEYS[1], id)
  if r then table.insert(out, r) end
end
return out
`;

// KEYS: connection. ARGV: field, JSON value pairs. Written only while the connection exists (a delete
// racing the change is not undone by it); the record after (HGETALL), or nil.
export const UPDATE_CONNECTION = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: connectionKeys (the record first). 1 when the connection existed.
export const DELETE_CONNECTION = `
local existed = redis.call('EXISTS', KEYS[1])
redis.call('UNLINK', unpack(KEYS))
return existed
`;
