/**
 * MaxMind DB (.mmdb) writer.
 *
 * Why hand-written: no JavaScript MMDB writer exists on npm (the `maxmind` package only reads), and
 * MaxMind's reference writer is a Go library (`mmdbwriter`) that needs several GB of memory for the
 * millions of networks we build. This writer follows the MaxMind DB spec v2.0
 * (../../../shared/reference/maxmind-db/MaxMind-DB-spec.md) and is checked against MaxMind's own
 * test databases and against libmaxminddb's `mmdblookup` (see the *.test.ts files beside it).
 *
 * Shape of a build:
 *   insert(): parse the network (./network.ts), encode + deduplicate the value (./data-section.ts),
 *             append one row to typed-array columns (./overlap.ts). Nothing else happens per insert.
 *   toBuffer(): resolve overlaps — MOST SPECIFIC NETWORK WINS, independent of insertion order; equal
 *             size → later insertion wins (rule and algorithm documented in ./overlap.ts) — into
 *             disjoint runs, split runs into CIDRs in a typed-array tree (./search-tree.ts), add the
 *             IPv4 aliases, number nodes depth-first, write the referenced data records once each (with
 *             pointers for repeated sub-values), pick the smallest record size that fits (24/28/32),
 *             append the metadata (./metadata.ts).
 *
 * Scale (measured on the shared 2-core dev machine, under load from other work): 1 million random
 * /24–/32 IPv4 networks insert + build + atomic write in ≈ 4–7 s at ≈ 0.4 GB peak RSS; 5 million in
 * ≈ 27–37 s at ≈ 1.2 GB peak RSS (30 M tree nodes, 28-bit records, 234 MB file). networks.mmdb of the
 * 1M-company sources (5.1 M networks, 3.4 M distinct records), CSV reading and validation included:
 * 27.6 s, 29.1 s CPU at load average ≈ 5 (`npm run bench -- build`); 57 s, 49 s CPU before records and
 * the pointer dictionary moved from Maps of strings to byte tables (./byte-table.ts). 1 million IPv4 +
 * 1 million IPv6 networks (/29–/64) in one IPv6 tree: ≈ 38 s on the same loaded machine, where the 1
 * million IPv4 networks alone took ≈ 19 s (`npm run bench -- lookup --ipv6 1000000`; IPv6 text through
 * `ip-address` is ≈ 3 µs a network of that).
 *
 * IPv6 trees store IPv4 networks in ::/96, as MaxMind's files do (MaxMind-DB-test-mixed-*.mmdb). With
 * `ipv4Aliases` (default for IPv6 trees) ::ffff:0:0/96 (IPv4-mapped) and 2002::/16 (6to4) point at that
 * IPv4 subtree, so those addresses answer like their IPv4 address. A network inside ::ffff:0:0/96 is
 * stored as its IPv4 network (also in IPv4 trees); a network inside 2002::/16 is refused (it could never
 * be found); a wider network that covers an alias keeps everything but the aliased part. (MaxMind's
 * writer also aliases Teredo 2001::/32 — its mixed test files answer 2001:0:a.b.c.d:: like a.b.c.d —
 * but those 32 bits are the Teredo *server*, the client's address is XOR'd into the last 32 bits, which
 * a tree alias cannot express: a Teredo visitor would be identified as the relay's owner. We do not.)
 *
 * IPv4 networks (and the part inside ::/96 of IPv6 ones) are kept in a table of their own, one number per
 * address, whatever the tree: sorting and splitting them stays the IPv4 code (radix sort, walks from the
 * shared path below the IPv4 root), so an IPv6 tree of mostly IPv4 networks builds about as fast as an
 * IPv4 tree. `ipVersion: 'auto'` writes an IPv4 tree unless an IPv6 network outside ::/96 was inserted.
 */
import { z } from 'zod';
import { DATA_SECTION_SEPARATOR_SIZE, type RecordSize, searchTreeSize } from '../../core/mmdb-format.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { assembleDataSection, ValueStore } from './data-section.ts';
import { MmdbValueError } from './encoder.ts';
import { encodeMetadata } from './metadata.ts';
import { networkError, type ParsedNetwork, parseNetwork } from './network.ts';
import { NetworkTable, resolveOverlaps } from './overlap.ts';
import { BuildTree, chooseRecordSize, layoutTree, recordSizeFits, writeTree } from './search-tree.ts';
import { type MmdbStorable, UINT64_MAX } from './value.ts';

