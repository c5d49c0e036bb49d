/**
 * The inserted networks and the overlap rule that turns them into disjoint address runs.
 *
 * OVERLAP RULE — the most specific network wins, independent of insertion order:
 *   for every address, among the inserted networks that contain it, the one with the FEWEST addresses
 *   wins. The size of a range is the size of the whole range (203.0.113.10-203.0.113.99 has 90
 *   addresses), not the size of the CIDR pieces it is later split into. Equal sizes (e.g. the same
 *   network inserted twice) → the later insertion wins. Addresses no network contains stay empty.
 *   (MaxMind's mmdbwriter instead lets every insert overwrite what it covers, so there the order of
 *   inserts decides; ours does not.)
 *
 * Storage is columnar typed arrays, no object per network: each address is stored as L "limbs" in a
 * Float64Array — L = 1 for IPv4 networks (one number holds 0..2^32; in IPv6 trees too, where they are
 * placed in ::/96 when the tree is built), L = 5 for IPv6 networks (a carry limb for 2^128 and four
 * 32-bit words). Limb-wise lexicographic comparison is numeric comparison, so the sweep
 * below is the same code for both trees and never allocates.
 *
 * `resolveOverlaps` is a sweep line: entries sorted by start, a binary heap of the entries covering the
 * current position ordered by (size ascending, insertion index descending), lazy removal of ended ones.
 * Between two consecutive "events" (a start or the end of the current winner) the winner cannot change,
 * so each step emits one run. Adjacent runs with the same value are merged. O(n log n) time.
 */

export type Limbs = 1 | 5;

export class NetworkTable {
  /** Per entry i: start at i*2L, exclusive end at i*2L+L. */
  bounds: Float64Array;
  /** Per entry i: number of addresses at i*L. */
  sizes: Float64Array;
  /** Per entry: data value id. */
  values: Uint32Array;
  count = 0;

  constructor(
    readonly limbs: Limbs,
    initialCapacity = 1024,
  ) {
    this.bounds = new Float64Array(initialCapacity * 2 * limbs);
    this.sizes = new Float64Array(initialCapacity * limbs);
    this.values = new Uint32Array(initialCapacity);
  }

  private grow(): void {
    const cap = Math.ceil(this.values.length * 1.5) + 16;
    const bounds = new Float64Array(cap * 2 * this.limbs);
    bounds.set(this.bounds);
    const sizes = new Float64Array(cap * this.limbs);
    sizes.set(this.sizes);
    const values = new Uint32Array(cap);
    values.set(this.values);
    this.bounds = bounds;
    this.sizes = sizes;
    this.values = values;
  }

  /**
   * IPv4 table (L = 1): adds [start, end] (inclusive, 0 ≤ start ≤ end < 2^32). `size` is the number of
   * addresses the overlap rule counts, when the entry is the IPv4 part of a wider IPv6 range.
   */
  addV4(start: number, end: number, valueId: number, size = end + 1 - start): void {
    if (this.count === this.values.length) this.grow();
    const i = this.count++;
    this.bounds[2 * i] = start;
    this.bounds[2 * i + 1] = end + 1;
    this.sizes[i] = size;
    this.values[i] = valueId;
  }

  /** IPv6 tree (L = 5): adds [start, end] (inclusive, 128-bit). */
  addV6(start: bigint, end: bigint, valueId: number): void {
    if (this.count === this.values.length) this.grow();
    const i = this.count++;
    setBigLimbs(this.bounds, 10 * i, start);
    setBigLimbs(this.bounds, 10 * i + 5, end + 1n);
    setBigLimbs(this.sizes, 5 * i, end + 1n - start);
    this.values[i] = valueId;
  }
}

/** Writes 0 ≤ x ≤ 2^128 as five limbs. */
function setBigLimbs(a: Float64Array, off: number, x: bigint): void {
  a[off] = Number(x >> 128n);
  a[off + 1] = Number((x >> 96n) & 0xffff_ffffn);
  a[off + 2] = Number((x >> 64n) & 0xffff_ffffn);
  a[off + 3] = Number((x >> 32n) & 0xffff_ffffn);
  a[off + 4] = Number(x & 0xffff_ffffn);
}

