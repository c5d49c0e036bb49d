/**
 * The I/O edge of the behaviour and intent conditions (./evaluate.ts `AccountFacts`): what one account
 * did, gathered for the routes that evaluate a customer's segments on one company (identification, the
 * enrichment answers, the account page, the recorder's `segment_ids`, the Segments API's membership).
 * Gathered only when the customer's rules read it (`needsAccountFacts`): a customer without such rules
 * pays nothing.
 *
 * The intent score is the one identification answers for the product: the scoring model's, from the
 * company's intent signals and its page views of the model's first-party window (server/scoring/
 * first-party.ts), so one read of the account's pages serves the rules and the scores.
 *
 * The CRM side (`crm_owner`, `crm_stage`) is what the CRM sync read back, kept per account and CRM in the
 * CRM store: read for both CRMs, and remembered per process for a few seconds (CRM_FACTS_TTL_MS), so a
 * customer whose rules read it pays at most one store read per account every few seconds on the hot
 * paths (identification, the recorder), not one per request. The sync reads the CRM back every few
 * minutes at most, so the few seconds add nothing that matters.
 *
 * The lookalike scores (`lookalike` conditions) are the account's against each seed's kept profile
 * (./lookalike-seeds.ts): no catalog scan per request.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import { CRM_PROVIDERS, type CrmAccountRecord } from '../../core/crm-records.ts';
import type { LookalikeCondition } from '../../core/customer-records.ts';
import { BoundedCache, weakMemo } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import { firstPartyWindow } from '../scoring/first-party.ts';
import { type IntentSignal, intentScore, type ScoringProduct } from '../scoring/model.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import type { PagePerDay, VisitStore } from '../state/visits/store.ts';
import type { EngagementFacts } from './engagement-rule.ts';
import { type AccountFacts, type CrmFacts, type FactsNeed, NO_CRM_FACTS, needsAccountFacts, windowStart } from './evaluate.ts';
import { lookalikeConditions, lookalikeScorer, type SeedSources, seedSourcesOf } from './lookalike-seeds.ts';
import { type TopicFacts, topicFactsOf } from './topic-rule.ts';

/** Account facts, and the page views of the scoring model's window among them (what `recentPageViews` reads). */
export interface GatheredFacts extends AccountFacts {
  /** The pages of the first-party window when the pages were read (the scores may use them), else undefined. */
  scoringPages: readonly PagePerDay[] | undefined;
}

/** The customer's product of a name, ignoring case. */
export function productNamed<P extends Pick<ScoringProduct, 'name'>>(products: readonly P[], name: string): P | undefined {
  const n = name.trim().toLowerCase();
  return products.find((p) => p.name.toLowerCase() === n);
}

/** The facts of an account from what was read (pure): intent scored per product on first use. */
export function accountFactsOf(input: {
  now: Date;
  /** The account's pages from (at least) the first day any rule or the scoring window reads, to today. */
  pages: readonly PagePerDay[];
  signals: readonly IntentSignal[];
  products: readonly ScoringProduct[];
  /** Whether `pages` were read (a customer whose rules read no pages and no intent reads none). */
  pagesRead?: boolean;
  /** The account's CRM side, when a rule reads it. */
  crm?: CrmFacts;
  /** The account's lookalike scores, when a rule reads them. */
  lookalike?: (c: LookalikeCondition) => number | undefined;
  /** The account's third-party topics, when a rule reads them. */
  topics?: TopicFacts;
  /** The account's engaged time and custom events, when a rule reads them. */
  engagement?: EngagementFacts;
}): GatheredFacts {
  const { now, pages, signals, products } = input;
  const window = firstPartyWindow(now);
  const scoringPages = pages.filter((p) => p.day >= window.from && p.day <= window.to);
  const scores = new Map<string, number | undefined>();
  return {
    today: window.to,
    pages,
    scoringPages: input.pagesRead === false ? undefined : scoringPages,
    intent(name) {
      const key = name.toLowerCase();
      if (!scores.has(key)) {
        const product = productNamed(products, name);
        scores.set(key, product ? intentScore(signals, product, now, scoringPages) : undefined);
      }
      return scores.get(key);
    },
    ...(input.crm ? { crm: input.crm } : {}),
    ...(input.lookalike ? { lookalike: input.lookalike } : {}),
    ...(input.topics ? { topics: input.topics } : {}),
    ...(input.engagement ? { engagement: input.engagement } : {}),
  };
}

