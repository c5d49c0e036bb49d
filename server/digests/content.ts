/**
 * What one digest says, read in bulk (never one read per account where a bulk one exists): the accounts
 * that visited in the period (the visit store's per-account aggregate of the period's UTC days, kept when
 * their first and last views fall around the period's own bounds), those the digest is about (its scope),
 * and of them
 *   - the new ones: seen in the period and on none of the FIRST_PARTY_WINDOW_DAYS days before it;
 *   - the hot ones: the customer's hot accounts that visited;
 *   - the buying-stage moves: a product whose stage (the scoring model's, from the account's intent signals
 *     and its page views) is higher at the period's end than at its start;
 *   - the most active accounts and the top pages of the visits.
 * One read per period and customer of the page views (a digest of several users of a customer reuses it:
 * `PeriodReads`), the catalog's rows of the visiting accounts, and for "my accounts" the owners in one read
 * per CRM, one of the owners list and one of the territory rules; for segments, the accounts' facts as
 * every other surface gathers them (./segment-scope.ts).
 *
 * The visit store counts per UTC day: page views and top pages are those of the UTC days the local period
 * touches (a day's edge can count a few views of the day before or after); which accounts visited and
 * which are new is read from the accounts' first and last view times, to the minute.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CrmAccountRecord } from '../../core/crm-records.ts';
import type { DigestScope } from '../../core/digest-records.ts';
import { BUYING_STAGES, type BuyingStage } from '../../core/vocabulary.ts';
import { territoryOf } from '../alerts/owners.ts';
import { buyingStage, FIRST_PARTY_WINDOW_DAYS, intentScore } from '../scoring/model.ts';
import { crmFactsOf, factsPagesFrom } from '../segments/account-facts.ts';
import { listMembers, needsAccountFacts } from '../segments/evaluate.ts';
import { type AlertStateStore, ownerKey } from '../state/alerts/store.ts';
import type { AccountPagePerDay, AccountVisits, VisitStore } from '../state/visits/store.ts';
import { addDays, type DigestPeriod } from './period.ts';
import { crmRecordsByAccount, type ScopeSources, segmentScopeMembers } from './segment-scope.ts';

/** Accounts listed per section at most (the rest is counted). */
export const LISTED_PER_SECTION = 15;
/** Pages listed in "Top pages". */
export const TOP_PAGES_LISTED = 10;

/** `engagement`, `crm` and the catalog's topics: what segments of a scope read beyond pages and intent (./segment-scope.ts). */
export interface DigestSources extends ScopeSources {
  visits: ScopeSources['visits'] & Pick<VisitStore, 'accountVisits'>;
  /** The customer's owners list and territory rules (server/alerts/); absent: none. */
  owners?: Pick<AlertStateStore, 'ownerRows' | 'territories'>;
}

export interface DigestAccount {
  company_id: string;
  name: string;
  domain: string | null;
  page_views: number;
  top_page: string | null;
  /** The account page in the console. */
  url: string;
}

export interface StageMove {
  account: DigestAccount;
  product: string;
  from: BuyingStage;
  to: BuyingStage;
}

/** A section: what is listed, and how many there are in all. */
export interface Listed<T> {
  items: T[];
  total: number;
}

export interface DigestContent {
  customer: { id: string; name: string };
  period: DigestPeriod;
  /** In-scope accounts that visited in the period. */
  visiting: number;
  new_accounts: Listed<DigestAccount>;
  hot_accounts: Listed<DigestAccount>;
  stage_moves: Listed<StageMove>;
  most_active: Listed<DigestAccount>;
  top_pages: { path: string; page_views: number; accounts: number }[];
}

/** Nothing to say: no account of the scope visited (no mail is sent). */
export const nothingToSay = (c: DigestContent) => c.visiting === 0;

