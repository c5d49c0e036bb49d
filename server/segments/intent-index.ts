/**
 * The intent score of every company of the catalog for a product, per row of the segment index: what the
 * membership index (./membership.ts) evaluates `intent` conditions on. The same score identification
 * answers (server/scoring/model.ts: each signal on the product's topics weighed by its age, the account's
 * first-party page views, summed in ascending order and saturated), computed with the model's own pieces
 * over columnar signals instead of one signal object per row.
 *
 * The signals (catalog.db `intent`: ~0.9M rows over ~0.3M companies at 1M companies) are read once per
 * index, on the first intent rule, in pages that yield the event loop: ~24 bytes per signal. A product's
 * scores from the signals alone (1 byte per company) are kept for SCORES_FRESH_MS, so a score is at most
 * that old; the companies that visited the customer's site are scored afresh per request with their
 * page views added.
 */
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Catalog } from '../data/catalog.ts';
import { ageInDaysOf, intentScoreOfPoints, parseObservedAt, type ScoringProduct, signalStrength, signalWeight, topicFilter } from '../scoring/model.ts';
import { type SegmentIndex, segmentIndex } from './membership.ts';

const PAGE_SIGNALS = 20_000;
const SLICE_MS = 8;
/** How long a product's signal-only scores are reused: intent decays over days, so minutes do not show. */
export const SCORES_FRESH_MS = 10 * 60_000;
/** Products whose scores are kept per table (1 byte per company each). */
const SCORE_CACHE_LIMIT = 16;

export class IntentTable {
  private readonly scoreCache = new BoundedCache<string, { at: number; scores: Uint8Array }>(SCORE_CACHE_LIMIT);

  private constructor(
    private readonly size: number,
    /** The rows that have signals, ascending; the signals of rows[k] are start[k] … start[k + 1] - 1. */
    private readonly rows: Uint32Array,
    private readonly start: Uint32Array,
    private readonly topics: readonly string[],
    private readonly topic: Uint32Array,
    private readonly strength: Float64Array,
    private readonly observedMs: Float64Array,
  ) {}

  /** Reads every signal of the catalog, joined to the index's rows by company id (both in company_id text order). */
  static async load(catalog: Pick<Catalog, 'intentSignals'>, index: SegmentIndex): Promise<IntentTable> {
    const rows: number[] = [];
    const start: number[] = [];
    const topicCodes = new Map<string, number>();
    const topic: number[] = [];
    const strength: number[] = [];
    const observed: number[] = [];
    let row = 0;
    let current = -1;
    let after: { company_id: string; seq: number } | null = null;
    let slice = performance.now();
    for (;;) {
      const page = catalog.intentSignals(after, PAGE_SIGNALS);
      for (const s of page) {
        // Advance to the signal's company (a signal of a company the catalog does not list is skipped).
        while (row < index.size && index.companyId(row) < s.company_id) row++;
        if (row >= index.size || index.companyId(row) !== s.company_id) continue;
        if (row !== current) {
          rows.push(row);
          start.push(topic.length);
          current = row;
        }
        let code = topicCodes.get(s.topic);
        if (code === undefined) {
          code = topicCodes.size;
          topicCodes.set(s.topic, code);
        }
        topic.push(code);
        strength.push(signalStrength(s.strength));
        observed.push(parseObservedAt(s.observed_at));
      }
      if (page.length < PAGE_SIGNALS) break;
      const last = page[page.length - 1]!;
      after = { company_id: last.company_id, seq: last.seq };
      if (performance.now() - slice >= SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
    }
    start.push(topic.length);
    return new IntentTable(
      index.size,
      Uint32Array.from(rows),
      Uint32Array.from(start),
      [...topicCodes.keys()],
      Uint32Array.from(topic),
      Float64Array.from(strength),
      Float64Array.from(observed),
    );
  }

  /**
   * The product's intent score per row at about `nowMs` (the signal-only scores are reused for
   * SCORES_FRESH_MS), with `firstParty` (row → the first-party points of its page views, scored at the
   * returned `at`) added for the rows that visited.
   */
  scores(product: Pick<ScoringProduct, 'intent_topics'>, nowMs: number, firstParty: (at: number) => ReadonlyMap<number, readonly number[]>): Uint8Array {
    const key = JSON.stringify(product.intent_topics);
    let base = this.scoreCache.get(key);
    if (base === undefined || nowMs - base.at >= SCORES_FRESH_MS) {
      base = this.scoreCache.set(key, { at: nowMs, scores: this.score(product, nowMs) });
    }
    const visited = firstParty(base.at);
    if (visited.size === 0) return base.scores;
    const scores = Uint8Array.from(base.scores);
    const points: number[] = [];
    const counts = this.countedTopics(product);
    for (const [row, fp] of visited) {
      points.length = 0;
      const k = this.signalsOf(row);
      if (k >= 0) this.signalPoints(k, counts, base.at, points);
      points.push(...fp);
      scores[row] = intentScoreOfPoints(points);
    }
    return scores;
  }

  /** The signal-only scores. */
  private score(product: Pick<ScoringProduct, 'intent_topics'>, nowMs: number): Uint8Array {
    const out = new Uint8Array(this.size);
    const counts = this.countedTopics(product);
    const points: number[] = [];
    for (let k = 0; k < this.rows.length; k++) {
      points.length = 0;
      this.signalPoints(k, counts, nowMs, points);
      if (points.length > 0) out[this.rows[k]!] = intentScoreOfPoints(points);
    }
    return out;
  }

  /** Which topic codes count for the product. */
  private countedTopics(product: Pick<ScoringProduct, 'intent_topics'>): Uint8Array {
    const counts = topicFilter(product);
    return Uint8Array.from(this.topics, (t) => (counts(t) ? 1 : 0));
  }

  /** The points of the signals of rows[k] that count (model.ts intentOf: a signal of weight 0 or unreadable strength adds none). */
  private signalPoints(k: number, counts: Uint8Array, nowMs: number, into: number[]): void {
    for (let j = this.start[k]!; j < this.start[k + 1]!; j++) {
      if (counts[this.topic[j]!] !== 1) continue;
      const strength = this.strength[j]!;
      const weight = signalWeight(ageInDaysOf(this.observedMs[j]!, nowMs));
      if (Number.isNaN(strength) || weight === 0) continue;
      into.push(weight * strength);
    }
  }

  /** The position in `rows` of a row with signals, or -1. */
  private signalsOf(row: number): number {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const r = this.rows[mid]!;
      if (r < row) lo = mid + 1;
      else if (r > row) hi = mid - 1;
      else return mid;
    }
    return -1;
  }
}

const tables = new WeakMap<SegmentIndex, Promise<IntentTable>>();

/** The intent table of an index (read once, on the first intent rule). */
export function intentTable(catalog: Pick<Catalog, 'intentSignals'>, index: SegmentIndex): Promise<IntentTable> {
  let table = tables.get(index);
  if (!table) {
    table = IntentTable.load(catalog, index);
    tables.set(index, table);
    // A failed read (a catalog closed under it) is tried again by the next request.
    table.catch(() => tables.delete(index));
  }
  return table;
}

/**
 * Reads the snapshot's intent table as soon as its index is built (in yielding pages, like the index): the
 * first intent preview after a start or a reload then waits for nothing (~6 s and ~60 MB at 1M companies
 * with their signals, measured with a 1M bench catalog).
 */
export function warmIntentTable(catalog: Catalog): void {
  segmentIndex(catalog)
    .then((index) => intentTable(catalog, index))
    .catch(() => {}); // tried again by the first request that needs it
}
