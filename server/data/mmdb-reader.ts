/**
 * IPv4 → record over a MaxMind DB (.mmdb) file held in memory: the hot path of every identification.
 *
 * Why hand-written rather than the `maxmind` package (which the design names for reading .mmdb, and which
 * stays our oracle in tests and the baseline in `bench/lookup.ts`): its cost per lookup is dominated not
 * by the tree walk but by what surrounds it — a regex-free but allocating IP parse (`split` + an array
 * per call), a generic walker called through closures per bit, and a generic decoder that builds a fresh
 * `{value, offset}` cursor object per field and goes through a `tiny-lru` cache (a Map plus a linked
 * list update per hit). Measured by `npm run bench -- lookup`. What this reader does instead:
 *
 *  - parses the dotted quad to a uint32 by hand (no allocation; only canonical quads are accepted);
 *  - skips the first 16–24 levels of the tree with a jump table built at open (one uint32 per prefix,
 *    sized to the tree: 256 KiB for small files, 64 MiB for 5 million networks), then walks the rest
 *    over the file Buffer with a loop specialised per record size (24/28/32);
 *  - decodes each data record once and keeps it in a bounded 4-way set-associative cache keyed by data
 *    offset (up to four typed-array compares in one span per hit, no LRU bookkeeping, memory capped
 *    whatever the file's size); values reached through pointers (map keys, repeated strings) are kept
 *    in a direct-mapped cache.
 *
 * What is left on big files is memory latency, not code: a lookup that misses the record cache makes a
 * handful of dependent reads into hundreds of MB (jump table, a node or two, the record, the strings it
 * points to). `npm run bench -- lookup` measures it against a plain binary search over the same ranges.
 *
 * Answers are exactly the `maxmind` reader's (same decoding of every MMDB type, same treatment of
 * "no data" and of IPv4 addresses in IPv6 trees — checked on our built files and MaxMind's test
 * databases in mmdb-reader.test.ts) with one difference: results are deeply frozen, because they are
 * shared between lookups (mutating one would corrupt later answers; now it throws instead). Byte values
 * (MMDB "bytes") are Buffers over the file and cannot be frozen.
 *
 * Only IPv4 lookups: an IPv6 tree is entered at its IPv4 subtree (::/96), as the `maxmind` reader does for
 * a dotted quad. Normalising IPv4-mapped addresses is the caller's job (server/http/visitor-ip.ts).
 *
 * The format's numbers and names (field types, size and pointer bases, separator, record sizes, metadata
 * marker and keys) are core/mmdb-format.ts, the same module our writer (data/mmdb/) writes by.
 */
import {
  DATA_SECTION_SEPARATOR_SIZE,
  EXTENDED_TYPE,
  FIELD_TYPE,
  METADATA_KEYS,
  METADATA_START_MARKER,
  POINTER_BASE,
  RECORD_SIZES,
  type RecordSize,
  SIZE_BASE_1,
  SIZE_BASE_2,
  SIZE_BASE_3,
  searchTreeSize,
} from '../../core/mmdb-format.ts';

export interface MmdbMetadata {
  nodeCount: number;
  recordSize: RecordSize;
  ipVersion: 4 | 6;
  databaseType: string;
  buildEpoch: bigint | number;
  binaryFormatMajorVersion: number;
  binaryFormatMinorVersion: number;
  description: Record<string, string>;
  languages: string[];
  /** Bytes of the search tree (start of the 16-byte separator). */
  searchTreeSize: number;
}

export interface MmdbReaderOptions {
  /** log2 of the number of decoded records kept (4-way set-associative by data offset). Default 17 (131,072). */
  recordCacheBits?: number;
  /** log2 of the number of values reached through pointers kept. Default 16. */
  pointerCacheBits?: number;
  /** Tree levels skipped by the jump table (16–24). Default: by tree size (see jumpBitsFor). */
  jumpBits?: number;
}

