/**
 * The Lua of the visit store on Redis (redis.ts): each script touches the keys of one customer (one hash
 * tag, one slot) or one tag's sightings, so it runs unchanged on Redis Cluster. They mirror store.ts's
 * rules (the raw-view ids, the sighting rule); the contract test holds both backends to them.
 */
import { ROLLUP_LUA } from './redis-rollup-scripts.ts';
import { RAW_VIEW_ID_SLACK_MS } from './store.ts';

/**
 * The keys. Those of one customer carry its hash tag `{cust:<id>}` (one slot per script on a cluster):
 *
 *   svc:{cust:C}:v:acct:<day>            hash  <company>:views | :sessions | :first | :last
 *   svc:{cust:C}:v:pages:<day>:<company> hash  path → views (PATHS_PER_ACCOUNT_DAY, then OTHER_PATHS)
 *   svc:{cust:C}:v:sess:<day>:<company>  set   session ids (expire after two days: they dedupe one day;
 *                                              at most SESSIONS_PER_ACCOUNT_DAY)
 *   svc:{cust:C}:v:anon                  hash  day → anonymous views (days past the retention dropped)
 *   svc:{cust:C}:v:unid:<day>            hash  reason → that day's anonymous views matching no company for it
 *                                              (coverage.ts; counted with v:anon, expires with the day's keys)
 *   svc:{cust:C}:v:jrn:<company>         zset  the account's recent sessions → latest view (epoch ms);
 *                                              at most SESSIONS_PER_ACCOUNT, the longest unseen go first
 *   svc:{cust:C}:v:jrnm:<company>        hash  session → `<first seen>|<last seen>|<views>`
 *   svc:{cust:C}:v:jrnp:<company>:<sess> list  the session's first PAGES_PER_SESSION views, `<at>\t<path>`
 *   svc:{cust:C}:v:seg:<company>         string the account's segments at its latest view, a JSON array
 *                                              (swapAccountSegments; expires (retention + 1) days after it)
 *   svc:{cust:C}:v:first                 zset  company → the UTC day of its first view (days since the epoch;
 *                                              ZADD LT on its first view of each day: the earliest wins)
 *   svc:{cust:C}:v:segin:<day>           string segments entered that day (swapAccountSegments; SWAP)
 *   svc:{cust:C}:v:day:<day>             hash  the day's rollup (redis-rollup-scripts.ts)
 *   svc:{cust:C}:v:rank:<day>            zset  the day's accounts by views (redis-rollup-scripts.ts)
 *   svc:{cust:C}:v:events                stream the raw views kept for the export (store.ts RawPageView), ids
 *                                              `<ms>-<n>` by store.ts nextRawViewId, fields `d` (the view's
 *                                              day) and `v` (its JSON text, rawViewText)
 *   svc:tagseen:<tag>                    hash  origin → `<last seen>|<hits>` (ORIGINS_PER_TAG; store.ts
 *                                              sightingVictim decides who makes room)
 */
export const visitKeys = {
  account: (c: string, day: string) => `svc:{cust:${c}}:v:acct:${day}`,
  pages: (c: string, day: string, company: string) => `svc:{cust:${c}}:v:pages:${day}:${company}`,
  sessions: (c: string, day: string, company: string) => `svc:{cust:${c}}:v:sess:${day}:${company}`,
  anonymous: (c: string) => `svc:{cust:${c}}:v:anon`,
  sightings: (tag: string) => `svc:tagseen:${tag}`,
  journeys: (c: string, company: string) => `svc:{cust:${c}}:v:jrn:${company}`,
  journeyMeta: (c: string, company: string) => `svc:{cust:${c}}:v:jrnm:${company}`,
  journeyPages: (c: string, company: string, session: string) => `svc:{cust:${c}}:v:jrnp:${company}:${session}`,
  segments: (c: string, company: string) => `svc:{cust:${c}}:v:seg:${company}`,
  rawViews: (c: string) => `svc:{cust:${c}}:v:events`,
  firstSeen: (c: string) => `svc:{cust:${c}}:v:first`,
  segmentEntries: (c: string, day: string) => `svc:{cust:${c}}:v:segin:${day}`,
  unidentified: (c: string, day: string) => `svc:{cust:${c}}:v:unid:${day}`,
  rollup: (c: string, day: string) => `svc:{cust:${c}}:v:day:${day}`,
  rank: (c: string, day: string) => `svc:{cust:${c}}:v:rank:${day}`,
};

