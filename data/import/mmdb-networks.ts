/**
 * Every network of a MaxMind DB file with its record, in address order: the IPv4 networks (of an IPv6
 * database: its IPv4 subtree ::/96, as the `maxmind` package reads a dotted quad), and the IPv6 ones apart
 * (bigints), leaving out what is IPv4 in IPv6 (./ipv6.ts `IPV4_IN_IPV6`) and MaxMind's aliases of the
 * IPv4 subtree (Teredo's among them).
 *
 * The `maxmind` package answers lookups only and trusts the file: a record pointing into the data
 * section separator or past the data section fails deep in its decoder (an untyped error, so the CLI
 * printed a stack trace), and a record pointing back into the tree is simply followed, so a looping tree
 * read as networks that are not there. So the search tree is ours to check and walk (MaxMind-DB-spec.md,
 * "Search Tree Section"): every record when the file is opened, then a depth-first walk that yields each
 * network once. The package still decodes the records.
 */
import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { DATA_SECTION_SEPARATOR_SIZE, METADATA_START_MARKER } from '../../core/mmdb-format.ts';
import { ImportError } from './errors.ts';
import { formatIPv4 } from './ipv4.ts';
import { formatIPv6, insideIpv4, outsideIpv4 } from './ipv6.ts';

export interface MmdbNetwork<T> {
  first: number;
  last: number;
  record: T;
}

export interface MmdbNetwork6<T> {
  first: bigint;
  last: bigint;
  record: T;
}

/** An opened database: the package's reader, and what the tree walk needs. */
export interface MmdbFile<T> {
  reader: Reader<T & object>;
  db: Buffer;
  /** Name of the file and the flag it came with, for errors. */
  file: string;
  flag: string;
  nodeCount: number;
  recordSize: number;
  /** Bytes of the data section (between the separator and the metadata marker). */
  dataSize: number;
  ipVersion: number;
}

export function openMmdb<T>(file: string, expected: RegExp, flag: string): MmdbFile<T> {
  let reader: Reader<T & object>;
  let db: Buffer;
  try {
    db = readFileSync(file);
    reader = new Reader<T & object>(db);
  } catch (e) {
    throw new ImportError(`${flag} ${file}: not a readable MaxMind DB file (${(e as Error).message})`);
  }
  const { nodeCount, recordSize, ipVersion, searchTreeSize } = reader.metadata;
  const broken = (why: string): never => {
    throw new ImportError(`${flag} ${file}: broken MaxMind DB file: ${why}`);
  };
  if (!Number.isSafeInteger(nodeCount) || nodeCount < 1) broken(`node_count ${nodeCount} in the metadata is not a positive integer`);
  if (ipVersion !== 4 && ipVersion !== 6) broken(`ip_version ${ipVersion} in the metadata is neither 4 nor 6`);
  const metadataStart = db.lastIndexOf(METADATA_START_MARKER);
  const dataSize = metadataStart - searchTreeSize - DATA_SECTION_SEPARATOR_SIZE;
  if (dataSize < 0)
    broken(`node_count ${nodeCount} makes the search tree (${searchTreeSize} bytes) larger than the file before its metadata (${metadataStart} bytes)`);
  const mmdb: MmdbFile<T> = { reader, db, file, flag, nodeCount, recordSize, dataSize, ipVersion };
  checkRecords(mmdb);
  const type = reader.metadata.databaseType;
  if (!expected.test(type)) throw new ImportError(`${flag} ${file}: database type "${type}" is not what ${flag} takes (${expected.source})`);
  return mmdb;
}

/** Record `side` (0 left, 1 right) of `node`, for the three record sizes of the spec. */
function record(m: MmdbFile<unknown>, node: number, side: number): number {
  const db = m.db;
  switch (m.recordSize) {
    case 24:
      return db.readUIntBE(node * 6 + side * 3, 3);
    case 28: {
      const o = node * 7;
      return side === 0 ? (db[o + 3] & 0xf0) * 0x100000 + db.readUIntBE(o, 3) : (db[o + 3] & 0x0f) * 0x1000000 + db.readUIntBE(o + 4, 3);
    }
    default:
      return db.readUInt32BE(node * 8 + side * 4);
  }
}

/**
 * Every record of the tree, reachable or not, so a broken file is refused before any work. Node 0 is the
 * root: no record may lead back to it. A value above node_count is a data pointer and must land inside
 * the data section, past the 16-byte separator.
 */
