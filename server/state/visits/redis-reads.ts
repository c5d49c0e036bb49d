/**
 * The Redis visit store's reads (redis.ts): sums over the per-day account hashes of a range, Home's
 * counts, pages per account and day, an account's sessions, kept raw views and tag sightings. The reads of
 * one customer are one MULTI where they take several keys (one hash tag: one slot on Redis Cluster); every
 * answer within the command deadline (RedisReader.timed).
 */
import type { RedisClientType } from '@redis/client';
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import { visitKeys } from './redis-scripts.ts';
import { dayNumber } from './rollup.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  daysBetween,
  formatRawViewId,
  inViewOrder,
  type KeptRawView,
  type PagePerDay,
  parseSighting,
  type RawViewQuery,
  type RawViewScan,
  SESSIONS_PER_ACCOUNT,
  TOP_PAGES,
} from './store.ts';

/** What the reads need of the storage (redis.ts RedisVisitStorage). */
export interface RedisReader {
  readonly client: RedisClientType;
  timed<T>(p: Promise<T>): Promise<T>;
}

/** Stream entries one XRANGE reads. */
const RAW_VIEW_PAGE = 1_000;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Most page views first, ties by company id (as SQLite orders them). */
const byViews = (a: AccountTotals, b: AccountTotals) => b.page_views - a.page_views || byText(a.company_id, b.company_id);

