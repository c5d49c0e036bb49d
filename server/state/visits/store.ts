/**
 * The visit store as callers see it: its interface (VisitStore), its records (those the console shows
 * too: core/visit-records.ts), and the rules the same for both backends: what a page view counts as, the
 * bounds that keep storage proportional to what was visited (not to how often), the raw views' ids, and
 * which origins a full tag keeps. The service applying them over a backend is service.ts.
 *
 * Bounded in time as well as per day: per-day aggregates older than VISIT_RETENTION_DAYS go (SQLite
 * deletes them, Redis lets their keys expire), so a customer's storage does not grow with its age.
 */
import { z } from 'zod';
import type { AccountSession, DailyTotals, DailyUnidentified, TagSighting } from '../../../core/visit-records.ts';
import { UNIDENTIFIED_REASONS, type UnidentifiedReason } from '../../../core/vocabulary.ts';
import type { EntryTransfer, VisitEntry } from '../transfer/transfer.ts';
import type { PeriodSummary } from './rollup.ts';

export const ISO_DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

/**
 * A raw page view as recorded: the fields and order of server/visits/recorder.ts RecordedPageView, which
 * is what the NDJSON log writes per line (server/visits/export.ts checks the two stay one type).
 */
export const RawPageView = z.object({
  customer_id: z.string(),
  tag_id: z.string(),
  at: z.string(),
  day: ISO_DAY,
  company_id: z.string().nullable(),
  unidentified_reason: z
    .enum(UNIDENTIFIED_REASONS)
    .nullable()
    .optional()
    .describe('Why an anonymous view matched no company (null on a Match; absent on views recorded before svc kept it)'),
  path: z.string(),
  referrer_host: z.string().nullable(),
  session_id: z.string(),
  origin: z.string().nullable(),
  first_of_day_for_account: z.boolean(),
  segment_ids: z.array(z.number().int()),
  hot_account: z.boolean(),
  excluded: z.boolean(),
});
export type RawPageView = z.infer<typeof RawPageView>;
/** A raw view before the store has answered whether it is the account's first of the day. */
export type UncountedPageView = Omit<RawPageView, 'first_of_day_for_account'>;

/** One page view as the store counts it. `company_id` null = anonymous (no Match). */
export interface PageViewCount {
  customer_id: string;
  day: string;
  company_id: string | null;
  /** The page: the path as counted (server/visits/page-path.ts collapses its query parameters). */
  path: string;
  session_id: string;
  /** ISO date-time of the view. */
  at: string;
  /** Why an anonymous view matched no company: counted per day beside it, in the same atomic step (absent: not told). */
  unidentified_reason?: UnidentifiedReason;
  /**
   * The raw view to keep for the export, written in the same atomic step as the count (its
   * `first_of_day_for_account` is what this count answers); absent: the caller keeps it later
   * (`keepRawPageView`) or not at all.
   */
  raw?: UncountedPageView;
}

/**
 * The raw view as one JSON text, keys in RawPageView order: what the NDJSON log writes for it (JSON.stringify
 * of the recorded view) and what both stores keep. In two parts around the first-of-day flag, so a store
 * that learns the flag inside its atomic step (a Redis script) joins them there: `head + flag + tail`.
 */
export function rawViewParts(v: UncountedPageView): { head: string; tail: string } {
  const head = JSON.stringify({
    customer_id: v.customer_id,
    tag_id: v.tag_id,
    at: v.at,
    day: v.day,
    company_id: v.company_id,
    // Left out when absent (JSON.stringify drops undefined): a view kept before it reads back as it was kept.
    unidentified_reason: v.unidentified_reason,
    path: v.path,
    referrer_host: v.referrer_host,
    session_id: v.session_id,
    origin: v.origin,
  });
  const tail = JSON.stringify({ segment_ids: v.segment_ids, hot_account: v.hot_account, excluded: v.excluded });
  return { head: `${head.slice(0, -1)},"first_of_day_for_account":`, tail: `,${tail.slice(1)}` };
}

export function rawViewText(v: UncountedPageView, first: boolean): string {
  const { head, tail } = rawViewParts(v);
  return `${head}${first}${tail}`;
}

/**
 * Where a kept raw view sits in its customer's order: `<ms>-<n>`, the Redis stream id form. `ms` is the
 * view's time — but never more than RAW_VIEW_ID_SLACK_MS past the store's own clock (a node whose clock
 * runs ahead must not carry every later id of the customer, and the retention's trimming, into its
 * future) — raised to the customer's latest id when that is not earlier (a node whose clock is behind, a
 * late write), so ids only grow; `n` orders views of one millisecond. Both stores assign ids by this rule
 * (redis-scripts.ts KEEP_RAW mirrors it, with Redis's clock), so an id means the same on either and
 * survives `svc state export/import`.
 */
