/**
 * Overlaps between sources. PRECEDENCE: for every address, among the networks of all network sources
 * (GeoIP2 Enterprise, GeoIP2 ISP, GeoLite2 ASN, ASN range CSV) that contain it,
 *   1. the more specific network wins (fewer addresses), then
 *   2. the higher-priority source: Enterprise > ISP > ASN mmdb > ASN CSV.
 * It is the MMDB writer's overlap rule (../mmdb/overlap.ts: fewest addresses, then the later insertion),
 * reused by inserting the sources lowest priority first. Within one MaxMind file networks never overlap;
 * overlapping rows of one CSV follow the same rule (later row wins a tie). import.ts refines it: a
 * network that says nothing wherever it wins (no kind, no company) gives way to those beneath it.
 *
 * Domain and City databases are not competing networks but attributes laid over the winners: `overlay`
 * splits each run where the overlay's networks begin and end.
 *
 * IPv6: the same code on numbers. Every IPv6 network of every input is noted first; their boundaries,
 * sorted once as bigints, become dense ranks (`Ipv6Ranks`), and an IPv6 network is the run of ranks it
 * spans. Every input's boundary is a rank boundary, so runs, overlays and merges over ranks are exactly
 * those over addresses, and IPv4 keeps its Float64Array runs unchanged. The overlap rule's sizes are the
 * real sizes as float64 (`size`): exact for CIDRs (powers of two); a range of more than 2^53 addresses
 * rounds, monotonically, so only near-equal sizes can tie (then the later insertion wins, as for equals).
 */
import { NetworkTable, resolveOverlaps } from '../mmdb/overlap.ts';

export const NETWORK_SOURCES = ['asn-csv', 'asn-mmdb', 'geoip2-isp', 'geoip2-enterprise'] as const; // lowest priority first
export type NetworkSource = (typeof NETWORK_SOURCES)[number];

/** Disjoint inclusive address runs in address order, each with a value id. Columnar: millions of runs. */
export class RunList {
  first = new Float64Array(1024);
  last = new Float64Array(1024);
  value = new Int32Array(1024);
  length = 0;

  /** Appends a run; merges it into the previous one when adjacent with the same value. */
  push(first: number, last: number, value: number): void {
    const n = this.length;
    if (n > 0 && this.value[n - 1] === value && this.last[n - 1] + 1 === first) {
      this.last[n - 1] = last;
      return;
    }
    if (n === this.value.length) {
      const grow = <A extends Float64Array | Int32Array>(a: A): A => {
        const b = new (a.constructor as new (n: number) => A)(n * 2);
        b.set(a);
        return b;
      };
      this.first = grow(this.first);
      this.last = grow(this.last);
      this.value = grow(this.value);
    }
    this.first[n] = first;
    this.last[n] = last;
    this.value[n] = value;
    this.length = n + 1;
  }
}

/** Collects networks of the sources (add them lowest priority first) and resolves them into runs. */
export class PrecedenceTable {
  private first = new Float64Array(4096);
  private last = new Float64Array(4096);
  private sizes = new Float64Array(4096);
  private value = new Int32Array(4096);
  size = 0;

  /** `size`: the network's number of addresses for the overlap rule, when [first, last] are IPv6 ranks. */
  add(first: number, last: number, value: number, size = last - first + 1): void {
    if (this.size === this.value.length) {
      const grow = <A extends Float64Array | Int32Array>(a: A): A => {
        const b = new (a.constructor as new (n: number) => A)(a.length * 2);
        b.set(a);
        return b;
      };
      this.first = grow(this.first);
      this.last = grow(this.last);
      this.sizes = grow(this.sizes);
      this.value = grow(this.value);
    }
    this.first[this.size] = first;
    this.last[this.size] = last;
    this.sizes[this.size] = size;
    this.value[this.size++] = value;
  }

  /** The winners among the networks whose value `include` accepts (default: all). */
  resolve(include: (value: number) => boolean = () => true): RunList {
    const table = new NetworkTable(1, 4096);
    for (let i = 0; i < this.size; i++) if (include(this.value[i])) table.addV4(this.first[i], this.last[i], this.value[i], this.sizes[i]);
    const runs = new RunList();
    resolveOverlaps(table, (bounds, startOff, endOff, value) => runs.push(bounds[startOff], bounds[endOff] - 1, value));
    return runs;
  }
}

