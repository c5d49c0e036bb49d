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
 * databases in reader.test.ts) with one difference: results are deeply frozen, because they are
 * shared between lookups (mutating one would corrupt later answers; now it throws instead). Byte values
 * (MMDB "bytes") are Buffers over the file and cannot be frozen.
 *
 * IPv4 and IPv6: a dotted quad (and an IPv6 address inside ::/96) enters an IPv6 tree at its IPv4 subtree
 * (::/96), as the `maxmind` reader does for a dotted quad, through the IPv4 jump table; any other IPv6
 * address starts at its /32's node (a directory of the tree's nodes at depth 32, one cache line per probe;
 * for a dense /32, 4 levels further down through its stride table) or, when its walk ends above /32, from
 * a 16–20-level jump table, and walks the rest bit by bit, following the file's aliases (::ffff:0:0/96,
 * 2002::/16) like any other record. At 5M IPv4 + 5M IPv6 networks (766 MiB file, 89M nodes) the stride
 * tables (19 MiB) and the 20-level jump table (4 MiB, was 16 levels, 256 KiB) cost ~0.4 s more to open,
 * for ≈ 20% less time per IPv6 lookup (`npm run bench -- lookup --ipv6 5000000`). An IPv4 tree answers
 * IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses as their IPv4 address and null
 * for other IPv6 addresses (the `maxmind` reader walks their first 32 bits as if they were IPv4).
 *
 * The format's numbers and names (field types, size and pointer bases, separator, record sizes, metadata
 * marker and keys) are core/mmdb-format.ts, the same module our writer (data/mmdb/) writes by.
 *
 * Laid out as node-maxmind lays out its reader: address.ts (address text), this file (everything a lookup
 * runs, in one module: the address parsers, the walk, the record cache), tables.ts (the shortcut tables built at open),
 * decoder.ts (the data section), metadata.ts.
 */
import { DATA_SECTION_SEPARATOR_SIZE, type RecordSize } from '../../../core/mmdb-format.ts';
import { DataDecoder, MmdbError } from './decoder.ts';
import { type MmdbMetadata, readMetadata } from './metadata.ts';
import {
  buildDirectory,
  DEFAULT_STRIDE_BITS,
  EMPTY_SLOT,
  emptyDirectory,
  ipv4JumpTable,
  jump6BitsFor,
  jumpBitsFor,
  jumpTable,
  recordCacheBitsFor,
  type Tree,
} from './tables.ts';

export { MmdbError } from './decoder.ts';
export type { MmdbMetadata } from './metadata.ts';

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
    let c = 0;
    // Hex digits by arithmetic (no table load): '0'–'9', then 'a'–'f' either case.
    for (; i < n; i++) {
      c = s.charCodeAt(i);
      let d = c - 48;
      if (d >>> 0 > 9) {
        d = (c | 32) - 87;
        if (d < 10 || d > 15) break;
      }
      v = (v << 4) | d;
    }
    if (i - start > 4) return false;
    if (i < n && c === 46) {
      if (ng > 6) return false;
      const q = parseIPv4(s.slice(start));
      if (q < 0) return false;
      g[ng++] = q >>> 16;
      g[ng++] = q & 0xffff;
      break;
    }
    if (i === start || ng === 8) return false;
    g[ng++] = v;
    if (i === n) break;
    if (c !== 58) return false;
    i++;
    if (i < n && s.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = ng;
      i++;
    } else if (i === n) {
      return false;
    }
  }
  if (gap < 0) {
    if (ng !== 8) return false;
  } else {
    if (ng > 7) return false;
    // Groups after the gap move to the end; the gap is zeros.
    const zeros = 8 - ng;
    for (let k = ng - 1; k >= gap; k--) g[k + zeros] = g[k];
    for (let k = gap; k < gap + zeros; k++) g[k] = 0;
  }
  out[0] = ((g[0] << 16) | g[1]) >>> 0;
  out[1] = ((g[2] << 16) | g[3]) >>> 0;
  out[2] = ((g[4] << 16) | g[5]) >>> 0;
  out[3] = ((g[6] << 16) | g[7]) >>> 0;
  return true;
}

