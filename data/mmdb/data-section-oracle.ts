/**
 * TEST ORACLE, not used by the writer: the data-section code as it was before issue 13 (a Map over
 * latin1 strings for records and for the pointer dictionary). ./data-section.test.ts checks that the
 * byte-table implementation in ./data-section.ts writes exactly the same bytes.
 */

import { FIELD_TYPE } from '../../core/mmdb-format.ts';
import { type DataSection, MAX_DISTINCT_VALUES, POINTER_DICTIONARY_LIMIT, pointerSize, readHeader, skipField, writePointer } from './data-section.ts';
import { ByteSink, encodeValue, MmdbValueError } from './encoder.ts';

export class OracleValueStore {
  private readonly ids = new Map<string, number>();
  /** Canonical encodings by id. */
  readonly encodings: string[] = [];
  private readonly scratch = new ByteSink(1024);

  /** Id of `value`, adding it if new. Throws MmdbValueError for values that cannot be stored. */
  intern(value: unknown): number {
    const sink = this.scratch;
    sink.len = 0;
    encodeValue(sink, value);
    const key = sink.buf.toString('latin1', 0, sink.len);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.encodings.length;
      if (id >= MAX_DISTINCT_VALUES) {
        throw new Error(`too many distinct data records (limit ${MAX_DISTINCT_VALUES})`);
      }
      this.ids.set(key, id);
      this.encodings.push(key);
    }
    return id;
  }

  get size(): number {
    return this.encodings.length;
  }
}

/**
 * Writes the values `order` (ids into `store`) and returns the bytes and each id's offset.
 * Pointers are relative to the start of the data section, as the spec requires.
 */
export function oracleAssembleDataSection(
  store: OracleValueStore,
  order: ArrayLike<number>,
  count: number,
  dictionaryLimit = POINTER_DICTIONARY_LIMIT,
): DataSection {
  const out = new ByteSink(1 << 16);
  const dict = new Map<string, number>();
  const offsets = new Uint32Array(store.size);
  let scratch = Buffer.allocUnsafe(1024);

  const emit = (src: Buffer, p: number, end: number, topLevel: boolean): void => {
    const len = end - p;
    if (!topLevel && len > 2) {
      const key = src.toString('latin1', p, end);
      const at = dict.get(key);
      if (at !== undefined) {
        if (pointerSize(at) < len) {
          writePointer(out, at);
          return;
        }
      } else if (dict.size < dictionaryLimit) {
        dict.set(key, out.len);
      }
    }
    const { type, size, payload } = readHeader(src, p);
    if (type === FIELD_TYPE.map || type === FIELD_TYPE.array) {
      out.bytes(src, p, payload);
      const n = type === FIELD_TYPE.map ? size * 2 : size;
      let q = payload;
      for (let i = 0; i < n; i++) {
        const qEnd = skipField(src, q);
        emit(src, q, qEnd, false);
        q = qEnd;
      }
      return;
    }
    out.bytes(src, p, end);
  };

  for (let i = 0; i < count; i++) {
    const id = order[i];
    const enc = store.encodings[id];
    if (enc.length > scratch.length) scratch = Buffer.allocUnsafe(Math.max(enc.length, scratch.length * 2));
    const n = scratch.write(enc, 0, 'latin1');
    if (out.len > 0xffff_ffff) {
      throw new MmdbValueError('data section exceeds 4 GiB, the limit of MMDB pointers', '');
    }
    offsets[id] = out.len;
    emit(scratch, 0, n, true);
  }
  return { bytes: out.buf.subarray(0, out.len), offsets };
}