/**
 * The CRM side of an account from its CRM records (pure): the owner and the stage and type of every
 * record that matched it (a record without `crm_ids`: none matched when last looked up, so nothing is known).
 */
export function crmFactsOf(records: readonly Pick<CrmAccountRecord, 'crm_ids' | 'owner_email' | 'stage' | 'type'>[]): CrmFacts {
  const owners: string[] = [];
  const stages: string[] = [];
  for (const r of records) {
    if (r.crm_ids.length === 0) continue;
    if (r.owner_email) owners.push(r.owner_email.trim().toLowerCase());
    for (const v of [r.stage, r.type]) if (v && v.trim() !== '') stages.push(v.trim().toLowerCase());
  }
  return owners.length === 0 && stages.length === 0 ? NO_CRM_FACTS : { owners, stages };
}

/** The account's records in every CRM (one read per CRM, at once). */
export async function readCrmRecords(store: Pick<CrmStore, 'getAccounts'>, customerId: string, companyId: string): Promise<CrmAccountRecord[]> {
  const each = await Promise.all(CRM_PROVIDERS.map((p) => store.getAccounts(customerId, p, [companyId])));
  return each.flat();
}

/** How long a process keeps an account's CRM side (CRM_FACTS_LIMIT accounts at most, per store). */
export const CRM_FACTS_TTL_MS = 5_000;
const CRM_FACTS_LIMIT = 10_000;

/** Per store (each server of a test process has its own): the accounts' CRM sides with when they were read. */
const crmFactsCache = weakMemo((_store: object) => new BoundedCache<string, { until: number; facts: CrmFacts }>(CRM_FACTS_LIMIT));

/** The account's CRM side, from the store at most every CRM_FACTS_TTL_MS. */
export async function cachedCrmFacts(store: Pick<CrmStore, 'getAccounts'>, customerId: string, companyId: string, nowMs = Date.now()): Promise<CrmFacts> {
  const cache = crmFactsCache(store);
  const key = `${customerId}\n${companyId}`;
  const hit = cache.get(key);
  if (hit && hit.until > nowMs) return hit.facts;
  const facts = crmFactsOf(await readCrmRecords(store, customerId, companyId));
  return cache.set(key, { until: nowMs + CRM_FACTS_TTL_MS, facts }).facts;
}

export interface FactsSources {
  /** `topics`: the third-party topics `topic` conditions read; absent: they hold for nobody. */
  catalog: Pick<Catalog, 'intent'> & Partial<Pick<Catalog, 'topics'>>;
  /** The visit store; absent (and no `pages`): the account has no page views known. */
  visits?: Pick<VisitStore, 'accountPages'>;
  /** The CRM store (what the CRM sync read back); absent: the account has no CRM owner or stage. */
  crm?: Pick<CrmStore, 'getAccounts'>;
  /** The account's CRM records when the caller read them already (the account page shows them): not read again. */
  crmRecords?: readonly CrmAccountRecord[];
  /**
   * The account's pages when the caller read them already, from at least the first day the rules and the
   * scoring window read (a digest reads every visiting account's at once): used instead of `visits`.
   */
  pages?: readonly PagePerDay[];
  /**
   * What the seeds of `lookalike` conditions are resolved from (./lookalike-seeds.ts); absent: from the
   * catalog and stores above with the customer, when they are whole (`seedSourcesOf`), else they hold for nobody.
   */
  seeds?: SeedSources;
  /** The engagement store (engaged time, custom events); absent: the account has none known. */
  engagement?: Pick<EngagementStore, 'accountEngagement'>;
  /** The account's engagement when the caller read it already (covering at least the rules' longest window): used instead of `engagement`. */
  accountEngagement?: EngagementFacts;
  /**
   * A store that cannot answer (Redis down): reported here, the facts then hold no page views (as the
   * scores do) and no CRM side.
   */
  onError?: (e: unknown) => void;
}

