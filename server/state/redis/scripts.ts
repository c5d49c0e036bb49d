/**
 * The Lua scripts of the Redis state store. Each runs atomically on the server over the keys of ONE
 * customer (one hash tag, one slot), so no other client's command interleaves: limits, balances, the
 * monthly dedup, the charge and the ledger entry are decided and written in one step — never
 * read-then-write from Node.
 *
 * METER: ARGV[1] is a JSON array of operations on KEYS (1-based indexes), run in order:
 *   { t: 'rl', k: [key…], lim: [limit…], ttl }       → counts after the increment, one per key; a request
 *      that would pass a limit (lim[j] for k[j]) increments none of its keys (so a visitor refused by its
 *      own counter never spends the tag-wide one) and gets the counts it would have made (each one more
 *      than now, so the refused key reads as over its limit)
 *   { t: 'ch', u, d?, dk?, dttl?, l, s, f, p, q, e, r, id, j?, x?, v? }
 *      u: used-credits key, d: the month's dedup hash (field dk), l: ledger list, s: usage hash
 *      (fields f|c and f|p), p: partner call, q: quota, e: ledger entry (JSON, carrying the id),
 *      r: the settled-ids set and id: the charge id. A charge's id enters r once its node settled it
 *      out of band (below), so the charge itself, should it still run (sent before an outage, run after
 *      the node gave up on its answer), then counts nothing: 'duplicate'.
 *      j: a journaled charge replayed after an outage: counted exactly once by id, whatever the balance
 *      (the client already got its answer), and not at all when another attempt of the same request was
 *      charged (its key dk in d: a proxy's retry); x: it was in flight when its answer was lost, so it
 *      counts only if its ledger entry is not among the ledger's last LEDGER_LOOKBACK entries already.
 *      v: void — a charge whose answer was lost and whose request was answered without it (503, 402):
 *      if it ran, it is refunded (ledger entry, balance, usage, dedup key), unless an answer given
 *      for free since relied on its dedup key (marked 2 in d: should that free answer have been lost
 *      too, the credit stays, and the record's next export this month is free); either way, it can no
 *      longer run.
 *   → { outcome, used after } with outcome charged | free | exhausted | duplicate | void | refunded | kept
 * Returns the JSON array of results.
 */
/**
 * How far back (ledger entries of the customer) a charge whose answer was lost is looked for when its
 * journal entry is replayed or voided: the charges made between the loss and the replay, bounded by the
 * outage allowance of every node and the traffic of the first moments after Redis is back.
 */
export const LEDGER_LOOKBACK = 10_000;

export const METER_SCRIPT = `
local ops = cjson.decode(ARGV[1])
local out = {}
for i, op in ipairs(ops) do
  if op.t == 'rl' then
    local counts = {}
    local admitted = true
    for j, ki in ipairs(op.k) do
      counts[j] = tonumber(redis.call('GET', KEYS[ki]) or '0') + 1
      if counts[j] > op.lim[j] then admitted = false end
    end
    if admitted then
      for j, ki in ipairs(op.k) do
        local c = redis.call('INCR', KEYS[ki])
        if c == 1 then redis.call('PEXPIRE', KEYS[ki], op.ttl) end
        counts[j] = c
      end
    end
    out[i] = counts
  else
    local used = tonumber(redis.call('GET', KEYS[op.u]) or '0')
    local outcome
    if op.v then
      outcome = 'void'
      if redis.call('SADD', KEYS[op.r], op.id) == 1 and redis.call('LPOS', KEYS[op.l], op.e, 'RANK', -1, 'MAXLEN', ${LEDGER_LOOKBACK}) then
        if op.d and redis.call('HGET', KEYS[op.d], op.dk) == '2' then
          outcome = 'kept'
        else
          outcome = 'refunded'
          redis.call('LREM', KEYS[op.l], -1, op.e)
          if used > 0 then used = redis.call('DECR', KEYS[op.u]) end
          if redis.call('HINCRBY', KEYS[op.s], op.f .. '|c', -1) <= 0 then redis.call('HDEL', KEYS[op.s], op.f .. '|c') end
          if op.p and redis.call('HINCRBY', KEYS[op.s], op.f .. '|p', -1) <= 0 then redis.call('HDEL', KEYS[op.s], op.f .. '|p') end
          if op.d then redis.call('HDEL', KEYS[op.d], op.dk) end
        end
      end
    elseif op.j then
      if redis.call('SADD', KEYS[op.r], op.id) == 0 then
        outcome = 'duplicate'
      elseif op.x and redis.call('LPOS', KEYS[op.l], op.e, 'RANK', -1, 'MAXLEN', ${LEDGER_LOOKBACK}) then
        outcome = 'duplicate'
      elseif op.d and redis.call('HEXISTS', KEYS[op.d], op.dk) == 1 then
        outcome = 'duplicate'
        redis.call('HSET', KEYS[op.d], op.dk, '2')
      else
        outcome = 'charged'
      end
    elseif op.r and redis.call('SISMEMBER', KEYS[op.r], op.id) == 1 then
      outcome = 'duplicate'
    else
      local seen = op.d and redis.call('HGET', KEYS[op.d], op.dk)
      if seen then
        outcome = 'free'
        if seen ~= '2' then redis.call('HSET', KEYS[op.d], op.dk, '2') end
      elseif used + 1 > op.q then
        outcome = 'exhausted'
      else
        outcome = 'charged'
      end
    end
    if outcome == 'charged' then
      used = redis.call('INCR', KEYS[op.u])
      if op.d then
        redis.call('HSET', KEYS[op.d], op.dk, '1')
        redis.call('PEXPIRE', KEYS[op.d], op.dttl)
      end
      redis.call('RPUSH', KEYS[op.l], op.e)
      redis.call('HINCRBY', KEYS[op.s], op.f .. '|c', 1)
      if op.p then redis.call('HINCRBY', KEYS[op.s], op.f .. '|p', 1) end
    end
    out[i] = { outcome, used }
  end
end
return cjson.encode(out)
`;

/**
 * SEGMENTS_CAS: a customer's segments and high-water mark written only when both still hold what the
 * caller read (ARGV[1], ARGV[2]; '' for an absent field): KEYS[1] the customer hash, ARGV[3] and ARGV[4]
 * the new JSON values. → 1 written, 0 changed meanwhile (read again and retry), -1 no such customer.
 */
export const SEGMENTS_CAS_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'id') == 0 then return -1 end
if (redis.call('HGET', KEYS[1], 'segments') or '') ~= ARGV[1] then return 0 end
if (redis.call('HGET', KEYS[1], 'segment_seq') or '') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'segments', ARGV[3], 'segment_seq', ARGV[4])
return 1
`;

/**
 * FIELDS_CAS: fields of a customer hash written only when the fields read still hold what the caller read:
 * KEYS[1] the customer hash; ARGV[1] n, then n pairs (field, value read; '' for an absent field), then
 * pairs (field, new value) to write. → 1 written, 0 changed meanwhile (read again and retry), -1 no such
 * customer. The account lists use it (server/lists/routes.ts), comparing the segments too.
 */
export const FIELDS_CAS_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'id') == 0 then return -1 end
local n = tonumber(ARGV[1])
for i = 0, n - 1 do
  if (redis.call('HGET', KEYS[1], ARGV[2 + 2 * i]) or '') ~= ARGV[3 + 2 * i] then return 0 end
end
for i = 2 + 2 * n, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 1
`;
