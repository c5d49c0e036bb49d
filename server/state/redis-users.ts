/**
 * The user store on Redis (several nodes), on the state store's command client (open-user-store.ts): this
 * store never opens or closes a connection. Keys:
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
 * Every change of several keys is ONE Lua script over keys it is given (never a key name built inside a
 * script). Where the keys depend on what is stored (a user's sessions), they are read first and the
 * script checks it was given all of them; if one came meanwhile, it changes nothing and the call reads
 * again (bounded retries). Every command has a deadline (`timed`, as redis-visits.ts): a stalled Redis
 * keeps the connection "ready" and node-redis would wait for ever; the deadline answers 503 (the command
 * may still run later: a create retried after it may meet `conflict`). Other Redis failures are 503 too.
 */
import { createHash } from 'node:crypto';
import type { RedisClientType } from '@redis/client';
import { CustomerId } from '../../core/customer-records.ts';
import { Role } from '../../core/roles.ts';
import { StateError, StoreUnavailableError } from './errors.ts';
import { scanKeys } from './redis-connection.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS } from './redis-store.ts';
import { UserEntry } from './transfer.ts';
import {
  type AuditEvent,
  auditKeptFrom,
  auditRetentionMs,
  checkedInvitation,
  checkedProvider,
  emailKey,
  InvitationRecord,
  isoTime,
  type KeepAnOwner,
  lastOwnerMessage,
  type NewAuditEvent,
  newAuditEvent,
  newestFirst,
  newSession,
  newUser,
  SESSION_IDLE_MS,
  SESSION_TOUCH_INTERVAL_MS,
  SESSIONS_PER_USER,
  SessionRecord,
  SsoProvider,
  type StoredUser,
  sessionOver,
  type UserRecord,
  type UserStore,
  userRecord,
} from './users.ts';

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

const USER_KEYS = 'svc:{users}:user:*';
const SSO_KEYS = 'svc:{cust:*}:sso';
const AUDIT_KEYS = 'svc:{cust:*}:audit';
const SSO_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:sso$/;
const AUDIT_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:audit$/;
/** Hex digits of an audit member's sequence prefix. */
const SEQ_DIGITS = 16;
/**
 * Events past the retention one append deletes at most: a few microseconds of Redis's time, and still 99
 * more than the append adds, so a backlog (an import, a shortened retention) goes with the next appends.
 */
const AUDIT_TRIM_PER_APPEND = 100;
/** Reads again at most this often when a user's sessions or invitations changed under a script. */
const RETRIES = 5;
/** Entries an import sends in one MULTI, and audit events an export reads per ZRANGE. */
const TRANSFER_PAGE = 500;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sha = (script: string) => createHash('sha1').update(script).digest('hex');
const member = (sessionId: string, idHash: string) => `${sessionId}|${idHash}`;
const memberHash = (m: string) => m.slice(m.indexOf('|') + 1);
const memberId = (m: string) => m.slice(0, m.indexOf('|'));

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
const CREATE_USER = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'customer_id', ARGV[2], 'email', ARGV[3], 'role', ARGV[4], 'password_hash', ARGV[5],
  'sso', ARGV[6], 'created_at', ARGV[7], 'last_login_at', '')
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`;

// KEYS: user. ARGV: field, value. → the user's fields after (flat), or nil for an unknown user.
const UPDATE_USER = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: user. ARGV: issuer, subject. → the subject bound at that issuer after, or nil for an unknown user.
const BIND_SSO = `
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
const SET_ROLE_KEEPING_OWNER = `${OWNER_KEPT}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[1] ~= 'owner' then
  local kept = owner_kept(KEYS[2], ARGV[2], tonumber(ARGV[3]), 3, 4)
  if kept ~= 1 then return kept end
end
redis.call('HSET', KEYS[1], 'role', ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

// KEYS: user, invitations zset of its email, then the invitation key of each token hash in ARGV[3..].
// ARGV: password hash, customer, token hashes… → the user's fields after (flat), nil for an unknown user,
// -1 an invitation came meanwhile (read again). The customer's reset links for the email end with it.
const SET_PASSWORD = `${ONLY_KNOWN}
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
const COUNT_FAILURE = `
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
const REMOVE_USER = `${ONLY_KNOWN}${OWNER_KEPT}
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
const CREATE_INVITATION = `
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
const CREATE_SESSION = `
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

// KEYS: session. ARGV: now (ms), idle (ms), touch interval (ms), now (ISO).
// → nil when over (then removed), else { record JSON, last seen ISO }.
const TOUCH_SESSION = `
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
const END_SESSION = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
return redis.call('DEL', KEYS[2])
`;