export interface RawViewId {
  ms: number;
  n: number;
}

export function nextRawViewId(last: RawViewId | null, atMs: number, nowMs: number): RawViewId {
  const ms = Math.min(atMs, nowMs + RAW_VIEW_ID_SLACK_MS);
  if (last === null || ms > last.ms) return { ms, n: 0 };
  return { ms: last.ms, n: last.n + 1 };
}

export const RAW_VIEW_ID = /^(\d{1,15})-(\d{1,15})$/;
export const formatRawViewId = (id: RawViewId) => `${id.ms}-${id.n}`;
export function parseRawViewId(text: string): RawViewId | null {
  const m = RAW_VIEW_ID.exec(text);
  return m ? { ms: Number(m[1]), n: Number(m[2]) } : null;
}
export const compareRawViewIds = (a: RawViewId, b: RawViewId) => a.ms - b.ms || a.n - b.n;

/**
 * How far past the end of `to` a read goes on looking for views of `to` or before: a view's id can be later
 * than its time (nextRawViewId) by the clock difference between nodes, or a write's delay. A view held
 * back more than this behind a later-dated one is listed by a range that reaches its id's day. Also how
 * far ahead of the store's clock an id may be.
 */
export const RAW_VIEW_ID_SLACK_MS = 15 * 60_000;

/** Which kept raw views a read lists: UTC days `from`..`to` of the views, after a position, at most `limit`. */
export interface RawViewQuery {
  from: string;
  to: string;
  /** The id of the last view already read (exclusive), or null from the start of `from`. */
  after: RawViewId | null;
  limit: number;
}

/** A kept raw view: its id and its text (rawViewText, exactly as kept). */
export interface KeptRawView {
  id: string;
  text: string;
}

/** The id range a read scans: from `start` (exclusive when a cursor) to `endMs` (exclusive). */
export interface RawViewScan {
  start: RawViewId;
  startExclusive: boolean;
  endMs: number;
}

/** The id range a read of `q` scans: from its start (or after its cursor) to the end of `to` plus the slack, exclusive. */
export function rawViewScan(q: RawViewQuery): RawViewScan {
  const fromMs = Date.parse(`${q.from}T00:00:00Z`);
  const endMs = Date.parse(`${q.to}T00:00:00Z`) + 86_400_000 + RAW_VIEW_ID_SLACK_MS;
  if (q.after !== null && q.after.ms >= fromMs) return { start: q.after, startExclusive: true, endMs };
  return { start: { ms: fromMs, n: 0 }, startExclusive: false, endMs };
}

/** Raw views kept by default (SVC_EVENTS_RETENTION_DAYS' default: the NDJSON files' own retention). */
export const RAW_VIEW_RETENTION_DAYS = 30;

export interface AccountVisits {
  company_id: string;
  page_views: number;
  /**
   * Distinct sessions per day, summed over the days (a session crossing midnight counts on both days).
   * At most SESSIONS_PER_ACCOUNT_DAY per day: a floor, not an exact count, for a day that reached it.
   */
  sessions: number;
  first_seen: string;
  last_seen: string;
  top_pages: { path: string; page_views: number }[];
}

/** An account's visits summed over a range: AccountVisits without its top pages (read from the per-day account aggregates alone). */
export type AccountTotals = Omit<AccountVisits, 'top_pages'>;

export interface PagePerDay {
  day: string;
  path: string;
  page_views: number;
}

/** One account's page views of a path on a day (what `accountsPages` lists for every account). */
export interface AccountPagePerDay extends PagePerDay {
  company_id: string;
}

/** Distinct paths kept per (customer, day, account); further paths are counted under OTHER_PATHS. */
export const PATHS_PER_ACCOUNT_DAY = 200;
export const OTHER_PATHS = '(other)';
/**
 * Session ids stored per (customer, day, account). Ids come from the client, so one account (or a forged
 * flood of beacons) could otherwise grow the table without limit; past it views still count, new
 * sessions neither count nor are stored.
 */
export const SESSIONS_PER_ACCOUNT_DAY = 1_000;
/** Days of per-day aggregates kept: the longest report (366 days) with slack. */
export const VISIT_RETENTION_DAYS = 400;
/** Origins kept per tag (allowed domains bound them already; `*.example.com` could be many). */
export const ORIGINS_PER_TAG = 50;
/**
 * Journeys kept per (customer, account): its most recent sessions (by latest view), each with its first
 * pages in order. A new session past the bound pushes out the one seen longest ago; a session's views
 * past PAGES_PER_SESSION still count (`page_views`) but their pages are not kept. Sessions whose latest
 * view is past the retention go too.
 */
