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
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { Catalog } from '../data/catalog.ts';
import { firstPartyWindow } from '../scoring/first-party.ts';
import { type IntentSignal, intentScore, type ScoringProduct } from '../scoring/model.ts';
import type { PagePerDay, VisitStore } from '../state/visits/store.ts';
import { type AccountFacts, type FactsNeed, needsAccountFacts, windowStart } from './evaluate.ts';

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
  };
}

export interface FactsSources {
  catalog: Pick<Catalog, 'intent'>;
  /** The visit store; absent: the account has no page views known. */
  visits?: Pick<VisitStore, 'accountPages'>;
  /** A visit store that cannot answer (Redis down): reported here, the facts then hold no page views (as the scores do). */
  onError?: (e: unknown) => void;
}

/**
 * What the account did, as the customer's rules read it, or undefined when none reads any (`need` null).
 * Pages are read from the earlier of the rules' longest look-back and the scoring window's first day.
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
  const readPages = sources.visits !== undefined && (need.days > 0 || (need.intent && customer.products.length > 0));
  let pages: readonly PagePerDay[] = [];
  if (readPages) {
    const from = need.days > 0 ? minDay(windowStart(window.to, need.days), window.from) : window.from;
    try {
      pages = await sources.visits!.accountPages(customer.id, companyId, from, window.to);
    } catch (e) {
      sources.onError?.(e);
    }
  }
  return accountFactsOf({
    now,
    pages,
    signals: need.intent ? sources.catalog.intent(companyId) : [],
    products: customer.products,
    pagesRead: readPages,
  });
}

const minDay = (a: string, b: string) => (a < b ? a : b);
