/**
 * What the membership index (./membership.ts) reads for intent and behaviour conditions over the whole
 * catalog, gathered per request by the routes that ask it (preview, sizes, member pages):
 *
 *  - the accounts that visited the customer's site, with their page views per day and path, from the
 *    visit store (`accountsPages`: a bounded set — what was visited, within the retention), read once
 *    over the longest window the rules need; `visited` and `page_views` conditions are evaluated on
 *    them with the very functions `segmentMatches` uses (./evaluate.ts);
 *  - the intent score of every company per product named (./intent-index.ts), their page views of the
 *    scoring model's first-party window added, as identification scores them.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { SegmentMatch } from '../../core/customer-records.ts';
import type { GlobMatcher } from '../../core/glob.ts';
import type { Catalog } from '../data/catalog.ts';
import { firstPartyWindow } from '../scoring/first-party.ts';
import { explainFirstParty } from '../scoring/model.ts';
import type { AccountPagePerDay, VisitStore } from '../state/visits/store.ts';
import { productNamed } from './account-facts.ts';
import { type DayPageViews, factsNeed, pageViewsIn, ruleProducts, visitedHolds, windowStart } from './evaluate.ts';
import { intentTable } from './intent-index.ts';
import type { SegmentIndex } from './membership.ts';

/** Intent scores and behaviour, per row of one index. */
export interface MemberFacts {
  /** The intent score of every row for a product of the customer (by name, ignoring case); undefined for no such product. */
  intentScores(product: string): Uint8Array | undefined;
  /** The rows (ascending) that viewed a page matching the pattern in the last `days` UTC days. */
  visitedRows(pattern: GlobMatcher, days: number): Uint32Array;
  /** The rows (ascending) with at least `min` page views in the last `days` UTC days. */
  pageViewRows(min: number, days: number): Uint32Array;
}

/**
 * The facts the rules read, or undefined when none reads intent or behaviour (nothing is read then).
 * A visit store that cannot answer fails the request (a preview or a size must not silently drop the
 * accounts that visited).
 */
export async function gatherMemberFacts(
  sources: { catalog: Pick<Catalog, 'intentSignals'>; visits?: Pick<VisitStore, 'accountsPages'> },
  index: SegmentIndex,
  customer: Pick<CustomerRecord, 'id' | 'products'>,
  rules: readonly SegmentMatch[],
  now: Date,
): Promise<MemberFacts | undefined> {
  let days = 0;
  let intent = false;
  const products = new Set<string>();
  for (const rule of rules) {
    const need = factsNeed(rule);
    days = Math.max(days, need.days);
    intent ||= need.intent;
    for (const name of ruleProducts(rule)) products.add(name.toLowerCase());
  }
  if (days === 0 && !intent) return undefined;

  const window = firstPartyWindow(now);
  const today = window.to;
  const from = intent ? (days > 0 ? minDay(windowStart(today, days), window.from) : window.from) : windowStart(today, days);
  const rows: readonly AccountPagePerDay[] = sources.visits ? await sources.visits.accountsPages(customer.id, from, today) : [];
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
  };
}

const minDay = (a: string, b: string) => (a < b ? a : b);