/** The uint32 of a canonical dotted quad (`0`–`255`, no leading zeros, no spaces), or -1. Allocation-free. */
export function parseIPv4(s: string): number {
  const n = s.length;
  if (n < 7 || n > 15) return -1;
  let addr = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      addr = (addr << 8) | octet;
      dots++;
      octet = 0;
      digits = 0;
    } else {
      const d = c - 48;
      if (d < 0 || d > 9 || (digits === 1 && octet === 0)) return -1;
      octet = octet * 10 + d;
      if (octet > 255) return -1;
      digits++;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return ((addr << 8) | octet) >>> 0;
}

/** Dotted quad of a uint32. */
export function formatIPv4(addr: number): string {
  return `${addr >>> 24}.${(addr >>> 16) & 255}.${(addr >>> 8) & 255}.${addr & 255}`;
}

export class MmdbError extends Error {}

/**
 * Levels the jump table skips: the walk below it touches a few cache lines per level once the tree
 * outgrows the CPU caches, so big trees get a deep table — capped at 2^bits ≤ nodeCount, so that it costs
 * at most about half of the tree's own memory (4 bytes per entry against 6–8 bytes per node). At 5M
 * networks (21.7M nodes) that is 24 bits, 64 MiB: one level more than the earlier cap (a quarter of the
 * tree) allowed, for ~100 ns less per range-edge lookup (walk 400 → 290 ns, CPU time, 50,000 edges),
 * at ~0.2 s more CPU to open the file (256 → 450 ms: start and each reload).
 */
export function jumpBitsFor(nodeCount: number): number {
  let bits = 16;
  while (bits < 24 && 2 ** (bits + 1) <= nodeCount) bits++;
  return bits;
}

export class MmdbReader<T = unknown> {
  readonly metadata: MmdbMetadata;
  private readonly buf: Buffer;
  private readonly nodeCount: number;
  private readonly recordSize: RecordSize;
  /** File offset of the data section: pointers are relative to it. */
  private readonly dataStart: number;
  /** Record value after walking the first `jumpBits` bits from the IPv4 start node, per prefix of that length. */
  private readonly jump: Uint32Array;
  private readonly jumpBits: number;
  /** 32 - jumpBits: `addr >>> jumpShift` is the jump-table index, and the walk resumes at bit jumpShift - 1. */
  private readonly jumpShift: number;

  // Record cache, 4-way set-associative: set = hash(file offset), its four slots side by side, newest
  // first; `recKeys` hold offset + 1 (0 = empty).
  private readonly recKeys: Uint32Array;
  private readonly recVals: unknown[];
  private readonly recShift: number;
  private readonly decoder: DataDecoder;

  constructor(buffer: Buffer, options: MmdbReaderOptions = {}) {
    this.buf = buffer;
    this.metadata = readMetadata(buffer);
    this.nodeCount = this.metadata.nodeCount;
    this.recordSize = this.metadata.recordSize;
    this.dataStart = this.metadata.searchTreeSize + DATA_SECTION_SEPARATOR_SIZE;
    if (this.dataStart > buffer.length) throw new MmdbError(`corrupt MMDB: search tree (${this.metadata.searchTreeSize} bytes) is larger than the file`);

    const recBits = Math.max(2, options.recordCacheBits ?? 17); // at least one set of four
    const ptrBits = options.pointerCacheBits ?? 16;
    this.recKeys = new Uint32Array(1 << recBits);
    this.recVals = new Array(1 << recBits).fill(undefined);
    this.recShift = 34 - recBits; // 2^(recBits - 2) sets of four
    this.decoder = new DataDecoder(buffer, this.dataStart, ptrBits);

    this.jumpBits = options.jumpBits ?? jumpBitsFor(this.nodeCount);
    if (!(this.jumpBits >= 1 && this.jumpBits <= 24)) throw new RangeError(`jumpBits must be 1–24, got ${this.jumpBits}`);
    this.jumpShift = 32 - this.jumpBits;
    this.jump = this.buildJumpTable();
  }

