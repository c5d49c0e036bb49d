/**
 * The console's home page (pure): what changed with a customer's accounts in a period against the period
 * before it of the same length — identified visiting accounts, new accounts, accounts that became hot or
 * moved a buying stage, segment entries, match rate — the accounts to act on now, and the identified vs
 * anonymous page views per day. The route (routes.ts) reads the visit store's aggregates; this module
 * decides the periods, scores the stages and ranks the accounts.
 *
 * Definitions (the OpenAPI text of the route says the same):
 * - hot: the scoring model's buying stage Decision or Purchase for at least one product (intent: third-party
 *   signals and the account's own page views). The hot list is undated, so it cannot say when an account
 *   became hot; it is a reason to act (`hot_list`), not a change.
 * - a stage move: the account's highest buying stage over the customer's products at the end of the period
 *   (its last moment, or now when that is earlier) above the one at its start (its first day's midnight,
 *   without that day's views). Scored only for the period's STAGE_ACCOUNTS most active accounts: the reads
 *   stay bounded by them, whatever the catalog.
 */
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { DailyTotals } from '../../core/visit-records.ts';
import { BUYING_STAGES, type BuyingStage } from '../../core/vocabulary.ts';
import { companyScores, FIRST_PARTY_WINDOW_DAYS, type IntentSignal, type PageViewSummary } from '../scoring/model.ts';
import { ROLLUP_SPAN_DAYS } from '../state/visits/rollup.ts';
import { type AccountTotals, daysBetween, ISO_DAY } from '../state/visits/store.ts';

/** Days of a period when `from`/`to` are not given: the last 7 days up to today (UTC). */
export const DEFAULT_HOME_DAYS = 7;
/** Longest period (a quarter and a day): the longest whose distinct accounts the visit store's rollup counts exactly. */
export const MAX_HOME_DAYS = ROLLUP_SPAN_DAYS;
/** Accounts listed to act on. */
export const TOP_ACCOUNTS = 10;
/** The period's most active accounts scored for stage moves (each one read of its window's page views). */
export const STAGE_ACCOUNTS = 200;
/** The stages that make an account hot. */
export const HOT_STAGES: readonly BuyingStage[] = ['Decision', 'Purchase'];

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

const realDay = ISO_DAY.refine((d) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return !Number.isNaN(t) && dayOf(t) === d;
}, 'not a calendar date');

export interface Period {
  from: string;
  to: string;
}

export const HomeQuery = z.object({ from: realDay.optional(), to: realDay.optional() }).transform((q, ctx) => {
  const today = dayOf(Date.now());
  const to = q.to ?? (q.from ? addDays(q.from, DEFAULT_HOME_DAYS - 1) : today);
  const from = q.from ?? addDays(to, -(DEFAULT_HOME_DAYS - 1));
  const days = daysBetween(from, to).length;
  if (days === 0) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be after to' });
  if (days > MAX_HOME_DAYS) ctx.addIssue({ code: 'custom', path: ['to'], message: `a period covers at most ${MAX_HOME_DAYS} days` });
  return { current: { from, to }, previous: previousPeriod({ from, to }) };
});
export type HomeQuery = z.output<typeof HomeQuery>;

/** The period of the same length just before `p`. */
export function previousPeriod(p: Period): Period {
  const days = daysBetween(p.from, p.to).length;
  return { from: addDays(p.from, -days), to: addDays(p.from, -1) };
}

/** The days of page views one scoring of the period reads: the model's window before its start, through its end. */
export function scoringWindow(p: Period): Period {
  return { from: addDays(p.from, -FIRST_PARTY_WINDOW_DAYS), to: p.to };
}

/** The two moments a period's stages are scored at: its start, and its end (now, when that is earlier). */
export function scoringMoments(p: Period, now: Date): { start: Date; end: Date } {
  const end = Math.min(now.getTime(), Date.parse(`${p.to}T00:00:00Z`) + DAY_MS - 1);
  return { start: new Date(`${p.from}T00:00:00Z`), end: new Date(end) };
}

const stageRank = (s: BuyingStage) => BUYING_STAGES.indexOf(s);

