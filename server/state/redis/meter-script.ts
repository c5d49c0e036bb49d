/**
 * METER, the metering Lua script: one call per customer and event-loop turn (batcher.ts) runs that turn's
 * rate-limit hits and charges atomically over the customer's keys (one hash tag, one slot), in order — no
 * other client's command interleaves, so limits, balances, the monthly dedup, the charge and the ledger
 * entry are decided and written in one step, never read-then-write from Node.
 *
 * The decisions are made op by op, as if each op's writes were made at once; the writes themselves are
 * gathered and made once per key at the end of the call (one INCRBY per counter, one RPUSH of the
 * ledger entries, one HINCRBY per usage field …): a batch of n requests costs Redis a handful of commands
 * instead of ~5 per request. The state after the call is the same as op by op. Journaled and void charges
 * (after an outage: rare) first write what is gathered, then run op by op against Redis as it is.
 *
 * ARGV[1] is the op stream, op after op, its arguments packed into one string (ARGS_SEPARATOR between
 * them); key arguments are 1-based indexes into KEYS. Ledger entries, charge ids of runs and dedup keys —
 * long, or a client's text — are ARGV elements of their own after it, which the stream names by their
 * index in ARGV (meter-ops.ts writes both):
 *   'r', ttl, n, (key, limit) × n
 *      → n counts after the increment. A request that would pass a limit increments none of its keys (so
 *      a visitor refused by its own counter never spends the tag-wide one) and gets the counts it would
 *      have made (each one more than now, so the refused key reads as over its limit).
 *   'c', u, l, s, r, d, dk, dttl, q, e, f, p, id, mode
 *      u: used-credits key, d: the month's dedup hash (0: none) with field ARGV[dk] (dk 0: none), expiring
 *      dttl ms after the last charge; l: ledger list, s: usage hash (fields f|c, and f|p when p is '1', a
 *      partner call), q: quota, ARGV[e]: the ledger entry (JSON, carrying the id), r: the settled-ids set,
 *      id: the charge id. A
 *      charge's id enters r once its node settled it out of band (below), so the charge itself, should it
 *      still run (sent before an outage, run after the node gave up on its answer), then counts nothing:
 *      'duplicate'.
 *      mode 'j': a journaled charge replayed after an outage: counted exactly once by id, whatever the
 *      balance (the client already got its answer), and not at all when another attempt of the same
 *      request was charged (its key dk in d: a proxy's retry); 'x': the same, and it was in flight when
 *      its answer was lost, so it counts only if its ledger entry is not among the ledger's last
 *      LEDGER_LOOKBACK entries already. 'v': void — a charge whose answer was lost and whose request was
 *      answered without it (503, 402): if it ran, it is refunded (ledger entry, balance, usage, dedup key),
 *      unless an answer given for free since relied on its dedup key (marked 2 in d: should that free
 *      answer have been lost too, the credit stays, and the record's next export this month is free);
 *      either way, it can no longer run. '': an ordinary charge.
 *      → [outcome, used after]; outcome charged | free | exhausted | duplicate | void | refunded | kept
 *   'q', then the arguments of 'c': the charge of the request whose rate-limit hit ('r') is the op just
 *      before it, made only if that hit was admitted (one op per request: meter-ops.ts RateChargeOp)
 *      → replaces the 'r' op's result with [counts, [outcome, used after]], or [counts, 'limited'].
 *   'R', ttl, m, (key, limit) × m, u, l, s, r, q, f, p, n, at
 *      n requests' hits of the same counters, each with an ordinary charge without a dedup key, alike in
 *      all but their ledger entry and id, or with none (u, l, s, r 0 when no request of the run charges):
 *      a run (meter-ops.ts ChargeRun) — the steady traffic of a token, sent as one op so the script
 *      neither splits nor decides ~20 arguments a request (they were most of its cost). The requests'
 *      ledger entries are ARGV[at … at+n-1] and their ids the n elements after them ('' both for a
 *      request that charges nothing): the script copies no long string out of the stream
 *      → [counts before the run, a (how many were admitted), used before the run, the 1-based places
 *      of the admitted ones settled out of band]: ChargeRun derives each request's reply from it.
 * Returns the JSON array of the ops' results.
 */

