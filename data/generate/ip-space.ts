/**
 * The generator's IPv4 address plan.
 *
 * Public unicast space is cut into /16 blocks, shuffled by the seed, and handed out one block at a time to
 * whoever needs space: a pool that carves company networks (/17–/29) out of its current block, a pool for
 * hosting providers, ISPs (whole /16, /15 or /14), big companies (whole /16). Blocks never overlap, so the
 * only nesting in the output is the nesting the generator asks for on purpose (`Container.carve`): a
 * company's /28 inside an ISP, a branch /27 inside another company's /22, a bot /29 inside a hosting /20.
 * Every network therefore either contains another or is disjoint from it (a laminar family), which is what
 * "the most specific network wins" needs to be unambiguous.
 *
 * Never used: 0/8, 10/8, 127/8, 100.64/10, 169.254/16, 172.16/12, 192.168/16, 224/3 (multicast and
 * reserved), and the whole /16s holding special-purpose /24s: 192.0/16 (192.0.0/24 IETF, 192.0.2/24
 * TEST-NET-1), 192.88/16 (6to4 relay), 198.18/15 (benchmarking), 198.51/16 (TEST-NET-2), 203.0/16
 * (TEST-NET-3). Tests use the documentation ranges as addresses that belong to no network.
 */
import type { Rng } from './random.ts';

export const BLOCK_SIZE = 65_536;

/** Ranges the plan never touches, as [first /16 block index, last /16 block index]. */
export const RESERVED_BLOCKS: readonly (readonly [number, number, string])[] = [
  [0x0000, 0x00ff, '0.0.0.0/8'],
  [0x0a00, 0x0aff, '10.0.0.0/8'],
  [0x6440, 0x647f, '100.64.0.0/10'],
  [0x7f00, 0x7fff, '127.0.0.0/8'],
  [0xa9fe, 0xa9fe, '169.254.0.0/16'],
  [0xac10, 0xac1f, '172.16.0.0/12'],
  [0xc000, 0xc000, '192.0.0.0/16 (192.0.0.0/24, 192.0.2.0/24)'],
  [0xc01f, 0xc01f, '192.31.0.0/16 (192.31.196.0/24 AS112)'],
  [0xc034, 0xc034, '192.52.0.0/16 (192.52.193.0/24 AMT)'],
  [0xc058, 0xc058, '192.88.0.0/16 (192.88.99.0/24)'],
  [0xc0a8, 0xc0a8, '192.168.0.0/16'],
  [0xc612, 0xc613, '198.18.0.0/15'],
  [0xc0af, 0xc0af, '192.175.0.0/16 (192.175.48.0/24 AS112)'],
  [0xc633, 0xc633, '198.51.0.0/16 (198.51.100.0/24)'],
  [0xcb00, 0xcb00, '203.0.0.0/16 (203.0.113.0/24)'],
  [0xe000, 0xffff, '224.0.0.0/3'],
];