export async function* readRawViews(r: RedisReader, customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView> {
  const key = visitKeys.rawViews(customerId);
  // Both ends as XRANGE spells them: `(` is exclusive.
  let start = `${scan.startExclusive ? '(' : ''}${formatRawViewId(scan.start)}`;
  const end = `(${scan.endMs}-0`;
  let left = q.limit;
  for (;;) {
    const entries = (await r.timed(r.client.xRange(key, start, end, { COUNT: RAW_VIEW_PAGE }))) ?? [];
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
export async function readAccountDays(r: RedisReader, customerId: string, days: string[]): Promise<Map<string, Map<string, Record<string, string>>>> {
  const m = r.client.multi();
  for (const day of days) m.hGetAll(visitKeys.account(customerId, day));
  const replies = (await r.timed(m.exec())) as unknown as Record<string, string>[];
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
async function sumAccountDays(
  r: RedisReader,
  customerId: string,
  from: string,
  to: string,
): Promise<{ totals: Map<string, AccountTotals>; pageKeys: [string, string][] }> {
  const byDay = await readAccountDays(r, customerId, daysBetween(from, to));
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

export async function readAccountTotals(r: RedisReader, customerId: string, from: string, to: string): Promise<AccountTotals[]> {
  const { totals } = await sumAccountDays(r, customerId, from, to);
  return [...totals.values()].sort(byViews);
}

export async function readNewAccounts(r: RedisReader, customerId: string, from: string, to: string): Promise<number> {
  return r.timed(r.client.zCount(visitKeys.firstSeen(customerId), dayNumber(from), dayNumber(to)));
}

export async function readFirstSeenDays(r: RedisReader, customerId: string, companyIds: readonly string[]): Promise<(string | null)[]> {
  const scores = await r.timed(r.client.zmScore(visitKeys.firstSeen(customerId), [...companyIds]));
  return scores.map((n) => (n === null ? null : new Date(Number(n) * 86_400_000).toISOString().slice(0, 10)));
}

export async function readSegmentEntries(r: RedisReader, customerId: string, from: string, to: string): Promise<number> {
  const days = daysBetween(from, to);
  if (days.length === 0) return 0;
  // One slot (the customer's hash tag): one MGET, on a cluster too.
  const counts = await r.timed(r.client.mGet(days.map((d) => visitKeys.segmentEntries(customerId, d))));
  return counts.reduce((n, c) => n + Number(c ?? 0), 0);
}

export async function readAccountVisits(r: RedisReader, customerId: string, from: string, to: string): Promise<AccountVisits[]> {
  const { totals, pageKeys } = await sumAccountDays(r, customerId, from, to);
  const pages = new Map<string, Map<string, number>>();
  if (pageKeys.length > 0) {
    const m = r.client.multi();
    for (const [, key] of pageKeys) m.hGetAll(key);
    const replies = (await r.timed(m.exec())) as unknown as Record<string, string>[];
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

export async function readDailyTotals(r: RedisReader, customerId: string, from: string, to: string): Promise<DailyTotals[]> {
  const days = daysBetween(from, to);
  const [byDay, anonymous] = await Promise.all([
    readAccountDays(r, customerId, days),
    days.length ? r.timed(r.client.hmGet(visitKeys.anonymous(customerId), days)) : Promise.resolve([] as (string | null)[]),
  ]);
  return days.map((day, i) => ({
    day,
    identified: [...(byDay.get(day)?.values() ?? [])].reduce((n, c) => n + Number(c.views ?? 0), 0),
    anonymous: Number(anonymous[i] ?? 0),
  }));
}

export async function readAccountPages(r: RedisReader, customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
  const days = daysBetween(from, to);
  if (days.length === 0) return [];
  const m = r.client.multi();
  for (const day of days) m.hGetAll(visitKeys.pages(customerId, day, companyId));
  const replies = (await r.timed(m.exec())) as unknown as Record<string, string>[];
  return days.flatMap((day, i) =>
    Object.entries(replies[i] ?? {})
      .map(([path, n]) => ({ day, path, page_views: Number(n) }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  );
}

export async function readAccountsPages(r: RedisReader, customerId: string, from: string, to: string): Promise<AccountPagePerDay[]> {
  const days = daysBetween(from, to);
  if (days.length === 0) return [];
  const byDay = await readAccountDays(r, customerId, days);
  const keys: [day: string, company: string][] = [];
  for (const [day, companies] of byDay) for (const company of companies.keys()) keys.push([day, company]);
  if (keys.length === 0) return [];
  const m = r.client.multi();
  for (const [day, company] of keys) m.hGetAll(visitKeys.pages(customerId, day, company));
  const replies = (await r.timed(m.exec())) as unknown as Record<string, string>[];
  const rows: AccountPagePerDay[] = [];
  keys.forEach(([day, company_id], i) => {
    for (const [path, n] of Object.entries(replies[i] ?? {})) rows.push({ company_id, day, path, page_views: Number(n) });
  });
  // As SQLite orders them (binary text order).
  return rows.sort((a, b) => byText(a.company_id, b.company_id) || byText(a.day, b.day) || byText(a.path, b.path));
}

export async function readSessions(r: RedisReader, customerId: string, companyId: string, keptFrom: string): Promise<AccountSession[]> {
  const kept = Date.parse(`${keptFrom}T00:00:00Z`);
  const ids = await r.timed(
    r.client.zRange(visitKeys.journeys(customerId, companyId), '+inf', kept, {
      BY: 'SCORE',
      REV: true,
      LIMIT: { offset: 0, count: SESSIONS_PER_ACCOUNT },
    }),
  );
  return readSessionsOf(r, customerId, companyId, ids);
}

/** The sessions' meta and pages (a session pushed out meanwhile is left out). */
export async function readSessionsOf(r: RedisReader, customerId: string, companyId: string, ids: string[]): Promise<AccountSession[]> {
  if (ids.length === 0) return [];
  const m = r.client.multi().hmGet(visitKeys.journeyMeta(customerId, companyId), ids);
  for (const id of ids) m.lRange(visitKeys.journeyPages(customerId, companyId, id), 0, -1);
  const [meta, ...pages] = (await r.timed(m.exec())) as unknown as [(string | null)[], ...string[][]];
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

export async function readTagSightings(r: RedisReader, tagIds: readonly string[]): Promise<TagSighting[]> {
  // Each tag's sightings are a global key of their own (own slot on a cluster): one read each, not one
  // MULTI (node-redis sends the reads of one turn together, per node).
  const replies = await r.timed(Promise.all(tagIds.map((t) => r.client.hGetAll(visitKeys.sightings(t)))));
  return tagIds
    .flatMap((tag_id, i) => Object.entries(replies[i] ?? {}).map(([origin, value]) => ({ tag_id, origin, last_seen_at: parseSighting(value).last_seen_at })))
    .sort((a, b) => (a.tag_id < b.tag_id ? -1 : a.tag_id > b.tag_id ? 1 : a.last_seen_at > b.last_seen_at ? -1 : a.last_seen_at < b.last_seen_at ? 1 : 0));
}
