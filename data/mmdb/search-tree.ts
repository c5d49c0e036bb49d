/**
 * The binary search tree: built from disjoint address runs, numbered depth-first, serialized with a
 * record size of 24, 28 or 32 bits (spec "Binary Search Tree Section").
 *
 * While building, every node is two uint32 records in one growable Uint32Array (no object per node):
 *   0                → empty (no data)
 *   1 … 0x7ffffffe   → index of a child node
 *   ALIAS            → alias to the IPv4 root node (::/96) in IPv6 trees
 *   DATA | id        → data value `id`
 * Runs are disjoint, so inserting one CIDR never meets data on its way down; only the fixed ::/96 node
 * and the alias records can land in a place already covered by data, which is then pushed down.
 */
import { DATA_SECTION_SEPARATOR_SIZE, RECORD_SIZES, type RecordSize } from '../../core/mmdb-format.ts';
import { POW2 } from './network.ts';

const EMPTY = 0;
const ALIAS = 0x7fff_ffff;
const DATA = 0x8000_0000;
const MAX_BUILD_NODES = ALIAS - 1;

/**
 * Smallest record size whose records can hold every value the tree uses: node numbers, the "no data"
 * value (= node count) and data pointers up to node_count + 16 + data section size.
 */
export function chooseRecordSize(nodeCount: number, dataSectionSize: number): RecordSize {
  const needed = nodeCount + DATA_SECTION_SEPARATOR_SIZE + dataSectionSize;
  for (const bits of RECORD_SIZES) if (needed <= 2 ** bits) return bits;
  throw new Error(`database too large for MMDB: ${nodeCount} nodes + ${dataSectionSize} data bytes exceed 32-bit records`);
}

/** True if `bits`-bit records can address the tree (see chooseRecordSize). */
export function recordSizeFits(bits: RecordSize, nodeCount: number, dataSectionSize: number): boolean {
  return nodeCount + DATA_SECTION_SEPARATOR_SIZE + dataSectionSize <= 2 ** bits;
}

export class BuildTree {
  recs: Uint32Array;
  nodes = 1;
  /** Build index of the IPv4 root (::/96) in an IPv6 tree once enterIpv4Subtree made it, else -1. */
  ipv4Root = -1;
  private readonly words: Uint32Array;
  /**
   * IPv4 networks: the nodes on the path of the last CIDR set (path[d] at depth d below the IPv4 root,
   * path[0]) and its address. Runs
   * arrive in address order, so the next CIDR shares most of that path and its walk starts where the
   * two addresses part instead of at the root: at 5 million networks the walks from the root were ≈ 6%
   * of building networks.mmdb. Valid for depths ≤ pathDepth (runs are disjoint: a later CIDR never
   * replaces a node on an earlier one's path).
   */
  private readonly path = new Uint32Array(33);
  private pathAddr = 0;
  private pathDepth = 0;
  private readonly cursor = new Float64Array(5);
  private readonly span = new Float64Array(5);

  constructor(
    readonly bitLength: 32 | 128,
    initialNodes = 1 << 16,
  ) {
    this.recs = new Uint32Array(Math.max(2, initialNodes * 2));
    this.words = new Uint32Array(bitLength / 32);
  }

  private newNode(fill: number): number {
    if (this.nodes >= MAX_BUILD_NODES) throw new Error('search tree too large (more than 2^31 nodes)');
    if (2 * this.nodes + 2 > this.recs.length) {
      const next = new Uint32Array(Math.ceil(this.recs.length * 1.5) + 2);
      next.set(this.recs);
      this.recs = next;
    }
    const i = this.nodes++;
    this.recs[2 * i] = fill;
    this.recs[2 * i + 1] = fill;
    return i;
  }

