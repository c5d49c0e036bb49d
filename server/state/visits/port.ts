/**
 * What the visit service needs of a backend: storage only. Every write is one atomic step of the backend
 * (an IMMEDIATE transaction, a Lua script); the rules, the bounds' values per call (retention cutoffs,
 * the sighting bounds, a raw read's id range) and the messages are the service's (service.ts).
 */
import type { AccountSession, DailyTotals, TagSighting } from '../../../core/visit-records.ts';
import type { VisitEntry } from '../transfer/transfer.ts';
import type { RollupDay } from './rollup.ts';
import type {
  AccountPagePerDay,
  AccountTotals,
  AccountVisits,
  KeptRawView,
  PagePerDay,
  PageViewCount,
  RawPageView,
  RawViewQuery,
  RawViewScan,
  SightingBounds,
} from './store.ts';
import type { RankedPage, RankedRead } from './top-accounts.ts';

/** Days each retention keeps, decided once by the service (visitRetention) and given to the backend. */
export interface VisitRetention {
  /** Per-day aggregates, journeys and remembered segments (VISIT_RETENTION_DAYS). */
  days: number;
  /** Kept raw views for the export (RAW_VIEW_RETENTION_DAYS; a server passes SVC_EVENTS_RETENTION_DAYS). */
  rawDays: number;
}

/** One import's writer: batches in the file's order (it may carry state from one batch to the next). */
export interface VisitImportWriter {
  /** Entries the backend writes in one step (a transaction, a MULTI per hash tag). */
  batchSize: number;
  write(batch: VisitEntry[]): Promise<void>;
}

export interface VisitPort {
  /** Counts the view, and keeps `view.raw` when given, in one atomic step; true: the account's first view of its day. */
  count(view: PageViewCount): Promise<boolean>;
  keepRaw(view: RawPageView): Promise<void>;
  /** Kept raw views of `q` in id order, within `scan` (rawViewScan of q), its days only, at most `q.limit`. */
  rawViews(customerId: string, q: RawViewQuery, scan: RawViewScan): AsyncIterable<KeptRawView>;
  accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]>;
  accountTotals(customerId: string, from: string, to: string): Promise<AccountTotals[]>;
  newAccounts(customerId: string, from: string, to: string): Promise<number>;
  firstSeenDays(customerId: string, companyIds: readonly string[]): Promise<(string | null)[]>;
  segmentEntries(customerId: string, from: string, to: string): Promise<number>;
  dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]>;
  /** Every day of the range from the per-day rollup (rollup.ts), with whether the rollup covers it. */
  rollupDays(customerId: string, from: string, to: string): Promise<RollupDay[]>;
  /** Per read, a page of the day's accounts ranked by views (top-accounts.ts). */
  rankedAccounts(customerId: string, reads: readonly RankedRead[]): Promise<RankedPage[]>;
  /** The views of each (account, day), 0 when none. */
  accountDayViews(customerId: string, pairs: readonly { company_id: string; day: string }[]): Promise<number[]>;
  /** The accounts' totals over the days (as accountTotals sums them; accounts without a view left out), in any order. */
  accountsTotals(customerId: string, companyIds: readonly string[], days: readonly string[]): Promise<AccountTotals[]>;
  accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]>;
  accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]>;
  /** The account's latest sessions (SESSIONS_PER_ACCOUNT at most) whose latest view is on `keptFrom` (a day) or later. */
  sessions(customerId: string, companyId: string, keptFrom: string): Promise<AccountSession[]>;
  /** Stores a sighting: a known origin seen again, or a new one (in a full tag, sightingVictim under `bounds` makes room); true: new. */
  sight(tagId: string, origin: string, at: string, bounds: SightingBounds): Promise<boolean>;
  /** Also counts the segments entered (store.ts segmentEntries) on the UTC day of `at`, in the same step. */
  swapSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null>;
  tagSightings(tagIds: readonly string[]): Promise<TagSighting[]>;
  exportEntries(): AsyncIterable<VisitEntry>;
  isEmpty(): Promise<boolean>;
  importer(): VisitImportWriter;
  close(): Promise<void>;
}
