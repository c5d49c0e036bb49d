/**
 * The visit store on Redis (several nodes): one Lua script per page view, so counts, sessions and
 * first/last seen change atomically. Keys of one customer carry its hash tag `{cust:<id>}` (as the state
 * store's), so each script touches one slot in Redis Cluster; a tag's sightings are one key.
 *
 *   svc:{cust:C}:v:acct:<day>            hash  <company>:views | :sessions | :first | :last
 *   svc:{cust:C}:v:pages:<day>:<company> hash  path → views (PATHS_PER_ACCOUNT_DAY, then OTHER_PATHS)
 *   svc:{cust:C}:v:sess:<day>:<company>  set   session ids (expire after two days: they dedupe one day;
 *                                              at most SESSIONS_PER_ACCOUNT_DAY)
 *   svc:{cust:C}:v:anon                  hash  day → anonymous views (days past the retention dropped)
 *   svc:{cust:C}:v:jrn:<company>         zset  the account's recent sessions → latest view (epoch ms);
 *                                              at most SESSIONS_PER_ACCOUNT, the longest unseen go first
 *   svc:{cust:C}:v:jrnm:<company>        hash  session → `<first seen>|<last seen>|<views>`
 *   svc:{cust:C}:v:jrnp:<company>:<sess> list  the session's first PAGES_PER_SESSION views, `<at>\t<path>`
 *   svc:{cust:C}:v:seg:<company>         string the account's segments at its latest view, a JSON array
 *                                              (swapAccountSegments; expires (retention + 1) days after it)
 *   svc:{cust:C}:v:events                stream the raw views kept for the export (visits.ts RawPageView), ids
 *                                              `<ms>-<n>` by visits.ts nextRawViewId, fields `d` (the view's
 *                                              day) and `v` (its JSON text, rawViewText)
 *   svc:tagseen:<tag>                    hash  origin → `<last seen>|<hits>` (ORIGINS_PER_TAG; visits.ts
 *                                              sightingVictim decides who makes room)
 *
 * Retention: every write sets the per-day keys (and the anon hash) to expire VISIT_RETENTION_DAYS plus a
 * day after it, so keys written before this rule existed get their TTL with their next write; the anon
 * hash, one field per day, drops the days past the retention on the first anonymous view of each day.
 * The raw-view stream has its own retention (`rawRetentionDays`, SVC_EVENTS_RETENTION_DAYS): every XADD
 * trims it with `MINID ~` to the first kept day by Redis's clock (`~`: whole stream nodes of ≤ 100 entries
 * go, so up to about 100 entries past the bound remain) and sets the key to expire a day after the retention, so a
 * customer's stream holds the views of the retention and an idle one disappears.
 *
 * Every command has a deadline: a stalled Redis (stopped, partitioned without RST) keeps the connection
 * "ready" and node-redis would wait for ever, holding the page view (and its NDJSON line) with it.
 */
import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import { StateError, StoreUnavailableError } from './errors.ts';
import { retryTryAgain, scanKeys } from './redis-connection.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS } from './redis-store.ts';
import { VisitEntry } from './transfer.ts';
import {
  type AccountPagePerDay,
  type AccountSession,
  type AccountVisits,
  type DailyTotals,
  daysBetween,
  formatRawViewId,
  formatSighting,
  inViewOrder,
  type KeptRawView,
  ORIGINS_PER_TAG,
  OTHER_PATHS,
  PAGES_PER_SESSION,
  PATHS_PER_ACCOUNT_DAY,
  type PagePerDay,
  type PageViewCount,
  parseRawViewId,
  parseSighting,
  RAW_VIEW_ID_SLACK_MS,
  RAW_VIEW_RETENTION_DAYS,
  type RawPageView,
  type RawViewId,
  type RawViewQuery,
  rawViewParts,
  rawViewScan,
  rawViewText,
  retainedFrom,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  SIGHTING_SETTLE_MS,
  SIGHTING_STALE_MS,
  type TagSighting,
  TOP_PAGES,
  VISIT_RETENTION_DAYS,
  type VisitStore,
} from './visits.ts';

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
};

