/**
 * The visitors report (pure): which accounts visited a customer's site in a date range, most page views
 * first, with their firmographic name and domain, segments and flags; daily identified vs anonymous totals;
 * its coverage — the match rate per day and the anonymous page views split by why they matched no company
 * (./coverage.ts); the accounts as CSV, or the days with their split (`rows=days`).
 */
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { DailyTotals, DailyUnidentified } from '../../core/visit-records.ts';
import { csvText } from '../http/csv.ts';
import { type AccountVisits, daysBetween, ISO_DAY, TOP_PAGES } from '../state/visits/store.ts';
import { type Coverage, coverageOf, SPLIT_KEYS } from './coverage.ts';
import { collapsedPages } from './page-path.ts';
import { accountFacts } from './recorder.ts';

/** Longest range one report covers (a year and a day). */
export const MAX_REPORT_DAYS = 366;
/** Range when `from`/`to` are not given: the last 30 days up to today (UTC). */
export const DEFAULT_REPORT_DAYS = 30;

const realDay = ISO_DAY.refine((d) => daysBetween(d, d).length === 1 && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date');

export const VisitsQuery = z
  .object({
    from: realDay.optional(),
    to: realDay.optional(),
    segment: z
      .string()
      .regex(/^\d{1,9}$/, 'segment must be a segment id (a positive integer)')
      .transform(Number)
      .optional(),
    /** The CSV's rows: the accounts (the default), or the days with their coverage. */
    rows: z.enum(['accounts', 'days'], { message: 'rows must be accounts or days' }).optional(),
  })
  .transform((q, ctx) => {
    const to = q.to ?? new Date().toISOString().slice(0, 10);
    const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_REPORT_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const days = daysBetween(from, to).length;
    if (days === 0) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be after to' });
    if (days > MAX_REPORT_DAYS) ctx.addIssue({ code: 'custom', path: ['to'], message: `a report covers at most ${MAX_REPORT_DAYS} days` });
    return { from, to, segment: q.segment ?? null, rows: q.rows ?? 'accounts' };
  });
export type VisitsQuery = z.output<typeof VisitsQuery>;

export interface VisitingAccount {
  company_id: string;
  name: string | null;
  domain: string | null;
  page_views: number;
  sessions: number;
  first_seen: string;
  last_seen: string;
  top_pages: { path: string; page_views: number }[];
  segment_ids: number[];
  hot_account: boolean;
  excluded: boolean;
}

export interface VisitsReport {
  customer_id: string;
  from: string;
  to: string;
  segment: number | null;
  totals: { page_views: number; identified: number; anonymous: number; accounts: number };
  daily: DailyTotals[];
  /** How many page views were identified, and why the others were not (./coverage.ts). */
  coverage: Coverage;
  accounts: VisitingAccount[];
}

export function buildReport(input: {
  customer: CustomerRecord;
  query: Pick<VisitsQuery, 'from' | 'to' | 'segment'>;
  accounts: readonly AccountVisits[];
  daily: readonly DailyTotals[];
  /** The store's anonymous page views per day by reason, the days of `daily` (absent: none recorded). */
  unidentified?: readonly DailyUnidentified[];
  company: (id: string) => CompanyRow | null;
}): VisitsReport {
  const { customer, query } = input;
  const accounts = input.accounts
    .map((a): VisitingAccount => {
      const company = input.company(a.company_id);
      // Days stored before views were counted under their page (./page-path.ts) collapse here: the store's
      // top pages of an account merged by page (a variant outside its five most viewed is not in them).
      const top_pages = collapsedPages(a.top_pages, customer.kept_query_params ?? [], TOP_PAGES);
      return { ...a, top_pages, name: company?.name || null, domain: company?.domain || null, ...accountFacts(customer, company) };
    })
    .filter((a) => query.segment === null || a.segment_ids.includes(query.segment));
  const identified = input.daily.reduce((n, d) => n + d.identified, 0);
  const anonymous = input.daily.reduce((n, d) => n + d.anonymous, 0);
  return {
    customer_id: customer.id,
    from: query.from,
    to: query.to,
    segment: query.segment,
    totals: { page_views: identified + anonymous, identified, anonymous, accounts: accounts.length },
    daily: [...input.daily],
    coverage: coverageOf(input.daily, input.unidentified ?? []),
    accounts,
  };
}

export const CSV_COLUMNS = [
  'company_id',
  'name',
  'domain',
  'page_views',
  'sessions',
  'first_seen',
  'last_seen',
  'top_pages',
  'segment_ids',
  'hot_account',
  'excluded',
] as const;

/** The service's one escape of formula-like cells (server/http/csv.ts), re-exported for this module's callers. */
export { spreadsheetSafe } from '../http/csv.ts';

/** The columns of `rows=days`: each day's totals, its match rate (0–1, empty without page views) and its split. */
export const DAY_CSV_COLUMNS = ['day', 'page_views', 'identified', 'anonymous', 'match_rate', ...SPLIT_KEYS] as const;

/** One row per day of the range: the split of its anonymous page views adds up to `anonymous`. */
export function reportDaysCsv(report: VisitsReport): string {
  return csvText(
    report.daily.map((d, i) => {
      const c = report.coverage.daily[i]!;
      return {
        day: d.day,
        page_views: d.identified + d.anonymous,
        identified: d.identified,
        anonymous: d.anonymous,
        match_rate: c.match_rate === null ? '' : String(c.match_rate),
        ...c.unidentified,
      };
    }),
    { header: true, columns: [...DAY_CSV_COLUMNS] },
  );
}

/** One row per account; top pages as `path (views)` joined by `; `, segment ids by `;`. */
export function reportCsv(report: VisitsReport): string {
  return csvText(
    report.accounts.map((a) => ({
      ...a,
      name: a.name ?? '',
      domain: a.domain ?? '',
      top_pages: a.top_pages.map((p) => `${p.path} (${p.page_views})`).join('; '),
      segment_ids: a.segment_ids.join(';'),
      hot_account: String(a.hot_account),
      excluded: String(a.excluded),
    })),
    { header: true, columns: [...CSV_COLUMNS] },
  );
}