  /** Record slot (index into recs) for the network `words`/`prefixLen` (prefixLen ≥ 1), creating nodes. */
  private slotFor(words: Uint32Array, prefixLen: number): number {
    let node = 0;
    for (let d = 0; d < prefixLen - 1; d++) {
      const slot = 2 * node + ((words[d >>> 5] >>> (31 - (d & 31))) & 1);
      const r = this.recs[slot];
      if (r !== EMPTY && r < ALIAS) {
        node = r;
        continue;
      }
      if (r === ALIAS) throw new Error('internal: insert below an IPv4 alias');
      const child = this.newNode(r); // pushes covering data (or emptiness) down
      this.recs[slot] = child;
      node = child;
    }
    const d = prefixLen - 1;
    return 2 * node + ((words[d >>> 5] >>> (31 - (d & 31))) & 1);
  }

  /** Sets the record of network words/prefixLen to `rec` (replacing whatever was below it). */
  setRecord(words: Uint32Array, prefixLen: number, rec: number): void {
    if (prefixLen === 0) {
      this.recs[0] = rec;
      this.recs[1] = rec;
      return;
    }
    const slot = this.slotFor(words, prefixLen); // may grow (replace) this.recs: look it up after
    this.recs[slot] = rec;
  }

  /** Makes the network words/prefixLen a node (pushing down covering data) and returns its index. */
  ensureNode(words: Uint32Array, prefixLen: number): number {
    if (prefixLen === 0) return 0;
    const slot = this.slotFor(words, prefixLen);
    const r = this.recs[slot];
    if (r !== EMPTY && r < ALIAS) return r;
    const node = this.newNode(r);
    this.recs[slot] = node;
    return node;
  }

  /**
   * Inserts the IPv4 run [a, b) (0 ≤ a < b ≤ 2^32) with value `valueId`, split into aligned CIDR blocks:
   * from the root in IPv4 trees, from the IPv4 root (::/96, made by enterIpv4Subtree) in IPv6 trees.
   */
  insertV4Run(a: number, b: number, valueId: number): void {
    const rec = DATA | valueId;
    while (a < b) {
      const align = a === 0 ? 32 : 31 - Math.clz32(a & -a);
      const span = b - a;
      const fit = span >= 0x1_0000_0000 ? 32 : 31 - Math.clz32(span);
      const k = Math.min(align, fit);
      if (k < 32) {
        this.setRecordV4(a, 32 - k, rec);
      } else {
        const root = this.path[0];
        this.recs[2 * root] = rec;
        this.recs[2 * root + 1] = rec;
      }
      a += POW2[k];
    }
  }

  /**
   * IPv6 trees: makes ::/96 a node (pushing down what IPv6 networks put there) and the root of every
   * later insertV4Run. Call after the IPv6 runs: a wider IPv6 run would replace the node.
   */
  enterIpv4Subtree(): void {
    const w = this.words;
    w.fill(0);
    this.ipv4Root = this.ensureNode(w, 96);
    this.path[0] = this.ipv4Root;
    this.pathDepth = 0;
    this.pathAddr = 0;
  }

  /** IPv6 trees: inserts the run [start, end) of five-limb bounds (./overlap.ts), split into aligned CIDR blocks. */
  insertRun(bounds: Float64Array, startOff: number, endOff: number, valueId: number): void {
    const rec = DATA | valueId;
    const w = this.words;
    // If both ends lie in the same 2^32 block, work on the low 32 bits with plain numbers.
    if (
      bounds[startOff] === bounds[endOff] &&
      bounds[startOff + 1] === bounds[endOff + 1] &&
      bounds[startOff + 2] === bounds[endOff + 2] &&
      bounds[startOff + 3] === bounds[endOff + 3]
    ) {
      w[0] = bounds[startOff + 1];
      w[1] = bounds[startOff + 2];
      w[2] = bounds[startOff + 3];
      this.insertLowRun(bounds[startOff + 4], bounds[endOff + 4], rec);
      return;
    }
    this.insertLimbRun(bounds, startOff, endOff, rec);
  }

