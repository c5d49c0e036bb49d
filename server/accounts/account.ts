/**
 * The account page (pure): everything a customer knows of one account — its firmographics (the fields
 * of the identification answer's company object), its scores per product with the factors that made
 * them (the scoring model's own explanation), the customer's segments and lists it is in, its page views
 * per day, its sessions with their pages in order (the first-party journey), its top pages with query
 * parameters collapsed, the webhook deliveries it raised, and what each connected CRM says of it (its
 * records, owner and stage, as the CRM sync read them back). The route (routes.ts) gathers the inputs;
 * this module decides and formats (JSON and CSV).
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { CRM_PROVIDERS, type CrmAccountRecord, type CrmProvider } from '../../core/crm-records.ts';
import type { EngagementSummary } from '../../core/engagement-records.ts';
import type { AccountSession } from '../../core/visit-records.ts';
import type { IntentRow } from '../../data/sources/schema.ts';
import { csvText } from '../http/csv.ts';
import { orNull } from '../http/null-rule.ts';
import { type Firmographics, firmographics } from '../identification/identify.ts';
import { companyScores, explainIntent, explainProfile, type PageViewSummary } from '../scoring/model.ts';
import { type AccountFacts, matchingSegments } from '../segments/evaluate.ts';
import { daysBetween, type PagePerDay } from '../state/visits/store.ts';
import { collapsedPages, collapsePath } from '../visits/page-path.ts';
import type { DeliveryRecord } from '../webhooks/schema.ts';
import type { AccountTopics } from './topics.ts';

/** Pages listed in the account's top pages. */
export const ACCOUNT_TOP_PAGES = 20;
/** Webhook deliveries listed (newest first). */
export const ACCOUNT_DELIVERIES = 50;
/** Companies the search box answers at most. */
export const SEARCH_LIMIT = 20;

/** The page a path counts as (moved to visits/: the recorder counts views under it). */
export { collapsePath } from '../visits/page-path.ts';

/** Page views per collapsed path over the days given, most viewed first (ties by path), at most `limit`. */
export function topPages(pages: readonly PagePerDay[], kept: readonly string[], limit = ACCOUNT_TOP_PAGES): { path: string; page_views: number }[] {
  return collapsedPages(pages, kept, limit);
}