/**
 * How far back (ledger entries of the customer) a charge whose answer was lost is looked for when its
 * journal entry is replayed or voided: the charges made between the loss and the replay, bounded by the
 * outage allowance of every node and the traffic of the first moments after Redis is back.
 */
export const LEDGER_LOOKBACK = 10_000;

/**
 * Between the op stream's arguments, packed into ONE script argument (batcher.ts): a call's hundreds of
 * small arguments cost the node more to encode and write (one RESP bulk string each, ~18 µs a response in
 * a profile) than one string, which the script splits. No stream argument contains it: numbers, op codes,
 * ids, `pool|api|month`, ARGV indexes. What could (a dedup key holds a client's record) or is long (ledger
 * entries: splitting them out of the stream was most of a run's script time) goes in ARGV elements of
 * its own.
 */
export const ARGS_SEPARATOR = '\x1f';

/** Ledger entries (and dedup fields) per RPUSH (HSET): under Lua's limit on unpacked values. */
const WRITE_CHUNK = 1000;

export const METER_SCRIPT = `
-- The op stream, ARGV[1] split at ARGS_SEPARATOR.
local A = {}
do
  local s, p, n = ARGV[1], 1, 0
  while true do
    local q = string.find(s, '\\31', p, true)
    n = n + 1
    if not q then A[n] = string.sub(s, p); break end
    A[n] = string.sub(s, p, q - 1)
    p = q + 1
  end
end
local out = {}
-- Read once per call, then kept current here: rate counts, credits used, whether a settled-ids set exists.
local count, used, settled = {}, {}, {}
-- Gathered writes, per key index.
local rlAdd, rlTtl, usedAdd, dedup, dedupTtl, ledger, usage = {}, {}, {}, {}, {}, {}, {}

local function chunked(cmd, key, list)
  for i = 1, #list, ${WRITE_CHUNK} do
    redis.call(cmd, key, unpack(list, i, math.min(i + ${WRITE_CHUNK} - 1, #list)))
  end
end

local function write()
  for ki, add in pairs(rlAdd) do
    if redis.call('INCRBY', KEYS[ki], add) == add then redis.call('PEXPIRE', KEYS[ki], rlTtl[ki]) end
  end
  for ui, add in pairs(usedAdd) do redis.call('INCRBY', KEYS[ui], add) end
  for di, fields in pairs(dedup) do
    local list = {}
    for f, v in pairs(fields) do list[#list + 1] = f; list[#list + 1] = v end
    chunked('HSET', KEYS[di], list)
    if dedupTtl[di] then redis.call('PEXPIRE', KEYS[di], dedupTtl[di]) end
  end
  for li, entries in pairs(ledger) do chunked('RPUSH', KEYS[li], entries) end
  for si, fields in pairs(usage) do
    for f, add in pairs(fields) do redis.call('HINCRBY', KEYS[si], f, add) end
  end
  rlAdd, usedAdd, dedup, dedupTtl, ledger, usage = {}, {}, {}, {}, {}, {}
  used, settled = {}, {}
end

-- A counter's value (a rate count: cache count; credits used: cache used), read from Redis once.
local function current(cache, ki)
  local v = cache[ki]
  if v == nil then
    v = tonumber(redis.call('GET', KEYS[ki]) or '0')
    cache[ki] = v
  end
  return v
end

local function dedupGet(di, field)
  local fields = dedup[di]
  local v = fields and fields[field]
  if v then return v end
  return redis.call('HGET', KEYS[di], field)
end

local function dedupSet(di, field, v)
  local fields = dedup[di]
  if not fields then fields = {}; dedup[di] = fields end
  fields[field] = v
end

local function addUsage(si, field, k)
  local fields = usage[si]
  if not fields then fields = {}; usage[si] = fields end
  fields[field] = (fields[field] or 0) + (k or 1)
end

-- A journaled or void charge, op by op against Redis as it is (everything gathered written first).
local function settle(mode, ui, li, si, ri, di, dk, dttl, q, e, f, p, id)
  write()
  local u, l, s, r = KEYS[ui], KEYS[li], KEYS[si], KEYS[ri]
  local d = di and KEYS[di]
  local usedNow = tonumber(redis.call('GET', u) or '0')
  local outcome
  if mode == 'v' then
    outcome = 'void'
    if redis.call('SADD', r, id) == 1 and redis.call('LPOS', l, e, 'RANK', -1, 'MAXLEN', ${LEDGER_LOOKBACK}) then
      if d and redis.call('HGET', d, dk) == '2' then
        outcome = 'kept'
      else
        outcome = 'refunded'
        redis.call('LREM', l, -1, e)
        if usedNow > 0 then usedNow = redis.call('DECR', u) end
        if redis.call('HINCRBY', s, f .. '|c', -1) <= 0 then redis.call('HDEL', s, f .. '|c') end
        if p and redis.call('HINCRBY', s, f .. '|p', -1) <= 0 then redis.call('HDEL', s, f .. '|p') end
        if d then redis.call('HDEL', d, dk) end
      end
    end
  elseif redis.call('SADD', r, id) == 0 then
    outcome = 'duplicate'
  elseif mode == 'x' and redis.call('LPOS', l, e, 'RANK', -1, 'MAXLEN', ${LEDGER_LOOKBACK}) then
    outcome = 'duplicate'
  elseif d and redis.call('HEXISTS', d, dk) == 1 then
    outcome = 'duplicate'
    redis.call('HSET', d, dk, '2')
  else
    outcome = 'charged'
    usedNow = redis.call('INCR', u)
    if d then
      redis.call('HSET', d, dk, '1')
      redis.call('PEXPIRE', d, dttl)
    end
    redis.call('RPUSH', l, e)
    redis.call('HINCRBY', s, f .. '|c', 1)
    if p then redis.call('HINCRBY', s, f .. '|p', 1) end
  end
  used, settled = {}, {}
  return outcome, usedNow
end

local i = 1
-- Whether the last rate-limit hit was admitted (a 'q' charge runs only then).
local lastAdmitted = false
while i <= #A do
  if A[i] == 'r' then
    local ttl, m = A[i + 1], tonumber(A[i + 2])
    local first = i + 3
    local admitted = true
    for j = first, first + 2 * m - 1, 2 do
      if current(count, tonumber(A[j])) + 1 > tonumber(A[j + 1]) then admitted = false end
    end
    local counts = {}
    for j = first, first + 2 * m - 1, 2 do
      local ki = tonumber(A[j])
      if admitted then
        count[ki] = count[ki] + 1
        rlAdd[ki] = (rlAdd[ki] or 0) + 1
        rlTtl[ki] = ttl
        counts[#counts + 1] = count[ki]
      else
        counts[#counts + 1] = count[ki] + 1
      end
    end
    out[#out + 1] = counts
    lastAdmitted = admitted
    i = first + 2 * m
  elseif A[i] == 'R' then
    -- A run of n requests (meter-ops.ts ChargeRun): they hit the same counters, so the first a of them
    -- are admitted and the rest refused; the admitted ones that charge are charged in order until the
    -- quota, save those settled out of band ('duplicate').
    local ttl, m = A[i + 1], tonumber(A[i + 2])
    local first = i + 3
    local after = first + 2 * m
    local ui, li, si, ri = tonumber(A[after]), tonumber(A[after + 1]), tonumber(A[after + 2]), tonumber(A[after + 3])
    local q, f, p, n = tonumber(A[after + 4]), A[after + 5], A[after + 6] == '1', tonumber(A[after + 7])
    -- The run's ledger entries are ARGV[e0 …], their ids the n after them.
    local e0 = tonumber(A[after + 8])
    local before, a = {}, n
    for j = first, after - 1, 2 do
      local c = current(count, tonumber(A[j]))
      before[#before + 1] = c
      local room = tonumber(A[j + 1]) - c
      if room < a then a = room end
    end
    if a < 0 then a = 0 end
    if a > 0 then
      for j = first, after - 1, 2 do
        local ki = tonumber(A[j])
        count[ki] = count[ki] + a
        rlAdd[ki] = (rlAdd[ki] or 0) + a
        rlTtl[ki] = ttl
      end
    end
    -- ui 0: no request of the run charges (each one's e is '').
    local u, u0, charged, dups = 0, 0, 0, {}
    if ui > 0 then
      u = current(used, ui)
      u0 = u
      if settled[ri] == nil then settled[ri] = redis.call('EXISTS', KEYS[ri]) == 1 end
      local entries = ledger[li]
      if not entries then entries = {}; ledger[li] = entries end
      for k = 0, a - 1 do
        local e = ARGV[e0 + k]
        if e == '' then
          -- a hit alone
        elseif settled[ri] and redis.call('SISMEMBER', KEYS[ri], ARGV[e0 + n + k]) == 1 then
          dups[#dups + 1] = k + 1
        elseif u + 1 <= q then
          u = u + 1
          charged = charged + 1
          entries[#entries + 1] = e
        end
      end
    end
    if charged > 0 then
      used[ui] = u
      usedAdd[ui] = (usedAdd[ui] or 0) + charged
      addUsage(si, f .. '|c', charged)
      if p then addUsage(si, f .. '|p', charged) end
    end
    out[#out + 1] = { before, a, u0, dups }
    i = after + 9
  elseif A[i] == 'q' and not lastAdmitted then
    out[#out] = { out[#out], 'limited' }
    i = i + 14
  else
    local paired = A[i] == 'q'
    local ui, li, si, ri = tonumber(A[i + 1]), tonumber(A[i + 2]), tonumber(A[i + 3]), tonumber(A[i + 4])
    local di = tonumber(A[i + 5])
    if di == 0 then di = nil end
    local dk, dttl, q, e, f = ARGV[tonumber(A[i + 6])] or '', A[i + 7], tonumber(A[i + 8]), ARGV[tonumber(A[i + 9])], A[i + 10]
    local p, id, mode = A[i + 11] == '1', A[i + 12], A[i + 13]
    i = i + 14
    local outcome, u
    if mode ~= '' then
      outcome, u = settle(mode, ui, li, si, ri, di, dk, dttl, q, e, f, p, id)
    else
      u = current(used, ui)
      if settled[ri] == nil then settled[ri] = redis.call('EXISTS', KEYS[ri]) == 1 end
      local seen = false
      if settled[ri] and redis.call('SISMEMBER', KEYS[ri], id) == 1 then
        outcome = 'duplicate'
      elseif di then
        seen = dedupGet(di, dk)
      end
      if outcome then
        -- settled out of band: counts nothing
      elseif seen then
        outcome = 'free'
        if seen ~= '2' then dedupSet(di, dk, '2') end
      elseif u + 1 > q then
        outcome = 'exhausted'
      else
        outcome = 'charged'
        u = u + 1
        used[ui] = u
        usedAdd[ui] = (usedAdd[ui] or 0) + 1
        if di then
          dedupSet(di, dk, '1')
          dedupTtl[di] = dttl
        end
        local entries = ledger[li]
        if not entries then entries = {}; ledger[li] = entries end
        entries[#entries + 1] = e
        addUsage(si, f .. '|c')
        if p then addUsage(si, f .. '|p') end
      end
    end
    if paired then out[#out] = { out[#out], { outcome, u } } else out[#out + 1] = { outcome, u } end
  end
end
write()
return cjson.encode(out)
`;
