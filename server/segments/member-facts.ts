/**
 * What the membership index (./membership.ts) reads for intent and behaviour conditions over the whole
 * catalog, gathered per request by the routes that ask it (preview, sizes, member pages):
 *
 *  - the accounts that visited the customer's site, with their page views per day and path, from the
 *    visit store (`accountsPages`: a bounded set — what was visited, within the retention), read once
 *    over the longest window the rules need; `visited` and `page_views` conditions are evaluated on
 *    them with the very functions `segmentMatches` uses (./evaluate.ts);
 *  - the intent score of every company per product named (./intent-index.ts), their page views of the
 *    scoring model's first-party window added, as identification scores them;
 *  - the CRM side of the accounts a connected CRM has a record of (their owners, stages and types), from
 *    the CRM store's account records of both CRMs (a bounded set: the accounts the sync looked up), kept
 *    per customer for a few seconds (a builder's previews come in bursts); `crm_owner` and `crm_stage` are
 *    evaluated on them with `segmentMatches`' own functions, an account without a record having no owner
 *    and no stage;
 *  - the members of each `lookalike` condition: the accounts whose score against its seed reaches its
 *    minimum (./lookalike-seeds.ts, scored over the whole catalog by the lookalike index).
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import { CRM_PROVIDERS, type CrmAccountRecord } from '../../core/crm-records.ts';
import type { LookalikeCondition, SegmentMatch } from '../../core/customer-records.ts';
import type { GlobMatcher } from '../../core/glob.ts';
import { BoundedCache, weakMemo } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import { firstPartyWindow } from '../scoring/first-party.ts';
import { explainFirstParty } from '../scoring/model.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import type { AccountPagePerDay, VisitStore } from '../state/visits/store.ts';
import { CRM_FACTS_TTL_MS, crmFactsOf, productNamed } from './account-facts.ts';
import { type EngagementRows, engagementMemberRows } from './engagement-members.ts';
import { type CrmFacts, type DayPageViews, factsNeed, pageViewsIn, ruleProducts, visitedHolds, windowStart } from './evaluate.ts';
import { intentTable } from './intent-index.ts';
import { lookalikeConditions, lookalikeMemberRows, perCondition, type SeedSources, seedSourcesOf } from './lookalike-seeds.ts';
import type { SegmentIndex } from './membership.ts';

/** Intent scores and behaviour, per row of one index. */
export interface MemberFacts {
  /** The intent score of every row for a product of the customer (by name, ignoring case); undefined for no such product. */
  intentScores(product: string): Uint8Array | undefined;
  /** The rows (ascending) that viewed a page matching the pattern in the last `days` UTC days. */
  visitedRows(pattern: GlobMatcher, days: number): Uint32Array;
  /** The rows (ascending) with at least `min` page views in the last `days` UTC days. */
  pageViewRows(min: number, days: number): Uint32Array;
  /** The CRM side of the rows a CRM record matched (the others have none); undefined when no rule reads it. */
  crm?: ReadonlyMap<number, CrmFacts>;
  /** The rows (ascending) like a `lookalike` condition's seed (./lookalike-seeds.ts); absent when no rule reads it. */
  lookalikeRows?(c: LookalikeCondition): Uint32Array | undefined;
  /** The rows `engaged` and `event` conditions hold for (./engagement-members.ts); absent when no rule reads them. */
  engagement?: EngagementRows;
}

/** Records read per page of the CRM store. */
const CRM_PAGE = 1_000;
const CRM_CUSTOMERS_KEPT = 64;

/** Per store: each customer's CRM sides by company id, with when they were read. */
const crmTables = weakMemo((_store: object) => new BoundedCache<string, { until: number; table: Promise<Map<string, CrmFacts>> }>(CRM_CUSTOMERS_KEPT));

/** Every account of the customer some CRM has a record of, with its CRM side (read at most every CRM_FACTS_TTL_MS). */
export function crmTable(store: Pick<CrmStore, 'listAccounts'>, customerId: string, nowMs = Date.now()): Promise<Map<string, CrmFacts>> {
  const cache = crmTables(store);
  const hit = cache.get(customerId);
  if (hit && hit.until > nowMs) return hit.table;
  const table = readCrmTable(store, customerId);
  cache.set(customerId, { until: nowMs + CRM_FACTS_TTL_MS, table });
  // A failed read is not kept: the next request reads again.
  table.catch(() => {
    if (cache.get(customerId)?.table === table) cache.set(customerId, { until: 0, table });
  });
  return table;
}

async function readCrmTable(store: Pick<CrmStore, 'listAccounts'>, customerId: string): Promise<Map<string, CrmFacts>> {
  const byCompany = new Map<string, CrmAccountRecord[]>();
  for (const provider of CRM_PROVIDERS) {
    let after: string | undefined;
    for (;;) {
      const page = await store.listAccounts(customerId, provider, CRM_PAGE, after);
      for (const r of page) {
        if (r.crm_ids.length === 0) continue;
        const list = byCompany.get(r.company_id);
        if (list) list.push(r);
        else byCompany.set(r.company_id, [r]);
      }
      if (page.length < CRM_PAGE) break;
      after = page[page.length - 1]!.company_id;
    }
  }
  const table = new Map<string, CrmFacts>();
  for (const [id, records] of byCompany) table.set(id, crmFactsOf(records));
  return table;
}

