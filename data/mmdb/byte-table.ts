/**
 * A hash table keyed by byte strings that live in a caller's Buffer (an arena), for the writer's two
 * deduplications: distinct records at insert time and repeated sub-values when the data section is
 * assembled (./data-section.ts).
 *
 * Why hand-written rather than a `Map<string, number>` over latin1 strings (what the writer used
 * before): at 5 million networks the Map held 3.4 million record keys plus up to 8 million sub-value
 * keys, each a heap string made by Buffer#toString for every lookup — ≈ 45% of the networks.mmdb build
 * went to those strings and to the garbage collection they caused (profile of `data build`, 1M
 * companies). Here an entry is a few numbers in typed arrays and a lookup allocates nothing.
 *
 * Open addressing, linear probing, power-of-two capacity kept at most half full. Entries are never
 * removed. Each entry stores where its bytes are (offset and length in the arena), their hash (in its
 * slot) and one number of payload (a value id, a data-section offset).
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
  /**
   * Two numbers per slot: entry index + 1 (0 = free) and the entry's hash. The hash beside the index lets
   * a probe skip a different key without reading the entry (at millions of entries, every read of a
   * table elsewhere in memory is a cache miss).
   */
  private slots: Int32Array;
  private mask: number;
  /**
   * Three numbers per entry: offset of its bytes in the arena (a double: arenas may pass 4 GiB), their
   * length, and the payload. Side by side, so a hit reads one place.
   */
  private entries: Float64Array;
  size = 0;

  constructor(initialCapacity = 1024) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.slots = new Int32Array(2 * cap);
    this.mask = cap - 1;
    this.entries = new Float64Array(3 * (cap >>> 1));
  }

  /**
   * Index of the entry whose bytes equal `key[start, end)` (compared against `arena`, where every
   * entry's bytes are), or -1. `hash` = hashBytes(key, start, end).
   */
  find(arena: Uint8Array, key: Uint8Array, start: number, end: number, hash: number): number {
    const len = end - start;
    const slots = this.slots;
    const entries = this.entries;
    const mask = this.mask;
    const h = hash | 0;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const e = slots[2 * s] - 1;
      if (e < 0) return -1;
      if (slots[2 * s + 1] === h && entries[3 * e + 1] === len && sameBytes(arena, entries[3 * e], key, start, len)) return e;
    }
  }

  /** Adds an entry (the caller checked it is absent) for the `len` bytes at `offset` in the arena. */
  add(offset: number, len: number, hash: number, payload: number): number {
    if (this.size + 1 > (this.mask + 1) >>> 1) this.grow();
    const e = this.size++;
    this.entries[3 * e] = offset;
    this.entries[3 * e + 1] = len;
    this.entries[3 * e + 2] = payload;
    this.place(this.slots, this.mask, e, hash | 0);
    return e;
  }

  payload(e: number): number {
    return this.entries[3 * e + 2];
  }

  offset(e: number): number {
    return this.entries[3 * e];
  }

  length(e: number): number {
    return this.entries[3 * e + 1];
  }

  private place(slots: Int32Array, mask: number, e: number, hash: number): void {
    let s = hash & mask;
    while (slots[2 * s] !== 0) s = (s + 1) & mask;
    slots[2 * s] = e + 1;
    slots[2 * s + 1] = hash;
  }

  private grow(): void {
    const old = this.slots;
    const cap = 2 * (this.mask + 1);
    const slots = new Int32Array(2 * cap);
    const mask = cap - 1;
    // Entries are unique, so the order they are placed in does not change what find() returns.
    for (let s = 0; s < old.length; s += 2) if (old[s] !== 0) this.place(slots, mask, old[s] - 1, old[s + 1]);
    this.slots = slots;
    this.mask = mask;
    const entries = new Float64Array(3 * (cap >>> 1));
    entries.set(this.entries);
    this.entries = entries;
  }
}
