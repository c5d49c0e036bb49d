/**
 * The metadata section: "\xab\xcd\xefMaxMind.com" followed by one map, every key with exactly the type
 * the spec gives it (libmaxminddb rejects other integer types). The marker, the keys and the format
 * version come from core/mmdb-format.ts, which our reader reads them by. `description` and `languages`
 * are always written: the libmaxminddb shipped here refuses files without them. No pointers are used.
 */
import {
  BINARY_FORMAT_MAJOR_VERSION,
  BINARY_FORMAT_MINOR_VERSION,
  METADATA_KEYS,
  METADATA_MAX_SIZE,
  METADATA_START_MARKER,
  type RecordSize,
} from '../../core/mmdb-format.ts';
import { ByteSink, encodeValue } from './encoder.ts';
import { type MmdbValue, mmdb } from './value.ts';

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
  const map: Record<(typeof METADATA_KEYS)[keyof typeof METADATA_KEYS], MmdbValue> = {
    [METADATA_KEYS.binaryFormatMajorVersion]: mmdb.uint16(BINARY_FORMAT_MAJOR_VERSION),
    [METADATA_KEYS.binaryFormatMinorVersion]: mmdb.uint16(BINARY_FORMAT_MINOR_VERSION),
    [METADATA_KEYS.buildEpoch]: mmdb.uint64(m.buildEpoch),
    [METADATA_KEYS.databaseType]: mmdb.string(m.databaseType),
    [METADATA_KEYS.description]: description,
    [METADATA_KEYS.ipVersion]: mmdb.uint16(m.ipVersion),
    [METADATA_KEYS.languages]: m.languages.map((l) => mmdb.string(l)),
    [METADATA_KEYS.nodeCount]: mmdb.uint32(m.nodeCount),
    [METADATA_KEYS.recordSize]: mmdb.uint16(m.recordSize),
  };
  const sink = new ByteSink(512);
  sink.bytes(METADATA_START_MARKER);
  encodeValue(sink, map);
  if (sink.len > METADATA_MAX_SIZE) {
    throw new Error(`metadata is ${sink.len} bytes, more than the 128 KiB the format allows (shorten description)`);
  }
  return sink.toBuffer();
}
