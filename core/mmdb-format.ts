/**
 * The MaxMind DB format (spec v2.0: ../../shared/reference/maxmind-db/MaxMind-DB-spec.md), the part
 * that both our writer (data/mmdb/) and our reader (server/data/mmdb/reader.ts) rely on: the numbers of
 * the control byte, the pointer bases, the section layout (search tree, 16-byte separator, data section,
 * metadata marker), the record sizes, and the names of the metadata map's keys. One copy, so a writer and
 * a reader can never disagree on the format.
 *
 * In the neutral core: no imports, no Node built-ins (the marker is a Uint8Array, which Buffer methods
 * take as they take a Buffer).
 */

/**
 * Data field types (spec "Output Data Section"): the top three bits of the control byte, or, for types
 * above 7 (EXTENDED_TYPE), 0 there and `type - EXTENDED_TYPE` in the byte after it.
 */
export const FIELD_TYPE = {
  pointer: 1,
  utf8_string: 2,
  double: 3,
  bytes: 4,
  uint16: 5,
  uint32: 6,
  map: 7,
  int32: 8,
  uint64: 9,
  uint128: 10,
  array: 11,
  boolean: 14,
  float: 15,
} as const;
export type FieldTypeName = keyof typeof FIELD_TYPE;

/** Types above this one are "extended": the control byte says 0 and the next byte holds `type - EXTENDED_TYPE`. */
export const EXTENDED_TYPE = 7;

/**
 * Payload size in the control byte's low five bits: below 29 the size itself; 29, 30 and 31 mean this
 * base plus the next one, two or three bytes (big-endian).
 */
export const SIZE_BASE_1 = 29;
export const SIZE_BASE_2 = 285;
export const SIZE_BASE_3 = 65_821;
/** Largest payload size / map or array length a control byte can express (spec: 16,843,036). */
export const MAX_FIELD_SIZE = SIZE_BASE_3 + 0xff_ffff;

/**
 * Pointers (`001SSVVV`): the offset, relative to the data section, is the packed value plus this base
 * for SS = 0, 1, 2; SS = 3 is a plain 32-bit offset. A pointer of SS = 1 or 2 therefore reaches from
 * 2,048 and from 526,336, and one of SS = 2 up to 134,744,063.
 */
export const POINTER_BASE = [0, 2048, 526_336, 0] as const;

/** Bits per search-tree record: each node is two records (left, right). */
export type RecordSize = 24 | 28 | 32;
export const RECORD_SIZES: readonly RecordSize[] = [24, 28, 32];

/** Bytes of the search tree: node_count nodes of two records each. */
export const searchTreeSize = (nodeCount: number, recordSize: RecordSize): number => (nodeCount * recordSize) / 4;

/** Zero bytes between the search tree and the data section; a record value of node_count + 16 + n points at data-section offset n. */
export const DATA_SECTION_SEPARATOR_SIZE = 16;

/** Starts the metadata section (the last occurrence in the file): "\xAB\xCD\xEFMaxMind.com". */
export const METADATA_START_MARKER: Uint8Array = Uint8Array.of(0xab, 0xcd, 0xef, ...Array.from('MaxMind.com', (c) => c.charCodeAt(0)));
/** The metadata section, marker included, is at most this long (spec: 128 KiB); the writer refuses longer. */
export const METADATA_MAX_SIZE = 128 * 1024;

/** The binary format version written and understood here (`binary_format_major_version` . `minor`). */
export const BINARY_FORMAT_MAJOR_VERSION = 2;
export const BINARY_FORMAT_MINOR_VERSION = 0;

/**
 * The keys of the metadata map (spec "Database Metadata") by the names our code gives them. The spec
 * also fixes each key's type (uint16 versions and sizes, uint32 node_count, uint64 build_epoch, …):
 * data/mmdb/metadata.ts writes exactly those.
 */
export const METADATA_KEYS = {
  nodeCount: 'node_count',
  recordSize: 'record_size',
  ipVersion: 'ip_version',
  databaseType: 'database_type',
  languages: 'languages',
  binaryFormatMajorVersion: 'binary_format_major_version',
  binaryFormatMinorVersion: 'binary_format_minor_version',
  buildEpoch: 'build_epoch',
  description: 'description',
} as const;