/** What a period's digests of one customer read, once for all its users. */
export interface PeriodReads {
  visited: AccountVisits[];
  /** Accounts seen on the days before the period (within the first-party window). */
  seenBefore: ReadonlySet<string>;
  /** Page views per account of the window before the period and the period (read when stages or segment rules need them). */
  pages: ReadonlyMap<string, AccountPagePerDay[]> | null;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Reads the period's visits of a customer: two aggregate reads, and the per-day pages from `pagesFrom` unless null. */
export async function readPeriod(sources: DigestSources, customerId: string, period: DigestPeriod, pagesFrom: string | null): Promise<PeriodReads> {
  const from = utcDay(period.startMs);
  const to = utcDay(period.endMs - 1);
  const lookback = periodLookback(period);
  const start = new Date(period.startMs).toISOString();
  const end = new Date(period.endMs).toISOString();
  const [days, before, rows] = await Promise.all([
    sources.visits.accountVisits(customerId, from, to),
    sources.visits.accountVisits(customerId, lookback, addDays(from, -1)),
    pagesFrom !== null ? sources.visits.accountsPages(customerId, pagesFrom, to) : Promise.resolve(null),
  ]);
  const visited = days.filter((a) => a.last_seen >= start && a.first_seen < end);
  let pages: Map<string, AccountPagePerDay[]> | null = null;
  if (rows !== null) {
    const wanted = new Set(visited.map((a) => a.company_id));
    pages = new Map();
    for (const row of rows) {
      if (!wanted.has(row.company_id)) continue;
      const list = pages.get(row.company_id);
      if (list) list.push(row);
      else pages.set(row.company_id, [row]);
    }
  }
  return { visited, seenBefore: new Set(before.map((a) => a.company_id)), pages };
}

/** The first day of the first-party window before the period: what "new" and the stage at its start read. */
const periodLookback = (period: DigestPeriod) => addDays(utcDay(period.startMs), -FIRST_PARTY_WINDOW_DAYS);

/** The segments of a scope, of the customer's. */
const scopeSegments = (customer: CustomerRecord, scope: DigestScope) =>
  scope.type === 'segments' ? customer.segments.filter((s) => scope.segments.includes(s.id)) : [];

/**
 * The first UTC day of page views a digest of this customer and scope reads, or null for none: the window
 * before the period for stage moves, and as far back as the scope's segment rules look (the facts are
 * evaluated at the period's end, ./segment-scope.ts).
 */
export function pagesFrom(customer: CustomerRecord, scope: DigestScope, period: DigestPeriod): string | null {
  const lookback = periodLookback(period);
  const need = needsAccountFacts(scopeSegments(customer, scope));
  const rulesFrom = need !== null && (need.days > 0 || need.intent) ? factsPagesFrom(need, new Date(period.endMs)) : null;
  if (rulesFrom !== null && rulesFrom < lookback) return rulesFrom;
  return rulesFrom !== null || customer.products.length > 0 ? lookback : null;
}

async function inScope(
  sources: DigestSources,
  customer: CustomerRecord,
  scope: DigestScope,
  email: string,
  reads: PeriodReads,
  period: DigestPeriod,
): Promise<AccountVisits[]> {
  const { visited } = reads;
  if (scope.type === 'all' || visited.length === 0) return visited;
  const ids = visited.map((a) => a.company_id);
  if (scope.type === 'my_accounts') {
    const owners = await accountOwners(sources, customer.id, ids);
    const me = email.trim().toLowerCase();
    return visited.filter((a) => owners.get(a.company_id) === me);
  }
  const lists = listMembers(customer);
  const inList = (id: string) => scope.lists.some((l) => lists(l)?.has(id));
  const members = await segmentScopeMembers(sources, {
    customer,
    segments: scopeSegments(customer, scope),
    lists,
    ids: ids.filter((id) => !inList(id)),
    pages: reads.pages,
    now: new Date(period.endMs),
  });
  return visited.filter((a) => inList(a.company_id) || members.has(a.company_id));
}

/**
 * Each account's owner (lower-cased), as alerts route to it (server/alerts/owners.ts findOwner): the CRM's
 * owner, else the owners list's row (by company id, then by domain), else the first territory rule the
 * company matches. In bulk: one read per CRM, one of the owners list, one of the rules.
 */
async function accountOwners(sources: DigestSources, customerId: string, ids: string[]): Promise<Map<string, string>> {
  const companies = new Map(ids.map((id) => [id, sources.catalog.company(id)]));
  const keys = ids.flatMap((id) => {
    const domain = companies.get(id)?.domain;
    return [ownerKey.company(id), ...(domain ? [ownerKey.domain(domain)] : [])];
  });
  const [crm, rows, rules] = await Promise.all([
    sources.crm ? crmRecordsByAccount(sources.crm, customerId, ids) : new Map<string, CrmAccountRecord[]>(),
    sources.owners ? sources.owners.ownerRows(customerId, keys) : [],
    sources.owners ? sources.owners.territories(customerId) : [],
  ]);
  const byKey = new Map(rows.map((r) => [r.key, r.owner_email.toLowerCase()]));
  const owners = new Map<string, string>();
  for (const id of ids) {
    const company = companies.get(id);
    const owner =
      crmFactsOf(crm.get(id) ?? []).owners[0] ??
      byKey.get(ownerKey.company(id)) ??
      (company?.domain ? byKey.get(ownerKey.domain(company.domain)) : undefined) ??
      (company ? territoryOf(rules, company)?.owner_email.toLowerCase() : undefined);
    if (owner) owners.set(id, owner);
  }
  return owners;
}

const stageRank = (s: BuyingStage) => BUYING_STAGES.indexOf(s);
const listed = <T>(all: T[]): Listed<T> => ({ items: all.slice(0, LISTED_PER_SECTION), total: all.length });

/** The digest of one user: the period's reads narrowed to the scope, in sections. */
export async function gatherDigest(
  sources: DigestSources,
  input: { customer: CustomerRecord; period: DigestPeriod; scope: DigestScope; email: string; reads: PeriodReads; accountUrl: (companyId: string) => string },
): Promise<DigestContent> {
  const { customer, period, reads } = input;
  const accounts = (await inScope(sources, customer, input.scope, input.email, reads, period)).sort(
    (a, b) => b.page_views - a.page_views || (a.company_id < b.company_id ? -1 : 1),
  );
  const start = new Date(period.startMs).toISOString();
  const shown = new Map<string, DigestAccount>();
  const show = (a: AccountVisits): DigestAccount => {
    let s = shown.get(a.company_id);
    if (!s) {
      const company = sources.catalog.company(a.company_id);
      s = {
        company_id: a.company_id,
        name: company?.name || a.company_id,
        domain: company?.domain || null,
        page_views: a.page_views,
        top_page: a.top_pages[0]?.path ?? null,
        url: input.accountUrl(a.company_id),
      };
      shown.set(a.company_id, s);
    }
    return s;
  };
  const hot = new Set(customer.hot_accounts.map((h) => h.company_id));
  const moves: StageMove[] = [];
  if (customer.products.length > 0 && reads.pages !== null) {
    const from = utcDay(period.startMs);
    const [startAt, endAt] = [new Date(period.startMs), new Date(period.endMs)];
    for (const a of accounts) {
      const signals = sources.catalog.intent(a.company_id);
      const pages = reads.pages.get(a.company_id) ?? [];
      const before = pages.filter((p) => p.day < from);
      for (const product of customer.products) {
        const was = buyingStage(intentScore(signals, product, startAt, before));
        const is = buyingStage(intentScore(signals, product, endAt, pages));
        if (stageRank(is) > stageRank(was)) moves.push({ account: show(a), product: product.display_name, from: was, to: is });
      }
    }
  }
  const pageTotals = new Map<string, { page_views: number; accounts: number }>();
  for (const a of accounts) {
    for (const p of a.top_pages) {
      const t = pageTotals.get(p.path) ?? { page_views: 0, accounts: 0 };
      t.page_views += p.page_views;
      t.accounts++;
      pageTotals.set(p.path, t);
    }
  }
  return {
    customer: { id: customer.id, name: customer.name },
    period,
    visiting: accounts.length,
    new_accounts: listed(accounts.filter((a) => !reads.seenBefore.has(a.company_id) && a.first_seen >= start).map(show)),
    hot_accounts: listed(accounts.filter((a) => hot.has(a.company_id)).map(show)),
    stage_moves: listed(moves),
    most_active: listed(accounts.map(show)),
    top_pages: [...pageTotals]
      .map(([path, t]) => ({ path, ...t }))
      .sort((a, b) => b.page_views - a.page_views || (a.path < b.path ? -1 : 1))
      .slice(0, TOP_PAGES_LISTED),
  };
}