/** One product's scores as identification answers them, with the model's explanation of each. */
export interface ExplainedScore {
  product: string;
  product_display_name: string;
  is_svcqa: boolean;
  intent_score: number;
  buying_stage: string;
  profile_score: number;
  profile_fit: string;
  factors: {
    /** Points of the intent score: third-party signals on the product's topics and the account's own page views. */
    intent: {
      points: number;
      signals: { topic: string; strength: number; age_days: number; weight: number; points: number }[];
      page_views: { day: string; path: string; page_views: number; high_intent: boolean; weight: number; points: number }[];
    };
    /** Points of the profile score per ICP dimension (weights in server/scoring/README.md). */
    profile: { industry: number; employee_range: number; revenue_range: number; region: number; points: number };
  };
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The scores of every product of the customer with their factors. The numbers are the model's
 * (`companyScores`, what identification answers); the factors its own breakdowns (`explainIntent`,
 * `explainProfile`), which compute the very same scores.
 */
export function explainedScores(input: {
  customer: CustomerRecord;
  company: CompanyRow;
  signals: readonly Pick<IntentRow, 'topic' | 'strength' | 'observed_at'>[];
  pageViews: readonly PageViewSummary[];
  now: Date;
}): ExplainedScore[] {
  const { customer, company, signals, pageViews, now } = input;
  const hot = customer.hot_accounts.find((h) => h.company_id === company.company_id) ?? null;
  const scores = companyScores({ company, signals, products: customer.products, hotAccount: hot, pageViews, now });
  return customer.products.map((product, i) => {
    const intent = explainIntent(signals, product, now, pageViews);
    const profile = explainProfile(company, product);
    const score = scores[i]!;
    return {
      product: product.name,
      product_display_name: product.display_name,
      is_svcqa: score.is_svcqa,
      intent_score: score.intent_score,
      buying_stage: score.buying_stage,
      profile_score: score.profile_score,
      profile_fit: score.profile_fit,
      factors: {
        intent: {
          points: round(intent.points),
          signals: intent.contributions.map((c) => ({
            topic: c.topic,
            strength: c.strength,
            age_days: round(c.ageDays, 1),
            weight: round(c.weight, 3),
            points: round(c.points),
          })),
          page_views: intent.first_party.map((c) => ({
            day: c.day,
            path: c.path,
            page_views: c.page_views,
            high_intent: c.high_intent,
            weight: round(c.weight, 3),
            points: round(c.points),
          })),
        },
        profile: {
          industry: profile.industry,
          employee_range: profile.employee_range,
          revenue_range: profile.revenue_range,
          region: profile.region,
          points: profile.points,
        },
      },
    };
  });
}

export interface AccountLists {
  hot: boolean;
  /** The products the hot-account entry names (empty: every product). */
  hot_products: string[];
  excluded: boolean;
  /** The customer's named lists holding the account. */
  named: { id: string; name: string }[];
}

export function accountLists(customer: CustomerRecord, companyId: string): AccountLists {
  const hot = customer.hot_accounts.find((h) => h.company_id === companyId);
  return {
    hot: hot !== undefined,
    hot_products: hot ? [...hot.products] : [],
    excluded: customer.excluded_accounts.includes(companyId),
    named: (customer.account_lists ?? []).filter((l) => l.company_ids.includes(companyId)).map((l) => ({ id: l.id, name: l.name })),
  };
}

/** What one connected CRM says of the account: the records of its domain, their owner and stage (the first record's). */
export interface AccountCrm {
  provider: CrmProvider;
  crm_ids: string[];
  owner_email: string | null;
  owner_name: string | null;
  /** HubSpot `lifecyclestage`; Salesforce: null. */
  stage: string | null;
  /** HubSpot `type`; Salesforce `Type`. */
  type: string | null;
  /** When the CRM side was last read, and svc's values last written (ISO), or null. */
  read_at: string | null;
  written_at: string | null;
}

/** One entry per CRM with a record of the account (in CRM_PROVIDERS order); none matched, or none connected: empty. */
export function accountCrm(records: readonly CrmAccountRecord[], companyId: string): AccountCrm[] {
  return CRM_PROVIDERS.flatMap((provider) =>
    records
      .filter((r) => r.provider === provider && r.company_id === companyId && r.crm_ids.length > 0)
      .slice(0, 1)
      .map((r) => ({
        provider,
        crm_ids: [...r.crm_ids],
        owner_email: r.owner_email,
        owner_name: r.owner_name,
        stage: r.stage,
        type: r.type,
        read_at: r.read_at,
        written_at: r.written_at,
      })),
  );
}

export interface AccountPage {
  customer_id: string;
  company_id: string;
  from: string;
  to: string;
  company: Firmographics;
  scores: ExplainedScore[];
  segments: { id: number; name: string }[];
  lists: AccountLists;
  totals: { page_views: number; sessions: number; days_active: number };
  /** Every day of the range, zeros included. */
  daily: { day: string; page_views: number }[];
  top_pages: { path: string; page_views: number }[];
  kept_query_params: string[];
  /** The account's recent sessions that overlap the range, latest first, pages in the order viewed. */
  sessions: AccountSession[];
  /** Webhook deliveries of events about the account, newest first. */
  webhooks: Pick<DeliveryRecord, 'id' | 'event_id' | 'webhook_id' | 'type' | 'status' | 'attempts' | 'created_at' | 'delivered_at' | 'last_status'>[];
  /** What each connected CRM with a record of the account says of it (HubSpot first); empty otherwise. */
  crm: AccountCrm[];
  /** The followed third-party intent topics the account has scores for, with their trend (./topics.ts); the route always sets it. */
  topics?: AccountTopics;
  /** Engaged time and custom events in the range, from the web tag (server/visits/engagement-summary.ts); the route always sets it. */
  engagement?: EngagementSummary;
}

export function buildAccountPage(input: {
  customer: CustomerRecord;
  company: CompanyRow;
  from: string;
  to: string;
  /** The account's page views per (day, path) in the range. */
  pages: readonly PagePerDay[];
  sessions: readonly AccountSession[];
  deliveries: readonly DeliveryRecord[];
  scores: ExplainedScore[];
  /** What the account did, when the customer's segment rules read it (server/segments/account-facts.ts). */
  facts?: AccountFacts;
  /** The account's records in the CRM store (every connected CRM); absent: none. */
  crm?: readonly CrmAccountRecord[];
}): AccountPage {
  const { customer, company, from, to } = input;
  const perDay = new Map<string, number>();
  for (const p of input.pages) perDay.set(p.day, (perDay.get(p.day) ?? 0) + p.page_views);
  const daily = daysBetween(from, to).map((day) => ({ day, page_views: perDay.get(day) ?? 0 }));
  // A session overlaps the range when it ended on or after its first day and began on or before its last.
  const sessions = input.sessions.filter((s) => s.last_seen.slice(0, 10) >= from && s.first_seen.slice(0, 10) <= to);
  return {
    customer_id: customer.id,
    company_id: company.company_id,
    from,
    to,
    company: firmographics(company),
    scores: input.scores,
    segments: matchingSegments(customer, company, input.facts).map((s) => ({ id: s.id, name: s.name })),
    lists: accountLists(customer, company.company_id),
    totals: {
      page_views: daily.reduce((n, d) => n + d.page_views, 0),
      sessions: sessions.length,
      days_active: daily.filter((d) => d.page_views > 0).length,
    },
    daily,
    top_pages: topPages(input.pages, customer.kept_query_params),
    kept_query_params: [...customer.kept_query_params],
    // Sessions recorded before views were counted under their page (visits/page-path.ts) collapse here too.
    sessions: sessions.map((s) => ({ ...s, pages: s.pages.map((p) => ({ at: p.at, path: collapsePath(p.path, customer.kept_query_params) })) })),
    webhooks: [...input.deliveries]
      .filter((d) => d.company_id === company.company_id)
      .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))
      .slice(0, ACCOUNT_DELIVERIES)
      .map(({ id, event_id, webhook_id, type, status, attempts, created_at, delivered_at, last_status }) => ({
        id,
        event_id,
        webhook_id,
        type,
        status,
        attempts,
        created_at,
        delivered_at,
        last_status,
      })),
    crm: accountCrm(input.crm ?? [], company.company_id),
  };
}

