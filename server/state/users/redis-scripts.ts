/**
 * The user store's keys on Redis and the Lua scripts over them (redis.ts runs them). Keys:
 *
 *   svc:{users}:user:<id>              hash    id, customer_id, email, role, password_hash ('' = none), sso ('0'|'1'),
 *                                              created_at, last_login_at ('' = never), sso_issuer / sso_subject
 *                                              (absent: not bound to a single sign-on identity)
 *   svc:{users}:email:<email>          string  the user id of a (lower-cased) email: one email, one user, any customer
 *   svc:{users}:customer:<customer>    set     the customer's user ids
 *   svc:{users}:session:<id hash>      hash    r (the SessionRecord as created, JSON), seen / seen_ms (last_seen_at),
 *                                              exp_ms; expires at the session's absolute end (PEXPIREAT)
 *   svc:{users}:sessions:<user id>     zset    "<public id>|<id hash>" → created (epoch ms); expires with the user's
 *                                              last session; members whose session is gone are dropped as met
 *   svc:{users}:invitation:<hash>      string  the InvitationRecord (JSON); expires at its end (PEXPIREAT)
 *   svc:{users}:invitations:<email>    zset    token hash → its end (epoch ms), pruned by time as invitations are made
 *   svc:{users}:failures:<key>         hash    n (failures), ends (epoch ms): a failed sign-in window (countFailure);
 *                                              expires at its end (PEXPIREAT)
 *   svc:{cust:<c>}:sso                 string  the customer's SsoProvider (JSON, client secret included)
 *   svc:{cust:<c>}:audit               zset    "<16 hex seq><AuditEvent JSON>" → at (epoch ms): equal times in
 *                                              append order; with a retention, each append deletes up to
 *                                              AUDIT_TRIM_PER_APPEND events past it (Redis's clock) and sets the
 *                                              key to expire a day after its newest event is past it
 *   svc:{cust:<c>}:audit-seq           string  the customer's append counter
 *
 * Why `{users}` and not the customer's tag for users and sessions: an email (sign-in), a session's id
 * hash (every console request) and a user id name no customer, and creating a user must claim its email
 * in the same atomic step as it writes the user — in Redis Cluster a script's keys must share one slot,
 * so everything a user change touches lives under one hash tag (as the webhook outbox lives under
 * `{wh}`). The volume is a console's: a write per sign-in, at most one per session and minute. The SSO
 * provider and the audit log belong to one customer and are written alone: they carry its tag.
 *
 * Every change of several keys is ONE script over keys it is given (never a key name built inside a
 * script). Where the keys depend on what is stored (a user's sessions), they are read first and the script
 * checks it was given all of them; if one came meanwhile, it changes nothing and the caller reads again.
 * What a script decides comes in ARGV (times, caps, the retention, whether to keep an owner): the rules are
 * service.ts.
 */

export const userKeys = {
  user: (id: string) => `svc:{users}:user:${id}`,
  email: (email: string) => `svc:{users}:email:${email}`,
  customer: (c: string) => `svc:{users}:customer:${c}`,
  session: (idHash: string) => `svc:{users}:session:${idHash}`,
  sessions: (userId: string) => `svc:{users}:sessions:${userId}`,
  invitation: (tokenHash: string) => `svc:{users}:invitation:${tokenHash}`,
  invitations: (email: string) => `svc:{users}:invitations:${email}`,
  sso: (c: string) => `svc:{cust:${c}}:sso`,
  audit: (c: string) => `svc:{cust:${c}}:audit`,
  auditSeq: (c: string) => `svc:{cust:${c}}:audit-seq`,
  failures: (key: string) => `svc:{users}:failures:${key}`,
};

export const USER_KEYS = 'svc:{users}:user:*';
export const SSO_KEYS = 'svc:{cust:*}:sso';
export const AUDIT_KEYS = 'svc:{cust:*}:audit';
export const SSO_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:sso$/;
export const AUDIT_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:audit$/;
/** Hex digits of an audit member's sequence prefix. */
export const SEQ_DIGITS = 16;
/**
 * Events past the retention one append deletes at most: a few microseconds of Redis's time, and still 99
 * more than the append adds, so a backlog (an import, a shortened retention) goes with the next appends.
 */
const AUDIT_TRIM_PER_APPEND = 100;

/** A session's member of its user's index: "<public id>|<id hash>". */
export const member = (sessionId: string, idHash: string) => `${sessionId}|${idHash}`;
export const memberHash = (m: string) => m.slice(m.indexOf('|') + 1);
export const memberId = (m: string) => m.slice(0, m.indexOf('|'));

/** ARGV from `from` (to `to`, default its end) as a set, and whether `key` (a zset) holds nothing else: Lua shared by scripts. */
const ONLY_KNOWN = `
local function known_set(from, to)
  local set = {}
  for i = from, to or #ARGV do set[ARGV[i]] = true end
  return set
end
local function holds_only(key, set)
  for _, m in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    if not set[m] then return false end
  end
  return true
end
`;

