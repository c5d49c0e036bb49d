/** Public API of our MaxMind DB writer (see ./writer.ts for the why and the how). */

export type { RecordSize } from '../../core/mmdb-format.ts';
export { writeFileAtomic } from './atomic-file.ts';
export { chooseRecordSize } from './search-tree.ts';
export { MMDB_TYPE, type MmdbMap, type MmdbStorable, type MmdbTypedValue, type MmdbTypeName, type MmdbValue, mmdb } from './value.ts';
export { MmdbWriter, MmdbWriterOptions } from './writer.ts';