  /** The record for a dotted-quad IPv4 address, or null. Throws TypeError for anything else. */
  get(ip: string): T | null {
    const addr = parseIPv4(ip);
    if (addr < 0) throw new TypeError(`not a canonical dotted-quad IPv4 address: ${JSON.stringify(String(ip).slice(0, 64))}`);
    return this.getUint32(addr);
  }

  /** The record for an IPv4 address given as a uint32, or null. */
  getUint32(addr: number): T | null {
    const rec = this.walk(addr);
    if (rec <= this.nodeCount) return null;
    return this.record(rec - this.nodeCount - DATA_SECTION_SEPARATOR_SIZE + this.dataStart) as T;
  }

  /** File offset of the address's data record, or -1 for "no data" (for tests and benchmarks). */
  dataOffset(addr: number): number {
    const rec = this.walk(addr);
    return rec <= this.nodeCount ? -1 : rec - this.nodeCount - DATA_SECTION_SEPARATOR_SIZE + this.dataStart;
  }

  /** The record value that ends the walk for `addr`: a data pointer (> nodeCount), nodeCount (no data), or a node if the tree is too deep. */
  private walk(addr: number): number {
    const b = this.buf;
    const nc = this.nodeCount;
    let node = this.jump[addr >>> this.jumpShift];
    let bit = this.jumpShift - 1;
    if (node >= nc) return node;
    switch (this.recordSize) {
      case 24:
        for (; bit >= 0; bit--) {
          const o = node * 6 + ((addr >>> bit) & 1) * 3;
          node = (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
          if (node >= nc) return node;
        }
        return node;
      case 28:
        for (; bit >= 0; bit--) {
          const o = node * 7;
          if ((addr >>> bit) & 1) node = ((b[o + 3] & 0x0f) << 24) | (b[o + 4] << 16) | (b[o + 5] << 8) | b[o + 6];
          else node = ((b[o + 3] & 0xf0) << 20) | (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
          if (node >= nc) return node;
        }
        return node;
      default:
        for (; bit >= 0; bit--) {
          const o = node * 8 + ((addr >>> bit) & 1) * 4;
          node = ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
          if (node >= nc) return node;
        }
        return node;
    }
  }

  private readRecord(node: number, right: number): number {
    const b = this.buf;
    switch (this.recordSize) {
      case 24: {
        const o = node * 6 + right * 3;
        return (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
      }
      case 28: {
        const o = node * 7;
        return right
          ? ((b[o + 3] & 0x0f) << 24) | (b[o + 4] << 16) | (b[o + 5] << 8) | b[o + 6]
          : ((b[o + 3] & 0xf0) << 20) | (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
      }
      default: {
        const o = node * 8 + right * 4;
        return b.readUInt32BE(o);
      }
    }
  }

  private buildJumpTable(): Uint32Array {
    const nc = this.nodeCount;
    let start = 0;
    if (this.metadata.ipVersion === 6) {
      // The IPv4 subtree is ::/96: 96 left turns from the root (what the `maxmind` reader does too).
      for (let i = 0; i < 96 && start < nc; i++) start = this.readRecord(start, 0);
    }
    const bits = this.jumpBits;
    const jump = new Uint32Array(2 ** bits);
    // Fill by a depth-first walk: a record that ends above depth 16 covers its whole block of prefixes.
    const fill = (node: number, depth: number, prefix: number): void => {
      if (node >= nc || depth === bits) {
        const span = 2 ** (bits - depth);
        jump.fill(node, prefix * span, prefix * span + span);
        return;
      }
      fill(this.readRecord(node, 0), depth + 1, prefix * 2);
      fill(this.readRecord(node, 1), depth + 1, prefix * 2 + 1);
    };
    fill(start, 0, 0);
    return jump;
  }

  /**
   * The decoded, frozen record at a file offset, through the record cache. Four ways rather than direct
   * mapping: with as many hot records as a third of the slots (50,000 range edges at 5M networks), a
   * direct-mapped cache lost 20% of its lookups to collisions and two ways 9.4%, each a ~600 ns decode;
   * four ways (one 16-byte span of keys) lose about 1% (measured, `npm run bench -- lookup`).
   */
  private record(offset: number): unknown {
    const keys = this.recKeys;
    const vals = this.recVals;
    const key = offset + 1;
    const a = (Math.imul(offset, 0x9e3779b1) >>> this.recShift) << 2;
    if (keys[a] === key) return vals[a];
    if (keys[a + 1] === key) return vals[a + 1];
    if (keys[a + 2] === key) return vals[a + 2];
    if (keys[a + 3] === key) return vals[a + 3];
    const value = this.decoder.decodeAt(offset);
    // Newest first: the set shifts by one, dropping its oldest entry.
    keys[a + 3] = keys[a + 2];
    vals[a + 3] = vals[a + 2];
    keys[a + 2] = keys[a + 1];
    vals[a + 2] = vals[a + 1];
    keys[a + 1] = keys[a];
    vals[a + 1] = vals[a];
    keys[a] = key;
    vals[a] = value;
    return value;
  }
}

/**
 * Decoder of the data section (spec "Data Section"), giving the same values as mmdb-lib's decoder (the
 * `maxmind` package's) but frozen. Values reached through pointers are cached by their offset.
 */
class DataDecoder {
  private cursor = 0;
  private readonly ptrKeys: Uint32Array;
  private readonly ptrVals: unknown[];
  private readonly ptrShift: number;

  /** `base`: file offset pointers are relative to (the data section, or the metadata section). */
  constructor(
    private readonly buf: Buffer,
    private readonly base: number,
    cacheBits: number,
  ) {
    this.ptrKeys = new Uint32Array(1 << cacheBits);
    this.ptrVals = new Array(1 << cacheBits).fill(undefined);
    this.ptrShift = 32 - cacheBits;
  }

  /** The value of the field at file offset `offset`. */
  decodeAt(offset: number): unknown {
    if (offset >= this.buf.length) throw new MmdbError(`corrupt MMDB: data offset ${offset} is outside the file`);
    this.cursor = offset;
    return this.decode();
  }

  /** Value at a pointer's target, through the pointer cache (map keys and repeated values live there). */
  private pointed(offset: number): unknown {
    const slot = Math.imul(offset, 0x9e3779b1) >>> this.ptrShift;
    if (this.ptrKeys[slot] === offset + 1) return this.ptrVals[slot];
    if (offset >= this.buf.length) throw new MmdbError(`corrupt MMDB: data pointer ${offset} is outside the file`);
    const saved = this.cursor;
    this.cursor = offset;
    const value = this.decode();
    this.cursor = saved;
    this.ptrKeys[slot] = offset + 1;
    this.ptrVals[slot] = value;
    return value;
  }

  /** Decodes the field at `this.cursor` and advances past it (spec "Data Section"; same results as mmdb-lib's decoder). */
  private decode(): unknown {
    const b = this.buf;
    let p = this.cursor;
    const ctrl = b[p++];
    let type = ctrl >>> 5;
    if (type === FIELD_TYPE.pointer) {
      // Pointer: 001SSVVV; the value is what the target decodes to.
      const ss = (ctrl >>> 3) & 3;
      let packed: number;
      if (ss === 0) packed = ((ctrl & 7) << 8) | b[p];
      else if (ss === 1) packed = ((ctrl & 7) << 16) | (b[p] << 8) | b[p + 1];
      else if (ss === 2) packed = (((ctrl & 7) << 24) | (b[p] << 16) | (b[p + 1] << 8) | b[p + 2]) >>> 0;
      else packed = b.readUInt32BE(p);
      this.cursor = p + ss + 1;
      return this.pointed(this.base + POINTER_BASE[ss] + packed);
    }
    if (type === 0) {
      type = b[p++] + EXTENDED_TYPE;
      if (type <= EXTENDED_TYPE) throw new MmdbError(`corrupt MMDB: invalid extended type at offset ${p - 1}`);
    }
    let size = ctrl & 0x1f;
    if (size >= 29) {
      if (size === 29) size = SIZE_BASE_1 + b[p++];
      else if (size === 30) {
        size = SIZE_BASE_2 + ((b[p] << 8) | b[p + 1]);
        p += 2;
      } else {
        size = SIZE_BASE_3 + ((b[p] << 16) | (b[p + 1] << 8) | b[p + 2]);
        p += 3;
      }
    }
    switch (type) {
      case FIELD_TYPE.utf8_string:
        this.cursor = p + size;
        return b.toString('utf8', p, p + size);
      case FIELD_TYPE.map: {
        this.cursor = p;
        const map: Record<string, unknown> = {};
        for (let i = 0; i < size; i++) {
          const key = this.decode() as string;
          map[key] = this.decode();
        }
        return Object.freeze(map);
      }
      case FIELD_TYPE.uint32:
      case FIELD_TYPE.uint16:
        this.cursor = p + size;
        if (size === 0) return 0;
        if (size <= 4) return b.readUIntBE(p, size);
        throw new MmdbError(`Invalid size for unsigned integer: ${size}`);
      case FIELD_TYPE.double:
        this.cursor = p + size;
        return b.readDoubleBE(p);
      case FIELD_TYPE.array: {
        this.cursor = p;
        const arr = new Array<unknown>(size);
        for (let i = 0; i < size; i++) arr[i] = this.decode();
        return Object.freeze(arr);
      }
      case FIELD_TYPE.boolean: // the size is the value
        this.cursor = p;
        return size !== 0;
      case FIELD_TYPE.float:
        this.cursor = p + size;
        return b.readFloatBE(p);
      case FIELD_TYPE.bytes:
        this.cursor = p + size;
        return b.subarray(p, p + size);
      case FIELD_TYPE.int32: // fewer than 4 bytes read unsigned, as mmdb-lib does
        this.cursor = p + size;
        if (size === 0) return 0;
        return size < 4 ? b.readUIntBE(p, size) : b.readInt32BE(p);
      case FIELD_TYPE.uint64:
      case FIELD_TYPE.uint128: {
        this.cursor = p + size;
        if (size > 16) throw new MmdbError(`Invalid size for big unsigned integer: ${size}`);
        let n = 0n;
        for (let i = 0; i < size; i++) n = (n << 8n) | BigInt(b[p + i]);
        return n;
      }
    }
    throw new MmdbError(`Unknown type ${type} at offset ${p}`);
  }
}

function readMetadata(buf: Buffer): MmdbMetadata {
  const at = buf.lastIndexOf(METADATA_START_MARKER);
  if (at < 0) throw new MmdbError('not a MaxMind DB file: metadata marker not found');
  const start = at + METADATA_START_MARKER.length;
  // Metadata pointers are relative to the metadata start: decode it with a reader-like view over it.
  const m = new DataDecoder(buf, start, 6).decodeAt(start) as Record<string, unknown>;
  const K = METADATA_KEYS;
  const recordSize = Number(m[K.recordSize]) as RecordSize;
  if (!RECORD_SIZES.includes(recordSize)) throw new MmdbError(`Unsupported record size ${String(m[K.recordSize])}`);
  const ipVersion = Number(m[K.ipVersion]);
  if (ipVersion !== 4 && ipVersion !== 6) throw new MmdbError(`Unsupported ip_version ${String(m[K.ipVersion])}`);
  const nodeCount = Number(m[K.nodeCount]);
  if (!Number.isInteger(nodeCount) || nodeCount < 0) throw new MmdbError(`Invalid node_count ${String(m[K.nodeCount])}`);
  return {
    nodeCount,
    recordSize,
    ipVersion,
    databaseType: String(m[K.databaseType] ?? ''),
    buildEpoch: m[K.buildEpoch] as bigint | number,
    binaryFormatMajorVersion: Number(m[K.binaryFormatMajorVersion]),
    binaryFormatMinorVersion: Number(m[K.binaryFormatMinorVersion]),
    description: (m[K.description] ?? {}) as Record<string, string>,
    languages: (m[K.languages] ?? []) as string[],
    searchTreeSize: searchTreeSize(nodeCount, recordSize),
  };
}