  /**
   * Splits [a, b) given as five base-2^32 limbs (see ./overlap.ts) into CIDRs, with plain number
   * arithmetic on the limbs (no bigint): each step takes the largest block aligned at `a` that fits.
   */
  private insertLimbRun(bounds: Float64Array, startOff: number, endOff: number, rec: number): void {
    const a = this.cursor;
    const span = this.span;
    for (let k = 0; k < 5; k++) a[k] = bounds[startOff + k];
    for (;;) {
      // span = b - a (stop when zero)
      let borrow = 0;
      let top = -1;
      for (let k = 4; k >= 0; k--) {
        let d = bounds[endOff + k] - a[k] - borrow;
        borrow = d < 0 ? 1 : 0;
        if (borrow) d += 0x1_0000_0000;
        span[k] = d;
      }
      for (let k = 0; k < 5; k++) {
        if (span[k] !== 0) {
          top = k;
          break;
        }
      }
      if (top < 0) return;
      const fit = 32 * (4 - top) + (top === 0 ? 0 : 31 - Math.clz32(span[top]));
      let align = 128;
      for (let k = 4; k >= 1; k--) {
        if (a[k] !== 0) {
          align = 32 * (4 - k) + (31 - Math.clz32(a[k] & -a[k]));
          break;
        }
      }
      const bits = Math.min(align, fit);
      const w = this.words;
      w[0] = a[1];
      w[1] = a[2];
      w[2] = a[3];
      w[3] = a[4];
      this.setRecord(w, 128 - bits, rec);
      // a += 2^bits
      let k = 4 - (bits >>> 5);
      let carry = POW2[bits & 31];
      while (carry && k >= 0) {
        const v = a[k] + carry;
        a[k] = v % 0x1_0000_0000;
        carry = v >= 0x1_0000_0000 ? 1 : 0;
        k--;
      }
    }
  }

  /** IPv6 trees: splits [a, b) (0 ≤ a < b ≤ 2^32, the last 32 bits after the 96 bits in words[0..2]) into CIDRs. */
  private insertLowRun(a: number, b: number, rec: number): void {
    const w = this.words;
    while (a < b) {
      const align = a === 0 ? 32 : 31 - Math.clz32(a & -a);
      const span = b - a;
      const fit = span >= 0x1_0000_0000 ? 32 : 31 - Math.clz32(span);
      const k = Math.min(align, fit);
      w[3] = a;
      this.setRecord(w, 128 - k, rec);
      a += POW2[k];
    }
  }

  /**
   * setRecord for the IPv4 network a/prefixLen (1 ≤ prefixLen ≤ 32) below the IPv4 root (path[0]: the
   * root of an IPv4 tree, ::/96 in an IPv6 tree), walking from the shared path.
   */
  private setRecordV4(a: number, prefixLen: number, rec: number): void {
    const path = this.path;
    const shared = Math.clz32((a ^ this.pathAddr) >>> 0);
    let d = Math.min(shared, this.pathDepth, prefixLen - 1);
    let node = path[d];
    for (; d < prefixLen - 1; d++) {
      const slot = 2 * node + ((a >>> (31 - d)) & 1);
      const r = this.recs[slot];
      if (r !== EMPTY && r < ALIAS) {
        node = r;
      } else {
        const child = this.newNode(r); // pushes covering data (or emptiness) down; may replace this.recs
        this.recs[slot] = child;
        node = child;
      }
      path[d + 1] = node;
    }
    this.pathAddr = a;
    this.pathDepth = prefixLen - 1;
    this.recs[2 * node + ((a >>> (32 - prefixLen)) & 1)] = rec;
  }

