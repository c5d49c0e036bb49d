/**
 * The visit store on Redis (several nodes): one Lua script per page view, so counts, sessions and
 * first/last seen change atomically. Keys of one customer carry its hash tag `{cust:<id>}` (as the state
 * store's), so each script touches one slot in Redis Cluster; a tag's sightings are one key.
 *
 * The key layout is listed with the keys (redis-scripts.ts visitKeys).
 *
 * Retention: every write sets the per-day keys (and the anon hash) to expire VISIT_RETENTION_DAYS plus a
 * day after it, so keys written before this rule existed get their TTL with their next write; the anon
 * hash, one field per day, drops the days past the retention on the first anonymous view of each day.
 * The raw-view stream has its own retention (`rawRetentionDays`, SVC_EVENTS_RETENTION_DAYS): every XADD
 * trims it with `MINID ~` to the first kept day by Redis's clock (`~`: whole stream nodes of ≤ 100 entries
 * go, so up to about 100 entries past the bound remain) and sets the key to expire a day after the retention, so a
 * customer's stream holds the views of the retention and an idle one disappears.
 *
 * The scripts and keys are in redis-scripts.ts, export and import in redis-transfer.ts.
 *
 * Every command has a deadline: a stalled Redis (stopped, partitioned without RST) keeps the connection
 * "ready" and node-redis would wait for ever, holding the page view (and its NDJSON line) with it.
 */
import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import { StoreUnavailableError } from '../errors.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, retryTryAgain } from '../redis/connection.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import type { VisitImportWriter, VisitPort, VisitRetention } from './port.ts';
import { KEEP, RECORD, SESSION_TTL_S, SIGHT, SWAP, visitKeys } from './redis-scripts.ts';
import { exportVisitKeys, visitKeysEmpty, visitKeysImporter } from './redis-transfer.ts';
import { VisitService, type VisitStoreOptions, visitRetention } from './service.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  daysBetween,
  formatRawViewId,
  inViewOrder,
  type KeptRawView,
  ORIGINS_PER_TAG,
  OTHER_PATHS,
  PAGES_PER_SESSION,
  PATHS_PER_ACCOUNT_DAY,
  type PagePerDay,
  type PageViewCount,
  parseSighting,
  type RawPageView,
  type RawViewQuery,
  type RawViewScan,
  rawViewParts,
  retainedFrom,
  SESSIONS_PER_ACCOUNT,
  SESSIONS_PER_ACCOUNT_DAY,
  type SightingBounds,
  TOP_PAGES,
} from './store.ts';

export { visitKeys } from './redis-scripts.ts';

/** Stream entries one XRANGE reads. */
const RAW_VIEW_PAGE = 1_000;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sha = (script: string) => createHash('sha1').update(script).digest('hex');
/** Most page views first, ties by company id (as SQLite orders them). */
const byViews = (a: AccountTotals, b: AccountTotals) => b.page_views - a.page_views || byText(a.company_id, b.company_id);
/** A UTC day as days since the epoch: the first-seen zset's scores. */
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/** Storage only (port.ts): the scripts run with the bounds and cutoffs decided by the service. */
export class RedisVisitStorage implements VisitPort {
  private closed = false;

  constructor(
    readonly connection: RedisClientType,
    /** Whether the client is this store's own (opened from a URL): closed with it. */
    private readonly owned: boolean,
    readonly retention: VisitRetention,
    private readonly commandTimeoutMs: number,
  ) {}

  /** keep_raw's arguments after the view's time and parts: its day, the retention (ms), the stream's TTL (s). */
  private rawBounds(day: string): [string, string, string] {
    return [
      day,
      String(this.retention.rawDays * 86_400_000),
      // As the aggregates: a day longer than the retention, so the last write's views outlive it.
      String((this.retention.rawDays + 1) * 86_400),
    ];
  }