export interface MmdbReaderOptions {
  /** log2 of the number of decoded records kept (4-way set-associative by data offset). Default: by tree size (see recordCacheBitsFor). */
  recordCacheBits?: number;
  /** log2 of the number of values reached through pointers kept. Default 16. */
  pointerCacheBits?: number;
  /** Tree levels skipped by the jump table (16–24). Default: by tree size (see jumpBitsFor). */
  jumpBits?: number;
  /** IPv6 trees: levels skipped by the IPv6 jump table (1–24). Default: by tree size (see jump6BitsFor). */
  jump6Bits?: number;
  /** IPv6 trees: levels below /32 skipped by the tables of dense /32s (0: none, up to 8). Default 4. */
  strideBits?: number;
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
  /** IPv6 trees: record value after the first jump6Bits bits from the root, per prefix; empty for IPv4 trees. */
  private readonly jump6: Uint32Array;
  private readonly jump6Bits: number;
  /**
   * IPv6 trees: the node at depth 32 of every /32 prefix whose path goes on past 32 bits, in an
   * open-addressing table of (key, value) pairs side by side, so that a probe reads one cache line (key:
   * the first 32 bits; value: the node, or nodeCount + i for the i-th stride table below; EMPTY_SLOT where
   * none). Registries hand out IPv6 space in /32s and networks sit below them, so a lookup inside
   * allocated space starts its walk there: 16 dependent reads fewer than from the jump table, most of
   * them cache misses on a big file (measured: `npm run bench -- lookup --ipv6 N`).
   */
  private readonly dir: Uint32Array;
  private readonly dirShift: number;
  /**
   * The record value after the first strideBits bits below a dense /32 (one with at least a quarter of
   * its 2^strideBits subtrees branching on), 2^strideBits entries per such /32. The top of a dense /32's
   * subtree is where its walk jumps around the file (a right child sits after the whole left subtree);
   * below, paths mostly run on through consecutive nodes (the tree is numbered depth-first).
   */
  private readonly strides: Uint32Array;
  private readonly strideBits: number;
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

    const recBits = Math.max(2, options.recordCacheBits ?? recordCacheBitsFor(this.nodeCount)); // at least one set of four
    const ptrBits = options.pointerCacheBits ?? 16;
    this.recKeys = new Uint32Array(1 << recBits);
    this.recVals = new Array(1 << recBits).fill(undefined);
    this.recShift = 34 - recBits; // 2^(recBits - 2) sets of four
    this.decoder = new DataDecoder(buffer, this.dataStart, ptrBits);

    const tree: Tree = { buf: buffer, nodeCount: this.nodeCount, recordSize: this.recordSize };
    this.jumpBits = options.jumpBits ?? jumpBitsFor(this.nodeCount);
    if (!(this.jumpBits >= 1 && this.jumpBits <= 24)) throw new RangeError(`jumpBits must be 1–24, got ${this.jumpBits}`);
    this.jumpShift = 32 - this.jumpBits;
    this.jump = ipv4JumpTable(tree, this.metadata.ipVersion, this.jumpBits);
    this.jump6Bits = options.jump6Bits ?? jump6BitsFor(this.nodeCount);
    if (!(this.jump6Bits >= 1 && this.jump6Bits <= 24)) throw new RangeError(`jump6Bits must be 1–24, got ${this.jump6Bits}`);
    this.strideBits = options.strideBits ?? DEFAULT_STRIDE_BITS;
    if (!(this.strideBits >= 0 && this.strideBits <= 8)) throw new RangeError(`strideBits must be 0–8, got ${this.strideBits}`);
    this.jump6 = this.metadata.ipVersion === 6 ? jumpTable(tree, 0, this.jump6Bits) : new Uint32Array(0);
    const dir = this.metadata.ipVersion === 6 ? buildDirectory(tree, this.strideBits) : emptyDirectory();
    this.dir = dir.dir;
    this.dirShift = dir.shift;
    this.strides = dir.strides;
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
    const dir = this.dir;
    const mask = dir.length - 1;
    for (let i = (Math.imul(w0, 0x9e3779b1) >>> this.dirShift) << 1; ; i = (i + 2) & mask) {
      const v = dir[i + 1];
      if (v === EMPTY_SLOT) break;
      if (dir[i] === w0) {
        let node: number;
        if (v < nc) node = this.walkWord(v, w1, 31);
        else {
          const k = this.strideBits;
          node = this.strides[(v - nc) * 2 ** k + (w1 >>> (32 - k))];
          if (node >= nc) return node;
          node = this.walkWord(node, w1, 31 - k);
        }
        if (node >= nc) return node;
        node = this.walkWord(node, w2, 31);
        if (node >= nc) return node;
        return this.walkWord(node, w3, 31);
      }
    }
    // Otherwise the walk ends above 32 bits.
    let node = this.jump6[w0 >>> (32 - this.jump6Bits)];
    if (node >= nc) return node;
    node = this.walkWord(node, w0, 31 - this.jump6Bits);
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