/** Receives one maximal run [start, end) with its value; positions are offsets into `bounds`. */
export type RunSink = (bounds: Float64Array, startOff: number, endOff: number, valueId: number) => void;

/** Entry indices ordered by start address. IPv4: two-pass LSD radix sort (O(n)); IPv6: comparison sort. */
function sortByStart(t: NetworkTable): Uint32Array {
  const n = t.count;
  const b = t.bounds;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (t.limbs === 1) {
    const tmp = new Uint32Array(n);
    const counts = new Uint32Array(65_537);
    for (let pass = 0; pass < 2; pass++) {
      const shift = pass * 16;
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[((b[2 * i] >>> shift) & 0xffff) + 1]++;
      for (let d = 1; d <= 65_536; d++) counts[d] += counts[d - 1];
      const src = pass === 0 ? order : tmp;
      const dst = pass === 0 ? tmp : order;
      for (let i = 0; i < n; i++) {
        const e = src[i];
        dst[counts[(b[2 * e] >>> shift) & 0xffff]++] = e;
      }
    }
    return order;
  }
  return order.sort((x, y) => {
    const ox = 10 * x;
    const oy = 10 * y;
    for (let k = 0; k < 5; k++) {
      const d = b[ox + k] - b[oy + k];
      if (d !== 0) return d;
    }
    return x - y;
  });
}

/** Emits the disjoint runs produced by the overlap rule, in address order, adjacent equal values merged. */
export function resolveOverlaps(t: NetworkTable, sink: RunSink): void {
  const L = t.limbs;
  const n = t.count;
  if (n === 0) return;
  const bounds = t.bounds;
  const sizes = t.sizes;
  const values = t.values;
  const order = sortByStart(t);

  /** Compares the addresses at two offsets of `bounds`. */
  const cmp =
    L === 1
      ? (x: number, y: number): number => bounds[x] - bounds[y]
      : (x: number, y: number): number => {
          for (let k = 0; k < 5; k++) {
            const d = bounds[x + k] - bounds[y + k];
            if (d !== 0) return d;
          }
          return 0;
        };
  /** True if entry a beats entry b: fewer addresses, or as many and inserted later. */
  const beats = (a: number, b: number): boolean => {
    const oa = a * L;
    const ob = b * L;
    for (let k = 0; k < L; k++) {
      const d = sizes[oa + k] - sizes[ob + k];
      if (d !== 0) return d < 0;
    }
    return a > b;
  };

  // Binary heap of entry indices, best on top.
  let heap = new Uint32Array(64);
  let hn = 0;
  const push = (e: number): void => {
    if (hn === heap.length) {
      const h = new Uint32Array(heap.length * 2);
      h.set(heap);
      heap = h;
    }
    let i = hn++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!beats(e, heap[p])) break;
      heap[i] = heap[p];
      i = p;
    }
    heap[i] = e;
  };
  const pop = (): void => {
    const last = heap[--hn];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= hn) break;
      const r = l + 1;
      const c = r < hn && beats(heap[r], heap[l]) ? r : l;
      if (!beats(heap[c], last)) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
  };

  const startOf = (e: number): number => e * 2 * L;
  const endOf = (e: number): number => e * 2 * L + L;

  // Pending run, merged with the next one when adjacent and of the same value.
  let runStart = -1;
  let runEnd = -1;
  let runValue = -1;

  let i = 0;
  let pos = -1;
  for (;;) {
    if (hn === 0) {
      if (i >= n) break;
      pos = startOf(order[i]);
    }
    while (i < n && cmp(startOf(order[i]), pos) === 0) push(order[i++]);
    while (hn > 0 && cmp(endOf(heap[0]), pos) <= 0) pop();
    if (hn === 0) continue;
    const w = heap[0];
    let end = endOf(w);
    if (i < n && cmp(startOf(order[i]), end) < 0) end = startOf(order[i]);
    const v = values[w];
    if (runValue === v && cmp(runEnd, pos) === 0) {
      runEnd = end;
    } else {
      if (runValue >= 0) sink(bounds, runStart, runEnd, runValue);
      runStart = pos;
      runEnd = end;
      runValue = v;
    }
    pos = end;
  }
  if (runValue >= 0) sink(bounds, runStart, runEnd, runValue);
}