export function ipToString(n: number): string {
  return `${Math.floor(n / 16777216)}.${Math.floor(n / 65536) % 256}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

export function cidr(start: number, prefix: number): string {
  return `${ipToString(start)}/${prefix}`;
}

export function range(first: number, last: number): string {
  return `${ipToString(first)}-${ipToString(last)}`;
}

export function sizeOf(prefix: number): number {
  return 2 ** (32 - prefix);
}

export class AddressSpaceExhausted extends Error {}

/** The shuffled list of free /16 blocks. */
export class Ipv4Space {
  private readonly order: Int32Array;
  private readonly used = new Uint8Array(65_536);
  private readonly usable = new Uint8Array(65_536);
  private next = 0;

  constructor(rng: Rng) {
    this.usable.fill(1);
    for (const [a, b] of RESERVED_BLOCKS) this.usable.fill(0, a, b + 1);
    const free: number[] = [];
    for (let b = 0; b < 65_536; b++) if (this.usable[b]) free.push(b);
    rng.shuffle(free);
    this.order = Int32Array.from(free);
  }

  /** Number of /16 blocks handed out so far. */
  get blocksUsed(): number {
    let n = 0;
    for (let b = 0; b < 65_536; b++) n += this.used[b];
    return n;
  }

  /** Start address of a fresh /16. */
  takeBlock(): number {
    return this.takeBlocks(1).start;
  }

  /**
   * A fresh aligned run of `count` (1, 2 or 4) blocks — a /16, /15 or /14 — when the next free block's
   * neighbours are free too; otherwise a single /16. Returns the start and the prefix obtained.
   */
  takeBlocks(count: 1 | 2 | 4): { start: number; prefix: number } {
    while (this.next < this.order.length && this.used[this.order[this.next]]) this.next++;
    if (this.next >= this.order.length) {
      throw new AddressSpaceExhausted('the generator ran out of public IPv4 space: too many companies for its address plan');
    }
    const b = this.order[this.next++];
    if (count > 1) {
      const base = b - (b % count);
      let ok = true;
      for (let k = base; k < base + count; k++) if (!this.usable[k] || this.used[k]) ok = false;
      if (ok) {
        for (let k = base; k < base + count; k++) this.used[k] = 1;
        return { start: base * BLOCK_SIZE, prefix: 16 - Math.log2(count) };
      }
    }
    this.used[b] = 1;
    return { start: b * BLOCK_SIZE, prefix: 16 };
  }
}

/**
 * Carves aligned networks out of /16 blocks taken from the space as needed. Several blocks are open at once
 * and each allocation picks one at random, so consecutive companies do not sit in consecutive addresses.
 */
export class Pool {
  private readonly cursor: number[];
  private readonly end: number[];

  constructor(
    private readonly space: Ipv4Space,
    private readonly rng: Rng,
    /** Chance of leaving a small unused hole after an allocation (real allocations are not packed). */
    private readonly gapChance: number,
    slots = 1,
  ) {
    this.cursor = new Array(slots).fill(0);
    this.end = new Array(slots).fill(0);
  }

  /** Start address of a fresh network of the given prefix (16–32). */
  alloc(prefix: number): number {
    if (prefix < 16 || prefix > 32) throw new Error(`pool prefix out of range: /${prefix}`);
    if (prefix === 16) return this.space.takeBlock();
    const size = sizeOf(prefix);
    const k = this.cursor.length === 1 ? 0 : this.rng.int(0, this.cursor.length - 1);
    for (;;) {
      const start = Math.ceil(this.cursor[k] / size) * size;
      if (this.end[k] > 0 && start + size <= this.end[k]) {
        this.cursor[k] = start + size;
        if (this.rng.chance(this.gapChance)) this.cursor[k] += this.rng.int(1, 8) * 32;
        return start;
      }
      this.cursor[k] = this.space.takeBlock();
      this.end[k] = this.cursor[k] + BLOCK_SIZE;
    }
  }
}

/**
 * A network that other, more specific networks are deliberately placed in (an ISP's block, a hosting
 * provider's range, a company's /22). Nested networks go into a middle part of it only, so the container
 * keeps answering for itself at its first and last addresses and elsewhere.
 */
export class Container {
  private cursor: number;
  readonly limit: number;

  constructor(
    readonly start: number,
    readonly prefix: number,
    /** The part of the container nested networks may use, as fractions of its size: [from, to). */
    from: number,
    to: number,
  ) {
    this.cursor = start + Math.floor(sizeOf(prefix) * from);
    this.limit = start + Math.floor(sizeOf(prefix) * to);
  }

  get end(): number {
    return this.start + sizeOf(this.prefix);
  }

  /** Start of an aligned nested network, or null when the container's share is used up. */
  carve(prefix: number, rng: Rng): number | null {
    if (prefix <= this.prefix) return null;
    const size = sizeOf(prefix);
    const start = Math.ceil(this.cursor / size) * size;
    if (start + size > this.limit) return null;
    this.cursor = start + size;
    if (rng.chance(0.3)) this.cursor += rng.int(1, 4) * Math.min(size, 64);
    return start;
  }
}

/**
 * An inclusive range inside the aligned chunk [start, start + size): not aligned in general
 * (`a.b.c.10-a.b.c.99`), never the chunk's first or last address.
 */
export function rangeInside(start: number, size: number, rng: Rng): [number, number] {
  const first = start + rng.int(1, Math.max(1, size / 4));
  const length = rng.int(Math.max(2, size / 16), Math.max(2, size / 2));
  return [first, Math.min(first + length - 1, start + size - 2)];
}
