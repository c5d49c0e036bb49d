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
 * the pointer dictionary moved from Maps of strings to byte tables (./byte-table.ts).
 *
 * IPv6 trees store IPv4 networks in ::/96. With `ipv4Aliases` (default for IPv6 trees) ::ffff:0:0/96
 * (IPv4-mapped) and 2002::/16 (6to4) point at that IPv4 subtree, so those addresses answer like their
 * IPv4 address. A network inside ::ffff:0:0/96 is stored as its IPv4 network (also in IPv4 trees); a
 * network inside 2002::/16 is refused (it could never be found); a wider network that covers an alias
 * keeps everything but the aliased part. (MaxMind's writer also aliases Teredo 2001::/32; the spec
 * explains a tree alias cannot express Teredo's XOR'd address, so we do not.)
 */
import { z } from 'zod';
import { DATA_SECTION_SEPARATOR_SIZE, type RecordSize, searchTreeSize } from '../../core/mmdb-format.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { assembleDataSection, ValueStore } from './data-section.ts';
import { MmdbValueError } from './encoder.ts';
import { encodeMetadata } from './metadata.ts';
import { networkError, parseNetwork } from './network.ts';
import { NetworkTable, resolveOverlaps } from './overlap.ts';
import { BuildTree, chooseRecordSize, layoutTree, recordSizeFits, writeTree } from './search-tree.ts';
import { type MmdbStorable, UINT64_MAX } from './value.ts';

export const MmdbWriterOptions = z
  .object({
    /** 4: IPv4-only tree (32 levels); 6: IPv6 tree (128 levels) that also holds IPv4 in ::/96. */
    ipVersion: z.union([z.literal(4), z.literal(6)]),
    /** Structure of the records, free text (names starting with "GeoIP" are MaxMind's). */
    databaseType: z.string().min(1),
    /** Language code → description. Always written (libmaxminddb needs the key). */
    description: z.record(z.string(), z.string()).readonly(),
    /** Locale codes used in records. Always written (libmaxminddb needs the key). */
    languages: z.array(z.string()).readonly(),
    /** Force a record size; default: the smallest of 24/28/32 that fits. */
    recordSize: z.union([z.literal(24), z.literal(28), z.literal(32)]).optional(),
    /** IPv6 trees only: alias ::ffff:0:0/96 and 2002::/16 to the IPv4 subtree. Default true. */
    ipv4Aliases: z.boolean().optional(),
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
const SIX_TO_FOUR_START = 0x2002n << 112n; // 2002::
const SIX_TO_FOUR_END = SIX_TO_FOUR_START + (1n << 112n) - 1n;

export class MmdbWriter {
  readonly ipVersion: 4 | 6;
  readonly ipv4Aliases: boolean;
  private readonly options: z.output<typeof MmdbWriterOptions>;
  private readonly table: NetworkTable;
  private readonly values = new ValueStore();

  constructor(options: MmdbWriterOptions) {
    const parsed = MmdbWriterOptions.safeParse(options);
    if (!parsed.success) throw new Error(`Invalid MmdbWriter options: ${z.prettifyError(parsed.error)}`);
    this.options = parsed.data;
    this.ipVersion = parsed.data.ipVersion;
    this.ipv4Aliases = this.ipVersion === 6 && parsed.data.ipv4Aliases !== false;
    this.table = new NetworkTable(this.ipVersion === 4 ? 1 : 5);
  }

  /** Number of insert() calls so far. */
  get networkCount(): number {
    return this.table.count;
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
    const net = parseNetwork(network);
    let v4Start = -1;
    let v4End = -1;
    if (net.family === 4) {
      v4Start = net.start;
      v4End = net.end;
    } else if (net.start >= MAPPED_START && net.end <= MAPPED_END && (this.ipVersion === 4 || this.ipv4Aliases)) {
      v4Start = Number(net.start - MAPPED_START);
      v4End = Number(net.end - MAPPED_START);
    } else if (this.ipVersion === 4) {
      throw networkError(network, 'an IPv6 network cannot be stored in an IPv4 database (ipVersion 4)');
    } else if (this.ipv4Aliases && net.start >= SIX_TO_FOUR_START && net.end <= SIX_TO_FOUR_END) {
      throw networkError(
        network,
        'it lies in 2002::/16, which this database aliases to the IPv4 space (6to4); insert the IPv4 network, or set ipv4Aliases: false',
      );
    }

    let id: number;
    try {
      id = this.values.intern(value);
    } catch (e) {
      if (e instanceof MmdbValueError) throw new Error(`Invalid value for network ${JSON.stringify(network)}: ${e.message}`);
      throw e;
    }

    if (v4Start >= 0) {
      if (this.ipVersion === 4) this.table.addV4(v4Start, v4End, id);
      else this.table.addV4InV6(v4Start, v4End, id);
    } else if (net.family === 6) {
      this.table.addV6(net.start, net.end, id);
    }
  }

  /** Builds the database file in memory. The writer stays usable (more inserts, another build). */
  toBuffer(): Buffer {
    const v6 = this.ipVersion === 6;
    const tree = new BuildTree(v6 ? 128 : 32, Math.max(64, this.table.count * 2));
    resolveOverlaps(this.table, (bounds, start, end, id) => tree.insertRun(bounds, start, end, id));
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