export const SESSION_TTL_S = 2 * 86_400;

/**
 * Appends a raw view to its customer's stream under the next id (store.ts nextRawViewId, Redis's clock as
 * the store's), trimming what is past the retention (by Redis's clock: a node's clock cannot trim early).
 * Arguments: the stream, the view's epoch ms (as text), the two parts of its text around the first-of-day
 * flag, the flag (0/1), its day, the retention in ms and the stream's TTL in seconds.
 */
const KEEP_RAW = `
local function keep_raw(stream, at_ms, head, first, tail, day, keep_ms, ttl)
  local t = redis.call('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local ms, n = math.min(tonumber(at_ms), now_ms + ${RAW_VIEW_ID_SLACK_MS}), 0
  local top = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)[1]
  if top then
    local top_ms, top_n = string.match(top[1], '^(%d+)-(%d+)$')
    if ms <= tonumber(top_ms) then ms, n = tonumber(top_ms), tonumber(top_n) + 1 end
  end
  local min_ms = math.floor(now_ms / 86400000) * 86400000 - tonumber(keep_ms)
  local flag = 'false'
  if first == 1 then flag = 'true' end
  redis.call('XADD', stream, 'MINID', '~', string.format('%.0f', min_ms), string.format('%.0f', ms) .. '-' .. string.format('%.0f', n),
    'd', day, 'v', head .. flag .. tail)
  redis.call('EXPIRE', stream, ttl)
end
`;

/** A raw view kept on its own (VisitStore.keepRawPageView): KEYS[1] the stream, ARGV as keep_raw's after it. */
export const KEEP = `${KEEP_RAW}
keep_raw(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]))
return 1
`;

/**
 * One page view counted, and its raw view kept in the same script when given (ARGV[17] not empty):
 * KEYS[8] the customer's stream, ARGV[17..21] head, tail, day, retention (ms), stream TTL. KEYS[9] the
 * accounts' first days, ARGV[22] the view's day as days since the epoch. KEYS[10] the day's reasons of
 * anonymous views, ARGV[23] this one's (empty: not told). KEYS[11] and KEYS[12] the day's rollup and
 * ranking (redis-rollup-scripts.ts), ARGV[24..27] the account hashes' and rollups' key prefixes, the span, the last day to look at.
 */
