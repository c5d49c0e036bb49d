/**
 * The per-day rollup on Redis (rollup.ts), in Lua: counted inside the script that counts the page view
 * (redis-scripts.ts RECORD) and the one that imports an account-day (IMPORT_ACCOUNT_DAY), so it changes in
 * the same atomic step as the aggregates. Every key it touches carries the customer's hash tag: the day's
 * rollup and ranking are the script's keys; the other days' account hashes and rollups it looks at are
 * named from prefixes of the same tag, so a script still touches one slot on Redis Cluster.
 *
 *   svc:{cust:C}:v:day:<day>   hash  views (identified), new (accounts first seen), g<gap> (accounts per gap),
 *                                    full (1: every account view of the day went through the rollup)
 *   svc:{cust:C}:v:rank:<day>  zset  company → the day's views (top-accounts.ts reads it by rank)
 *
 * Both expire with the day's other keys. A day's rollup created by a view while the day's account hash
 * already held views (written before the rollup existed) is not `full`: reads fall back to the aggregates.
 */

/**
 * Lua functions for a script of one customer: `day_name` (days since the epoch → YYYY-MM-DD, Hinnant's
 * civil_from_days), `gap_of` (rollup.ts visitGap), and `rollup_view`, what one counted account-day adds.
 */
export const ROLLUP_LUA = `
local function day_name(z)
  z = z + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp + 3
  if mp >= 10 then m = mp - 9 end
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return string.format('%04d-%02d-%02d', y, m, d)
end
local function gap_of(day, prev, span)
  if not prev then return 0 end
  if day - prev >= span then return 0 end
  return day - prev
end
-- added views of company on day d (days since the epoch) in the day's rollup dk and ranking rank. first_of_day:
-- the account-day is new, so its first day seen (old_first: before this step, nil when none), the day's new
-- accounts, its gap and the gap of the account's next day change; other days are looked up by name:
-- acct_prefix .. day (the account hashes), day_prefix .. day (the rollups), up to day up_to at the latest.
-- fresh: the day's account hash held nothing before this step (a rollup created now covers the whole day).
local function rollup_view(dk, rank, company, added, first_of_day, d, old_first, fresh, acct_prefix, day_prefix, span, up_to)
  if redis.call('EXISTS', dk) == 0 then
    local full = 0
    if fresh then full = 1 end
    redis.call('HSET', dk, 'full', full)
  end
  if added ~= 0 then
    redis.call('HINCRBY', dk, 'views', added)
    redis.call('ZINCRBY', rank, added, company)
  end
  if not first_of_day then return end
  redis.call('ZADD', rank, 'NX', 0, company)
  if (not old_first) or old_first > d then
    redis.call('HINCRBY', dk, 'new', 1)
    if old_first then
      local was = day_prefix .. day_name(old_first)
      if redis.call('EXISTS', was) == 1 then redis.call('HINCRBY', was, 'new', -1) end
    end
  end
  local field = company .. ':views'
  local prev, next = nil, old_first
  if old_first and old_first < d then
    next = nil
    for k = 1, math.min(span - 1, d - old_first) do
      if redis.call('HEXISTS', acct_prefix .. day_name(d - k), field) == 1 then
        prev = d - k
        break
      end
    end
    for k = 1, math.min(span - 1, up_to - d) do
      if redis.call('HEXISTS', acct_prefix .. day_name(d + k), field) == 1 then
        next = d + k
        break
      end
    end
  end
  redis.call('HINCRBY', dk, 'g' .. gap_of(d, prev, span), 1)
  if not next then return end
  local before, after = gap_of(next, prev, span), gap_of(next, d, span)
  local nk = day_prefix .. day_name(next)
  if before ~= after and redis.call('EXISTS', nk) == 1 then
    redis.call('HINCRBY', nk, 'g' .. before, -1)
    redis.call('HINCRBY', nk, 'g' .. after, 1)
  end
end
`;

/**
 * One imported account-day (redis-transfer.ts): its counters, the accounts' first days and the rollup, as
 * counting its views live would have left them; a day given twice (a SCAN may list a key twice) counts once.
 * KEYS: the day's account hash, the first days, the day's rollup, its ranking. ARGV: company, views,
 * sessions, first and last seen, the keys' expiry (epoch ms), the day (days since the epoch), the two
 * prefixes, the span, the last day to look at, the first days' TTL (s).
 */
export const IMPORT_ACCOUNT_DAY = `${ROLLUP_LUA}
local acct, firsts, dk, rank = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local company, views = ARGV[1], tonumber(ARGV[2])
local d = tonumber(ARGV[7])
local fresh = redis.call('EXISTS', acct) == 0
local had = redis.call('HGET', acct, company .. ':views')
redis.call('HSET', acct, company .. ':views', views, company .. ':sessions', ARGV[3], company .. ':first', ARGV[4], company .. ':last', ARGV[5])
redis.call('PEXPIREAT', acct, ARGV[6])
local old_first = redis.call('ZSCORE', firsts, company)
if old_first then old_first = tonumber(old_first) end
redis.call('ZADD', firsts, 'LT', d, company)
redis.call('EXPIRE', firsts, ARGV[12])
rollup_view(dk, rank, company, views - tonumber(had or '0'), not had, d, old_first, fresh, ARGV[8], ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11]))
redis.call('PEXPIREAT', dk, ARGV[6])
redis.call('PEXPIREAT', rank, ARGV[6])
return 1
`;