export const ACCOUNT_CSV_COLUMNS = ['record', 'day', 'page_views', 'session_id', 'at', 'path'] as const;

/**
 * The account's page views per day (`record` = `day`: day, page_views), then its sessions' pages in order
 * (`record` = `session_page`: session_id, at, path as viewed), one CSV; cells a spreadsheet would run as a
 * formula are quoted (server/http/csv.ts).
 */
export function accountCsv(page: AccountPage): string {
  const rows = [
    ...page.daily.map((d) => ({ record: 'day', day: d.day, page_views: String(d.page_views), session_id: '', at: '', path: '' })),
    ...page.sessions.flatMap((s) =>
      s.pages.map((p) => ({ record: 'session_page', day: p.at.slice(0, 10), page_views: '', session_id: s.session_id, at: p.at, path: p.path })),
    ),
  ];
  return csvText(rows, { header: true, columns: [...ACCOUNT_CSV_COLUMNS] });
}

/** What the search box lists of a company. */
export interface FoundAccount {
  company_id: string;
  name: string | null;
  domain: string | null;
  industry: string | null;
  country_iso_code: string | null;
}

export const foundAccount = (c: CompanyRow): FoundAccount => ({
  company_id: c.company_id,
  name: orNull(c.name),
  domain: orNull(c.domain),
  industry: orNull(c.industry),
  country_iso_code: orNull(c.country_iso_code),
});
