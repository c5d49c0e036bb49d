/**
 * A hash table keyed by byte strings that live in a caller's Buffer (an arena), for the writer's two
 * deduplications: distinct records at insert time and repeated sub-values when the data section is
 * assembled (./data-section.ts).
 *
 * Why hand-written rather than a `Map<string, number>` over latin1 strings (what the writer used
 * before): at 5 million networks the Map held 3.4 million record keys plus up to 8 million sub-value
 * keys, each a heap string made by Buffer#toString for every lookup — ≈ 45% of the networks.mmdb build
 * went to those strings and to the garbage collection they caused (profile of `data build`, 1M
 * companies). Here an entry is four numbers in typed arrays and a lookup allocates nothing.
 *
 * Open addressing, linear probing, power-of-two capacity kept at most half full. Entries are never
 * removed. Each entry stores where its bytes are (offset and length in the arena), their hash and one
 * number of payload (a value id, a data-section offset).
 */

/** FNV-1a over bytes [start, end) of `b`. */
export function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

export class ByteTable {
  /** Entry index + 1 per slot, 0 = free. */
  private slots: Int32Array;
  private mask: number;
  /** Per entry: offset of its bytes in the arena (a double: arenas may pass 4 GiB). */
  private offsets: Float64Array;
  private lengths: Uint32Array;
  private hashes: Uint32Array;
  private payloads: Float64Array;
  size = 0;

  constructor(initialCapacity = 1024) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    const entries = cap >>> 1;
    this.offsets = new Float64Array(entries);
    this.lengths = new Uint32Array(entries);
    this.hashes = new Uint32Array(entries);
    this.payloads = new Float64Array(entries);
  }

  /**
   * Index of the entry whose bytes equal `key[start, end)` (compared against `arena`, where every
   * entry's bytes are), or -1. `hash` = hashBytes(key, start, end).
   */
  find(arena: Uint8Array, key: Uint8Array, start: number, end: number, hash: number): number {
    const len = end - start;
    const slots = this.slots;
    const mask = this.mask;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const e = slots[s] - 1;
      if (e < 0) return -1;
      if (this.hashes[e] === hash && this.lengths[e] === len && sameBytes(arena, this.offsets[e], key, start, len)) return e;
    }
  }

  /** Adds an entry (the caller checked it is absent) for the `len` bytes at `offset` in the arena. */
  add(offset: number, len: number, hash: number, payload: number): number {
    if (this.size + 1 > this.slots.length >>> 1) this.grow();
    const e = this.size++;
    this.offsets[e] = offset;
    this.lengths[e] = len;
    this.hashes[e] = hash;
    this.payloads[e] = payload;
    this.place(e, hash);
    return e;
  }

  payload(e: number): number {
    return this.payloads[e];
  }

  offset(e: number): number {
    return this.offsets[e];
  }

  length(e: number): number {
    return this.lengths[e];
  }

  private place(e: number, hash: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let s = hash & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = e + 1;
  }

  private grow(): void {
    const cap = this.slots.length * 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    const entries = cap >>> 1;
    const grown = <A extends Float64Array | Uint32Array>(a: A, make: (n: number) => A): A => {
      const b = make(entries);
      b.set(a);
      return b;
    };
    this.offsets = grown(this.offsets, (n) => new Float64Array(n));
    this.lengths = grown(this.lengths, (n) => new Uint32Array(n));
    this.hashes = grown(this.hashes, (n) => new Uint32Array(n));
    this.payloads = grown(this.payloads, (n) => new Float64Array(n));
    for (let e = 0; e < this.size; e++) this.place(e, this.hashes[e]);
  }
}
