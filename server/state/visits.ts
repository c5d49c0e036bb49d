/**
 * The visit store: first-party page views, aggregated so that storage stays bounded by what was visited,
 * not by how often. Counts per (customer, UTC day, account, path), per (customer, UTC day) for anonymous
 * visitors, sessions and first/last seen per (customer, day, account), and the origins each web tag was
 * last seen on. Every method is one atomic operation (a transaction in SQLite, a script in Redis), so a
 * Redis implementation can follow behind the same interface. Raw events go to NDJSON files instead
 * (server/visits/event-log.ts).
 */
import { z } from 'zod';

export const ISO_DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');

/** One page view as the store counts it. `company_id` null = anonymous (no Match). */
export interface PageViewCount {
  customer_id: string;
  day: string;
  company_id: string | null;
  path: string;
  session_id: string;
  /** ISO date-time of the view. */
  at: string;
}

export interface AccountVisits {
  company_id: string;
  page_views: number;
  /** Distinct sessions per day, summed over the days (a session crossing midnight counts on both days). */
  sessions: number;
  first_seen: string;
  last_seen: string;
  top_pages: { path: string; page_views: number }[];
}

export interface DailyTotals {
  day: string;
  identified: number;
  anonymous: number;
}

export interface PagePerDay {
  day: string;
  path: string;
  page_views: number;
}

export interface TagSighting {
  tag_id: string;
  origin: string;
  last_seen_at: string;
}

/** Distinct paths kept per (customer, day, account); further paths are counted under OTHER_PATHS. */
export const PATHS_PER_ACCOUNT_DAY = 200;
export const OTHER_PATHS = '(other)';
/** Origins kept per tag (allowed domains bound them already; `*.example.com` could be many). */
export const ORIGINS_PER_TAG = 50;
/** Pages listed per account in the report. */
export const TOP_PAGES = 5;

export interface VisitStore {
  /** Counts one page view; `first_of_day_for_account` is true for an account's first view of the UTC day. */
  recordPageView(view: PageViewCount): Promise<{ first_of_day_for_account: boolean }>;
  /** Accounts that visited between `from` and `to` (inclusive UTC days), most page views first. */
  accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]>;
  /** Identified and anonymous page views per day, one row for every day of the range (zeros included). */
  dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]>;
  /** One account's page views per (day, path): the first-party intent input of the scoring model. */
  accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]>;

  /** Remembers that a tag was used from this origin at this time (latest wins). */
  recordTagSighting(tagId: string, origin: string, at: string): Promise<void>;
  tagSightings(tagIds: readonly string[]): Promise<TagSighting[]>;

  close(): Promise<void>;
}

/** Every day from `from` to `to` inclusive (both YYYY-MM-DD, UTC). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}
