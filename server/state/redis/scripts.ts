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
 *   { t: 'ch', u, d?, dk?, dttl?, l, s, f, p, q, e, r?, id? }
 *      u: used-credits key, d: the month's dedup hash (field dk), l: ledger list, s: usage hash
 *      (fields f|c and f|p), p: partner call, q: quota, e: ledger entry (JSON),
 *      r: replayed-ids set and id: the charge id — a journaled charge replayed after an outage: counted
 *      exactly once by id, whatever the balance (the client already got its answer); x: the charge was
 *      in flight when the connection dropped, so it counts only if its ledger entry (e, which carries
 *      the id) is not among the ledger's last LEDGER_LOOKBACK entries already.
 *   → { outcome, used after } with outcome charged | free | exhausted | duplicate
 * Returns the JSON array of results.
 */
/**
 * How far back (ledger entries of the customer) a replayed in-flight charge is looked for: the charges
 * made between the connection loss and the replay, bounded by the outage allowance of every node and
 * the traffic of the first moments after Redis is back.
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
    if op.r then
      if redis.call('SADD', KEYS[op.r], op.id) == 0 then
        outcome = 'duplicate'
      elseif op.x and redis.call('LPOS', KEYS[op.l], op.e, 'RANK', -1, 'MAXLEN', ${LEDGER_LOOKBACK}) then
        outcome = 'duplicate'
      else
        outcome = 'charged'
      end
    elseif op.d and redis.call('HEXISTS', KEYS[op.d], op.dk) == 1 then
      outcome = 'free'
    elseif used + 1 > op.q then
      outcome = 'exhausted'
    else
      outcome = 'charged'
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
