/**
 * A range's most active accounts without summing every account of the range: Fagin's threshold algorithm
 * over each day's accounts ranked by page views (an index on SQLite, a sorted set per day on Redis). The
 * days' ranked lists are read a page deeper each round; an account not yet met on any day has at most the
 * sum of the last views read per day (the threshold), so once the n-th best account met is above it, no
 * other account can enter the top n. Exact, ties included (by company id, as accountTotals ranks them):
 * a tie with the threshold reads deeper. What it reads grows with how flat the ranking is — a site where a
 * few accounts take most views stops after a page or two; a range where every account has the same views
 * reads every day to its end, as the sum it replaces did.
 */
import type { AccountTotals } from './store.ts';

/** One day's ranked accounts to read: `limit` of them after the first `offset`. */
export interface RankedRead {
  day: string;
  offset: number;
  limit: number;
}

/** A page of a day's ranking: the accounts, most views first (ties in any order), and their views. */
export interface RankedPage {
  companies: string[];
  views: number[];
}

/** What the algorithm reads of a store, for one customer. */
export interface TopAccountReads {
  /** Per read, that page of the day's ranking. */
  ranked(reads: RankedRead[]): Promise<RankedPage[]>;
  /** The page views of each (account, day) asked, 0 when none. */
  dayViews(pairs: { company_id: string; day: string }[]): Promise<number[]>;
  /** The accounts' totals over the range (those without a view in it left out). */
  totals(companyIds: string[]): Promise<AccountTotals[]>;
}

/** Ranked accounts read per day in the first round; each further round reads twice as many. */
export const FIRST_RANKED_PAGE = 256;

/**
 * The next turn of the event loop, between two reads: a SQLite store answers within the turn, so a range
 * read in several rounds would otherwise hold the loop for all of them.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Most page views first, ties by company id: accountTotals' order. */
export const byActivity = (a: { company_id: string; page_views: number }, b: { company_id: string; page_views: number }) =>
  b.page_views - a.page_views || byText(a.company_id, b.company_id);

/**
 * The accounts met in the rankings, by slot: each one's views summed over the days it was read on (or over
 * every day once read exactly), and those days as bits. Flat arrays, not an object per account: a range
 * reads thousands of them per call.
 */
class Met {
  readonly slots = new Map<string, number>();
  readonly companies: string[] = [];
  readonly low: number[] = [];
  /** 1: the account's views over every day are known (`low` is its total). */
  readonly exact: number[] = [];
  private bits: Uint32Array;
  private readonly words: number;

  constructor(days: number) {
    this.words = Math.ceil(days / 32);
    this.bits = new Uint32Array(1024 * this.words);
  }

  add(company: string, day: number, views: number): void {
    let slot = this.slots.get(company);
    if (slot === undefined) {
      slot = this.companies.length;
      this.slots.set(company, slot);
      this.companies.push(company);
      this.low.push(0);
      this.exact.push(0);
      if ((slot + 1) * this.words > this.bits.length) {
        const grown = new Uint32Array(this.bits.length * 2);
        grown.set(this.bits);
        this.bits = grown;
      }
    } else if (this.exact[slot] === 1) return;
    this.low[slot]! += views;
    this.bits[slot * this.words + (day >>> 5)]! |= 1 << (day & 31);
  }

  seen(slot: number, day: number): boolean {
    return (this.bits[slot * this.words + (day >>> 5)]! & (1 << (day & 31))) !== 0;
  }

  /** What the account's unread days may still hold: each such day's floor (0 once exact). */
  slack(slot: number, floor: readonly number[]): number {
    if (this.exact[slot] === 1) return 0;
    let slack = 0;
    for (let i = 0; i < floor.length; i++) if (!this.seen(slot, i)) slack += floor[i]!;
    return slack;
  }

  /** The n-th largest views met (0 when fewer met): what the n-th account has at least. */
  nth(n: number): number {
    if (this.low.length < n) return 0;
    const lows = Float64Array.from(this.low).sort();
    return lows[lows.length - n]!;
  }

