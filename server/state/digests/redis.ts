/**
 * The digest store on Redis (several nodes), on the state store's command client. Every key of a customer
 * carries its hash tag `{cust:<id>}`, so a claim (one Lua script over the claims hash and its keep index)
 * touches one slot and runs unchanged on Redis Cluster; the one global key, the set of customers with
 * settings (the schedule's sweep), is only read or written by single commands, added to before settings
 * are written. Commands have the store's deadline (a stalled Redis answers 503, as the other stores).
 *
 * Keys: `svc:{cust:<id>}:digest:settings` (hash: user id → `{settings, updated_at}` JSON),
 * `svc:{cust:<id>}:digest:claims` (hash: `<user id>|<period>` → the claim's JSON),
 * `svc:{cust:<id>}:digest:claim-keep` (zset: the same fields scored by keep_until_ms: what a claim
 * forgets), `svc:digest:customers` (set of customer ids).
 */
import type { RedisClientType } from '@redis/client';
import type { DigestSettings } from '../../../core/digest-records.ts';
import { runScript, withinDeadline } from '../redis/commands.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, scanKeys } from '../redis/connection.ts';
import type { DigestEntry } from '../transfer/transfer.ts';
import { CLAIMS_PRUNED_PER_STEP, type DigestPort, doneClaim } from './port.ts';
import { DigestService } from './service.ts';
import type { ClaimFinish, ClaimOutcome, ClaimRequest, DigestClaim, StoredDigestSettings } from './store.ts';

export const digestKeys = {
  settings: (c: string) => `svc:{cust:${c}}:digest:settings`,
  claims: (c: string) => `svc:{cust:${c}}:digest:claims`,
  keep: (c: string) => `svc:{cust:${c}}:digest:claim-keep`,
  customers: 'svc:digest:customers',
} as const;
const DIGEST_KEYS = 'svc:{cust:*}:digest:*';

const field = (u: string, p: string) => `${u}|${p}`;

// KEYS: claims, keep. ARGV: field, owner, now, lease ms, keep until, customer, user, period, pruned per step.
// Mirrors port.ts decideClaim. Claims past their keep go first (a bounded number).
const CLAIM = `
local now = tonumber(ARGV[3])
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3], 'LIMIT', 0, tonumber(ARGV[9]))
for _, f in ipairs(old) do
  redis.call('HDEL', KEYS[1], f)
  redis.call('ZREM', KEYS[2], f)
end
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local c
if raw then
  c = cjson.decode(raw)
else
  c = {customer_id = ARGV[6], user_id = ARGV[7], period = ARGV[8], status = 'pending', owner = '', until_ms = 0,
       attempts = 0, next_ms = 0, at_ms = now, error = '', keep_until_ms = tonumber(ARGV[5])}
end
if c.status ~= 'pending' then return {'done', c.status} end
if c.owner ~= ARGV[2] and c.until_ms > now then return {'busy', tostring(c.until_ms)} end
if c.next_ms > now then return {'waiting', tostring(c.next_ms)} end
c.owner = ARGV[2]
c.until_ms = now + tonumber(ARGV[4])
c.attempts = c.attempts + 1
c.at_ms = now
c.keep_until_ms = tonumber(ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(c))
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return {'claimed', tostring(c.attempts)}
`;

