/**
 * The Lua scripts of the Redis state store's records (the metering one is meter-script.ts). Each runs
 * atomically on the server over the keys of ONE customer (one hash tag, one slot), so no other client's
 * command interleaves: never read-then-write from Node.
 */

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