/** `primary`'s runs, and `secondary`'s where `primary` has none (both in address order). */
export function fillGaps(primary: RunList, secondary: RunList): RunList {
  const out = new RunList();
  let j = 0;
  let pos = 0; // first address not yet decided
  const gap = (until: number): void => {
    // secondary's pieces inside [pos, until)
    while (j < secondary.length && secondary.last[j] < pos) j++;
    for (let k = j; k < secondary.length && secondary.first[k] < until; k++) {
      const a = Math.max(pos, secondary.first[k]);
      const b = Math.min(until - 1, secondary.last[k]);
      if (a <= b) out.push(a, b, secondary.value[k]);
    }
  };
  for (let i = 0; i < primary.length; i++) {
    gap(primary.first[i]);
    out.push(primary.first[i], primary.last[i], primary.value[i]);
    pos = primary.last[i] + 1;
  }
  gap(Number.POSITIVE_INFINITY);
  return out;
}

/**
 * Splits `base` where `over`'s runs begin and end; `pair(baseValue, overValue)` (overValue -1 where no
 * overlay run covers the piece) gives each piece its value. Addresses outside `base` stay uncovered.
 */
export function overlay(base: RunList, over: RunList, pair: (baseValue: number, overValue: number) => number): RunList {
  const out = new RunList();
  let j = 0;
  for (let i = 0; i < base.length; i++) {
    let pos = base.first[i];
    const end = base.last[i];
    const v = base.value[i];
    while (j < over.length && over.last[j] < pos) j++;
    let k = j;
    while (pos <= end) {
      if (k >= over.length || over.first[k] > end) {
        out.push(pos, end, pair(v, -1));
        break;
      }
      if (over.first[k] > pos) {
        out.push(pos, over.first[k] - 1, pair(v, -1));
        pos = over.first[k];
      }
      const pieceEnd = Math.min(end, over.last[k]);
      out.push(pos, pieceEnd, pair(v, over.value[k]));
      pos = pieceEnd + 1;
      if (over.last[k] <= end) k++;
    }
  }
  return out;
}

/** IPv6 addresses as dense ranks of the boundaries of the networks noted (see the header). */
export class Ipv6Ranks {
  private noted: bigint[] = [];
  private bounds: bigint[] = [];
  private readonly rankOf = new Map<bigint, number>();

  /** Notes a network [first, last]; before `freeze`. */
  note(first: bigint, last: bigint): void {
    this.noted.push(first, last + 1n);
  }

  freeze(): void {
    const all = this.noted.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.noted = [];
    for (const x of all) {
      if (this.bounds.length > 0 && this.bounds[this.bounds.length - 1] === x) continue;
      this.rankOf.set(x, this.bounds.length);
      this.bounds.push(x);
    }
  }

  /** The ranks [first, last] of a noted network. */
  first(address: bigint): number {
    return this.rankOf.get(address)!;
  }
  last(address: bigint): number {
    return this.rankOf.get(address + 1n)! - 1;
  }
  /** The addresses of the ranks [first, last]. */
  firstAddress(rank: number): bigint {
    return this.bounds[rank];
  }
  lastAddress(rank: number): bigint {
    return this.bounds[rank + 1] - 1n;
  }
}

/** Interns values to dense ids (for the run lists' value column). */
export class Interner<T> {
  readonly values: T[] = [];
  private readonly ids = new Map<string | number, number>();

  /** Numeric keys where possible (pairs of ids: `pairKey`): a million string keys cost more in GC than the rest of the step. */
  id(key: string | number, make: () => T): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(make());
      this.ids.set(key, id);
    }
    return id;
  }
}

/** One number for a pair of ids, 0 ≤ a and −1 ≤ b < bCount: exact while a × (bCount + 1) < 2^53. */
export function pairKey(a: number, b: number, bCount: number): number {
  return a * (bCount + 1) + (b + 1);
}