// KEYS: claims. ARGV: field, owner, status (sent|empty|failed|retry), at, next (retry), error. Mirrors port.ts finishedClaim.
const FINISH = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local c = cjson.decode(raw)
if c.status ~= 'pending' or c.owner ~= ARGV[2] then return 0 end
c.until_ms = 0
c.at_ms = tonumber(ARGV[4])
c.error = ARGV[6]
if ARGV[3] == 'retry' then c.next_ms = tonumber(ARGV[5]) else c.status = ARGV[3] end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(c))
return 1
`;

/** A kept claim (numbers as cjson wrote them: whole epoch ms below 10^14, exact). */
const claimOf = (raw: string): DigestClaim => JSON.parse(raw) as DigestClaim;

export interface RedisDigestStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS). */
  commandTimeoutMs?: number;
}

export class RedisDigestStorage implements DigestPort {
  private readonly commandTimeoutMs: number;

  constructor(
    private readonly client: RedisClientType,
    options: RedisDigestStoreOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  private io<T>(fn: () => Promise<T>): Promise<T> {
    return withinDeadline(this.commandTimeoutMs, fn);
  }

  private run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.client, this.commandTimeoutMs, script, keys, args);
  }

  async getSettings(c: string, u: string): Promise<StoredDigestSettings | null> {
    const raw = await this.io(() => this.client.hGet(digestKeys.settings(c), u));
    return raw ? settingsOf(c, u, raw) : null;
  }

  async putSettings(s: StoredDigestSettings): Promise<void> {
    // The index first: a sweep never misses settings that exist.
    await this.io(() => this.client.sAdd(digestKeys.customers, s.customer_id));
    await this.io(() => this.client.hSet(digestKeys.settings(s.customer_id), s.user_id, JSON.stringify({ settings: s.settings, updated_at: s.updated_at })));
  }

  async deleteSettings(c: string, u: string): Promise<boolean> {
    return (await this.io(() => this.client.hDel(digestKeys.settings(c), u))) > 0;
  }

  async allSettings(): Promise<StoredDigestSettings[]> {
    const customers = await this.io(() => this.client.sMembers(digestKeys.customers));
    const out: StoredDigestSettings[] = [];
    for (const c of customers) {
      const all = await this.io(() => this.client.hGetAll(digestKeys.settings(c)));
      for (const [u, raw] of Object.entries(all)) out.push(settingsOf(c, u, raw));
    }
    return out;
  }

  async claim(r: ClaimRequest): Promise<ClaimOutcome> {
    const c = r.customer_id;
    const args = [
      field(r.user_id, r.period),
      r.owner,
      String(r.nowMs),
      String(r.leaseMs),
      String(r.keepUntilMs),
      c,
      r.user_id,
      r.period,
      String(CLAIMS_PRUNED_PER_STEP),
    ];
    const [kind, value] = (await this.run(CLAIM, [digestKeys.claims(c), digestKeys.keep(c)], args)) as [string, string];
    if (kind === 'claimed') return { kind, attempts: Number(value) };
    if (kind === 'busy') return { kind, untilMs: Number(value) };
    if (kind === 'waiting') return { kind, nextMs: Number(value) };
    return { kind: 'done', status: value as 'sent' | 'empty' | 'failed' };
  }

  async finish(c: string, u: string, p: string, owner: string, atMs: number, end: ClaimFinish, error: string): Promise<boolean> {
    const next = end.status === 'retry' ? String(end.nextMs) : '0';
    return (await this.run(FINISH, [digestKeys.claims(c)], [field(u, p), owner, end.status, String(atMs), next, error])) === 1;
  }

  async getClaim(c: string, u: string, p: string): Promise<DigestClaim | null> {
    const raw = await this.io(() => this.client.hGet(digestKeys.claims(c), field(u, p)));
    return raw ? claimOf(raw) : null;
  }

  async *exportEntries(): AsyncIterable<DigestEntry> {
    for (const s of await this.allSettings()) yield { type: 'digest_settings', ...s };
    for (const c of await this.io(() => this.client.sMembers(digestKeys.customers))) {
      const claims = await this.io(() => this.client.hGetAll(digestKeys.claims(c)));
      for (const raw of Object.values(claims)) {
        const k = claimOf(raw);
        if (k.status === 'pending') continue;
        yield {
          type: 'digest_done',
          customer_id: k.customer_id,
          user_id: k.user_id,
          period: k.period,
          status: k.status,
          attempts: k.attempts,
          at_ms: k.at_ms,
          keep_until_ms: k.keep_until_ms,
        };
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    if ((await this.io(() => this.client.sCard(digestKeys.customers))) > 0) return false;
    for await (const batch of scanKeys(this.client, DIGEST_KEYS)) if (batch.length > 0) return false;
    return true;
  }

  async importPage(entries: DigestEntry[]): Promise<void> {
    for (const e of entries) {
      if (e.type === 'digest_settings') {
        await this.putSettings(e);
        continue;
      }
      const f = field(e.user_id, e.period);
      // The customer is indexed so a later export finds its claims, settings or not.
      await this.io(() => this.client.sAdd(digestKeys.customers, e.customer_id));
      const m = this.client
        .multi()
        .hSet(digestKeys.claims(e.customer_id), f, JSON.stringify(doneClaim(e)))
        .zAdd(digestKeys.keep(e.customer_id), { score: e.keep_until_ms, value: f });
      await this.io(() => m.exec());
    }
  }

  async close(): Promise<void> {}
}

function settingsOf(c: string, u: string, raw: string): StoredDigestSettings {
  const { settings, updated_at } = JSON.parse(raw) as { settings: DigestSettings; updated_at: string };
  return { customer_id: c, user_id: u, settings, updated_at };
}

/** The digest store on Redis: the rules (service.ts) over this storage. */
export class RedisDigestStore extends DigestService {
  constructor(client: RedisClientType, options: RedisDigestStoreOptions = {}) {
    super(new RedisDigestStorage(client, options));
  }
}
