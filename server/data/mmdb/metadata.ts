/** The metadata section of an MMDB file (spec "Database Metadata"), found by its marker from the end of the file. */
import { METADATA_KEYS, METADATA_START_MARKER, RECORD_SIZES, type RecordSize, searchTreeSize } from '../../../core/mmdb-format.ts';
import { DataDecoder, MmdbError } from './decoder.ts';

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

export function readMetadata(buf: Buffer): MmdbMetadata {
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