export const MmdbWriterOptions = z
  .object({
    /**
     * 4: IPv4-only tree (32 levels); 6: IPv6 tree (128 levels) that also holds IPv4 in ::/96; 'auto': 6
     * once an IPv6 network outside ::/96 (and, with aliases, outside ::ffff:0:0/96) is inserted, else 4.
     */
    ipVersion: z.union([z.literal(4), z.literal(6), z.literal('auto')]),
    /** Structure of the records, free text (names starting with "GeoIP" are MaxMind's). */
    databaseType: z.string().min(1),
    /** Language code → description. Always written (libmaxminddb needs the key). */
    description: z.record(z.string(), z.string()).readonly(),
    /** Locale codes used in records. Always written (libmaxminddb needs the key). */
    languages: z.array(z.string()).readonly(),
    /** Force a record size; default: the smallest of 24/28/32 that fits. */
    recordSize: z.union([z.literal(24), z.literal(28), z.literal(32)]).optional(),
    /** IPv6 trees only: alias ::ffff:0:0/96 and 2002::/16 to the IPv4 subtree. Default true (also for 'auto'). */
    ipv4Aliases: z.boolean().optional(),
    /**
     * About how many networks will be inserted: the tables are sized for them at once. Only a hint (they
     * still grow), but worth giving for millions: growing copies each table into fresh memory, and
     * touching fresh memory is what a large build spends much of its time on (page faults).
     */
    expectedNetworks: z.number().int().nonnegative().optional(),
    /** Build time in Unix seconds (uint64); default: now. */
    buildEpoch: z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.bigint().nonnegative().max(UINT64_MAX)]).optional(),
  })
  .strict()
  .refine((o) => !(o.ipVersion === 4 && o.ipv4Aliases === true), {
    message: 'ipv4Aliases applies to IPv6 trees only (ipVersion 6)',
    path: ['ipv4Aliases'],
  });
export type MmdbWriterOptions = z.input<typeof MmdbWriterOptions>;

const MAPPED_START = 0xffffn << 32n; // ::ffff:0:0
const MAPPED_END = MAPPED_START + 0xffff_ffffn;
const V4_END = 0xffff_ffffn; // ::255.255.255.255, the end of ::/96
const SIX_TO_FOUR_START = 0x2002n << 112n; // 2002::
const SIX_TO_FOUR_END = SIX_TO_FOUR_START + (1n << 112n) - 1n;

/** Where one network goes: its ::/96 (or IPv4) part [v4Start, v4End] (v4Start -1: none), and whether it goes to the IPv6 table. */
interface Placement {
  net: ParsedNetwork | null;
  v4Start: number;
  v4End: number;
  /** Size the overlap rule counts for the IPv4 part when it is part of a wider IPv6 network, else 0. */
  v4Size: number;
  v6: boolean;
}

/** The most networks expectedNetworks sizes the tables for (≈ 4 GB of tables and arena reserved). */
const MAX_EXPECTED_NETWORKS = 2 ** 25;

export class MmdbWriter {
  private readonly options: z.output<typeof MmdbWriterOptions>;
  /** IPv4 networks, and the ::/96 part of IPv6 ones (placed in ::/96 of an IPv6 tree). */
  private readonly v4: NetworkTable;
  /** IPv6 networks outside ::/96 (whole, also when a range starts inside it). */
  private readonly v6: NetworkTable;
  private readonly values: ValueStore;
  /** Reused by every insert: where the network goes (no object per insert). */
  private readonly placement: Placement = { net: null, v4Start: -1, v4End: -1, v4Size: 0, v6: false };

  constructor(options: MmdbWriterOptions) {
    const parsed = MmdbWriterOptions.safeParse(options);
    if (!parsed.success) throw new Error(`Invalid MmdbWriter options: ${z.prettifyError(parsed.error)}`);
    this.options = parsed.data;
    // Capped: a wild hint must not reserve more than a real build could use.
    const expected = Math.min(this.options.expectedNetworks ?? 0, MAX_EXPECTED_NETWORKS);
    // Capacity that is never written costs no memory (untouched pages), so the hint may be generous.
    this.v4 = new NetworkTable(1, Math.max(1024, expected));
    this.v6 = new NetworkTable(5, Math.max(1024, Math.ceil(expected / 8)));
    this.values = new ValueStore(expected);
  }

  /** The tree written: the option, or for 'auto' 6 once an IPv6 network outside ::/96 was inserted. */
  get ipVersion(): 4 | 6 {
    const v = this.options.ipVersion;
    return v === 'auto' ? (this.v6.count > 0 ? 6 : 4) : v;
  }

  /** True when the tree written is IPv6 with the IPv4 aliases. */
  get ipv4Aliases(): boolean {
    return this.ipVersion === 6 && this.options.ipv4Aliases !== false;
  }

  /** Number of insert() calls so far (an IPv6 range that starts inside ::/96 counts twice). */
  get networkCount(): number {
    return this.v4.count + this.v6.count;
  }

  /** Number of distinct data records inserted so far. */
  get distinctValueCount(): number {
    return this.values.size;
  }

  /**
   * Adds `value` for `network`: a CIDR (`203.0.113.0/24`, `2001:db8::/32`), an inclusive range
   * (`203.0.113.10-203.0.113.99`) or one address. Overlaps: the most specific network wins (fewest
   * addresses; a range counts as a whole); equal size → the later insert wins. Throws an Error naming
   * the network for bad input; nothing is added then.
   */
  insert<T>(network: string, value: T & MmdbStorable<T>): void {
    const net = this.place(network);
    let id: number;
    try {
      id = this.values.intern(value);
    } catch (e) {
      if (e instanceof MmdbValueError) throw new Error(`Invalid value for network ${JSON.stringify(network)}: ${e.message}`);
      throw e;
    }
    this.add(net, id);
  }