function checkRecords(m: MmdbFile<unknown>): void {
  const { nodeCount, dataSize } = m;
  for (let node = 0; node < nodeCount; node++) {
    for (let side = 0; side < 2; side++) {
      const value = record(m, node, side);
      const where = `node ${node} ${side === 0 ? 'left' : 'right'} record (${value})`;
      if (value === 0) throw new ImportError(`${m.flag} ${m.file}: broken search tree: ${where} points back to the root node (a loop)`);
      if (value > nodeCount && value < nodeCount + DATA_SECTION_SEPARATOR_SIZE)
        throw new ImportError(`${m.flag} ${m.file}: broken pointer: ${where} points into the data section separator`);
      if (value >= nodeCount + DATA_SECTION_SEPARATOR_SIZE + dataSize) {
        throw new ImportError(
          `${m.flag} ${m.file}: broken pointer: ${where} points past the end of the data section (${dataSize} bytes, node_count ${nodeCount})`,
        );
      }
    }
  }
}

/** The record of a network (`at`: an address inside it), checked to be a map. */
function decodeAt<T>(m: MmdbFile<T>, at: string, net: string, value: number): T {
  const { nodeCount, flag, file } = m;
  let rec: unknown;
  try {
    rec = m.reader.get(at);
  } catch (e) {
    throw new ImportError(
      `${flag} ${file}: broken data section: the record of ${net} (data offset ${value - nodeCount - DATA_SECTION_SEPARATOR_SIZE}) does not decode: ${(e as Error).message}`,
    );
  }
  // Every GeoIP2/GeoLite2 record is a map; anything else is not their data, or a pointer into the
  // middle of other data.
  if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
    const what = rec === null ? 'null' : Array.isArray(rec) ? 'an array' : `a ${typeof rec}`;
    throw new ImportError(
      `${flag} ${file}: the record of ${net} (data offset ${value - nodeCount - DATA_SECTION_SEPARATOR_SIZE}) is ${what}, where GeoIP2/GeoLite2 records are maps`,
    );
  }
  return rec as T;
}

/** The node (or record value) of the IPv4 subtree of an IPv6 database: 96 left turns from the root. */
function ipv4Root(m: MmdbFile<unknown>): number {
  let start = 0;
  for (let depth = 0; depth < 96 && start < m.nodeCount; depth++) start = record(m, start, 0);
  return start;
}

export function* ipv4Networks<T>(m: MmdbFile<T>): Generator<MmdbNetwork<T>> {
  const { nodeCount, flag, file } = m;
  const decode = (first: number, last: number, value: number): T => decodeAt(m, formatIPv4(first), `${formatIPv4(first)}–${formatIPv4(last)}`, value);

  const start = m.ipVersion === 6 ? ipv4Root(m) : 0;
  // Depth-first, left before right: (record value, prefix length, first address) triples.
  const stack: number[] = [start, 0, 0];
  while (stack.length > 0) {
    const first = stack.pop()!;
    const depth = stack.pop()!;
    const value = stack.pop()!;
    if (value === nodeCount) continue; // no data for this network
    const size = 2 ** (32 - depth);
    if (value > nodeCount) {
      yield { first, last: first + size - 1, record: decode(first, first + size - 1, value) };
      continue;
    }
    // A node below a /32 means a path longer than the address: the tree loops.
    if (depth === 32)
      throw new ImportError(`${flag} ${file}: broken search tree: the path to ${formatIPv4(first)} goes on past 32 bits at node ${value} (a loop)`);
    stack.push(record(m, value, 1), depth + 1, first + size / 2);
    stack.push(record(m, value, 0), depth + 1, first);
  }
}

/** Every IPv6 network of an IPv6 database (none of an IPv4 one), depth-first in address order. */
export function* ipv6Networks<T>(m: MmdbFile<T>): Generator<MmdbNetwork6<T>> {
  if (m.ipVersion !== 6) return;
  const { nodeCount, flag, file } = m;
  const v4 = ipv4Root(m);
  // (record value, prefix length, first address); the root is node 0.
  const stack: [number, number, bigint][] = [[0, 0, 0n]];
  while (stack.length > 0) {
    const [value, depth, first] = stack.pop()!;
    if (value === nodeCount) continue; // no data for this network
    const last = first + (1n << BigInt(128 - depth)) - 1n;
    // IPv4's own subtree and MaxMind's aliases of it (::ffff:0:0/96, 2002::/16, Teredo 2001::/32 …).
    if (insideIpv4(first, last) || (depth > 0 && value === v4 && v4 < nodeCount)) continue;
    if (value > nodeCount) {
      // A wide network can hold an IPv4 block (::/64 holds ::/96): only its IPv6 pieces are IPv6 networks.
      for (const [a, b] of outsideIpv4(first, last))
        yield { first: a, last: b, record: decodeAt(m, formatIPv6(a), `${formatIPv6(a)}–${formatIPv6(b)}`, value) };
      continue;
    }
    if (depth === 128)
      throw new ImportError(`${flag} ${file}: broken search tree: the path to ${formatIPv6(first)} goes on past 128 bits at node ${value} (a loop)`);
    stack.push([record(m, value, 1), depth + 1, first + (1n << BigInt(127 - depth))]);
    stack.push([record(m, value, 0), depth + 1, first]);
  }
}
