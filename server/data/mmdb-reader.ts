/**
 * IP address → record over a MaxMind DB (.mmdb) file held in memory: the hot path of every identification.
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
 * IPv4 and IPv6: a dotted quad (and an IPv6 address inside ::/96) enters an IPv6 tree at its IPv4 subtree
 * (::/96), as the `maxmind` reader does for a dotted quad, through the IPv4 jump table; any other IPv6
 * address starts at its /32's node (a directory of the tree's nodes at depth 32; else a 16-level jump
 * table) and walks the rest bit by bit, following the file's aliases (::ffff:0:0/96, 2002::/16) like any
 * other record. An IPv4 tree answers
 * IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses as their IPv4 address and null
 * for other IPv6 addresses (the `maxmind` reader walks their first 32 bits as if they were IPv4).
 *
 * The format's numbers and names (field types, size and pointer bases, separator, record sizes, metadata
 * marker and keys) are core/mmdb-format.ts, the same module our writer (data/mmdb/) writes by.
 */
import { ipv6GroupsText } from '../../core/ipv6-text.ts';
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

/** Scratch for parseIPv6's groups: one module-wide buffer, so parsing allocates nothing. */
const GROUPS = new Uint16Array(8);

/** Hex digit value per character code below 128, -1 for anything else. */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX[48 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX[65 + c] = 10 + c;
  HEX[97 + c] = 10 + c;
}

/**
 * Parses an IPv6 address in any RFC 4291 text form (full, `::`-compressed, either case, an embedded
 * dotted quad at the end) into four big-endian uint32 words in `out`. No zone id (`%eth0`), brackets or
 * prefix: false for those and for anything else that is not an address. Allocation-free unless a
 * dotted quad is embedded.
 */
export function parseIPv6(s: string, out: Uint32Array): boolean {
  const n = s.length;
  if (n < 2 || n > 45) return false;
  const g = GROUPS;
  let ng = 0;
  let gap = -1;
  let i = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let v = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      const d = c < 128 ? HEX[c] : -1;
      if (d < 0) break;
      v = (v << 4) | d;
      if (++i - start > 4) return false;
    }
    if (i < n && s.charCodeAt(i) === 46) {
      if (ng > 6) return false;
      const q = parseIPv4(s.slice(start));
      if (q < 0) return false;
      g[ng++] = q >>> 16;
      g[ng++] = q & 0xffff;
      i = n;
      break;
    }
    if (i === start || ng === 8) return false;
    g[ng++] = v;
    if (i === n) break;
    if (s.charCodeAt(i) !== 58) return false;
    i++;
    if (i < n && s.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = ng;
      i++;
    } else if (i === n) {
      return false;
    }
  }
  if (gap < 0 ? ng !== 8 : ng > 7) return false;
  // Groups after the gap move to the end; the gap is zeros.
  const tail = gap < 0 ? 0 : ng - gap;
  let hi = 0;
  for (let k = 0; k < 8; k++) {
    let v: number;
    if (gap < 0 || k < gap) v = g[k];
    else if (k >= 8 - tail) v = g[gap + k - (8 - tail)];
    else v = 0;
    if (k & 1) out[k >>> 1] = ((hi << 16) | v) >>> 0;
    else hi = v;
  }
  return true;
}

/** RFC 5952 text of four uint32 words (core/ipv6-text.ts). */
export function formatIPv6(w: ArrayLike<number>): string {
  return ipv6GroupsText([w[0] >>> 16, w[0] & 0xffff, w[1] >>> 16, w[1] & 0xffff, w[2] >>> 16, w[2] & 0xffff, w[3] >>> 16, w[3] & 0xffff]);
}

/** Dotted quad of a uint32. */
export function formatIPv4(addr: number): string {
  return `${addr >>> 24}.${(addr >>> 16) & 255}.${(addr >>> 8) & 255}.${addr & 255}`;
}

export class MmdbError extends Error {}

/**
 * Levels of an IPv6 tree the IPv6 jump table skips: 2^16 entries (256 KiB). IPv6 networks sit at /29–/64,
 * so a deeper table would save a few steps of a 30–50-step walk for megabytes per open.
 */