// KEYS: user, email, customer set. ARGV: id, customer, email, role, password hash, sso, created_at.
// → 1 made, 0 the email is taken, -1 the id is (a new id is drawn).
export const CREATE_USER = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'customer_id', ARGV[2], 'email', ARGV[3], 'role', ARGV[4], 'password_hash', ARGV[5],
  'sso', ARGV[6], 'created_at', ARGV[7], 'last_login_at', '')
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`;

// KEYS: user. ARGV: field, value. → the user's fields after (flat), or nil for an unknown user.
export const UPDATE_USER = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: user. ARGV: issuer, subject. → the subject bound at that issuer after, or nil for an unknown user.
export const BIND_SSO = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local bound = redis.call('HMGET', KEYS[1], 'sso_issuer', 'sso_subject')
if bound[1] == ARGV[1] and bound[2] and bound[2] ~= '' then return bound[2] end
redis.call('HSET', KEYS[1], 'sso', '1', 'sso_issuer', ARGV[1], 'sso_subject', ARGV[2])
return ARGV[2]
`;

/**
 * Whether the customer keeps an owner when the user KEYS[1] stops being one (Lua shared by scripts): the
 * count and the change that follows are one script, so two owners demoting or removing each other at once
 * cannot both pass. The customer's users are read by the caller (a script never builds a key name): k ids
 * in ARGV from `arg_from`, their keys in KEYS from `key_from`; the customer's set must hold exactly them.
 * → 1 kept (or the user is no owner), 0 the user is the last owner, -1 the customer's users changed (read again).
 */
const OWNER_KEPT = `
local function owner_kept(set_key, customer, k, key_from, arg_from)
  if redis.call('HGET', KEYS[1], 'role') ~= 'owner' then return 1 end
  if redis.call('SCARD', set_key) ~= k then return -1 end
  local owners = 0
  for i = 0, k - 1 do
    if redis.call('SISMEMBER', set_key, ARGV[arg_from + i]) == 0 then return -1 end
    local u = redis.call('HMGET', KEYS[key_from + i], 'role', 'customer_id')
    if u[1] == 'owner' and u[2] == customer then owners = owners + 1 end
  end
  if owners <= 1 then return 0 end
  return 1
end
`;

// KEYS: user, customer set, then the k user keys of the customer. ARGV: role, customer, k, then the k user ids.
// → the user's fields after (flat), nil for an unknown user, 0 it is the customer's last owner, -1 read again.
export const SET_ROLE_KEEPING_OWNER = `${OWNER_KEPT}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local kept = owner_kept(KEYS[2], ARGV[2], tonumber(ARGV[3]), 3, 4)
if kept ~= 1 then return kept end
redis.call('HSET', KEYS[1], 'role', ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: user, invitations zset of its email, then the invitation key of each token hash in ARGV[3..].
// ARGV: password hash, customer, token hashes… → the user's fields after (flat), nil for an unknown user,
// -1 an invitation came meanwhile (read again). The customer's reset links for the email end with it.
export const SET_PASSWORD = `${ONLY_KNOWN}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if not holds_only(KEYS[2], known_set(3)) then return -1 end
for j = 3, #ARGV do
  local raw = redis.call('GET', KEYS[j])
  local gone = not raw
  if raw then
    local i = cjson.decode(raw)
    gone = i.customer_id == ARGV[2] and i.purpose == 'reset'
  end
  if gone then
    redis.call('DEL', KEYS[j])
    redis.call('ZREM', KEYS[2], ARGV[j])
  end