  /** The client while open: a closed store refuses, even while the shared client still serves the state store. */
  get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the visit store is closed');
    return this.connection;
  }

  /** The answer within the command deadline, or StoreUnavailableError (the command may still run later). */
  timed<T>(p: Promise<T>): Promise<T> {
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

  async count(v: PageViewCount): Promise<boolean> {
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
        visitKeys.firstSeen(v.customer_id),
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
        String((this.retention.days + 1) * 86_400),
        retainedFrom(v.day, this.retention.days),
        String(Date.parse(v.at)),
        String(PAGES_PER_SESSION),
        String(SESSIONS_PER_ACCOUNT),
        visitKeys.journeyPages(v.customer_id, company, ''),
        String(Date.parse(`${retainedFrom(v.day, this.retention.days)}T00:00:00Z`)),
        raw?.head ?? '',
        raw?.tail ?? '',
        ...this.rawBounds(v.day),
        String(dayNumber(v.day)),
      ],
    );
    return Number(reply) === 1;
  }

  async keepRaw(view: RawPageView): Promise<void> {
    const { head, tail } = rawViewParts(view);
    await this.run(
      KEEP,
      [visitKeys.rawViews(view.customer_id)],
      [String(Date.parse(view.at)), head, view.first_of_day_for_account ? '1' : '0', tail, ...this.rawBounds(view.day)],
    );
  }

  async *rawViews(customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView> {
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
  async accountDays(customerId: string, days: string[]): Promise<Map<string, Map<string, Record<string, string>>>> {
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

  /** The range's account hashes summed per account (unsorted), and each account-day's pages key. */
  private async sumAccountDays(customerId: string, from: string, to: string): Promise<{ totals: Map<string, AccountTotals>; pageKeys: [string, string][] }> {
    const byDay = await this.accountDays(customerId, daysBetween(from, to));
    const totals = new Map<string, AccountTotals>();
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
    return { totals, pageKeys };
  }

  async accountTotals(customerId: string, from: string, to: string): Promise<AccountTotals[]> {
    const { totals } = await this.sumAccountDays(customerId, from, to);
    return [...totals.values()].sort(byViews);
  }

  async newAccounts(customerId: string, from: string, to: string): Promise<number> {
    return this.timed(this.client.zCount(visitKeys.firstSeen(customerId), dayNumber(from), dayNumber(to)));
  }

  async firstSeenDays(customerId: string, companyIds: readonly string[]): Promise<(string | null)[]> {
    const scores = await this.timed(this.client.zmScore(visitKeys.firstSeen(customerId), [...companyIds]));
    return scores.map((n) => (n === null ? null : new Date(Number(n) * 86_400_000).toISOString().slice(0, 10)));
  }

  async segmentEntries(customerId: string, from: string, to: string): Promise<number> {
    const days = daysBetween(from, to);
    if (days.length === 0) return 0;
    // One slot (the customer's hash tag): one MGET, on a cluster too.
    const counts = await this.timed(this.client.mGet(days.map((d) => visitKeys.segmentEntries(customerId, d))));
    return counts.reduce((n, c) => n + Number(c ?? 0), 0);
  }

  async accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    const { totals, pageKeys } = await this.sumAccountDays(customerId, from, to);
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
    return [...totals.values()].sort(byViews).map((a) => ({
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

  async sessions(customerId: string, companyId: string, keptFrom: string): Promise<AccountSession[]> {
    const kept = Date.parse(`${keptFrom}T00:00:00Z`);
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
  async sessionsOf(customerId: string, companyId: string, ids: string[]): Promise<AccountSession[]> {
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

  async sight(tagId: string, origin: string, at: string, { stale, settled }: SightingBounds): Promise<boolean> {
    return Number(await this.run(SIGHT, [visitKeys.sightings(tagId)], [origin, at, String(ORIGINS_PER_TAG), stale, settled])) === 1;
  }

  async swapSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null> {
    // One script: the swap and the day's entries; the keys live as long as the aggregates of a day written now.
    const ttl = String((this.retention.days + 1) * 86_400);
    const before = await this.run(
      SWAP,
      [visitKeys.segments(customerId, companyId), visitKeys.segmentEntries(customerId, at.slice(0, 10))],
      [JSON.stringify(segmentIds), ttl, ttl],
    );
    return typeof before === 'string' ? (JSON.parse(before) as number[]) : null;
  }

  async tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    // Each tag's sightings are a global key of their own (own slot on a cluster): one read each, not one
    // MULTI (node-redis sends the reads of one turn together, per node).
    const replies = await this.timed(Promise.all(tagIds.map((t) => this.client.hGetAll(visitKeys.sightings(t)))));
    return tagIds
      .flatMap((tag_id, i) => Object.entries(replies[i] ?? {}).map(([origin, value]) => ({ tag_id, origin, last_seen_at: parseSighting(value).last_seen_at })))
      .sort((a, b) => (a.tag_id < b.tag_id ? -1 : a.tag_id > b.tag_id ? 1 : a.last_seen_at > b.last_seen_at ? -1 : a.last_seen_at < b.last_seen_at ? 1 : 0));
  }

  exportEntries(): AsyncIterable<VisitEntry> {
    return exportVisitKeys(this);
  }

  isEmpty(): Promise<boolean> {
    return visitKeysEmpty(this);
  }

  importer(): VisitImportWriter {
    return visitKeysImporter(this);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.connection.close();
  }
}

export interface RedisVisitStoreOptions extends VisitStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
}

/** The visit store on Redis: the service over this storage. */
export class RedisVisitStore extends VisitService {
  /** The client it stores on (the state store's, or its own). */
  readonly connection: RedisClientType;

  private constructor(connection: RedisClientType, owned: boolean, options: RedisVisitStoreOptions) {
    const retention = visitRetention(options);
    super(new RedisVisitStorage(connection, owned, retention, options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS), retention);
    this.connection = connection;
  }

  /**
   * On the state store's client (what backend.ts passes), left open on close;
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
}
