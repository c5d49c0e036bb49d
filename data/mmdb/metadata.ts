/**
 * The metadata section: "\xab\xcd\xefMaxMind.com" followed by one map, every key with exactly the type
 * the spec gives it (libmaxminddb rejects other integer types). `description` and `languages` are
 * always written: the libmaxminddb shipped here refuses files without them. No pointers are used.
 */
import { ByteSink, encodeValue } from './encoder.ts';
import type { RecordSize } from './search-tree.ts';
import { type MmdbValue, mmdb } from './value.ts';

export const METADATA_START_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'); // \xab\xcd\xefMaxMind.com
export const METADATA_MAX_SIZE = 128 * 1024;

export interface MetadataFields {
  nodeCount: number;
  recordSize: RecordSize;
  ipVersion: 4 | 6;
  databaseType: string;
  description: Readonly<Record<string, string>>;
  languages: readonly string[];
  buildEpoch: bigint;
}

export function encodeMetadata(m: MetadataFields): Buffer {
  const description: Record<string, MmdbValue> = {};
  for (const [lang, text] of Object.entries(m.description)) description[lang] = mmdb.string(text);
  const map: Record<string, MmdbValue> = {
    binary_format_major_version: mmdb.uint16(2),
    binary_format_minor_version: mmdb.uint16(0),
    build_epoch: mmdb.uint64(m.buildEpoch),
    database_type: mmdb.string(m.databaseType),
    description,
    ip_version: mmdb.uint16(m.ipVersion),
    languages: m.languages.map((l) => mmdb.string(l)),
    node_count: mmdb.uint32(m.nodeCount),
    record_size: mmdb.uint16(m.recordSize),
  };
  const sink = new ByteSink(512);
  sink.bytes(METADATA_START_MARKER);
  encodeValue(sink, map);
  if (sink.len > METADATA_MAX_SIZE) {
    throw new Error(`metadata is ${sink.len} bytes, more than the 128 KiB the format allows (shorten description)`);
  }
  return sink.toBuffer();
}