export const RECORD = `${KEEP_RAW}${ROLLUP_LUA}
local function count()
local acct, pages, sess, anon = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local company, day, path, session, at = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local day_ttl, kept_from = tonumber(ARGV[10]), ARGV[11]
if company == '' then
  if redis.call('HINCRBY', anon, day, 1) == 1 then
    for _, d in ipairs(redis.call('HKEYS', anon)) do
      if d < kept_from then redis.call('HDEL', anon, d) end
    end
  end
  redis.call('EXPIRE', anon, day_ttl)
  if ARGV[23] ~= '' then
    redis.call('HINCRBY', KEYS[10], ARGV[23], 1)
    redis.call('EXPIRE', KEYS[10], day_ttl)
  end
  return 0
end
local new_session = 0
if redis.call('SCARD', sess) < tonumber(ARGV[9]) then new_session = redis.call('SADD', sess, session) end
redis.call('EXPIRE', sess, tonumber(ARGV[8]))
local fresh = redis.call('EXISTS', acct) == 0
local views = redis.call('HINCRBY', acct, company .. ':views', 1)
local old_first = nil
if views == 1 then
  old_first = redis.call('ZSCORE', KEYS[9], company)
  if old_first then old_first = tonumber(old_first) end
  redis.call('ZADD', KEYS[9], 'LT', ARGV[22], company)
  redis.call('EXPIRE', KEYS[9], day_ttl)
end
rollup_view(KEYS[11], KEYS[12], company, 1, views == 1, tonumber(ARGV[22]), old_first, fresh, ARGV[24], ARGV[25], tonumber(ARGV[26]), tonumber(ARGV[27]))
redis.call('EXPIRE', KEYS[11], day_ttl)
redis.call('EXPIRE', KEYS[12], day_ttl)
redis.call('HINCRBY', acct, company .. ':sessions', new_session)
local first = redis.call('HGET', acct, company .. ':first')
if (not first) or at < first then redis.call('HSET', acct, company .. ':first', at) end
local last = redis.call('HGET', acct, company .. ':last')
if (not last) or at > last then redis.call('HSET', acct, company .. ':last', at) end
if redis.call('HEXISTS', pages, path) == 0 and redis.call('HLEN', pages) >= tonumber(ARGV[6]) then path = ARGV[7] end
redis.call('HINCRBY', pages, path, 1)
redis.call('EXPIRE', acct, day_ttl)
redis.call('EXPIRE', pages, day_ttl)
-- The journey: the session's meta, its latest view, its first pages; a new session may push out old ones.
-- The pages keys of sessions pushed out are derived from ARGV[15] (the same hash tag: the same slot).
local jr, jm, jp = KEYS[5], KEYS[6], KEYS[7]
local at_ms, max_pages, max_sessions, jp_prefix, kept_ms = tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14]), ARGV[15], ARGV[16]
local meta = redis.call('HGET', jm, session)
if meta then
  local f, l, n = string.match(meta, '^(.-)|(.-)|(%d+)$')
  if at < f then f = at end
  if at > l then l = at end
  redis.call('HSET', jm, session, f .. '|' .. l .. '|' .. (tonumber(n) + 1))
else
  redis.call('HSET', jm, session, at .. '|' .. at .. '|1')
end
local score = redis.call('ZSCORE', jr, session)
if (not score) or tonumber(score) < at_ms then redis.call('ZADD', jr, at_ms, session) end
if redis.call('LLEN', jp) < max_pages then redis.call('RPUSH', jp, at .. '\t' .. path) end
redis.call('EXPIRE', jr, day_ttl)
redis.call('EXPIRE', jm, day_ttl)
redis.call('EXPIRE', jp, day_ttl)
if not meta then
  local function drop(s)
    redis.call('HDEL', jm, s)
    redis.call('DEL', jp_prefix .. s)
    redis.call('ZREM', jr, s)
  end
  local n = redis.call('ZCARD', jr)
  if n > max_sessions then
    for _, s in ipairs(redis.call('ZRANGE', jr, 0, n - max_sessions - 1)) do drop(s) end
  end
  for _, s in ipairs(redis.call('ZRANGEBYSCORE', jr, '-inf', '(' .. kept_ms)) do drop(s) end
end
if views == 1 then return 1 end
return 0
end
local first = count()
if ARGV[17] ~= '' then keep_raw(KEYS[8], ARGV[12], ARGV[17], first, ARGV[18], ARGV[19], ARGV[20], tonumber(ARGV[21])) end
return first
`;

/** store.ts parseSighting, seenAgain and sightingVictim, in Lua (the contract test holds them to one rule). */
export const SIGHT = `
local key, origin, at, cap, stale, settled = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]
local function parse(value)
  local bar = string.find(value, '|', 1, true)
  if not bar then return value, 1 end
  return string.sub(value, 1, bar - 1), tonumber(string.sub(value, bar + 1)) or 1
end
local seen = redis.call('HGET', key, origin)
if seen then
  local last, hits = parse(seen)
  if string.sub(at, 1, 16) > string.sub(last, 1, 16) then hits = hits + 1 end
  if at > last then last = at end
  redis.call('HSET', key, origin, last .. '|' .. hits)
  return 0
end
if redis.call('HLEN', key) >= cap then
  local all = redis.call('HGETALL', key)
  local stale_o, stale_t, once_o, once_t = nil, nil, nil, nil
  for i = 1, #all, 2 do
    local o = all[i]
    local last, hits = parse(all[i + 1])
    if last < stale and ((not stale_t) or last < stale_t or (last == stale_t and o < stale_o)) then stale_o, stale_t = o, last end
    if hits <= 1 and last <= settled and ((not once_t) or last < once_t or (last == once_t and o < once_o)) then once_o, once_t = o, last end
  end
  local victim = stale_o or once_o
  if not victim then return 0 end
  redis.call('HDEL', key, victim)
end
redis.call('HSET', key, origin, at .. '|1')
return 1
`;

/**
 * swapAccountSegments: the account's segments set (KEYS[1], ARGV[1] a JSON array, ARGV[2] its TTL) and the
 * segments entered counted on the day's counter (KEYS[2], ARGV[3] its TTL), as store.ts enteredCount;
 * answers the set remembered before (nil: none).
 */
export const SWAP = `
local before = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
local was = {}
if before then for _, id in ipairs(cjson.decode(before)) do was[id] = true end end
local entered = 0
for _, id in ipairs(cjson.decode(ARGV[1])) do
  if not was[id] then
    was[id] = true
    entered = entered + 1
  end
end
if entered > 0 then
  redis.call('INCRBY', KEYS[2], entered)
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return before
`;