export const SESSIONS_PER_ACCOUNT = 50;
export const PAGES_PER_SESSION = 50;
/** Pages listed per account in the report. */
export const TOP_PAGES = 5;

/** The first day a store still keeps on `day` (YYYY-MM-DD): days before it are past the retention. */
export function retainedFrom(day: string, retentionDays = VISIT_RETENTION_DAYS): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - retentionDays * 86_400_000).toISOString().slice(0, 10);
}

/*
 * Which origins a full tag keeps. Anyone may send an Origin from a wildcard tag's allowed domains
 * (`*.example.com` admits `a1.example.com`, `a2.example.com` …), so "drop the longest unseen" let a flood
 * of one-off forged origins push out every real one. Each origin carries how many distinct minutes it was
 * seen in (`hits`: real pages keep coming back, a forged one-off does not), and a new origin enters a
 * full tag only by taking the place of
 *   1. an origin not seen for SIGHTING_STALE_MS (a site the tag left), the longest unseen first; else
 *   2. a one-off (hits 1) last seen at least SIGHTING_SETTLE_MS before, the longest unseen first;
 * else it is not kept. An origin seen in two minutes is never pushed out by one-off origins while it
 * stays in use. Both backends apply this same rule (redis-scripts.ts SIGHT mirrors these functions).
 */
export const SIGHTING_STALE_MS = 30 * 86_400_000;
export const SIGHTING_SETTLE_MS = 60_000;

/** What a store keeps per (tag, origin): `<last_seen_at>|<hits>`; a bare time (stored before hits) is 1 hit. */
export interface SightingCell {
  last_seen_at: string;
  hits: number;
}

export function parseSighting(value: string): SightingCell {
  const bar = value.indexOf('|');
  if (bar === -1) return { last_seen_at: value, hits: 1 };
  return { last_seen_at: value.slice(0, bar), hits: Number(value.slice(bar + 1)) || 1 };
}

export function formatSighting(cell: SightingCell): string {
  return `${cell.last_seen_at}|${cell.hits}`;
}

/**
 * A known origin seen again at `at`. A hit per distinct minute (ISO times compared to the minute): the
 * recorder writes a pair at most once a minute per process, so several nodes seeing one page view count once.
 */
export function seenAgain(cell: SightingCell, at: string): SightingCell {
  return {
    last_seen_at: at > cell.last_seen_at ? at : cell.last_seen_at,
    hits: at.slice(0, 16) > cell.last_seen_at.slice(0, 16) ? cell.hits + 1 : cell.hits,
  };
}

/** The times that decide a full tag's victim for an origin seen at `at` (ISO): older than `stale`, settled by `settled`. */
export interface SightingBounds {
  stale: string;
  settled: string;
}

export function sightingBounds(at: string): SightingBounds {
  const t = Date.parse(at);
  return { stale: new Date(t - SIGHTING_STALE_MS).toISOString(), settled: new Date(t - SIGHTING_SETTLE_MS).toISOString() };
}

/** The origin a new one replaces in a full tag (`bounds`: sightingBounds of its time), or null: the new one is not kept. */
export function sightingVictim(cells: Iterable<readonly [origin: string, cell: SightingCell]>, { stale, settled }: SightingBounds): string | null {
  let staleVictim: [string, string] | null = null;
  let oneOffVictim: [string, string] | null = null;
  // Ties on the time go to the smaller origin, so both backends pick the same one whatever their order.
  const earlier = (origin: string, last: string, best: [string, string] | null) => best === null || last < best[1] || (last === best[1] && origin < best[0]);
  for (const [origin, { last_seen_at: last, hits }] of cells) {
    if (last < stale && earlier(origin, last, staleVictim)) staleVictim = [origin, last];
    if (hits <= 1 && last <= settled && earlier(origin, last, oneOffVictim)) oneOffVictim = [origin, last];
  }
  return (staleVictim ?? oneOffVictim)?.[0] ?? null;
}