/** The first UTC day of the pages the facts read at `now`: the earlier of the rules' longest look-back and the scoring window's first day. */
export function factsPagesFrom(need: Pick<FactsNeed, 'days'>, now: Date): string {
  const window = firstPartyWindow(now);
  return need.days > 0 ? minDay(windowStart(window.to, need.days), window.from) : window.from;
}

/**
 * What the account did, as the customer's rules read it, or undefined when none reads any (`need` null).
 * Pages are read from the earlier of the rules' longest look-back and the scoring window's first day; the
 * CRM side only when a rule reads it.
 */
export async function gatherAccountFacts(
  sources: FactsSources,
  customer: Pick<CustomerRecord, 'id' | 'segments' | 'products'>,
  companyId: string,
  now: Date,
  need: FactsNeed | null = needsAccountFacts(customer.segments),
): Promise<GatheredFacts | undefined> {
  if (need === null) return undefined;
  const window = firstPartyWindow(now);
  const readPages = (sources.pages !== undefined || sources.visits !== undefined) && (need.days > 0 || (need.intent && customer.products.length > 0));
  const readPagesNow = async (): Promise<readonly PagePerDay[]> => {
    if (!readPages) return [];
    const from = factsPagesFrom(need, now);
    // Cut to what a read would answer, so preloaded pages give the very facts a read gives.
    if (sources.pages) return sources.pages.filter((p) => p.day >= from && p.day <= window.to);
    try {
      return await sources.visits!.accountPages(customer.id, companyId, from, window.to);
    } catch (e) {
      sources.onError?.(e);
      return [];
    }
  };
  const seeds = need.lookalike ? (sources.seeds ?? seedSourcesOf(sources, customer)) : undefined;
  const readEngagement = async (): Promise<EngagementFacts | undefined> => {
    if (!need.engagement) return undefined;
    if (sources.accountEngagement) return sources.accountEngagement;
    if (!sources.engagement) return undefined;
    try {
      return await sources.engagement.accountEngagement(customer.id, companyId, windowStart(window.to, need.engagement), window.to);
    } catch (e) {
      sources.onError?.(e);
      return undefined;
    }
  };
  const [pages, crm, lookalike, engagement] = await Promise.all([
    readPagesNow(),
    need.crm ? crmFacts(sources, customer.id, companyId) : undefined,
    seeds
      ? lookalikeScorer(seeds, lookalikeConditions(customer.segments.map((s) => s.match)), companyId, now).catch((e) => {
          // A seed segment's store that cannot answer: reported, and the lookalike conditions hold for nobody.
          sources.onError?.(e);
          return undefined;
        })
      : undefined,
    readEngagement(),
  ]);
  return accountFactsOf({
    now,
    pages,
    signals: need.intent ? sources.catalog.intent(companyId) : [],
    products: customer.products,
    pagesRead: readPages,
    crm,
    lookalike,
    topics: need.topics && sources.catalog.topics ? topicFactsOf(sources.catalog.topics.latestWeek(), sources.catalog.topics.ofCompany(companyId)) : undefined,
    engagement,
  });
}

async function crmFacts(sources: FactsSources, customerId: string, companyId: string): Promise<CrmFacts> {
  if (sources.crmRecords) return crmFactsOf(sources.crmRecords);
  if (!sources.crm) return NO_CRM_FACTS;
  try {
    return await cachedCrmFacts(sources.crm, customerId, companyId);
  } catch (e) {
    sources.onError?.(e);
    return NO_CRM_FACTS;
  }
}

const minDay = (a: string, b: string) => (a < b ? a : b);