/** The account's highest stage over the customer's products at `at`, from the page views given. */
function highestStage(
  customer: CustomerRecord,
  company: CompanyRow,
  signals: readonly IntentSignal[],
  views: readonly PageViewSummary[],
  at: Date,
): BuyingStage {
  const scores = companyScores({ company, signals, products: customer.products, pageViews: views, now: at });
  let best: BuyingStage = 'Target';
  for (const s of scores) if (stageRank(s.buying_stage) > stageRank(best)) best = s.buying_stage;
  return best;
}

export interface StageMove {
  before: BuyingStage;
  after: BuyingStage;
}

/**
 * The account's stage at the period's start and end. `views`: its page views per (day, path) over
 * scoringWindow(p); those of the period are not yet seen at its start. Null when the customer has no product (no stage).
 */
export function stageMove(input: {
  customer: CustomerRecord;
  company: CompanyRow;
  signals: readonly IntentSignal[];
  views: readonly PageViewSummary[];
  period: Period;
  now: Date;
}): StageMove | null {
  const { customer, company, signals, views, period } = input;
  if (customer.products.length === 0) return null;
  const { start, end } = scoringMoments(period, input.now);
  const before = highestStage(
    customer,
    company,
    signals,
    views.filter((v) => v.day < period.from),
    start,
  );
  const after = highestStage(
    customer,
    company,
    signals,
    views.filter((v) => v.day <= period.to),
    end,
  );
  return { before, after };
}

export const isHotStage = (s: BuyingStage) => HOT_STAGES.includes(s);
export const rose = (m: StageMove | null | undefined): boolean => m != null && stageRank(m.after) > stageRank(m.before);
export const becameHot = (m: StageMove | null | undefined): boolean => m != null && !isHotStage(m.before) && isHotStage(m.after);

/** What the route read of one period. */
export interface PeriodReads {
  period: Period;
  /** Accounts with an identified view in the period (the visit store's periodSummary `accounts`). */
  identifiedAccounts: number;
  /** The period's most active accounts (periodSummary `top`, at most STAGE_ACCOUNTS), most page views first. */
  accounts: readonly AccountTotals[];
  daily: readonly DailyTotals[];
  /** Accounts first seen in the period (the visit store's newAccounts). */
  newAccounts: number;
  /** Segments entered in the period; null: not counted (no endpoint of the customer remembers segments). */
  segmentEntries: number | null;
  /** Stages of the scored accounts (at most STAGE_ACCOUNTS): company id → move (null: no product). */
  stages: ReadonlyMap<string, StageMove | null>;
}

export interface PeriodFigures {
  from: string;
  to: string;
  identified_accounts: number;
  new_accounts: number;
  became_hot: number;
  stage_moves: number;
  segment_entries: number | null;
  page_views: number;
  identified_page_views: number;
  anonymous_page_views: number;
  /** Identified / all page views, 0–1 (4 decimals); null without page views. */
  match_rate: number | null;
}

export function periodFigures(r: PeriodReads): PeriodFigures {
  const identified = r.daily.reduce((n, d) => n + d.identified, 0);
  const anonymous = r.daily.reduce((n, d) => n + d.anonymous, 0);
  const moves = [...r.stages.values()];
  return {
    from: r.period.from,
    to: r.period.to,
    identified_accounts: r.identifiedAccounts,
    new_accounts: r.newAccounts,
    became_hot: moves.filter(becameHot).length,
    stage_moves: moves.filter(rose).length,
    segment_entries: r.segmentEntries,
    page_views: identified + anonymous,
    identified_page_views: identified,
    anonymous_page_views: anonymous,
    match_rate: identified + anonymous === 0 ? null : Math.round((identified / (identified + anonymous)) * 10_000) / 10_000,
  };
}