  /**
   * IPv6 trees, after enterIpv4Subtree and the IPv4 runs: points ::ffff:0:0/96 (IPv4-mapped) and
   * 2002::/16 (6to4) at the IPv4 root, as MaxMind's writer does.
   */
  addIpv4Aliases(): void {
    const w = this.words;
    w.fill(0);
    w[2] = 0xffff;
    this.setRecord(w, 96, ALIAS);
    w.fill(0);
    w[0] = 0x2002_0000;
    this.setRecord(w, 16, ALIAS);
  }
}

export interface TreeLayout {
  nodeCount: number;
  /** Build index of the node with final number n. */
  order: Uint32Array;
  /** Final number of each build node (reachable ones only). */
  numbers: Uint32Array;
  /** Value ids in order of first reference. */
  dataOrder: Uint32Array;
  dataCount: number;
}

/** Numbers the reachable nodes depth-first (pre-order, root = 0) and lists data in first-reference order. */
export function layoutTree(tree: BuildTree, valueCount: number): TreeLayout {
  const recs = tree.recs;
  const numbers = new Uint32Array(tree.nodes);
  const order = new Uint32Array(tree.nodes);
  const seen = new Uint8Array(valueCount);
  const dataOrder = new Uint32Array(valueCount);
  let dataCount = 0;
  const stack = new Uint32Array(2 * tree.bitLength + 4);
  let sp = 0;
  let count = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    const node = stack[--sp];
    numbers[node] = count;
    order[count++] = node;
    const l = recs[2 * node];
    const r = recs[2 * node + 1];
    if (l >= DATA) {
      const id = l - DATA;
      if (!seen[id]) {
        seen[id] = 1;
        dataOrder[dataCount++] = id;
      }
    }
    if (r >= DATA) {
      const id = r - DATA;
      if (!seen[id]) {
        seen[id] = 1;
        dataOrder[dataCount++] = id;
      }
    }
    if (r !== EMPTY && r < ALIAS) stack[sp++] = r;
    if (l !== EMPTY && l < ALIAS) stack[sp++] = l;
  }
  return { nodeCount: count, order, numbers, dataOrder, dataCount };
}

/** Writes the search tree section (nodeCount * recordSize / 4 bytes) into `out` at offset 0. */
export function writeTree(out: Buffer, tree: BuildTree, layout: TreeLayout, dataOffsets: Uint32Array, recordSize: RecordSize): void {
  const { nodeCount, order, numbers } = layout;
  const recs = tree.recs;
  const dataBase = nodeCount + DATA_SECTION_SEPARATOR_SIZE;
  const aliasTarget = tree.ipv4Root >= 0 ? numbers[tree.ipv4Root] : nodeCount;
  const resolve = (r: number): number => {
    if (r >= DATA) return dataBase + dataOffsets[r - DATA];
    if (r === EMPTY) return nodeCount;
    if (r === ALIAS) return aliasTarget;
    return numbers[r];
  };
  const nodeBytes = recordSize / 4;
  let o = 0;
  for (let n = 0; n < nodeCount; n++, o += nodeBytes) {
    const node = order[n];
    const l = resolve(recs[2 * node]);
    const r = resolve(recs[2 * node + 1]);
    if (recordSize === 24) {
      out[o] = l >>> 16;
      out[o + 1] = (l >>> 8) & 0xff;
      out[o + 2] = l & 0xff;
      out[o + 3] = r >>> 16;
      out[o + 4] = (r >>> 8) & 0xff;
      out[o + 5] = r & 0xff;
    } else if (recordSize === 28) {
      out[o] = (l >>> 16) & 0xff;
      out[o + 1] = (l >>> 8) & 0xff;
      out[o + 2] = l & 0xff;
      out[o + 3] = ((l >>> 20) & 0xf0) | ((r >>> 24) & 0x0f);
      out[o + 4] = (r >>> 16) & 0xff;
      out[o + 5] = (r >>> 8) & 0xff;
      out[o + 6] = r & 0xff;
    } else {
      out.writeUInt32BE(l, o);
      out.writeUInt32BE(r, o + 4);
    }
  }
}