const JUMP6_BITS = 16;
/** An empty slot of the /32 directory (no node number reaches it: node_count < 2^32 - 1). */
const EMPTY_SLOT = 0xffff_ffff;

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
  /** IPv6 trees: record value after the first JUMP6_BITS bits from the root, per prefix; empty for IPv4 trees. */
  private readonly jump6: Uint32Array;
  /**
   * IPv6 trees: the node at depth 32 of every /32 prefix whose path goes on past 32 bits, in an
   * open-addressing table (keys: the first 32 bits; values: the node, EMPTY_SLOT where none).
   * Registries hand out IPv6 space in /32s and networks sit below them, so a lookup inside allocated
   * space starts its walk there: 16 dependent reads fewer than from the jump table, most of them cache
   * misses on a big file (measured: `npm run bench -- lookup --ipv6 N`).
   */
  private readonly dirKeys: Uint32Array;
  private readonly dirNodes: Uint32Array;
  private readonly dirShift: number;
  /** parseIPv6's output for get(): one per reader, so a lookup allocates nothing. */
  private readonly words = new Uint32Array(4);

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
    this.jump6 = this.metadata.ipVersion === 6 ? this.buildJump6Table() : new Uint32Array(0);
    const dir = this.metadata.ipVersion === 6 ? this.buildDirectory() : { keys: new Uint32Array(1), nodes: new Uint32Array(1).fill(EMPTY_SLOT), shift: 31 };
    this.dirKeys = dir.keys;
    this.dirNodes = dir.nodes;
    this.dirShift = dir.shift;
  }

  /**
   * The record for a canonical dotted quad or an IPv6 address (any form parseIPv6 takes), or null.
   * Throws TypeError for anything else.
   */
  get(ip: string): T | null {
    const addr = parseIPv4(ip);
    if (addr >= 0) return this.getUint32(addr);
    const w = this.words;
    if (!parseIPv6(ip, w)) throw new TypeError(`not a canonical dotted quad or an IPv6 address: ${JSON.stringify(String(ip).slice(0, 64))}`);
    return this.getV6(w[0], w[1], w[2], w[3]);
  }

  /** The record for the IPv6 address of four big-endian uint32 words, or null. */
  getV6(w0: number, w1: number, w2: number, w3: number): T | null {
    let rec: number;
    if (w0 === 0 && w1 === 0 && w2 === 0) rec = this.walk(w3);
    else if (this.metadata.ipVersion === 4) rec = w0 === 0 && w1 === 0 && w2 === 0xffff ? this.walk(w3) : this.nodeCount;
    else rec = this.walk6(w0, w1, w2, w3);
    if (rec <= this.nodeCount) return null;
    return this.record(rec - this.nodeCount - DATA_SECTION_SEPARATOR_SIZE + this.dataStart) as T;
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
    const node = this.jump[addr >>> this.jumpShift];
    return node >= this.nodeCount ? node : this.walkWord(node, addr, this.jumpShift - 1);
  }

  /**
   * walk() for an IPv6 address outside ::/96: the jump table's 16 levels, then bit by bit from bit 16,
   * one 32-bit word at a time, with a loop per record size as in walk().
   */
  private walk6(w0: number, w1: number, w2: number, w3: number): number {
    const nc = this.nodeCount;
    // The /32's node, when the tree goes on below it.
    const keys = this.dirKeys;
    const mask = keys.length - 1;
    for (let i = Math.imul(w0, 0x9e3779b1) >>> this.dirShift; ; i = (i + 1) & mask) {
      const n = this.dirNodes[i];
      if (n === EMPTY_SLOT) break;
      if (keys[i] === w0) {
        let node = this.walkWord(n, w1, 31);
        if (node >= nc) return node;
        node = this.walkWord(node, w2, 31);
        if (node >= nc) return node;
        return this.walkWord(node, w3, 31);
      }
    }
    // Otherwise the walk ends above 32 bits.
    let node = this.jump6[w0 >>> (32 - JUMP6_BITS)];
    if (node >= nc) return node;
    node = this.walkWord(node, w0, 31 - JUMP6_BITS);
    if (node >= nc) return node;
    node = this.walkWord(node, w1, 31);
    if (node >= nc) return node;
    node = this.walkWord(node, w2, 31);
    if (node >= nc) return node;
    return this.walkWord(node, w3, 31);
  }

  /** Walks from `node` along bits `bit`…0 of `word`; stops at the first record that is not a node. */
  private walkWord(node: number, word: number, bit: number): number {
    const b = this.buf;
    const nc = this.nodeCount;
    switch (this.recordSize) {
      case 24:
        for (; bit >= 0; bit--) {
          const o = node * 6 + ((word >>> bit) & 1) * 3;
          node = (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
          if (node >= nc) return node;
        }
        return node;
      case 28:
        for (; bit >= 0; bit--) {
          const o = node * 7;
          if ((word >>> bit) & 1) node = ((b[o + 3] & 0x0f) << 24) | (b[o + 4] << 16) | (b[o + 5] << 8) | b[o + 6];
          else node = ((b[o + 3] & 0xf0) << 20) | (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
          if (node >= nc) return node;
        }
        return node;
      default:
        for (; bit >= 0; bit--) {
          const o = node * 8 + ((word >>> bit) & 1) * 4;
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

  /** The /32 directory (see dirKeys): a depth-first walk of the tree's first 32 levels. */
  private buildDirectory(): { keys: Uint32Array; nodes: Uint32Array; shift: number } {
    const nc = this.nodeCount;
    const found: number[] = [];
    const visit = (node: number, depth: number, prefix: number): void => {
      if (node >= nc) return;
      if (depth === 32) {
        found.push(prefix >>> 0, node);
        return;
      }
      visit(this.readRecord(node, 0), depth + 1, prefix);
      visit(this.readRecord(node, 1), depth + 1, (prefix | (1 << (31 - depth))) >>> 0);
    };
    visit(0, 0, 0);
    let bits = 1;
    while (2 ** bits < found.length) bits++; // at least twice the entries: short probe runs
    const keys = new Uint32Array(2 ** bits);
    const nodes = new Uint32Array(2 ** bits).fill(EMPTY_SLOT);
    const shift = 32 - bits;
    for (let k = 0; k < found.length; k += 2) {
      let i = Math.imul(found[k], 0x9e3779b1) >>> shift;
      while (nodes[i] !== EMPTY_SLOT) i = (i + 1) & (keys.length - 1);
      keys[i] = found[k];
      nodes[i] = found[k + 1];
    }
    return { keys, nodes, shift };
  }

  /** The IPv6 jump table: the record reached after JUMP6_BITS bits from the root, per prefix. */
  private buildJump6Table(): Uint32Array {
    const nc = this.nodeCount;
    const jump = new Uint32Array(2 ** JUMP6_BITS);
    const fill = (node: number, depth: number, prefix: number): void => {
      if (node >= nc || depth === JUMP6_BITS) {
        const span = 2 ** (JUMP6_BITS - depth);
        jump.fill(node, prefix * span, prefix * span + span);
        return;
      }
      fill(this.readRecord(node, 0), depth + 1, prefix * 2);
      fill(this.readRecord(node, 1), depth + 1, prefix * 2 + 1);
    };
    fill(0, 0, 0);
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
