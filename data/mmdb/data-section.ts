/**
 * Data records: deduplication at insert time and assembly of the data section at build time.
 *
 * - `ValueStore` keeps each distinct record once, keyed by its canonical encoding: the encodings are
 *   appended to one byte arena and found again through a byte-keyed hash table (./byte-table.ts), so a
 *   record costs no heap object. Values are ids.
 * - `assembleDataSection` writes the referenced records in the order given (first reference in the
 *   depth-first tree walk) and replaces repeated sub-values (map keys, strings, nested maps/arrays) by
 *   pointers to their first copy when the pointer is shorter, as MaxMind's writer does. Sub-values are
 *   slices of the records' encodings in the arena, so the pointer dictionary stores positions, not copies.
 */
import { EXTENDED_TYPE, FIELD_TYPE, POINTER_BASE, SIZE_BASE_1, SIZE_BASE_2, SIZE_BASE_3 } from '../../core/mmdb-format.ts';
import { ByteTable, hashBytes } from './byte-table.ts';
import { ByteSink, encodeValue, MmdbValueError } from './encoder.ts';

export class ValueStore {
  /**
   * One entry per value, added in id order: entry index = value id (also stored as its payload), and the
   * entry's offset and length locate the value's encoding in the arena.
   */
  private readonly table: ByteTable;
  /** Canonical encodings of all values, back to back. */
  readonly arena: ByteSink;
  private readonly scratch = new ByteSink(1024);

  /** `expected`: about how many values will be interned (a hint, see MmdbWriterOptions.expectedNetworks). */
  constructor(expected = 0) {
    this.table = new ByteTable(Math.max(1024, expected >>> 1));
    this.arena = new ByteSink(Math.max(1 << 16, expected * ARENA_BYTES_PER_VALUE));
  }

  /** Id of `value`, adding it if new. Throws MmdbValueError for values that cannot be stored. */
  intern(value: unknown): number {
    const sink = this.scratch;
    sink.len = 0;
    encodeValue(sink, value);
    return this.internEncoded(sink.buf, sink.len);
  }

  /**
   * Id of the value whose canonical encoding (what encodeValue writes) is `bytes[0, len)`, adding it if
   * new. For callers that encode their records themselves; a non-canonical encoding would still be
   * stored correctly, only not deduplicated against the canonical one.
   */
  internEncoded(bytes: Buffer, len: number): number {
    const hash = hashBytes(bytes, 0, len);
    const found = this.table.find(this.arena.buf, bytes, 0, len, hash);
    if (found >= 0) return this.table.payload(found);
    const id = this.table.size;
    if (id >= MAX_DISTINCT_VALUES) {
      throw new Error(`too many distinct data records (limit ${MAX_DISTINCT_VALUES})`);
    }
    const at = this.arena.len;
    this.arena.bytes(bytes, 0, len);
    this.table.add(at, len, hash, id);
    return id;
  }

  /** Offset of value `id`'s canonical encoding in `arena.buf`. */
  offsetOf(id: number): number {
    return this.table.offset(id);
  }

  lengthOf(id: number): number {
    return this.table.length(id);
  }

  get size(): number {
    return this.table.size;
  }
}

/**
 * Arena room reserved per expected value: generous (an IP-network record of six short members takes
 * ≈ 100 bytes) because reserved bytes that are never written cost nothing, while growing copies the
 * whole arena into fresh memory.
 */
const ARENA_BYTES_PER_VALUE = 128;

/**
 * The limit of the Map-based store this one replaced (V8 Maps hold at most 2^24 entries), kept so the
 * writer accepts exactly what it accepted before; the data-record flag in the build tree leaves 31 bits.
 */
export const MAX_DISTINCT_VALUES = 2 ** 24 - 1;

/**
 * Upper bound on sub-values remembered for pointer reuse. Beyond it, new sub-values are written
 * inline (the file stays valid, only larger); this caps the memory of the dictionary.
 */
export const POINTER_DICTIONARY_LIMIT = 8_000_000;

/** Offsets from which a pointer needs 3, 4 and 5 bytes (pointer sizes SS = 1, 2, 3: core/mmdb-format.ts POINTER_BASE). */
const POINTER_3 = POINTER_BASE[1];
const POINTER_4 = POINTER_BASE[2];
const POINTER_5 = POINTER_BASE[2] + 2 ** 27;

/** Size in bytes of a pointer to data-section offset `offset`. */
export function pointerSize(offset: number): number {
  if (offset < POINTER_3) return 2;
  if (offset < POINTER_4) return 3;
  if (offset < POINTER_5) return 4;
  return 5;
}

/** Writes a pointer to data-section offset `offset` (shared with the test oracle, which differs only in its tables). */
export function writePointer(sink: ByteSink, offset: number): void {
  sink.reserve(5);
  const b = sink.buf;
  if (offset < POINTER_3) {
    b[sink.len++] = 0x20 | (offset >>> 8);
    b[sink.len++] = offset & 0xff;
  } else if (offset < POINTER_4) {
    const v = offset - POINTER_3;
    b[sink.len++] = 0x28 | (v >>> 16);
    b[sink.len++] = (v >>> 8) & 0xff;
    b[sink.len++] = v & 0xff;
  } else if (offset < POINTER_5) {
    const v = offset - POINTER_4;
    b[sink.len++] = 0x30 | (v >>> 24);
    b[sink.len++] = (v >>> 16) & 0xff;
    b[sink.len++] = (v >>> 8) & 0xff;
    b[sink.len++] = v & 0xff;
  } else {
    b[sink.len++] = 0x38;
    b.writeUInt32BE(offset, sink.len);
    sink.len += 4;
  }
}