// KEYS: sessions zset, then the session key of each member in ARGV[2..]. ARGV: the public id kept ('' none), members…
// → sessions ended, or -1 when a session came meanwhile (read again).
const END_SESSIONS = `${ONLY_KNOWN}
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
const APPEND_AUDIT = `
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

function storedUser(h: Record<string, string>): StoredUser {
  return {
    id: h.id!,
    customer_id: h.customer_id!,
    email: h.email!,
    role: Role.parse(h.role),
    password_hash: h.password_hash ? h.password_hash : null,
    sso: h.sso === '1',
    created_at: h.created_at!,
    last_login_at: h.last_login_at ? h.last_login_at : null,
  };
}

/** A Lua HGETALL reply (field, value, field, value …) as an object. */
function pairs(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

const auditMember = (raw: string): AuditEvent => JSON.parse(raw.slice(SEQ_DIGITS)) as AuditEvent;

export interface RedisUserStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** Days of audit events kept (a server passes SVC_AUDIT_RETENTION_DAYS); unset: kept for ever. */
  auditRetentionDays?: number;
}

export class RedisUserStore implements UserStore {
  private readonly commandTimeoutMs: number;
  private readonly retentionMs: number | null;
  private closed = false;

  /** On the state store's client (open-user-store.ts), which stays open when this store closes. */
  constructor(
    private readonly connection: RedisClientType,
    options: RedisUserStoreOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.retentionMs = auditRetentionMs(options.auditRetentionDays);
  }

