/**
 * The visit store: first-party page views, aggregated so that storage stays bounded by what was visited,
 * not by how often. Counts per (customer, UTC day, account, path), per (customer, UTC day) for anonymous
 * visitors, sessions and first/last seen per (customer, day, account), and the origins each web tag was
 * last seen on. Every write is one atomic step of its backend (port.ts): a transaction in SQLite
 * (sqlite.ts), a script in Redis (redis.ts). Raw events go to NDJSON files on each node
 * (server/visits/event-log.ts) and, for the export of every node's views, to the store as well (kept
 * raw views: a table on SQLite, a stream per customer on Redis), bounded by the raw events' retention.
 *
 * The service decides what both backends share: the retentions, the cutoffs and bounds each call passes
 * down (store.ts's rules), the import's order of steps and its messages. The interface callers see, its
 * records and rules, is store.ts; one contract test for both backends (visits.contract.test.ts).
 */
import type { AccountSession, DailyTotals, DailyUnidentified, TagSighting } from '../../../core/visit-records.ts';
import { StateError } from '../errors.ts';
import { importInPages } from '../transfer/import.ts';
import { VisitEntry } from '../transfer/transfer.ts';
import { type CoveragePort, dailyUnidentified, isUnidentifiedEntry } from './coverage.ts';
import type { VisitPort, VisitRetention } from './port.ts';
import { type PeriodSummary, periodSummary } from './rollup.ts';
import {
  type AccountPagePerDay,
  type AccountTotals,
  type AccountVisits,
  type KeptRawView,
  type PagePerDay,
  type PageViewCount,
  RAW_VIEW_RETENTION_DAYS,
  type RawPageView,
  type RawViewQuery,
  rawViewScan,
  retainedFrom,
  sightingBounds,
  VISIT_RETENTION_DAYS,
  type VisitStore,
} from './store.ts';

export interface VisitStoreOptions {
  /** Days of per-day aggregates kept (VISIT_RETENTION_DAYS). */
  retentionDays?: number;
  /** Days of raw views kept for the export (RAW_VIEW_RETENTION_DAYS; a server passes SVC_EVENTS_RETENTION_DAYS). */
  rawRetentionDays?: number;
}

/** The retentions a store keeps: the options, else the defaults. */
export function visitRetention(options: VisitStoreOptions = {}): VisitRetention {
  return { days: options.retentionDays ?? VISIT_RETENTION_DAYS, rawDays: options.rawRetentionDays ?? RAW_VIEW_RETENTION_DAYS };
}

/** The messages of a refused import, the same on either backend. */
export const visitImportErrors = {
  tooManyOrigins: (tagId: string, cap: number) => new StateError(`tag ${tagId}: more than ${cap} origins`),
  tooManySessions: (companyId: string, customerId: string, cap: number) => new StateError(`account ${companyId} of ${customerId}: more than ${cap} sessions`),
};

/**
 * Reads pass straight through (a returned promise, no await: accountPages is read by every scored Match);
 * writes get the decided parameters their backend stores by.
 */
export class VisitService implements VisitStore {
  constructor(
    protected readonly port: VisitPort,
    protected readonly retention: VisitRetention,
    /** The coverage counts (coverage.ts): their own storage, counted in `port.count`'s step. */
    protected readonly coverage: CoveragePort,
  ) {}

  async recordPageView(view: PageViewCount): Promise<{ first_of_day_for_account: boolean }> {
    return { first_of_day_for_account: await this.port.count(view) };
  }

  accountVisits(customerId: string, from: string, to: string): Promise<AccountVisits[]> {
    return this.port.accountVisits(customerId, from, to);
  }

  accountTotals(customerId: string, from: string, to: string): Promise<AccountTotals[]> {
    return this.port.accountTotals(customerId, from, to);
  }

  newAccounts(customerId: string, from: string, to: string): Promise<number> {
    return this.port.newAccounts(customerId, from, to);
  }

  firstSeenDays(customerId: string, companyIds: readonly string[]): Promise<(string | null)[]> {
    return companyIds.length === 0 ? Promise.resolve([]) : this.port.firstSeenDays(customerId, companyIds);
  }

  segmentEntries(customerId: string, from: string, to: string): Promise<number> {
    return this.port.segmentEntries(customerId, from, to);
  }

  dailyTotals(customerId: string, from: string, to: string): Promise<DailyTotals[]> {
    return this.port.dailyTotals(customerId, from, to);
  }

  periodSummary(customerId: string, from: string, to: string, top: number): Promise<PeriodSummary> {
    return periodSummary(this.port, customerId, from, to, top);
  }

  async unidentifiedPageViews(customerId: string, from: string, to: string): Promise<DailyUnidentified[]> {
    return dailyUnidentified(await this.coverage.unidentified(customerId, from, to), from, to);
  }

  accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PagePerDay[]> {
    return this.port.accountPages(customerId, companyId, from, to);
  }

  accountsPages(customerId: string, from: string, to: string): Promise<AccountPagePerDay[]> {
    return this.port.accountsPages(customerId, from, to);
  }

  accountSessions(customerId: string, companyId: string): Promise<AccountSession[]> {
    return this.port.sessions(customerId, companyId, retainedFrom(new Date().toISOString().slice(0, 10), this.retention.days));
  }

  async recordTagSighting(tagId: string, origin: string, at: string): Promise<{ first: boolean }> {
    return { first: await this.port.sight(tagId, origin, at, sightingBounds(at)) };
  }

  swapAccountSegments(customerId: string, companyId: string, segmentIds: readonly number[], at: string): Promise<number[] | null> {
    return this.port.swapSegments(customerId, companyId, segmentIds, at);
  }

  tagSightings(tagIds: readonly string[]): Promise<TagSighting[]> {
    return tagIds.length === 0 ? Promise.resolve([]) : this.port.tagSightings(tagIds);
  }

  keepRawPageView(view: RawPageView): Promise<void> {
    return this.port.keepRaw(view);
  }

  rawPageViews(customerId: string, q: RawViewQuery): AsyncIterable<KeptRawView> {
    return this.port.rawViews(customerId, q, rawViewScan(q));
  }

  async *exportEntries(): AsyncIterable<VisitEntry> {
    yield* this.port.exportEntries();
    yield* this.coverage.exportEntries();
  }

  async isEmpty(): Promise<boolean> {
    return (await this.port.isEmpty()) && (await this.coverage.isEmpty());
  }

  importEntries(entries: AsyncIterable<VisitEntry> | Iterable<VisitEntry>): Promise<number> {
    const writer = this.port.importer();
    const coverage = this.coverage.importer();
    return importInPages(entries, {
      schema: VisitEntry,
      isEmpty: () => this.isEmpty(),
      notEmpty: 'the target already holds page views or tag sightings: import into an empty state',
      // Coverage counts to their own storage, in the page's order after the rest.
      write: async (page) => {
        const rest = page.filter((e) => !isUnidentifiedEntry(e));
        const counts = page.filter(isUnidentifiedEntry);
        if (rest.length > 0) await writer.write(rest);
        for (let i = 0; i < counts.length; i += coverage.batchSize) await coverage.write(counts.slice(i, i + coverage.batchSize));
      },
      pageSize: writer.batchSize,
    });
  }

  close(): Promise<void> {
    return this.port.close();
  }
}