export interface VisitStore extends EntryTransfer<VisitEntry> {
  /** Counts one page view; `first_of_day_for_account` is true for an account's first view of the UTC day. */
  recordPageView(view: PageViewCount): Promise<{ first_of_day_for_account: boolean }>;
  /** Accounts that visited between `from` and `to` (inclusive UTC days), most page views first. */
  accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]>;
  /** accountVisits without the top pages: one read of the per-day account aggregates (the home page's, server/home/). */
  accountTotals(customerId: string, from: string, to: string): Promise<AccountTotals[]>;
  /**
   * How many accounts were first seen between `from` and `to` (inclusive UTC days): their first view
   * within what the store remembers (`firstSeenDays`) falls in the range. One indexed count.
   */
  newAccounts(customerId: string, from: string, to: string): Promise<number>;
  /**
   * The UTC day of each account's first view the store remembers (null: never seen), in the order asked.
   * Kept per (customer, account) in the count's step, and not pruned with the per-day aggregates (one row
   * per account ever seen, so bounded by the catalog): an account back after the retention is not new.
   */
  firstSeenDays(customerId: string, companyIds: readonly string[]): Promise<(string | null)[]>;
  /**
   * Segments entered between `from` and `to` (UTC days of the swaps), counted by swapAccountSegments in its
   * atomic step: a segment in the new set and not in the remembered one (every segment when none was remembered).
   */
  segmentEntries(customerId: string, from: string, to: string): Promise<number>;
  /** Identified and anonymous page views per day, one row for every day of the range (zeros included). */
  dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]>;
  /**
   * What the console's Home reads of a range: its daily totals, distinct accounts, accounts first seen,
   * segments entered and `top` most active accounts — the same figures as dailyTotals, accountTotals,
   * newAccounts and segmentEntries, read from the per-day rollup (rollup.ts) and each day's accounts ranked
   * by views (top-accounts.ts) instead of every account of the range. A range longer than ROLLUP_SPAN_DAYS,
   * or with a day the rollup does not cover, is read from the aggregates as those methods read it.
   */
  periodSummary(customerId: string, from: string, to: string, top: number): Promise<PeriodSummary>;
  /**
   * Anonymous page views per day by why they matched no company (PageViewCount.unidentified_reason), one
   * row for every day of the range, every reason present (zeros included). Views counted without a reason
   * are in dailyTotals' `anonymous` only (the report calls them unclassified).
   */
  unidentifiedPageViews(customerId: string, from: string, to: string): Promise<DailyUnidentified[]>;
  /** One account's page views per (day, path): the first-party intent input of the scoring model. */
  accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]>;
  /**
   * Every account's page views per (day, path) between `from` and `to` (inclusive UTC days), ordered by
   * company, day and path: what segment rules on behaviour and first-party intent read over the whole
   * catalog (server/segments/member-facts.ts). Bounded by what was visited: the accounts seen in the range,
   * at most PATHS_PER_ACCOUNT_DAY rows per account and day.
   */
  accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]>;

  /**
   * The account's most recent sessions (at most SESSIONS_PER_ACCOUNT, latest view first), each with its
   * pages in the order viewed; only sessions seen within the retention.
   */
  accountSessions(customerId: string, companyId: string): Promise<AccountSession[]>;

  /** Remembers that a tag was used from this origin at this time (latest wins; a full tag: sightingVictim). */
  recordTagSighting(tagId: string, origin: string, at: string): Promise<{ first: boolean }>;

  /**
   * Remembers the account's segments as of a view and answers those remembered before (null: none), in
   * one atomic step, so two nodes recording views of one account at once never both see the old set
   * (segment.entered: server/webhooks/events.ts). Forgotten after the retention like the aggregates.
   */
  swapAccountSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null>;
  tagSightings(tagIds: readonly string[]): Promise<TagSighting[]>;

  /**
   * Keeps a raw view for the export on its own (a view whose segments were known only after its count:
   * rules on behaviour or intent); a view known before its count goes with it (PageViewCount.raw).
   */
  keepRawPageView(view: RawPageView): Promise<void>;
  /**
   * The customer's kept raw views of `q`, in id order, read a bounded page at a time (a consumer that
   * stops reading holds no more than a page). Kept for the raw-view retention (RAW_VIEW_RETENTION_DAYS, the
   * stores' `rawRetentionDays`): SQLite deletes older rows with the aggregates' prune, Redis trims its
   * stream on every write (MINID) and lets an idle stream expire.
   */
  rawPageViews(customerId: string, q: RawViewQuery): AsyncIterable<KeptRawView>;

  close(): Promise<void>;
}

/**
 * Segments entered by a swap of an account's remembered segments: those in `now` and not in `before`; every
 * one of `now` when none were remembered (as segment.entered reads it: server/webhooks/enrich.ts).
 * redis-scripts.ts SWAP mirrors it.
 */
export function enteredCount(before: readonly number[] | null, now: readonly number[]): number {
  const was = new Set(before ?? []);
  return new Set(now.filter((id) => !was.has(id))).size;
}

/** Every day from `from` to `to` inclusive (both YYYY-MM-DD, UTC). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** A session's pages oldest first (a late beacon is stored in arrival order; equal times keep it). */
export function inViewOrder(pages: readonly { at: string; path: string }[]): { at: string; path: string }[] {
  return pages
    .map((p, i) => [p, i] as const)
    .sort(([a, i], [b, j]) => (a.at < b.at ? -1 : a.at > b.at ? 1 : i - j))
    .map(([p]) => p);
}
