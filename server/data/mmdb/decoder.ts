/**
 * Decoder of an MMDB data section (spec "Data Section"): the same values as mmdb-lib's decoder (the
 * `maxmind` package's) but deeply frozen, because the reader shares decoded records between lookups.
 * Byte values (MMDB "bytes") are Buffers over the file and cannot be frozen.
 */
import { EXTENDED_TYPE, FIELD_TYPE, POINTER_BASE, SIZE_BASE_1, SIZE_BASE_2, SIZE_BASE_3 } from '../../../core/mmdb-format.ts';

export class MmdbError extends Error {}

/**
 * Decoder of the data section (spec "Data Section"), giving the same values as mmdb-lib's decoder (the
 * `maxmind` package's) but frozen. Values reached through pointers are cached by their offset.
 */
export class DataDecoder {
  private cursor = 0;
  private readonly ptrKeys: Uint32Array;
  private readonly ptrVals: unknown[];
  private readonly ptrShift: number;

  /** `base`: file offset pointers are relative to (the data section, or the metadata section). */
  constructor(
    private readonly buf: Buffer,
    private readonly base: number,
    cacheBits: number,
  ) {
    this.ptrKeys = new Uint32Array(1 << cacheBits);
    this.ptrVals = new Array(1 << cacheBits).fill(undefined);
    this.ptrShift = 32 - cacheBits;
  }

  /** The value of the field at file offset `offset`. */
  decodeAt(offset: number): unknown {
    if (offset >= this.buf.length) throw new MmdbError(`corrupt MMDB: data offset ${offset} is outside the file`);
    this.cursor = offset;
    return this.decode();
  }

  /** Value at a pointer's target, through the pointer cache (map keys and repeated values live there). */
  private pointed(offset: number): unknown {
    const slot = Math.imul(offset, 0x9e3779b1) >>> this.ptrShift;
    if (this.ptrKeys[slot] === offset + 1) return this.ptrVals[slot];
    if (offset >= this.buf.length) throw new MmdbError(`corrupt MMDB: data pointer ${offset} is outside the file`);
    const saved = this.cursor;
    this.cursor = offset;
    const value = this.decode();
    this.cursor = saved;
    this.ptrKeys[slot] = offset + 1;
    this.ptrVals[slot] = value;
    return value;
  }

  /** Decodes the field at `this.cursor` and advances past it (spec "Data Section"; same results as mmdb-lib's decoder). */
  private decode(): unknown {
    const b = this.buf;
    let p = this.cursor;
    const ctrl = b[p++];
    let type = ctrl >>> 5;
    if (type === FIELD_TYPE.pointer) {
      // Pointer: 001SSVVV; the value is what the target decodes to.
      const ss = (ctrl >>> 3) & 3;
      let packed: number;
      if (ss === 0) packed = ((ctrl & 7) << 8) | b[p];
      else if (ss === 1) packed = ((ctrl & 7) << 16) | (b[p] << 8) | b[p + 1];
      else if (ss === 2) packed = (((ctrl & 7) << 24) | (b[p] << 16) | (b[p + 1] << 8) | b[p + 2]) >>> 0;
      else packed = b.readUInt32BE(p);
      this.cursor = p + ss + 1;
      return this.pointed(this.base + POINTER_BASE[ss] + packed);
    }
    if (type === 0) {
      type = b[p++] + EXTENDED_TYPE;
      if (type <= EXTENDED_TYPE) throw new MmdbError(`corrupt MMDB: invalid extended type at offset ${p - 1}`);
    }
    let size = ctrl & 0x1f;
    if (size >= 29) {
      if (size === 29) size = SIZE_BASE_1 + b[p++];
      else if (size === 30) {
        size = SIZE_BASE_2 + ((b[p] << 8) | b[p + 1]);
        p += 2;
      } else {
        size = SIZE_BASE_3 + ((b[p] << 16) | (b[p + 1] << 8) | b[p + 2]);
        p += 3;
      }
    }
    switch (type) {
      case FIELD_TYPE.utf8_string:
        this.cursor = p + size;
        return b.toString('utf8', p, p + size);
      case FIELD_TYPE.map: {
        this.cursor = p;
        const map: Record<string, unknown> = {};
        for (let i = 0; i < size; i++) {
          const key = this.decode() as string;
          map[key] = this.decode();
        }
        return Object.freeze(map);
      }
      case FIELD_TYPE.uint32:
      case FIELD_TYPE.uint16:
        this.cursor = p + size;
        if (size === 0) return 0;
        if (size <= 4) return b.readUIntBE(p, size);
        throw new MmdbError(`Invalid size for unsigned integer: ${size}`);
      case FIELD_TYPE.double:
        this.cursor = p + size;
        return b.readDoubleBE(p);
      case FIELD_TYPE.array: {
        this.cursor = p;
        const arr = new Array<unknown>(size);
        for (let i = 0; i < size; i++) arr[i] = this.decode();
        return Object.freeze(arr);
      }
      case FIELD_TYPE.boolean: // the size is the value
        this.cursor = p;
        return size !== 0;
      case FIELD_TYPE.float:
        this.cursor = p + size;
        return b.readFloatBE(p);
      case FIELD_TYPE.bytes:
        this.cursor = p + size;
        return b.subarray(p, p + size);
      case FIELD_TYPE.int32: // fewer than 4 bytes read unsigned, as mmdb-lib does
        this.cursor = p + size;
        if (size === 0) return 0;
        return size < 4 ? b.readUIntBE(p, size) : b.readInt32BE(p);
      case FIELD_TYPE.uint64:
      case FIELD_TYPE.uint128: {
        this.cursor = p + size;
        if (size > 16) throw new MmdbError(`Invalid size for big unsigned integer: ${size}`);
        let n = 0n;
        for (let i = 0; i < size; i++) n = (n << 8n) | BigInt(b[p + i]);
        return n;
      }
    }
    throw new MmdbError(`Unknown type ${type} at offset ${p}`);
  }
}