const SESSION_TTL_S = 2 * 86_400;

/** Patterns of every visit key (SCAN, never KEYS: an export must not block a live Redis). */
const ACCOUNT_KEYS = 'svc:{cust:*}:v:acct:*';
const ANONYMOUS_KEYS = 'svc:{cust:*}:v:anon';
const SIGHTING_KEYS = 'svc:tagseen:*';
const ACCOUNT_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:acct:(\d{4}-\d{2}-\d{2})$/;
const ANONYMOUS_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:anon$/;
const JOURNEY_KEYS = 'svc:{cust:*}:v:jrnm:*';
const JOURNEY_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:jrnm:(.+)$/;
const SEGMENT_KEYS = 'svc:{cust:*}:v:seg:*';
const SEGMENT_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:seg:(.+)$/;
const RAW_VIEW_KEYS = 'svc:{cust:*}:v:events';
const RAW_VIEW_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:events$/;
/** Stream entries one XRANGE reads (an export's page, and an export file's). */
const RAW_VIEW_PAGE = 1_000;
/** Entries an import sends in one MULTI (one round trip each, not one per entry). */
const IMPORT_BATCH = 200;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface RedisVisitStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** Days of per-day aggregates kept (VISIT_RETENTION_DAYS). */
  retentionDays?: number;
  /** Days of raw views kept for the export (RAW_VIEW_RETENTION_DAYS; a server passes SVC_EVENTS_RETENTION_DAYS). */
  rawRetentionDays?: number;
}

/**
 * Appends a raw view to its customer's stream under the next id (visits.ts nextRawViewId, Redis's clock as
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
const KEEP = `${KEEP_RAW}
keep_raw(KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7]))
return 1
`;

/**
 * One page view counted, and its raw view kept in the same script when given (ARGV[17] not empty):
 * KEYS[8] the customer's stream, ARGV[17..21] head, tail, day, retention (ms), stream TTL.
 */
const RECORD = `${KEEP_RAW}
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
  return 0
end
local new_session = 0
if redis.call('SCARD', sess) < tonumber(ARGV[9]) then new_session = redis.call('SADD', sess, session) end
redis.call('EXPIRE', sess, tonumber(ARGV[8]))
local views = redis.call('HINCRBY', acct, company .. ':views', 1)
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

/** visits.ts parseSighting, seenAgain and sightingVictim, in Lua (the contract test holds them to one rule). */
const SIGHT = `
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

/** The MULTI of one hash tag in an import batch, with the reply indexes its checks read. */
interface ImportGroup {
  m: ReturnType<RedisClientType['multi']>;
  /** Reply index of each sighting's HLEN, and its tag. */
  lengths: [number, string][];
  /** Reply index of each journey's ZCARD, and its account. */
  journeyCounts: [number, string][];
  replies: number;
}

/** The part of a key Redis Cluster hashes: its `{…}` hash tag, or the whole key. */
function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

const sha = (script: string) => createHash('sha1').update(script).digest('hex');

export class RedisVisitStore implements VisitStore {
  private readonly commandTimeoutMs: number;
  private readonly retentionDays: number;
  private readonly rawRetentionDays: number;
  private closed = false;

  private constructor(
    private readonly connection: RedisClientType,
    /** Whether the client is this store's own (opened from a URL): closed with it. */
    private readonly owned: boolean,
    options: RedisVisitStoreOptions,
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.retentionDays = options.retentionDays ?? VISIT_RETENTION_DAYS;
    this.rawRetentionDays = options.rawRetentionDays ?? RAW_VIEW_RETENTION_DAYS;
  }

  /** keep_raw's arguments after the view's time and parts: its day, the retention (ms), the stream's TTL (s). */
  private rawBounds(day: string): [string, string, string] {
    return [
      day,
      String(this.rawRetentionDays * 86_400_000),
      // As the aggregates: a day longer than the retention, so the last write's views outlive it.
      String((this.rawRetentionDays + 1) * 86_400),
    ];
  }

