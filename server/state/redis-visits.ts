/**
 * The visit store on Redis, for several nodes: the same bounded aggregates as SQLite, counted by one Lua
 * script per page view (atomic across nodes, so exactly one node sees an account's first view of the day).
 * Keys of one customer share the hash tag `{cust:<id>}` (one slot per script, Redis Cluster ready):
 *
 *   svc:{cust:<c>}:visits:<day>:views            hash  company id → page views that day
 *   svc:{cust:<c>}:visits:<day>:sessions         hash  company id → distinct sessions that day
 *   svc:{cust:<c>}:visits:<day>:first / :last    hash  company id → first / last ISO time seen
 *   svc:{cust:<c>}:visits:<day>:sids:<company>   set   session ids seen (what makes a session new)
 *   svc:{cust:<c>}:visits:<day>:pages:<company>  hash  path → page views (≤ PATHS_PER_ACCOUNT_DAY paths, then OTHER_PATHS)
 *   svc:{cust:<c>}:visits:<day>:anonymous        string anonymous page views that day
 *   svc:{tag:<id>}:sightings                     hash  origin → last seen ISO time (≤ ORIGINS_PER_TAG origins)
 */
import { createClient, type RedisClientType } from '@redis/client';
import {
  daysBetween, ORIGINS_PER_TAG, OTHER_PATHS, PATHS_PER_ACCOUNT_DAY, TOP_PAGES,
  type AccountVisits, type DailyTotals, type PagePerDay, type PageViewCount, type TagSighting, type VisitStore,
} from './visits.ts';

export const visitKeys = {
  day: (customer: string, day: string) => `svc:{cust:${customer}}:visits:${day}`,
  views: (c: string, day: string) => `${visitKeys.day(c, day)}:views`,
  sessions: (c: string, day: string) => `${visitKeys.day(c, day)}:sessions`,
  first: (c: string, day: string) => `${visitKeys.day(c, day)}:first`,
  last: (c: string, day: string) => `${visitKeys.day(c, day)}:last`,
  sids: (c: string, day: string, company: string) => `${visitKeys.day(c, day)}:sids:${company}`,
  pages: (c: string, day: string, company: string) => `${visitKeys.day(c, day)}:pages:${company}`,
  anonymous: (c: string, day: string) => `${visitKeys.day(c, day)}:anonymous`,
  sightings: (tagId: string) => `svc:{tag:${tagId}}:sightings`,
} as const;

const RECORD = `
if ARGV[1] == '' then
  redis.call('INCR', KEYS[7])
  return 0
end
local company, at = ARGV[1], ARGV[4]
local new_session = redis.call('SADD', KEYS[5], ARGV[3])
local views = redis.call('HINCRBY', KEYS[1], company, 1)
redis.call('HINCRBY', KEYS[2], company, new_session)
local first = redis.call('HGET', KEYS[3], company)
if (not first) or at < first then redis.call('HSET', KEYS[3], company, at) end
local last = redis.call('HGET', KEYS[4], company)
if (not last) or at > last then redis.call('HSET', KEYS[4], company, at) end
local path = ARGV[2]
if redis.call('HEXISTS', KEYS[6], path) == 0 and redis.call('HLEN', KEYS[6]) >= ${PATHS_PER_ACCOUNT_DAY} then path = ARGV[5] end
redis.call('HINCRBY', KEYS[6], path, 1)
if views == 1 then return 1 end
return 0
`;

const SIGHT = `
local origin, at = ARGV[1], ARGV[2]
local seen = redis.call('HGET', KEYS[1], origin)
if not seen and redis.call('HLEN', KEYS[1]) >= ${ORIGINS_PER_TAG} then
  local all = redis.call('HGETALL', KEYS[1])
  local oldest, oldest_at = nil, nil
  for i = 1, #all, 2 do
    if (not oldest_at) or all[i + 1] < oldest_at then oldest, oldest_at = all[i], all[i + 1] end
  end
  redis.call('HDEL', KEYS[1], oldest)
end
if (not seen) or at > seen then redis.call('HSET', KEYS[1], origin, at) end
return 1
`;