export interface ActAccount {
  company_id: string;
  name: string | null;
  domain: string | null;
  page_views: number;
  last_seen: string;
  /** Highest buying stage now (the period's end) and at its start; null without products. */
  stage: BuyingStage | null;
  stage_before: BuyingStage | null;
  hot: boolean;
  hot_list: boolean;
  new: boolean;
  /** Why to act, most telling first: `hot`, `hot_list`, `stage`, `new`, `page_views`. */
  reasons: ('hot' | 'hot_list' | 'stage' | 'new' | 'page_views')[];
  /** The account page in the console (its `#…` fragment under /console/). */
  link: string;
}

/**
 * The accounts to act on now: the period's scored accounts (excluded ones left out) ranked by what
 * changed — became hot, on the hot list, moved a stage, new — then by stage and page views.
 */
export function accountsToActOn(input: {
  customer: CustomerRecord;
  reads: PeriodReads;
  /** First day seen of the scored accounts (the visit store's firstSeenDays). */
  firstSeen: ReadonlyMap<string, string | null>;
  company: (id: string) => CompanyRow | null;
  link: (companyId: string) => string;
  limit?: number;
}): ActAccount[] {
  const { customer, reads } = input;
  const hotList = new Set(customer.hot_accounts.map((h) => h.company_id));
  const excluded = new Set(customer.excluded_accounts);
  const rows = reads.accounts
    .filter((a) => reads.stages.has(a.company_id) && !excluded.has(a.company_id))
    .map((a): ActAccount & { weight: number } => {
      const move = reads.stages.get(a.company_id) ?? null;
      const company = input.company(a.company_id);
      const first = input.firstSeen.get(a.company_id) ?? null;
      const isNew = first !== null && first >= reads.period.from && first <= reads.period.to;
      const hot = becameHot(move);
      const listed = hotList.has(a.company_id);
      const moved = rose(move);
      const reasons: ActAccount['reasons'] = [];
      if (hot) reasons.push('hot');
      if (listed) reasons.push('hot_list');
      if (moved && !hot) reasons.push('stage');
      if (isNew) reasons.push('new');
      reasons.push('page_views');
      return {
        company_id: a.company_id,
        name: company?.name || null,
        domain: company?.domain || null,
        page_views: a.page_views,
        last_seen: a.last_seen,
        stage: move?.after ?? null,
        stage_before: move?.before ?? null,
        hot: move !== null && isHotStage(move.after),
        hot_list: listed,
        new: isNew,
        reasons,
        link: input.link(a.company_id),
        weight: (hot ? 8 : 0) + (listed ? 4 : 0) + (moved ? 2 : 0) + (isNew ? 1 : 0),
      };
    });
  return rows
    .sort(
      (a, b) =>
        b.weight - a.weight ||
        stageRank(b.stage ?? 'Target') - stageRank(a.stage ?? 'Target') ||
        b.page_views - a.page_views ||
        (a.company_id < b.company_id ? -1 : a.company_id > b.company_id ? 1 : 0),
    )
    .slice(0, input.limit ?? TOP_ACCOUNTS)
    .map(({ weight: _, ...a }) => a);
}

export interface HomeSummary {
  customer_id: string;
  current: PeriodFigures;
  previous: PeriodFigures;
  accounts: ActAccount[];
  /** Identified and anonymous page views per day of the current period (zeros included). */
  daily: DailyTotals[];
  /** How many of the period's visiting accounts were scored for stages (at most STAGE_ACCOUNTS). */
  scored_accounts: number;
}

export function buildHome(input: {
  customer: CustomerRecord;
  current: PeriodReads;
  previous: PeriodReads;
  firstSeen: ReadonlyMap<string, string | null>;
  company: (id: string) => CompanyRow | null;
  link: (companyId: string) => string;
}): HomeSummary {
  return {
    customer_id: input.customer.id,
    current: periodFigures(input.current),
    previous: periodFigures(input.previous),
    accounts: accountsToActOn({ customer: input.customer, reads: input.current, firstSeen: input.firstSeen, company: input.company, link: input.link }),
    daily: [...input.current.daily],
    scored_accounts: input.current.stages.size,
  };
}

/** The accounts of a period scored for stages: its most active, at most STAGE_ACCOUNTS. */
export const scoredAccounts = (accounts: readonly AccountTotals[]): AccountTotals[] => accounts.slice(0, STAGE_ACCOUNTS);
