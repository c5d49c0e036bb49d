/**
 * The shortcut tables the lookup reader builds when it opens a file (reader.ts walks them on every
 * lookup): the jump tables that skip the tree's first levels, the /32 directory of IPv6 trees and the
 * stride tables of dense /32s, with the sizes chosen from the tree's node count. Built once per open
 * (start and each reload), so plain functions over the file rather than the walk's specialised loops.
 */
import type { RecordSize } from '../../../core/mmdb-format.ts';

/** The search tree the tables are built from. */
export interface Tree {
  readonly buf: Buffer;
  readonly nodeCount: number;
  readonly recordSize: RecordSize;
}

/** Levels below a dense /32 its stride table skips (see MmdbReader.strides). */
export const DEFAULT_STRIDE_BITS = 4;

/** An empty slot of the /32 directory (no node number reaches it: node_count < 2^32 - 1). */
export const EMPTY_SLOT = 0xffff_ffff;

/**
 * Levels of an IPv6 tree the IPv6 jump table skips, for lookups outside the /32 directory (their walk
 * ends above /32): 16 (256 KiB) for small trees, 20 (4 MiB) from 8M nodes.
 */
export function jump6BitsFor(nodeCount: number): number {
  return nodeCount >= 8_000_000 ? 20 : 16;
}

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

/**
 * log2 of the record cache's slots: 17 (131,072), 18 from 32M nodes. A tree that big holds millions of
 * networks of both families, so the records in use at once are more: at 5M IPv4 + 5M IPv6 networks
 * (89M nodes) the bench's four address sets (≈ 90,000 distinct records) made 17% of lookups decode
 * (~600 ns each) with 17 bits, 3% with 18, for ≈ +12 MiB of heap when full (records are ~90 bytes:
 * their strings are shared through the pointer cache).
 */
export function recordCacheBitsFor(nodeCount: number): number {
  return nodeCount >= 32_000_000 ? 18 : 17;
}

/** The left (0) or right (1) record of a node. */
export function readRecord(t: Tree, node: number, right: number): number {
  const b = t.buf;
  switch (t.recordSize) {
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

/** The IPv4 jump table: from the IPv4 start node (the root, or ::/96 in an IPv6 tree), `bits` levels. */
export function ipv4JumpTable(t: Tree, ipVersion: 4 | 6, bits: number): Uint32Array {
  let start = 0;
  if (ipVersion === 6) {
    // The IPv4 subtree is ::/96: 96 left turns from the root (what the `maxmind` reader does too).
    for (let i = 0; i < 96 && start < t.nodeCount; i++) start = readRecord(t, start, 0);
  }
  return jumpTable(t, start, bits);
}

/**
 * The record reached after `bits` bits from `root`, per prefix of `bits` bits, filled by a depth-first
 * walk: a record that ends above that depth covers its whole block of prefixes.
 */
export function jumpTable(t: Tree, root: number, bits: number): Uint32Array {
  const nc = t.nodeCount;
  const jump = new Uint32Array(2 ** bits);
  const fill = (node: number, depth: number, prefix: number): void => {
    if (node >= nc || depth === bits) {
      const span = 2 ** (bits - depth);
      jump.fill(node, prefix * span, prefix * span + span);
      return;
    }
    fill(readRecord(t, node, 0), depth + 1, prefix * 2);
    fill(readRecord(t, node, 1), depth + 1, prefix * 2 + 1);
  };
  fill(root, 0, 0);
  return jump;
}

/** An IPv4 tree's stand-in for the /32 directory: one empty slot, so every probe misses at once. */
export function emptyDirectory(): { dir: Uint32Array; shift: number; strides: Uint32Array } {
  return { dir: new Uint32Array(2).fill(EMPTY_SLOT), shift: 32, strides: new Uint32Array(0) };
}

/**
 * The /32 directory and the stride tables of dense /32s (see MmdbReader.dir, strides): a depth-first
 * walk of the tree's first 32 levels. `strideBits` levels below each dense /32.
 */
export function buildDirectory(t: Tree, strideBits: number): { dir: Uint32Array; shift: number; strides: Uint32Array } {
  const nc = t.nodeCount;
  const found: number[] = [];
  const visit = (node: number, depth: number, prefix: number): void => {
    if (node >= nc) return;
    if (depth === 32) {
      found.push(prefix >>> 0, node);
      return;
    }
    visit(readRecord(t, node, 0), depth + 1, prefix);
    visit(readRecord(t, node, 1), depth + 1, (prefix | (1 << (31 - depth))) >>> 0);
  };
  visit(0, 0, 0);

  // Stride tables, filled in place and kept for dense /32s: at least a quarter of the entries are nodes.
  const k = strideBits;
  const span = 2 ** k;
  let strides = new Uint32Array(k > 0 ? (found.length / 2) * span : 0);
  let tables = 0;
  for (let e = 1; e < found.length && k > 0; e += 2) {
    // Stride table i is value nc + i: there must be room below EMPTY_SLOT (a 32-bit tree of ~2^32 nodes lacks it).
    if (nc + tables >= EMPTY_SLOT) break;
    // Level by level, in place: entry i of depth d becomes entries 2i and 2i + 1 of depth d + 1.
    const at = tables * span;
    strides[at] = found[e];
    for (let width = 1; width < span; width *= 2) {
      for (let i = width - 1; i >= 0; i--) {
        const r = strides[at + i];
        strides[at + 2 * i] = r < nc ? readRecord(t, r, 0) : r;
        strides[at + 2 * i + 1] = r < nc ? readRecord(t, r, 1) : r;
      }
    }
    let nodes = 0;
    for (let i = at; i < at + span; i++) if (strides[i] < nc) nodes++;
    if (nodes * 4 >= span) found[e] = nc + tables++;
  }
  if (tables * span < strides.length) strides = strides.slice(0, tables * span);

  let bits = 1;
  while (2 ** bits < found.length) bits++; // at least twice the entries: short probe runs
  const dir = new Uint32Array(2 ** (bits + 1)).fill(EMPTY_SLOT);
  const shift = 32 - bits;
  for (let e = 0; e < found.length; e += 2) {
    let i = (Math.imul(found[e], 0x9e3779b1) >>> shift) << 1;
    while (dir[i + 1] !== EMPTY_SLOT) i = (i + 2) & (dir.length - 1);
    dir[i] = found[e];
    dir[i + 1] = found[e + 1];
  }
  return { dir, shift, strides };
}