  /**
   * insert() for a value given as its canonical encoding, `encoding[0, length)` (what encodeValue
   * writes, ./encoder.ts): for callers with millions of records of one shape, which encode them
   * directly instead of building an object per record for encodeValue to walk.
   */
  insertEncoded(network: string, encoding: Buffer, length: number): void {
    const net = this.place(network);
    this.add(net, this.values.internEncoded(encoding, length));
  }

  /** Parses `network` and decides where it goes (the tables add() fills); throws for bad input. */
  private place(network: string): Placement {
    const net = parseNetwork(network);
    const fixed = this.options.ipVersion;
    // The aliases decide before the tree's version is known ('auto'): they are on unless switched off.
    const aliases = fixed !== 4 && this.options.ipv4Aliases !== false;
    const p = this.placement;
    p.v4Start = -1;
    p.v4End = -1;
    p.v4Size = 0;
    p.v6 = false;
    p.net = net;
    if (net.family === 4) {
      p.v4Start = net.start;
      p.v4End = net.end;
    } else if (net.start >= MAPPED_START && net.end <= MAPPED_END && (fixed === 4 || aliases)) {
      p.v4Start = Number(net.start - MAPPED_START);
      p.v4End = Number(net.end - MAPPED_START);
    } else if (fixed === 4) {
      throw networkError(network, 'an IPv6 network cannot be stored in an IPv4 database (ipVersion 4)');
    } else if (aliases && net.start >= SIX_TO_FOUR_START && net.end <= SIX_TO_FOUR_END) {
      throw networkError(
        network,
        'it lies in 2002::/16, which this database aliases to the IPv4 space (6to4); insert the IPv4 network, or set ipv4Aliases: false',
      );
    } else {
      // Its part inside ::/96 competes with the IPv4 networks, with the size of the whole network.
      if (net.start <= V4_END) {
        p.v4Start = Number(net.start);
        p.v4End = Number(net.end < V4_END ? net.end : V4_END);
        p.v4Size = Number(net.end - net.start + 1n);
      }
      p.v6 = net.end > V4_END;
    }
    return p;
  }

  private add(p: Placement, id: number): void {
    if (p.v4Start >= 0) this.v4.addV4(p.v4Start, p.v4End, id, p.v4Size || p.v4End + 1 - p.v4Start);
    if (p.v6) this.v6.addV6((p.net as { start: bigint }).start, (p.net as { end: bigint }).end, id);
  }

  /** Builds the database file in memory. The writer stays usable (more inserts, another build). */
  toBuffer(): Buffer {
    const v6 = this.ipVersion === 6;
    // ≈ 6 nodes a network at millions of networks: room for 8 from the start spares the copies of growing.
    const tree = new BuildTree(v6 ? 128 : 32, Math.max(64, this.networkCount * 8));
    if (v6) {
      // IPv6 first: a wide IPv6 network that covers ::/96 is pushed down below the IPv4 root, where
      // the IPv4 runs (which hold its ::/96 part with its own size) overwrite it.
      resolveOverlaps(this.v6, (bounds, start, end, id) => tree.insertRun(bounds, start, end, id));
      if (this.v4.count > 0 || this.ipv4Aliases) tree.enterIpv4Subtree();
    }
    resolveOverlaps(this.v4, (bounds, start, end, id) => tree.insertV4Run(bounds[start], bounds[end], id));
    if (this.ipv4Aliases) tree.addIpv4Aliases();

    const layout = layoutTree(tree, this.values.size);
    const data = assembleDataSection(this.values, layout.dataOrder, layout.dataCount);
    const dataSize = data.bytes.length;

    let recordSize: RecordSize;
    if (this.options.recordSize !== undefined) {
      recordSize = this.options.recordSize;
      if (!recordSizeFits(recordSize, layout.nodeCount, dataSize)) {
        throw new Error(
          `recordSize ${recordSize} is too small for ${layout.nodeCount} nodes and ${dataSize} data bytes ` +
            `(would need ${chooseRecordSize(layout.nodeCount, dataSize)})`,
        );
      }
    } else {
      recordSize = chooseRecordSize(layout.nodeCount, dataSize);
    }

    const metadata = encodeMetadata({
      nodeCount: layout.nodeCount,
      recordSize,
      ipVersion: this.ipVersion,
      databaseType: this.options.databaseType,
      description: this.options.description,
      languages: this.options.languages,
      buildEpoch: BigInt(this.options.buildEpoch ?? Math.floor(Date.now() / 1000)),
    });

    const treeSize = searchTreeSize(layout.nodeCount, recordSize);
    const dataStart = treeSize + DATA_SECTION_SEPARATOR_SIZE;
    const out = Buffer.allocUnsafe(dataStart + dataSize + metadata.length);
    writeTree(out, tree, layout, data.offsets, recordSize);
    out.fill(0, treeSize, dataStart);
    out.set(data.bytes, dataStart);
    out.set(metadata, dataStart + dataSize);
    return out;
  }

  /** Builds the database and replaces `path` atomically (temp file, fsync, rename). */
  async writeFile(path: string): Promise<void> {
    await writeFileAtomic(path, this.toBuffer());
  }
}