/**
 * The facts the rules read, or undefined when none reads intent or behaviour (nothing is read then).
 * A visit store that cannot answer fails the request (a preview or a size must not silently drop the
 * accounts that visited).
 */
export async function gatherMemberFacts(
  sources: {
    catalog: Pick<Catalog, 'intentSignals'>;
    visits?: Pick<VisitStore, 'accountsPages'>;
    crm?: Pick<CrmStore, 'listAccounts'>;
    /** What `lookalike` conditions' seeds are resolved from; absent: from these sources and the customer when whole (`seedSourcesOf`). */
    seeds?: SeedSources;
    /** Engaged time and custom events (`engaged`, `event` conditions); absent: they hold for nobody. */
    engagement?: Pick<EngagementStore, 'accountsEngagement'>;
  },
  index: SegmentIndex,
  customer: Pick<CustomerRecord, 'id' | 'products'>,
  rules: readonly SegmentMatch[],
  now: Date,
): Promise<MemberFacts | undefined> {
  let days = 0;
  let intent = false;
  let crm = false;
  let lookalike = false;
  let engagementDays = 0;
  const products = new Set<string>();
  for (const rule of rules) {
    const need = factsNeed(rule);
    days = Math.max(days, need.days);
    intent ||= need.intent;
    crm ||= need.crm;
    lookalike ||= need.lookalike === true;
    engagementDays = Math.max(engagementDays, need.engagement ?? 0);
    for (const name of ruleProducts(rule)) products.add(name.toLowerCase());
  }
  if (days === 0 && !intent && !crm && !lookalike && engagementDays === 0) return undefined;

  // Each lookalike condition's members, scored over the whole catalog (kept per seed by the lookalike index).
  const likeRows = new Map<LookalikeCondition, Uint32Array>();
  const seeds = lookalike ? (sources.seeds ?? seedSourcesOf(sources, customer)) : undefined;
  if (seeds) for (const c of lookalikeConditions(rules)) likeRows.set(c, await lookalikeMemberRows(seeds, c, index, now));

  // Per row of the index, as the pages below (an account the catalog does not list is in no segment).
  const crmRows = new Map<number, CrmFacts>();
  if (crm && sources.crm) {
    for (const [companyId, facts] of await crmTable(sources.crm, customer.id)) {
      const row = index.rowOf(companyId);
      if (row >= 0) crmRows.set(row, facts);
    }
  }

  const window = firstPartyWindow(now);
  const today = window.to;
  // Every engaged account of the longest window, once (a store that cannot answer fails the request, as the visits').
  const engaged =
    engagementDays > 0 && sources.engagement
      ? await engagementMemberRows(sources.engagement, (id) => index.rowOf(id), customer.id, engagementDays, today)
      : undefined;
  const from = intent ? (days > 0 ? minDay(windowStart(today, days), window.from) : window.from) : windowStart(today, days);
  const rows: readonly AccountPagePerDay[] = sources.visits && (days > 0 || intent) ? await sources.visits.accountsPages(customer.id, from, today) : [];
  // Per row of the index (an account the catalog does not list is in no segment).
  const pagesByRow = new Map<number, DayPageViews[]>();
  let lastId = '';
  let lastRow = -1;
  for (const r of rows) {
    if (r.company_id !== lastId) {
      lastId = r.company_id;
      lastRow = index.rowOf(r.company_id);
    }
    if (lastRow < 0) continue;
    let list = pagesByRow.get(lastRow);
    if (!list) pagesByRow.set(lastRow, (list = []));
    list.push(r);
  }

  const scores = new Map<string, Uint8Array | undefined>();
  if (intent) {
    const table = await intentTable(sources.catalog, index);
    const nowMs = now.getTime();
    /** First-party points per visiting row at the time the scores are of (what identification adds). */
    const firstParty = (at: number) => {
      const points = new Map<number, number[]>();
      const atDate = new Date(at);
      for (const [row, pages] of pagesByRow) {
        const fp = explainFirstParty(
          pages.filter((p) => p.day >= window.from && p.day <= today),
          atDate,
        ).map((c) => c.points);
        if (fp.length > 0) points.set(row, fp);
      }
      return points;
    };
    for (const name of products) {
      const product = productNamed(customer.products, name);
      scores.set(name, product ? table.scores(product, nowMs, firstParty) : undefined);
    }
  }

  const rowsWhere = (holds: (pages: readonly DayPageViews[]) => boolean): Uint32Array => {
    const out: number[] = [];
    for (const [row, pages] of pagesByRow) if (holds(pages)) out.push(row);
    return Uint32Array.from(out).sort();
  };
  return {
    intentScores: (product) => scores.get(product.toLowerCase()),
    visitedRows: (pattern, d) => rowsWhere((pages) => visitedHolds(pattern, d, pages, today)),
    pageViewRows: (min, d) => rowsWhere((pages) => pageViewsIn(d, pages, today) >= min),
    ...(crm ? { crm: crmRows } : {}),
    ...(lookalike ? { lookalikeRows: perCondition(likeRows) } : {}),
    ...(engaged ? { engagement: engaged } : {}),
  };
}

const minDay = (a: string, b: string) => (a < b ? a : b);