  /** The client while open: a closed store refuses, even while the shared client still serves the state store. */
  private get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the visit store is closed');
    return this.connection;
  }

  /**
   * On the state store's client (what a server passes: open-store.ts `sharedRedis`), left open on close;
   * or on a client of its own from a URL (tests, tools), closed with the store.
   */
  static async open(source: string | RedisClientType, options: RedisVisitStoreOptions = {}): Promise<RedisVisitStore> {
    if (typeof source !== 'string') return new RedisVisitStore(source, false, options);
    const url = source;
    const client = createClient({
      url,
      // While Redis is down commands fail at once (a lookup must not wait on its page-view input).
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1_000) },
    }) as RedisClientType;
    // Errors surface on the commands (the recorder logs a view it could not count); no unhandled event.
    client.on('error', () => {});
    await client.connect();
    return new RedisVisitStore(client, true, options);
  }

  /** The answer within the command deadline, or StoreUnavailableError (the command may still run later). */
  private timed<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StoreUnavailableError(`Redis did not answer within ${this.commandTimeoutMs} ms`)), this.commandTimeoutMs);
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  private run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return this.timed(
      retryTryAgain(async () => {
        try {
          return await this.client.evalSha(sha(script), { keys, arguments: args });
        } catch (e) {
          if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
          return this.client.eval(script, { keys, arguments: args });
        }
      }),
    );
  }

  async recordPageView(v: PageViewCount): Promise<{ first_of_day_for_account: boolean }> {
    const company = v.company_id ?? '';
    const raw = v.raw === undefined ? null : rawViewParts(v.raw);
    const reply = await this.run(
      RECORD,
      [
        visitKeys.account(v.customer_id, v.day),
        visitKeys.pages(v.customer_id, v.day, company),
        visitKeys.sessions(v.customer_id, v.day, company),
        visitKeys.anonymous(v.customer_id),
        visitKeys.journeys(v.customer_id, company),
        visitKeys.journeyMeta(v.customer_id, company),
        visitKeys.journeyPages(v.customer_id, company, v.session_id),
        visitKeys.rawViews(v.customer_id),
      ],
      [
        company,
        v.day,
        v.path,
        v.session_id,
        v.at,
        String(PATHS_PER_ACCOUNT_DAY),
        OTHER_PATHS,
        String(SESSION_TTL_S),
        String(SESSIONS_PER_ACCOUNT_DAY),
        // A day's keys outlive the retention by a day: the last write of a day comes at most a day late.
        String((this.retentionDays + 1) * 86_400),
        retainedFrom(v.day, this.retentionDays),
        String(Date.parse(v.at)),
        String(PAGES_PER_SESSION),
        String(SESSIONS_PER_ACCOUNT),
        visitKeys.journeyPages(v.customer_id, company, ''),
        String(Date.parse(`${retainedFrom(v.day, this.retentionDays)}T00:00:00Z`)),
        raw?.head ?? '',
        raw?.tail ?? '',
        ...this.rawBounds(v.day),
      ],
    );
    return { first_of_day_for_account: Number(reply) === 1 };
  }

  async keepRawPageView(view: RawPageView): Promise<void> {
    const { head, tail } = rawViewParts(view);
    await this.run(
      KEEP,
      [visitKeys.rawViews(view.customer_id)],
      [String(Date.parse(view.at)), head, view.first_of_day_for_account ? '1' : '0', tail, ...this.rawBounds(view.day)],
    );
  }

  async *rawPageViews(customerId: string, q: RawViewQuery): AsyncIterable<KeptRawView> {
    const scan = rawViewScan(q);
    const key = visitKeys.rawViews(customerId);
    // Both ends as XRANGE spells them: `(` is exclusive.
    let start = `${scan.startExclusive ? '(' : ''}${formatRawViewId(scan.start)}`;
    const end = `(${scan.endMs}-0`;
    let left = q.limit;
    for (;;) {
      const entries = (await this.timed(this.client.xRange(key, start, end, { COUNT: RAW_VIEW_PAGE }))) ?? [];
      for (const e of entries) {
        const { d, v } = e.message as Record<string, string>;
        if (d === undefined || v === undefined || d < q.from || d > q.to) continue;
        yield { id: e.id, text: v };
        if (--left === 0) return;
      }
      if (entries.length < RAW_VIEW_PAGE) return;
      start = `(${entries[entries.length - 1]!.id}`;
    }
  }

  /** Each day's account hash: company → its counters. */
  private async accountDays(customerId: string, days: string[]): Promise<Map<string, Map<string, Record<string, string>>>> {
    const m = this.client.multi();
    for (const day of days) m.hGetAll(visitKeys.account(customerId, day));
    const replies = (await this.timed(m.exec())) as unknown as Record<string, string>[];
    const out = new Map<string, Map<string, Record<string, string>>>();
    days.forEach((day, i) => {
      const byCompany = new Map<string, Record<string, string>>();
      for (const [field, value] of Object.entries(replies[i] ?? {})) {
        const cut = field.lastIndexOf(':');
        const company = field.slice(0, cut);
        const counters = byCompany.get(company) ?? {};
        counters[field.slice(cut + 1)] = value;
        byCompany.set(company, counters);
      }
      out.set(day, byCompany);
    });
    return out;
  }

  async accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    const days = daysBetween(from, to);
    const byDay = await this.accountDays(customerId, days);
    const totals = new Map<string, Omit<AccountVisits, 'top_pages'>>();
    const pageKeys: [string, string][] = [];
    for (const [day, companies] of byDay) {
      for (const [company, c] of companies) {
        pageKeys.push([company, visitKeys.pages(customerId, day, company)]);
        const t = totals.get(company);
        const views = Number(c.views ?? 0);
        const sessions = Number(c.sessions ?? 0);
        if (!t) totals.set(company, { company_id: company, page_views: views, sessions, first_seen: c.first ?? '', last_seen: c.last ?? '' });
        else {
          t.page_views += views;
          t.sessions += sessions;
          if (c.first && c.first < t.first_seen) t.first_seen = c.first;
          if (c.last && c.last > t.last_seen) t.last_seen = c.last;
        }
      }
    }
    const pages = new Map<string, Map<string, number>>();
    if (pageKeys.length > 0) {
      const m = this.client.multi();
      for (const [, key] of pageKeys) m.hGetAll(key);
      const replies = (await this.timed(m.exec())) as unknown as Record<string, string>[];
      pageKeys.forEach(([company], i) => {
        const counts = pages.get(company) ?? new Map<string, number>();
        for (const [path, n] of Object.entries(replies[i] ?? {})) counts.set(path, (counts.get(path) ?? 0) + Number(n));
        pages.set(company, counts);
      });
    }
    return [...totals.values()]
      .sort((a, b) => b.page_views - a.page_views || (a.company_id < b.company_id ? -1 : a.company_id > b.company_id ? 1 : 0))
      .map((a) => ({
        ...a,
        top_pages: [...(pages.get(a.company_id) ?? new Map<string, number>())]
          .sort(([pa, va], [pb, vb]) => vb - va || (pa < pb ? -1 : pa > pb ? 1 : 0))
          .slice(0, TOP_PAGES)
          .map(([path, page_views]) => ({ path, page_views })),
      }));
  }

  async dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]> {
    const days = daysBetween(from, to);
    const [byDay, anonymous] = await Promise.all([
      this.accountDays(customerId, days),
      days.length ? this.timed(this.client.hmGet(visitKeys.anonymous(customerId), days)) : Promise.resolve([] as (string | null)[]),
    ]);
    return days.map((day, i) => ({
      day,
      identified: [...(byDay.get(day)?.values() ?? [])].reduce((n, c) => n + Number(c.views ?? 0), 0),
      anonymous: Number(anonymous[i] ?? 0),
    }));
  }

  async accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
    const days = daysBetween(from, to);
    if (days.length === 0) return [];
    const m = this.client.multi();
    for (const day of days) m.hGetAll(visitKeys.pages(customerId, day, companyId));
    const replies = (await this.timed(m.exec())) as unknown as Record<string, string>[];
    return days.flatMap((day, i) =>
      Object.entries(replies[i] ?? {})
        .map(([path, n]) => ({ day, path, page_views: Number(n) }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    );
  }

  async accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]> {
    const days = daysBetween(from, to);
    if (days.length === 0) return [];
    const byDay = await this.accountDays(customerId, days);
    const keys: [day: string, company: string][] = [];
    for (const [day, companies] of byDay) for (const company of companies.keys()) keys.push([day, company]);
    if (keys.length === 0) return [];
    const m = this.client.multi();
    for (const [day, company] of keys) m.hGetAll(visitKeys.pages(customerId, day, company));
    const replies = (await this.timed(m.exec())) as unknown as Record<string, string>[];
    const rows: AccountPagePerDay[] = [];
    keys.forEach(([day, company_id], i) => {
      for (const [path, n] of Object.entries(replies[i] ?? {})) rows.push({ company_id, day, path, page_views: Number(n) });
    });
    // As SQLite orders them (binary text order).
    return rows.sort((a, b) => byText(a.company_id, b.company_id) || byText(a.day, b.day) || byText(a.path, b.path));
  }

  async accountSessions(customerId: string, companyId: string): Promise<AccountSession[]> {
    const kept = Date.parse(`${retainedFrom(new Date().toISOString().slice(0, 10), this.retentionDays)}T00:00:00Z`);
    const ids = await this.timed(
      this.client.zRange(visitKeys.journeys(customerId, companyId), '+inf', kept, {
        BY: 'SCORE',
        REV: true,
        LIMIT: { offset: 0, count: SESSIONS_PER_ACCOUNT },
      }),
    );
    return this.sessionsOf(customerId, companyId, ids);
  }

  /** The sessions' meta and pages (a session pushed out meanwhile is left out). */
  private async sessionsOf(customerId: string, companyId: string, ids: string[]): Promise<AccountSession[]> {
    if (ids.length === 0) return [];
    const m = this.client.multi().hmGet(visitKeys.journeyMeta(customerId, companyId), ids);
    for (const id of ids) m.lRange(visitKeys.journeyPages(customerId, companyId, id), 0, -1);
    const [meta, ...pages] = (await this.timed(m.exec())) as unknown as [(string | null)[], ...string[][]];
    return ids.flatMap((session_id, i) => {
      const cell = /^(.*?)\|(.*?)\|(\d+)$/.exec(meta[i] ?? '');
      if (!cell) return [];
      const list = (pages[i] ?? []).map((entry) => {
        const tab = entry.indexOf('\t');
        return { at: entry.slice(0, tab), path: entry.slice(tab + 1) };
      });
      return [{ session_id, first_seen: cell[1]!, last_seen: cell[2]!, page_views: Number(cell[3]), pages: inViewOrder(list) }];
    });
  }

  async recordTagSighting(tagId: string, origin: string, at: string): Promise<{ first: boolean }> {
    const t = Date.parse(at);
    const stale = new Date(t - SIGHTING_STALE_MS).toISOString();
    const settled = new Date(t - SIGHTING_SETTLE_MS).toISOString();
    return { first: Number(await this.run(SIGHT, [visitKeys.sightings(tagId)], [origin, at, String(ORIGINS_PER_TAG), stale, settled])) === 1 };
  }

  async swapAccountSegments(customerId: string, companyId: string, segmentIds: readonly number[], _at: string): Promise<number[] | null> {
    // SET … GET: one atomic step; the key lives as long as the aggregates of a day written now.
    const before = await this.timed(
      this.client.set(visitKeys.segments(customerId, companyId), JSON.stringify(segmentIds), { GET: true, EX: (this.retentionDays + 1) * 86_400 }),
    );
    return typeof before === 'string' ? (JSON.parse(before) as number[]) : null;
  }

  async tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    if (tagIds.length === 0) return [];
    // Each tag's sightings are a global key of their own (own slot on a cluster): one read each, not one
    // MULTI (node-redis sends the reads of one turn together, per node).
    const replies = await this.timed(Promise.all(tagIds.map((t) => this.client.hGetAll(visitKeys.sightings(t)))));
    return tagIds
      .flatMap((tag_id, i) => Object.entries(replies[i] ?? {}).map(([origin, value]) => ({ tag_id, origin, last_seen_at: parseSighting(value).last_seen_at })))
      .sort((a, b) => (a.tag_id < b.tag_id ? -1 : a.tag_id > b.tag_id ? 1 : a.last_seen_at > b.last_seen_at ? -1 : a.last_seen_at < b.last_seen_at ? 1 : 0));
  }

  /** Keys matching `pattern`, a SCAN page at a time (a key may come twice while Redis resizes: imports take a repeat as the same row). */
  private async *scan(pattern: string): AsyncIterable<string[]> {
    yield* scanKeys(this.client, pattern);
  }

  async *exportEntries(): AsyncIterable<VisitEntry> {
    for await (const batch of this.scan(ACCOUNT_KEYS)) {
      for (const key of batch.sort(byText)) {
        const match = ACCOUNT_KEY.exec(key);
        if (!match) continue;
        const [, customer, day] = match as unknown as [string, string, string];
        const companies = [...((await this.accountDays(customer, [day])).get(day) ?? new Map<string, Record<string, string>>())].sort(([a], [b]) =>
          byText(a, b),
        );
        if (companies.length === 0) continue;
        const m = this.client.multi();
        for (const [company] of companies) m.hGetAll(visitKeys.pages(customer, day, company)).sMembers(visitKeys.sessions(customer, day, company));
        const replies = (await this.timed(m.exec())) as unknown as (Record<string, string> | string[])[];
        for (const [i, [company, c]] of companies.entries()) {
          const pages = replies[2 * i] as Record<string, string>;
          yield VisitEntry.parse({
            type: 'visit_account',
            customer_id: customer,
            day,
            company_id: company,
            page_views: Number(c.views ?? 0),
            sessions: Number(c.sessions ?? 0),
            first_seen: c.first,
            last_seen: c.last,
            pages: Object.entries(pages ?? {})
              .map(([path, n]) => ({ path, page_views: Number(n) }))
              .sort((a, b) => byText(a.path, b.path)),
            session_ids: [...((replies[2 * i + 1] as string[]) ?? [])].sort(byText),
          });
        }
      }
    }
    for await (const batch of this.scan(ANONYMOUS_KEYS)) {
      for (const key of batch.sort(byText)) {
        const customer = ANONYMOUS_KEY.exec(key)?.[1];
        if (!customer) continue;
        const days = await this.timed(this.client.hGetAll(key));
        for (const day of Object.keys(days).sort(byText))
          yield VisitEntry.parse({ type: 'visit_anonymous', customer_id: customer, day, page_views: Number(days[day]) });
      }
    }
    for await (const batch of this.scan(JOURNEY_KEYS)) {
      for (const key of batch.sort(byText)) {
        const match = JOURNEY_KEY.exec(key);
        if (!match) continue;
        const [, customer, company] = match as unknown as [string, string, string];
        const ids = Object.keys(await this.timed(this.client.hGetAll(key))).sort(byText);
        for (const s of await this.sessionsOf(customer, company, ids)) {
          yield VisitEntry.parse({ type: 'visit_session', customer_id: customer, company_id: company, ...s });
        }
      }
    }
    // The key keeps no time, but every swap sets it to expire (retention + 1) days later: the time left
    // says when it was written. Rounded to the second: the TTL is read a round trip before the clock (an
    // import writes a whole second's expiry, which reads back as that second). Not capped at now: an
    // imported time moves as it was (a key written under a longer retention reads a little later, which
    // only keeps it longer); now for a key without TTL (set by hand).
    const segmentsLifeMs = (this.retentionDays + 1) * 86_400_000;
    for await (const batch of this.scan(SEGMENT_KEYS)) {
      const keys = batch.sort(byText).flatMap((key) => {
        const match = SEGMENT_KEY.exec(key);
        return match ? [[key, match[1]!, match[2]!] as const] : [];
      });
      // One MULTI per key (its own slot on a cluster): the value and its TTL of one moment.
      const replies = await this.timed(Promise.all(keys.map(([key]) => this.client.multi().get(key).pTTL(key).exec())));
      const now = Date.now();
      for (const [i, [, customer, company]] of keys.entries()) {
        const [value, ttl] = replies[i] as unknown as [string | null, number];
        // Gone since the SCAN (expired): nothing to move.
        if (value === null || ttl === -2) continue;
        const written = ttl < 0 ? now : now + ttl - segmentsLifeMs;
        yield VisitEntry.parse({
          type: 'visit_account_segments',
          customer_id: customer,
          company_id: company,
          segment_ids: JSON.parse(value),
          updated_at: new Date(Math.round(written / 1000) * 1000).toISOString(),
        });
      }
    }
    for await (const batch of this.scan(SIGHTING_KEYS)) {
      for (const key of batch.sort(byText)) {
        const tag = key.slice(visitKeys.sightings('').length);
        const cells = await this.timed(this.client.hGetAll(key));
        for (const origin of Object.keys(cells).sort(byText))
          yield VisitEntry.parse({ type: 'tag_sighting', tag_id: tag, origin, ...parseSighting(cells[origin]!) });
      }
    }
    for await (const batch of this.scan(RAW_VIEW_KEYS)) {
      for (const key of batch.sort(byText)) {
        if (!RAW_VIEW_KEY.test(key)) continue;
        for (let start = '-'; ; ) {
          const entries = (await this.timed(this.client.xRange(key, start, '+', { COUNT: RAW_VIEW_PAGE }))) ?? [];
          for (const e of entries)
            yield VisitEntry.parse({ type: 'visit_event', id: e.id, view: JSON.parse((e.message as Record<string, string>).v ?? 'null') });
          if (entries.length < RAW_VIEW_PAGE) break;
          start = `(${entries[entries.length - 1]!.id}`;
        }
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    for (const pattern of ['svc:{cust:*}:v:*', SIGHTING_KEYS]) {
      for await (const batch of this.scan(pattern)) if (batch.length > 0) return false;
    }
    return true;
  }

  async importEntries(entries: AsyncIterable<VisitEntry> | Iterable<VisitEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds page views or tag sightings: import into an empty state', 'conflict');
    const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
    /** Each customer's last raw-view id imported: a stream takes only growing ids. */
    const lastRaw = new Map<string, RawViewId>();
    let n = 0;
    let batch: VisitEntry[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      // One MULTI per hash tag (a customer's keys, or one tag's sightings): in Redis Cluster a
      // transaction's keys share a slot.
      const groups = new Map<string, ImportGroup>();
      const group = (slotKey: string) => {
        const tag = hashTagOf(slotKey);
        let g = groups.get(tag);
        if (g === undefined) groups.set(tag, (g = { m: this.client.multi(), lengths: [], journeyCounts: [], replies: 0 }));
        return g;
      };
      for (const e of batch) {
        const g = group(
          e.type === 'tag_sighting' ? visitKeys.sightings(e.tag_id) : visitKeys.anonymous(e.type === 'visit_event' ? e.view.customer_id : e.customer_id),
        );
        const m = g.m;
        switch (e.type) {
          case 'visit_account': {
            const acct = visitKeys.account(e.customer_id, e.day);
            const pages = visitKeys.pages(e.customer_id, e.day, e.company_id);
            const sessions = visitKeys.sessions(e.customer_id, e.day, e.company_id);
            m.hSet(
              acct,
              new Map([
                [`${e.company_id}:views`, String(e.page_views)],
                [`${e.company_id}:sessions`, String(e.sessions)],
                [`${e.company_id}:first`, e.first_seen],
                [`${e.company_id}:last`, e.last_seen],
              ]),
            );
            // A day's keys expire when a live write of that day would have let them (RECORD: a day late at most, plus the retention).
            const dayEnd = dayMs(e.day) + (this.retentionDays + 2) * 86_400_000;
            m.pExpireAt(acct, dayEnd);
            g.replies += 2;
            if (e.pages.length > 0) {
              m.hSet(pages, new Map(e.pages.map((p) => [p.path, String(p.page_views)]))).pExpireAt(pages, dayEnd);
              g.replies += 2;
            }
            if (e.session_ids.length > 0) {
              m.sAdd(sessions, e.session_ids).pExpireAt(sessions, dayMs(e.day) + 86_400_000 + SESSION_TTL_S * 1000);
              g.replies += 2;
            }
            break;
          }
          case 'visit_anonymous':
            m.hSet(visitKeys.anonymous(e.customer_id), e.day, e.page_views).expire(visitKeys.anonymous(e.customer_id), (this.retentionDays + 1) * 86_400);
            g.replies += 2;
            break;
          case 'visit_session': {
            const zset = visitKeys.journeys(e.customer_id, e.company_id);
            const meta = visitKeys.journeyMeta(e.customer_id, e.company_id);
            const list = visitKeys.journeyPages(e.customer_id, e.company_id, e.session_id);
            // As a live write of its latest view would have let them live.
            const end = Date.parse(e.last_seen) + (this.retentionDays + 1) * 86_400_000;
            m.hSet(meta, e.session_id, `${e.first_seen}|${e.last_seen}|${e.page_views}`).zAdd(zset, { score: Date.parse(e.last_seen), value: e.session_id });
            g.replies += 2;
            if (e.pages.length > 0) {
              m.rPush(
                list,
                e.pages.map((p) => `${p.at}\t${p.path}`),
              ).pExpireAt(list, end);
              g.replies += 2;
            }
            m.pExpireAt(zset, end).pExpireAt(meta, end).zCard(zset);
            g.journeyCounts.push([g.replies + 2, `account ${e.company_id} of ${e.customer_id}`]);
            g.replies += 3;
            break;
          }
          case 'visit_account_segments': {
            // As a live swap at `updated_at` would have let it live; one already past that is gone, as it would be.
            const end = Date.parse(e.updated_at) + (this.retentionDays + 1) * 86_400_000;
            if (end > Date.now()) {
              m.set(visitKeys.segments(e.customer_id, e.company_id), JSON.stringify(e.segment_ids), { expiration: { type: 'PXAT', value: end } });
              g.replies += 1;
            }
            break;
          }
          case 'visit_event': {
            const { first_of_day_for_account: first, ...view } = e.view;
            const id = parseRawViewId(e.id)!;
            const last = lastRaw.get(view.customer_id);
            if (last !== undefined && (id.ms < last.ms || (id.ms === last.ms && id.n <= last.n))) {
              throw new StateError(`raw page views of ${view.customer_id}: id ${e.id} after ${formatRawViewId(last)} (a customer's views come in id order)`);
            }
            lastRaw.set(view.customer_id, id);
            const key = visitKeys.rawViews(view.customer_id);
            // As a live write of this view would have let the stream live.
            m.xAdd(key, e.id, { d: view.day, v: rawViewText(view, first) }).pExpireAt(key, id.ms + (this.rawRetentionDays + 1) * 86_400_000);
            g.replies += 2;
            break;
          }
          case 'tag_sighting':
            m.hSet(visitKeys.sightings(e.tag_id), e.origin, formatSighting({ last_seen_at: e.last_seen_at, hits: e.hits })).hLen(visitKeys.sightings(e.tag_id));
            g.lengths.push([g.replies + 1, e.tag_id]);
            g.replies += 2;
            break;
        }
      }
      batch = [];
      // No deadline for the whole batch: a big import is many commands, each answered in its turn.
      for (const { m, lengths, journeyCounts } of groups.values()) {
        const out = (await m.exec()) as unknown as number[];
        for (const [i, tag] of lengths) if (Number(out[i]) > ORIGINS_PER_TAG) throw new StateError(`tag ${tag}: more than ${ORIGINS_PER_TAG} origins`);
        for (const [i, account] of journeyCounts) {
          if (Number(out[i]) > SESSIONS_PER_ACCOUNT) throw new StateError(`${account}: more than ${SESSIONS_PER_ACCOUNT} sessions`);
        }
      }
    };
    for await (const raw of entries) {
      batch.push(VisitEntry.parse(raw));
      n++;
      if (batch.length >= IMPORT_BATCH) await flush();
    }
    await flush();
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.connection.close();
  }
}