  /** The (slot, day index) pairs to read for the slots to be exact: their unread days that may hold views. */
  unread(slots: readonly number[], floor: readonly number[]): [number, number][] {
    const pairs: [number, number][] = [];
    for (const slot of slots) {
      if (this.exact[slot] === 1) continue;
      for (let i = 0; i < floor.length; i++) if (floor[i]! > 0 && !this.seen(slot, i)) pairs.push([slot, i]);
    }
    return pairs;
  }

  /** Adds what the pairs read and marks their slots (and `slots`) exact. */
  resolve(slots: readonly number[], pairs: readonly [number, number][], views: readonly number[]): void {
    pairs.forEach(([slot], k) => {
      this.low[slot]! += views[k] ?? 0;
    });
    for (const slot of slots) this.exact[slot] = 1;
  }

  /** The accounts that may still reach `nth`: what they have, plus what their unread days may hold, is not below it. */
  candidates(floor: readonly number[], nth: number): number[] {
    const slots: number[] = [];
    for (let slot = 0; slot < this.low.length; slot++) if (this.low[slot]! + this.slack(slot, floor) >= nth) slots.push(slot);
    return slots;
  }
}

/** The `n` accounts with the most page views over `days` (a range's every day), ranked as accountTotals ranks them. */
export async function topAccounts(days: readonly string[], n: number, reads: TopAccountReads, firstPage = FIRST_RANKED_PAGE): Promise<AccountTotals[]> {
  if (n <= 0 || days.length === 0) return [];
  const met = new Met(days.length);
  const depth = days.map(() => 0);
  /** The last views read per day: no account not read on that day has more there; 0 once the day is read to its end. */
  const floor = days.map(() => Number.POSITIVE_INFINITY);
  const exactly = async (slots: number[]) => {
    const pairs = met.unread(slots, floor);
    const views = pairs.length === 0 ? [] : await reads.dayViews(pairs.map(([slot, i]) => ({ company_id: met.companies[slot]!, day: days[i]! })));
    met.resolve(slots, pairs, views);
  };
  let page = Math.max(firstPage, n);
  let candidates: number[] = [];
  for (let round = 0; ; round++) {
    if (round > 0) await nextTurn();
    const open = days.flatMap((_, i) => (floor[i]! > 0 ? [i] : []));
    const pages = await reads.ranked(open.map((i) => ({ day: days[i]!, offset: depth[i]!, limit: page })));
    open.forEach((i, k) => {
      const { companies, views } = pages[k] ?? { companies: [], views: [] };
      let least = Number.POSITIVE_INFINITY;
      for (let r = 0; r < companies.length; r++) {
        met.add(companies[r]!, i, views[r]!);
        if (views[r]! < least) least = views[r]!;
      }
      depth[i]! += companies.length;
      floor[i] = companies.length < page ? 0 : least;
    });
    const threshold = floor.reduce((a, b) => a + b, 0);
    // The leading accounts read exactly: their totals (over what was read of them) raise the n-th, which
    // the accounts not read yet must reach — so the rankings are read less deep.
    if (threshold > 0 && met.low.length >= n) {
      const lead = met.nth(n);
      await exactly(
        met.candidates(
          floor.map(() => 0),
          lead,
        ),
      );
    }
    const nth = met.nth(n);
    page *= 2;
    // Every account read (threshold 0), or none unread can reach the n-th met: strictly, as a tie may win on its id.
    if (threshold === 0 || (met.low.length >= n && threshold < nth)) {
      // Then the accounts met that could still reach it are read on their unread days — unless reading the
      // rankings a page deeper costs less than that: it lowers what those days may hold, and so the doubt.
      candidates = met.candidates(floor, nth);
      if (threshold === 0 || met.unread(candidates, floor).length <= open.length * page) break;
    }
  }
  await nextTurn();
  await exactly(candidates);
  const best = candidates
    .map((slot) => ({ company_id: met.companies[slot]!, page_views: met.low[slot]! }))
    .sort(byActivity)
    .slice(0, n);
  return (await reads.totals(best.map((a) => a.company_id))).sort(byActivity);
}