end
redis.call('HSET', KEYS[1], 'password_hash', ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: a failure counter. ARGV: now (ms), the end of a window opened now (ms). → the failures in the window.
export const COUNT_FAILURE = `
local ends = redis.call('HGET', KEYS[1], 'ends')
if ends and tonumber(ends) > tonumber(ARGV[1]) then return redis.call('HINCRBY', KEYS[1], 'n', 1) end
redis.call('HSET', KEYS[1], 'n', 1, 'ends', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
`;

// KEYS: user, email, customer set, sessions zset, invitations zset, then n session keys, then m invitation
// keys, then k user keys of the customer (keepAnOwner; k = -1: no check).
// ARGV: id, customer, n, m, k, then the n session members, then the m token hashes, then the k user ids.
// → 1 removed, 0 no such user, -1 a session, invitation or user came meanwhile (read again), -2 the last owner.
export const REMOVE_USER = `${ONLY_KNOWN}${OWNER_KEPT}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n, m, k = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
-- one set of both lists: a session member ("<id>|<hash>") is never a token hash
local known = known_set(6, 5 + n + m)
if not holds_only(KEYS[4], known) or not holds_only(KEYS[5], known) then return -1 end
if k >= 0 then
  local kept = owner_kept(KEYS[3], ARGV[2], k, 6 + n + m, 6 + n + m)
  if kept == 0 then return -2 end
  if kept == -1 then return -1 end
end
for i = 1, n do redis.call('DEL', KEYS[5 + i]) end
redis.call('DEL', KEYS[4])
for j = 1, m do
  local raw = redis.call('GET', KEYS[5 + n + j])
  if (not raw) or cjson.decode(raw).customer_id == ARGV[2] then
    redis.call('DEL', KEYS[5 + n + j])
    redis.call('ZREM', KEYS[5], ARGV[5 + n + j])
  end
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[1])
return 1
`;

// KEYS: invitation, invitations zset. ARGV: record JSON, end (ms), token hash, now (ms).
export const CREATE_INVITATION = `
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if last[2] then redis.call('PEXPIREAT', KEYS[2], last[2]) end
return 1
`;

// KEYS: user, session, sessions zset, then the session key of each member in ARGV[9..].
// ARGV: customer, member, created (ms), record JSON, last seen (ISO), last seen (ms), end (ms), cap, members…
// → 1 made, 0 no such user, -2 the user is another customer's, -3 the id hash or (for this user) the public id is taken.
export const CREATE_SESSION = `
local customer = redis.call('HGET', KEYS[1], 'customer_id')
if not customer then return 0 end
if customer ~= ARGV[1] then return -2 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -3 end
local id = string.sub(ARGV[2], 1, string.find(ARGV[2], '|', 1, true))
for i = 9, #ARGV do
  if string.sub(ARGV[i], 1, #id) == id then return -3 end
end
local last_end = tonumber(ARGV[7])
local known = {}
for i = 9, #ARGV do
  local key = KEYS[i - 5]
  local ends = redis.call('HGET', key, 'exp_ms')
  if not ends then
    redis.call('ZREM', KEYS[3], ARGV[i])
  else
    known[ARGV[i]] = key
    if tonumber(ends) > last_end then last_end = tonumber(ends) end
  end
end
redis.call('HSET', KEYS[2], 'r', ARGV[4], 'seen', ARGV[5], 'seen_ms', ARGV[6], 'exp_ms', ARGV[7])
redis.call('PEXPIREAT', KEYS[2], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[8])
if over > 0 then
  -- the oldest go; one added by another node meanwhile (its key unknown here) stays until the next session
  for _, m in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
    if known[m] then
      redis.call('DEL', known[m])
      redis.call('ZREM', KEYS[3], m)
    end
  end
end
redis.call('PEXPIREAT', KEYS[3], last_end)
return 1
`;

// KEYS: session. ARGV: now (ms), idle (ms), touch interval (ms), now (ISO): the service's rule, decided and
// applied in one step. → nil when gone or over (then removed), else { record JSON, last seen ISO after }.
export const TOUCH_SESSION = `
local h = redis.call('HMGET', KEYS[1], 'r', 'seen', 'seen_ms', 'exp_ms')
if not h[1] then return false end
local now, seen = tonumber(ARGV[1]), tonumber(h[3])
if now >= tonumber(h[4]) or now - seen > tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return false
end
if now - seen >= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'seen', ARGV[4], 'seen_ms', ARGV[1])
  return { h[1], ARGV[4] }
end
return { h[1], h[2] }
`;

// KEYS: sessions zset, session. ARGV: member. → 1 when the session was live and is ended.
export const END_SESSION = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
return redis.call('DEL', KEYS[2])
`;

// KEYS: sessions zset, then the session key of each member in ARGV[2..]. ARGV: the public id kept ('' none), members…
// → sessions ended, or -1 when a session came meanwhile (read again).
export const END_SESSIONS = `${ONLY_KNOWN}
if not holds_only(KEYS[1], known_set(2)) then return -1 end
local n = 0
for i = 2, #ARGV do
  local m = ARGV[i]
  if string.sub(m, 1, string.find(m, '|', 1, true) - 1) ~= ARGV[1] then
    n = n + redis.call('DEL', KEYS[i])
    redis.call('ZREM', KEYS[1], m)
  end
end
return n
`;

// KEYS: audit zset, audit counter. ARGV: at (ms), event JSON, retention (ms; 0 = none).
// By Redis's clock (a node's clock cannot trim early); the counter never expires, so equal times stay in order.
export const APPEND_AUDIT = `
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], ARGV[1], string.format('%0${SEQ_DIGITS}x', seq) .. ARGV[2])
local keep = tonumber(ARGV[3])
if keep > 0 then
  local t = redis.call('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local old = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. string.format('%.0f', now_ms - keep))
  if old > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, math.min(old, ${AUDIT_TRIM_PER_APPEND}) - 1) end
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2]
  if newest then
    redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', math.max(tonumber(newest), now_ms) + keep + 86400000))
  end
end
return seq
`;