export interface FieldHeader {
  type: number;
  size: number;
  /** Offset of the payload (after control, extended-type and size bytes). */
  payload: number;
}

const header: FieldHeader = { type: 0, size: 0, payload: 0 };

/** Parses the header of the canonical (pointer-free) field at `p` into the shared `header`. */
export function readHeader(src: Buffer, p: number): FieldHeader {
  const ctrl = src[p++];
  let type = ctrl >>> 5;
  if (type === 0) type = src[p++] + EXTENDED_TYPE;
  let size = ctrl & 0x1f;
  if (size === 29) size = SIZE_BASE_1 + src[p++];
  else if (size === 30) {
    size = SIZE_BASE_2 + src.readUInt16BE(p);
    p += 2;
  } else if (size === 31) {
    size = SIZE_BASE_3 + src.readUIntBE(p, 3);
    p += 3;
  }
  header.type = type;
  header.size = size;
  header.payload = p;
  return header;
}

/** End offset of the canonical field starting at `p`. */
export function skipField(src: Buffer, p: number): number {
  const { type, size, payload } = readHeader(src, p);
  if (type === FIELD_TYPE.map) {
    let q = payload;
    for (let i = 0; i < size; i++) q = skipField(src, skipField(src, q));
    return q;
  }
  if (type === FIELD_TYPE.array) {
    let q = payload;
    for (let i = 0; i < size; i++) q = skipField(src, q);
    return q;
  }
  if (type === FIELD_TYPE.boolean) return payload;
  return payload + size;
}

export interface DataSection {
  bytes: Buffer;
  /** Data-section offset of each value id (only meaningful for the ids that were written). */
  offsets: Uint32Array;
}

/**
 * Writes the values `order` (ids into `store`) and returns the bytes and each id's offset.
 * Pointers are relative to the start of the data section, as the spec requires.
 */
export function assembleDataSection(
  store: ValueStore,
  order: ArrayLike<number>,
  count: number,
  /** Tests only: a small limit exercises what happens past it. */
  dictionaryLimit = POINTER_DICTIONARY_LIMIT,
): DataSection {
  // Pointers only ever shorten a value: the canonical encodings' total is the most it can take.
  let most = 0;
  for (let i = 0; i < count; i++) most += store.lengthOf(order[i]);
  const out = new ByteSink(Math.max(1 << 16, most + 16)); // + room for reserve(5) at the end
  const dict = new ByteTable(1 << 16);
  const offsets = new Uint32Array(store.size);
  const src = store.arena.buf;

  /**
   * If the field [p, end) was written before and a pointer to it is shorter, writes the pointer (true);
   * else remembers that it is about to be written here (false).
   */
  const pointed = (p: number, end: number): boolean => {
    const len = end - p;
    const hash = hashBytes(src, p, end);
    const e = dict.find(src, src, p, end, hash);
    if (e >= 0) {
      const at = dict.payload(e);
      if (pointerSize(at) < len) {
        writePointer(out, at);
        return true;
      }
    } else if (dict.size < dictionaryLimit) {
      dict.add(p, len, hash, out.len);
    }
    return false;
  };

  const emit = (p: number, end: number, topLevel: boolean): void => {
    if (!topLevel && end - p > 2 && pointed(p, end)) return;
    const { type, size, payload } = readHeader(src, p);
    if (type === FIELD_TYPE.map || type === FIELD_TYPE.array) {
      out.bytes(src, p, payload);
      const n = type === FIELD_TYPE.map ? size * 2 : size;
      let q = payload;
      for (let i = 0; i < n; i++) {
        // A scalar member (most are: keys, strings) ends where its header says: one header read for it.
        const h = readHeader(src, q);
        const t = h.type;
        if (t === FIELD_TYPE.map || t === FIELD_TYPE.array) {
          const qEnd = skipField(src, q);
          emit(q, qEnd, false);
          q = qEnd;
        } else {
          const qEnd = t === FIELD_TYPE.boolean ? h.payload : h.payload + h.size;
          if (qEnd - q <= 2 || !pointed(q, qEnd)) out.bytes(src, q, qEnd);
          q = qEnd;
        }
      }
      return;
    }
    out.bytes(src, p, end);
  };

  for (let i = 0; i < count; i++) {
    const id = order[i];
    if (out.len > 0xffff_ffff) {
      throw new MmdbValueError('data section exceeds 4 GiB, the limit of MMDB pointers', '');
    }
    offsets[id] = out.len;
    const at = store.offsetOf(id);
    emit(at, at + store.lengthOf(id), true);
  }
  return { bytes: out.buf.subarray(0, out.len), offsets };
}