/** Binary order, as SQLite's default collation sorts: the two backends list in the same order. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class RedisVisitStore implements VisitStore {
  private constructor(private readonly client: RedisClientType) {}

  static async open(url: string): Promise<RedisVisitStore> {
    const client = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1_000) } }) as RedisClientType;
    // Failures surface on the calls (the recorder logs them); this keeps them off the process.
    client.on('error', () => {});
    await client.connect();
    return new RedisVisitStore(client);
  }

  async recordPageView(v: PageViewCount): Promise<{ first_of_day_for_account: boolean }> {
    const c = v.customer_id;
    const company = v.company_id ?? '';
    const first = await this.client.eval(RECORD, {
      keys: [
        visitKeys.views(c, v.day), visitKeys.sessions(c, v.day), visitKeys.first(c, v.day), visitKeys.last(c, v.day),
        visitKeys.sids(c, v.day, company), visitKeys.pages(c, v.day, company), visitKeys.anonymous(c, v.day),
      ],
      arguments: [company, v.path, v.session_id, v.at, OTHER_PATHS],
    });
    return { first_of_day_for_account: Number(first) === 1 };
  }

  async accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    const days = daysBetween(from, to);
    const perDay = await Promise.all(
      days.map(async (day) => {
        const [views, sessions, first, last] = await Promise.all([
          this.client.hGetAll(visitKeys.views(customerId, day)),
          this.client.hGetAll(visitKeys.sessions(customerId, day)),
          this.client.hGetAll(visitKeys.first(customerId, day)),
          this.client.hGetAll(visitKeys.last(customerId, day)),
        ]);
        const pages = await Promise.all(Object.keys(views).map(async (company) => [company, await this.client.hGetAll(visitKeys.pages(customerId, day, company))] as const));
        return { views, sessions, first, last, pages };
      }),
    );
    const accounts = new Map<string, Omit<AccountVisits, 'top_pages'> & { pages: Map<string, number> }>();
    for (const d of perDay) {
      for (const [company, count] of Object.entries(d.views)) {
        const a = accounts.get(company) ?? { company_id: company, page_views: 0, sessions: 0, first_seen: d.first[company]!, last_seen: d.last[company]!, pages: new Map<string, number>() };
        a.page_views += Number(count);
        a.sessions += Number(d.sessions[company] ?? 0);
        if (d.first[company]! < a.first_seen) a.first_seen = d.first[company]!;
        if (d.last[company]! > a.last_seen) a.last_seen = d.last[company]!;
        accounts.set(company, a);
      }
      for (const [company, pages] of d.pages) {
        const into = accounts.get(company)!.pages;
        for (const [path, n] of Object.entries(pages)) into.set(path, (into.get(path) ?? 0) + Number(n));
      }
    }
    return [...accounts.values()]
      .sort((a, b) => b.page_views - a.page_views || byText(a.company_id, b.company_id))
      .map(({ pages, ...a }) => ({
        ...a,
        top_pages: [...pages]
          .sort(([pa, na], [pb, nb]) => nb - na || byText(pa, pb))
          .slice(0, TOP_PAGES)
          .map(([path, page_views]) => ({ path, page_views })),
      }));
  }

  async dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]> {
    return Promise.all(
      daysBetween(from, to).map(async (day) => {
        const [views, anonymous] = await Promise.all([this.client.hVals(visitKeys.views(customerId, day)), this.client.get(visitKeys.anonymous(customerId, day))]);
        return { day, identified: views.reduce((sum, n) => sum + Number(n), 0), anonymous: Number(anonymous ?? 0) };
      }),
    );
  }

  async accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
    const perDay = await Promise.all(daysBetween(from, to).map(async (day) => [day, await this.client.hGetAll(visitKeys.pages(customerId, day, companyId))] as const));
    return perDay.flatMap(([day, pages]) =>
      Object.entries(pages)
        .sort(([a], [b]) => byText(a, b))
        .map(([path, n]) => ({ day, path, page_views: Number(n) })),
    );
  }

  async recordTagSighting(tagId: string, origin: string, at: string): Promise<void> {
    await this.client.eval(SIGHT, { keys: [visitKeys.sightings(tagId)], arguments: [origin, at] });
  }

  async tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    const all = await Promise.all([...tagIds].sort(byText).map(async (tag_id) => [tag_id, await this.client.hGetAll(visitKeys.sightings(tag_id))] as const));
    return all.flatMap(([tag_id, origins]) =>
      Object.entries(origins)
        .map(([origin, last_seen_at]) => ({ tag_id, origin, last_seen_at }))
        .sort((a, b) => byText(b.last_seen_at, a.last_seen_at)),
    );
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => {});
  }
}
