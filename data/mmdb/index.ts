/** Public API of our MaxMind DB writer (see ./writer.ts for the why and the how). */
export { MmdbWriter, MmdbWriterOptions } from './writer.ts';
export { mmdb, MMDB_TYPE, type MmdbValue, type MmdbMap, type MmdbStorable, type MmdbTypedValue, type MmdbTypeName } from './value.ts';
export { chooseRecordSize, type RecordSize } from './search-tree.ts';
export { writeFileAtomic } from './atomic-file.ts';