  /** The client while open: a closed store refuses, even while the shared client still serves the state store. */
  private get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the user store is closed');
    return this.connection;
  }

  /**
   * The answer within the command deadline; a deadline missed or a Redis failure is StoreUnavailableError
   * (503: nothing known to have changed, the call may be retried). StateError passes as it is.
   */
  private async io<T>(fn: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        fn(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer within ${this.commandTimeoutMs} ms`)), this.commandTimeoutMs);
        }),
      ]);
    } catch (e) {
      if (e instanceof StateError || e instanceof StoreUnavailableError) throw e;
      throw new StoreUnavailableError(`Redis is unavailable: ${(e as Error)?.message ?? e}`, 1, { cause: e });
    } finally {
      clearTimeout(timer);
    }
  }

  /** One script call (EVALSHA, the source once per Redis that does not know it yet), within the deadline. */
  private run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.io(async () => {
      try {
        return await this.client.evalSha(sha(script), { keys, arguments: args });
      } catch (e) {
        if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
        return this.client.eval(script, { keys, arguments: args });
      }
    });
  }

  private async storedUser(id: string): Promise<StoredUser | null> {
    const h = await this.io(() => this.client.hGetAll(userKeys.user(id)));
    return h.id ? storedUser(h) : null;
  }

  // ---------------------------------------------------------------------------------------------
  // Users

  async createUser(input: Parameters<UserStore['createUser']>[0]): Promise<UserRecord> {
    for (;;) {
      const user = newUser(input);
      const made = Number(
        await this.run(
          CREATE_USER,
          [userKeys.user(user.id), userKeys.email(user.email), userKeys.customer(user.customer_id)],
          [user.id, user.customer_id, user.email, user.role, user.password_hash ?? '', user.sso ? '1' : '0', user.created_at],
        ),
      );
      if (made === 0) throw new StateError(`a user with the email ${user.email} exists already`, 'conflict');
      if (made === 1) return userRecord(user);
    }
  }

  async getUser(id: string): Promise<UserRecord | null> {
    const user = await this.storedUser(id);
    return user === null ? null : userRecord(user);
  }

  async findUserByEmail(email: string): Promise<(UserRecord & { password_hash: string | null }) | null> {
    const id = await this.io(() => this.client.get(userKeys.email(emailKey(email))));
    if (id === null) return null;
    const user = await this.storedUser(id);
    return user === null ? null : { ...userRecord(user), password_hash: user.password_hash };
  }

  async listUsers(customerId: string): Promise<UserRecord[]> {
    const ids = await this.io(() => this.client.sMembers(userKeys.customer(customerId)));
    if (ids.length === 0) return [];
    const m = this.client.multi();
    for (const id of ids) m.hGetAll(userKeys.user(id));
    const rows = (await this.io(() => m.exec())) as unknown as Record<string, string>[];
    return rows
      .filter((h) => h?.id && h.customer_id === customerId)
      .map((h) => userRecord(storedUser(h)))
      .sort((a, b) => byText(a.email, b.email));
  }

  /** Sets one field of an existing user: its record after, or null for an unknown user. */
  private async update(id: string, field: string, value: string): Promise<UserRecord | null> {
    const reply = (await this.run(UPDATE_USER, [userKeys.user(id)], [field, value])) as string[] | null;
    return reply === null ? null : userRecord(storedUser(pairs(reply)));
  }

  async setRole(id: string, role: Role, options: KeepAnOwner = {}): Promise<UserRecord> {
    const next = Role.parse(role);
    if (!options.keepAnOwner) {
      const user = await this.update(id, 'role', next);
      if (user === null) throw new StateError(`no user ${id}`, 'not_found');
      return user;
    }
    for (let attempt = 0; ; attempt++) {
      const user = await this.storedUser(id);
      if (user === null) throw new StateError(`no user ${id}`, 'not_found');
      const ids = await this.io(() => this.client.sMembers(userKeys.customer(user.customer_id)));
      const reply = (await this.run(
        SET_ROLE_KEEPING_OWNER,
        [userKeys.user(id), userKeys.customer(user.customer_id), ...ids.map(userKeys.user)],
        [next, user.customer_id, String(ids.length), ...ids],
      )) as string[] | number | null;
      if (reply === null) throw new StateError(`no user ${id}`, 'not_found');
      if (reply === 0) throw new StateError(lastOwnerMessage(user.email), 'conflict');
      if (Array.isArray(reply)) return userRecord(storedUser(pairs(reply)));
      if (attempt >= RETRIES) throw new StoreUnavailableError(`customer ${user.customer_id}: its users kept changing while a role changed; retry`);
    }
  }

  async setPassword(id: string, passwordHash: string): Promise<UserRecord> {
    if (passwordHash === '') throw new StateError('the password hash is empty');
    for (let attempt = 0; ; attempt++) {
      const user = await this.storedUser(id);
      if (user === null) throw new StateError(`no user ${id}`, 'not_found');
      const tokens = await this.io(() => this.client.zRange(userKeys.invitations(user.email), 0, -1));
      const reply = (await this.run(
        SET_PASSWORD,
        [userKeys.user(id), userKeys.invitations(user.email), ...tokens.map(userKeys.invitation)],
        [passwordHash, user.customer_id, ...tokens],
      )) as string[] | number | null;
      if (reply === null) throw new StateError(`no user ${id}`, 'not_found');
      if (Array.isArray(reply)) return userRecord(storedUser(pairs(reply)));
      if (attempt >= RETRIES) throw new StoreUnavailableError(`user ${id}: its invitations kept changing while its password was set; retry`);
    }
  }

  async markSso(id: string): Promise<void> {
    await this.update(id, 'sso', '1');
  }

  async bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null> {
    if (issuer === '' || subject === '') throw new StateError('an SSO identity needs an issuer and a subject');
    const bound = (await this.run(BIND_SSO, [userKeys.user(id)], [issuer, subject])) as string | null;
    return bound ?? null;
  }

  async noteLogin(id: string, at: string): Promise<void> {
    await this.update(id, 'last_login_at', isoTime(at, 'at'));
  }

  async removeUser(id: string, options: KeepAnOwner = {}): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const user = await this.storedUser(id);
      if (user === null) return false;
      const [sessions, invitations, ids] = await this.io(() =>
        Promise.all([
          this.client.zRange(userKeys.sessions(id), 0, -1),
          this.client.zRange(userKeys.invitations(user.email), 0, -1),
          options.keepAnOwner ? this.client.sMembers(userKeys.customer(user.customer_id)) : Promise.resolve(null),
        ]),
      );
      const done = Number(
        await this.run(
          REMOVE_USER,
          [
            userKeys.user(id),
            userKeys.email(user.email),
            userKeys.customer(user.customer_id),
            userKeys.sessions(id),
            userKeys.invitations(user.email),
            ...sessions.map((m) => userKeys.session(memberHash(m))),
            ...invitations.map((h) => userKeys.invitation(h)),
            ...(ids ?? []).map(userKeys.user),
          ],
          [id, user.customer_id, String(sessions.length), String(invitations.length), String(ids?.length ?? -1), ...sessions, ...invitations, ...(ids ?? [])],
        ),
      );
      if (done === -2) throw new StateError(lastOwnerMessage(user.email), 'conflict');
      if (done !== -1) return done === 1;
      if (attempt >= RETRIES) throw new StoreUnavailableError(`user ${id}: its sessions kept changing while it was removed; retry`);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Invitations

  async createInvitation(tokenHash: string, invitation: InvitationRecord): Promise<void> {
    const i = checkedInvitation(invitation);
    await this.run(
      CREATE_INVITATION,
      [userKeys.invitation(tokenHash), userKeys.invitations(i.email)],
      [JSON.stringify(i), String(Date.parse(i.expires_at)), tokenHash, String(Date.now())],
    );
  }

  async consumeInvitation(tokenHash: string, now: string): Promise<InvitationRecord | null> {
    const at = isoTime(now, 'now');
    // GETDEL: of two nodes taking the same token, one gets it.
    const raw = await this.io(() => this.client.getDel(userKeys.invitation(tokenHash)));
    if (raw === null) return null;
    const invitation = InvitationRecord.parse(JSON.parse(raw));
    // Its entry in the email's index is only a pointer: left behind, it goes with its time.
    await this.io(() => this.client.zRem(userKeys.invitations(invitation.email), tokenHash)).catch(() => {});
    return invitation.expires_at <= at ? null : invitation;
  }

  // ---------------------------------------------------------------------------------------------
  // Sessions

  async createSession(idHash: string, session: SessionRecord): Promise<void> {
    const s = newSession(session);
    const members = await this.io(() => this.client.zRange(userKeys.sessions(s.user_id), 0, -1));
    const made = Number(
      await this.run(
        CREATE_SESSION,
        [userKeys.user(s.user_id), userKeys.session(idHash), userKeys.sessions(s.user_id), ...members.map((m) => userKeys.session(memberHash(m)))],
        [
          s.customer_id,
          member(s.id, idHash),
          String(Date.parse(s.created_at)),
          JSON.stringify(s),
          s.last_seen_at,
          String(Date.parse(s.last_seen_at)),
          String(Date.parse(s.expires_at)),
          String(SESSIONS_PER_USER),
          ...members,
        ],
      ),
    );
    if (made === 0) throw new StateError(`no user ${s.user_id}`, 'not_found');
    if (made === -2) throw new StateError(`user ${s.user_id} is not a user of customer ${s.customer_id}`);
    if (made === -3) throw new StateError(`session ${s.id} exists already`, 'conflict');
  }

  async touchSession(idHash: string, now: string, idleMs: number): Promise<SessionRecord | null> {
    const at = isoTime(now, 'now');
    const reply = (await this.run(
      TOUCH_SESSION,
      [userKeys.session(idHash)],
      [String(Date.parse(at)), String(idleMs), String(SESSION_TOUCH_INTERVAL_MS), at],
    )) as [string, string] | null;
    return reply === null ? null : { ...SessionRecord.parse(JSON.parse(reply[0])), last_seen_at: reply[1] };
  }

  /** The user's sessions still stored, with their index members; members whose session is gone are dropped. */
  private async storedSessions(userId: string): Promise<{ member: string; session: SessionRecord }[]> {
    const members = await this.io(() => this.client.zRange(userKeys.sessions(userId), 0, -1));
    if (members.length === 0) return [];
    const m = this.client.multi();
    for (const mb of members) m.hmGet(userKeys.session(memberHash(mb)), ['r', 'seen']);
    const rows = (await this.io(() => m.exec())) as unknown as (string | null)[][];
    const gone = members.filter((_, i) => !rows[i]?.[0]);
    // A member is never reused (the public id is new): dropping one whose session is gone races with nothing.
    if (gone.length > 0) await this.io(() => this.client.zRem(userKeys.sessions(userId), gone)).catch(() => {});
    return members.flatMap((mb, i) => {
      const [r, seen] = rows[i] ?? [];
      return r ? [{ member: mb, session: { ...SessionRecord.parse(JSON.parse(r)), last_seen_at: seen! } }] : [];
    });
  }

  async listSessions(userId: string, now = new Date().toISOString(), idleMs = SESSION_IDLE_MS): Promise<SessionRecord[]> {
    const nowMs = Date.parse(isoTime(now, 'now'));
    return (await this.storedSessions(userId))
      .map((s) => s.session)
      .filter((s) => !sessionOver(s, nowMs, idleMs))
      .sort(newestFirst);
  }

  async endSession(userId: string, sessionId: string): Promise<boolean> {
    const members = await this.io(() => this.client.zRange(userKeys.sessions(userId), 0, -1));
    const mb = members.find((m) => memberId(m) === sessionId);
    if (mb === undefined) return false;
    return Number(await this.run(END_SESSION, [userKeys.sessions(userId), userKeys.session(memberHash(mb))], [mb])) === 1;
  }

  async endSessionByHash(idHash: string): Promise<void> {
    const raw = await this.io(() => this.client.hGet(userKeys.session(idHash), 'r'));
    if (raw === null) return;
    const s = SessionRecord.parse(JSON.parse(raw));
    const ended = Number(await this.run(END_SESSION, [userKeys.sessions(s.user_id), userKeys.session(idHash)], [member(s.id, idHash)]));
    // Its member was not in the index (the user removed meanwhile): the session goes all the same.
    if (ended === 0) await this.io(() => this.client.del(userKeys.session(idHash)));
  }

  async endSessions(userId: string, keepSessionId?: string): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const members = await this.io(() => this.client.zRange(userKeys.sessions(userId), 0, -1));
      if (members.length === 0) return 0;
      const ended = Number(
        await this.run(END_SESSIONS, [userKeys.sessions(userId), ...members.map((m) => userKeys.session(memberHash(m)))], [keepSessionId ?? '', ...members]),
      );
      if (ended !== -1) return ended;
      if (attempt >= RETRIES) throw new StoreUnavailableError(`user ${userId}: sessions kept coming while they were ended; retry`);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Single sign-on

  async getSsoProvider(customerId: string): Promise<SsoProvider | null> {
    if (!CustomerId.safeParse(customerId).success) return null;
    const raw = await this.io(() => this.client.get(userKeys.sso(customerId)));
    return raw === null ? null : SsoProvider.parse(JSON.parse(raw));
  }

  async setSsoProvider(provider: SsoProvider): Promise<void> {
    const p = checkedProvider(provider);
    await this.io(() => this.client.set(userKeys.sso(p.customer_id), JSON.stringify(p)));
  }

  async removeSsoProvider(customerId: string): Promise<boolean> {
    if (!CustomerId.safeParse(customerId).success) return false;
    return (await this.io(() => this.client.del(userKeys.sso(customerId)))) > 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Audit log

  async appendAudit(event: NewAuditEvent): Promise<AuditEvent> {
    const e = newAuditEvent(event);
    await this.run(
      APPEND_AUDIT,
      [userKeys.audit(e.customer_id), userKeys.auditSeq(e.customer_id)],
      [String(Date.parse(e.at)), JSON.stringify(e), String(this.retentionMs ?? 0)],
    );
    return e;
  }

  async listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]> {
    let [start, end] = [Date.parse(isoTime(from, 'from')), Date.parse(isoTime(to, 'to'))];
    // Events past the retention wait for the customer's next append (or its key's expiry): never listed.
    if (this.retentionMs !== null) start = Math.max(start, Date.parse(auditKeptFrom(this.retentionMs)));
    if (!(limit > 0) || !CustomerId.safeParse(customerId).success) return [];
    const raw = await this.io(() =>
      this.client.zRange(userKeys.audit(customerId), start, `(${end}`, { BY: 'SCORE', LIMIT: { offset: 0, count: Math.floor(limit) } }),
    );
    return raw.map(auditMember);
  }

  /** Nothing runs in the background here: the retention is kept by the appends (APPEND_AUDIT). */
  async auditRetained(): Promise<void> {}

  // ---------------------------------------------------------------------------------------------
  // Export and import (svc state export / import): users, providers, the audit log; never sessions or invitations.

  /** Keys matching `pattern`, a SCAN page at a time, sorted within it (a key may come twice while Redis resizes). */
  private async *scan(pattern: string): AsyncIterable<string[]> {
    for await (const batch of scanKeys(this.client, pattern)) yield [...batch].sort(byText);
  }

  async *exportEntries(): AsyncIterable<UserEntry> {
    for await (const batch of this.scan(USER_KEYS)) {
      if (batch.length === 0) continue;
      const m = this.client.multi();
      for (const key of batch) m.hGetAll(key);
      const rows = (await this.io(() => m.exec())) as unknown as Record<string, string>[];
      for (const h of rows) {
        if (!h?.id) continue;
        const user = storedUser(h);
        yield UserEntry.parse({ type: 'user', record: userRecord(user), password_hash: user.password_hash });
      }
    }
    for await (const batch of this.scan(SSO_KEYS)) {
      for (const key of batch) {
        if (!SSO_KEY.test(key)) continue;
        const raw = await this.io(() => this.client.get(key));
        if (raw !== null) yield UserEntry.parse({ type: 'sso_provider', provider: JSON.parse(raw) });
      }
    }
    for await (const batch of this.scan(AUDIT_KEYS)) {
      for (const key of batch) {
        if (!AUDIT_KEY.test(key)) continue;
        for (let offset = 0; ; offset += TRANSFER_PAGE) {
          const page = await this.io(() => this.client.zRange(key, offset, offset + TRANSFER_PAGE - 1));
          for (const raw of page) yield UserEntry.parse({ type: 'audit_event', event: auditMember(raw) });
          if (page.length < TRANSFER_PAGE) break;
        }
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    for (const [pattern, match] of [
      [USER_KEYS, null],
      [SSO_KEYS, SSO_KEY],
      [AUDIT_KEYS, AUDIT_KEY],
    ] as const) {
      for await (const batch of this.scan(pattern)) if (batch.some((k) => match === null || match.test(k))) return false;
    }
    return true;
  }

  async importEntries(entries: AsyncIterable<UserEntry> | Iterable<UserEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds users, SSO providers or audit events: import into an empty state', 'conflict');
    const ids = new Set<string>();
    const emails = new Set<string>();
    const seq = new Map<string, number>();
    let n = 0;
    let batch: UserEntry[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      // One MULTI per hash tag: in Redis Cluster a transaction's keys share a slot.
      const multis = new Map<string, ReturnType<RedisClientType['multi']>>();
      const multi = (tag: string) => {
        let m = multis.get(tag);
        if (m === undefined) multis.set(tag, (m = this.client.multi()));
        return m;
      };
      for (const e of batch) {
        switch (e.type) {
          case 'user': {
            const r = e.record;
            if (ids.has(r.id) || emails.has(r.email)) throw new StateError(`user ${r.id} (${r.email}): its id or email is listed twice`, 'conflict');
            ids.add(r.id);
            emails.add(r.email);
            multi('users')
              .hSet(
                userKeys.user(r.id),
                new Map([
                  ['id', r.id],
                  ['customer_id', r.customer_id],
                  ['email', r.email],
                  ['role', r.role],
                  ['password_hash', e.password_hash ?? ''],
                  ['sso', r.sso ? '1' : '0'],
                  ['created_at', isoTime(r.created_at, 'created_at')],
                  ['last_login_at', r.last_login_at === null ? '' : isoTime(r.last_login_at, 'last_login_at')],
                ]),
              )
              .set(userKeys.email(r.email), r.id)
              .sAdd(userKeys.customer(r.customer_id), r.id);
            break;
          }
          case 'sso_provider':
            multi(e.provider.customer_id).set(userKeys.sso(e.provider.customer_id), JSON.stringify(e.provider));
            break;
          case 'audit_event': {
            const ev = { ...e.event, at: isoTime(e.event.at, 'at') };
            // The file lists a customer's events oldest first: numbered in its order, they list back in it.
            const next = (seq.get(ev.customer_id) ?? 0) + 1;
            seq.set(ev.customer_id, next);
            multi(ev.customer_id).zAdd(userKeys.audit(ev.customer_id), {
              score: Date.parse(ev.at),
              value: next.toString(16).padStart(SEQ_DIGITS, '0') + JSON.stringify(ev),
            });
            break;
          }
        }
      }
      batch = [];
      // No deadline for the whole batch: a big import is many commands, each answered in its turn.
      for (const m of multis.values()) await m.exec();
    };
    for await (const raw of entries) {
      batch.push(UserEntry.parse(raw));
      n++;
      if (batch.length >= TRANSFER_PAGE) await flush();
    }
    await flush();
    for (const [customer, last] of seq) await this.client.set(userKeys.auditSeq(customer), String(last));
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // Failure counts (failed sign-ins): one hash per key, n and ends (epoch ms), expiring at its window's end.

  async countFailure(key: string, nowMs: number, windowMs: number): Promise<void> {
    await this.run(COUNT_FAILURE, [userKeys.failures(key)], [String(nowMs), String(nowMs + windowMs)]);
  }

  async failuresOf(key: string, nowMs: number): Promise<{ failures: number; endsMs: number } | null> {
    const [n, ends] = await this.io(() => this.client.hmGet(userKeys.failures(key), ['n', 'ends']));
    if (!n || !ends || Number(ends) <= nowMs) return null;
    return { failures: Number(n), endsMs: Number(ends) };
  }

  /** Lets go of the state store's client (it stays open: the state store closes it). */
  async close(): Promise<void> {
    this.closed = true;
  }
}
