/**
 * Encoding of MMDB data fields (spec "Output Data Section"): control byte, extended type byte, size
 * bytes, payload. `encodeValue` writes the *canonical* form of a value: no pointers, map keys sorted,
 * integers in their shortest byte form. Two equal values therefore encode to identical bytes, which is
 * what the data section uses as the deduplication key (see ./data-section.ts).
 */
import { EXTENDED_TYPE, FIELD_TYPE, MAX_FIELD_SIZE, SIZE_BASE_1, SIZE_BASE_2, SIZE_BASE_3 } from '../../core/mmdb-format.ts';
import { checkTypedValue, INT32_MIN, MMDB_TYPE, type MmdbTypeName, type MmdbValue } from './value.ts';

/** An append-only byte buffer that grows by doubling. */
export class ByteSink {
  buf: Buffer;
  len = 0;

  constructor(initialCapacity = 256) {
    this.buf = Buffer.allocUnsafe(initialCapacity);
  }

  /** Makes room for `n` more bytes. */
  reserve(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.len++] = b;
  }

  bytes(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    this.reserve(n);
    // Short copies (the data section's keys and strings, a few bytes each, tens of millions of them
    // for networks.mmdb) by hand: subarray + set allocates a view per call and costs more than the loop.
    if (n <= 32) {
      const buf = this.buf;
      let o = this.len;
      for (let i = start; i < end; i++) buf[o++] = src[i];
    } else {
      this.buf.set(src.subarray(start, end), this.len);
    }
    this.len += n;
  }

  /** A copy of the bytes written so far. */
  toBuffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

/** Thrown for a value that cannot be stored; `path` names the member (e.g. `location.latitude`). */
export class MmdbValueError extends Error {
  constructor(
    readonly reason: string,
    readonly path: string,
  ) {
    super(path ? `${reason} (at ${path})` : reason);
    this.name = 'MmdbValueError';
  }

  within(segment: string): MmdbValueError {
    const path = this.path ? (this.path.startsWith('[') ? segment + this.path : `${segment}.${this.path}`) : segment;
    return new MmdbValueError(this.reason, path);
  }
}

/** Writes a control byte (plus extended-type byte and size bytes) for `type` with payload size `size`. */
export function writeControl(sink: ByteSink, type: number, size: number): void {
  if (size > MAX_FIELD_SIZE) {
    throw new MmdbValueError(`field too large for MMDB (${size} > ${MAX_FIELD_SIZE})`, '');
  }
  sink.reserve(5);
  const buf = sink.buf;
  let sizeBits: number;
  let extra: number;
  if (size < SIZE_BASE_1) {
    sizeBits = size;
    extra = 0;
  } else if (size < SIZE_BASE_2) {
    sizeBits = 29;
    extra = 1;
    size -= SIZE_BASE_1;
  } else if (size < SIZE_BASE_3) {
    sizeBits = 30;
    extra = 2;
    size -= SIZE_BASE_2;
  } else {
    sizeBits = 31;
    extra = 3;
    size -= SIZE_BASE_3;
  }
  if (type <= EXTENDED_TYPE) {
    buf[sink.len++] = (type << 5) | sizeBits;
  } else {
    buf[sink.len++] = sizeBits;
    buf[sink.len++] = type - EXTENDED_TYPE;
  }
  for (let i = extra - 1; i >= 0; i--) buf[sink.len++] = (size >>> (8 * i)) & 0xff;
}

/** Map keys in byte order of their UTF-8 encoding (= code point order), as mmdbwriter sorts them. */
function sortKeys(keys: string[]): void {
  // Insertion sort: records have a handful of keys, and this beats Array#sort's overhead there.
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = k;
  }
  // UTF-16 code-unit order differs from code-point order only when surrogates are involved.
  for (const k of keys) {
    if (HAS_SURROGATE.test(k)) {
      keys.sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
      return;
    }
  }
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Appends `s` as a utf8_string field (its canonical encoding). */
export function writeString(sink: ByteSink, s: string): void {
  const n = s.length;
  // Short ASCII strings (nearly all keys and values) are copied by hand: cheaper than Buffer#write.
  if (n < SIZE_BASE_1) {
    sink.reserve(n + 1);
    const buf = sink.buf;
    const at = sink.len + 1;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[at + i] = c;
    }
    if (i === n) {
      buf[sink.len] = (FIELD_TYPE.utf8_string << 5) | n;
      sink.len = at + n;
      return;
    }
  }
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    throw new MmdbValueError(`string contains a lone UTF-16 surrogate: ${JSON.stringify(s)}`, '');
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  writeControl(sink, FIELD_TYPE.utf8_string, bytes);
  sink.reserve(bytes);
  sink.buf.write(s, sink.len, bytes, 'utf8');
  sink.len += bytes;
}

/** Unsigned integer (0 ≤ n ≤ 2^53) in its shortest big-endian form. */
function writeUintNumber(sink: ByteSink, type: number, n: number): void {
  if (n > 0xffff_ffff) {
    writeUintBig(sink, type, BigInt(n));
    return;
  }
  const size = n === 0 ? 0 : n <= 0xff ? 1 : n <= 0xffff ? 2 : n <= 0xff_ffff ? 3 : 4;
  writeControl(sink, type, size);
  sink.reserve(size);
  for (let i = size - 1; i >= 0; i--) sink.buf[sink.len++] = Math.floor(n / 2 ** (8 * i)) & 0xff;
}

function writeUintBig(sink: ByteSink, type: number, n: bigint): void {
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.push(Number(n & 0xffn));
    n >>= 8n;
  }
  writeControl(sink, type, bytes.length);
  sink.reserve(bytes.length);
  for (let i = bytes.length - 1; i >= 0; i--) sink.buf[sink.len++] = bytes[i];
}

function writeInt32(sink: ByteSink, n: number): void {
  if (n >= 0) {
    writeUintNumber(sink, FIELD_TYPE.int32, n);
    return;
  }
  // Negative values need all four bytes: only a full-length field carries the sign bit.
  writeControl(sink, FIELD_TYPE.int32, 4);
  sink.reserve(4);
  sink.buf.writeInt32BE(n, sink.len);
  sink.len += 4;
}

function writeDouble(sink: ByteSink, x: number): void {
  writeControl(sink, FIELD_TYPE.double, 8);
  sink.reserve(8);
  sink.buf.writeDoubleBE(x, sink.len);
  sink.len += 8;
}

function writeNumber(sink: ByteSink, x: number): void {
  if (Number.isInteger(x)) {
    if (x >= 0) {
      if (x <= 0xffff) return writeUintNumber(sink, FIELD_TYPE.uint16, x);
      if (x <= 0xffff_ffff) return writeUintNumber(sink, FIELD_TYPE.uint32, x);
      if (x <= Number.MAX_SAFE_INTEGER) return writeUintNumber(sink, FIELD_TYPE.uint64, x);
      throw new MmdbValueError(`integer ${x} is above Number.MAX_SAFE_INTEGER and has lost precision; pass a bigint or mmdb.double(x)`, '');
    }
    if (x >= INT32_MIN) return writeInt32(sink, x);
    throw new MmdbValueError(`negative integer ${x} does not fit int32; use mmdb.double(x)`, '');
  }
  if (!Number.isFinite(x)) {
    throw new MmdbValueError(`${x} is not a storable number by default; wrap it as mmdb.double(x) if intended`, '');
  }
  writeDouble(sink, x);
}

function writeBigint(sink: ByteSink, x: bigint): void {
  if (x < 0n) throw new MmdbValueError(`negative bigint ${x} has no MMDB type (uint64/uint128 only)`, '');
  if (x < 1n << 64n) return writeUintBig(sink, FIELD_TYPE.uint64, x);
  if (x < 1n << 128n) return writeUintBig(sink, FIELD_TYPE.uint128, x);
  throw new MmdbValueError(`bigint ${x} does not fit uint128`, '');
}

function writeBytes(sink: ByteSink, b: Uint8Array): void {
  writeControl(sink, FIELD_TYPE.bytes, b.length);
  sink.bytes(b);
}

function writeTyped(sink: ByteSink, type: MmdbTypeName, value: unknown): void {
  const problem = checkTypedValue(type, value);
  if (problem) throw new MmdbValueError(problem, '');
  switch (type) {
    case 'utf8_string':
      return writeString(sink, value as string);
    case 'boolean':
      return writeControl(sink, FIELD_TYPE.boolean, value ? 1 : 0);
    case 'bytes':
      return writeBytes(sink, value as Uint8Array);
    case 'double':
      return writeDouble(sink, value as number);
    case 'float':
      writeControl(sink, FIELD_TYPE.float, 4);
      sink.reserve(4);
      sink.buf.writeFloatBE(value as number, sink.len);
      sink.len += 4;
      return;
    case 'uint16':
    case 'uint32':
      return writeUintNumber(sink, FIELD_TYPE[type], value as number);
    case 'int32':
      return writeInt32(sink, value as number);
    case 'uint64':
    case 'uint128':
      return writeUintBig(sink, FIELD_TYPE[type], BigInt(value as number | bigint));
  }
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Appends the canonical encoding of `value`. Throws MmdbValueError (with a member path) for bad input. */
export function encodeValue(sink: ByteSink, value: unknown): void {
  switch (typeof value) {
    case 'string':
      return writeString(sink, value);
    case 'number':
      return writeNumber(sink, value);
    case 'boolean':
      return writeControl(sink, FIELD_TYPE.boolean, value ? 1 : 0);
    case 'bigint':
      return writeBigint(sink, value);
    case 'object': {
      if (value === null) throw new MmdbValueError('null cannot be stored (MMDB has no null); leave the key out', '');
      if (Array.isArray(value)) {
        writeControl(sink, FIELD_TYPE.array, value.length);
        for (let i = 0; i < value.length; i++) {
          try {
            encodeValue(sink, value[i]);
          } catch (e) {
            throw e instanceof MmdbValueError ? e.within(`[${i}]`) : e;
          }
        }
        return;
      }
      if (value instanceof Uint8Array) return writeBytes(sink, value);
      if (MMDB_TYPE in value) {
        const v = value as { [MMDB_TYPE]: MmdbTypeName; value: unknown };
        return writeTyped(sink, v[MMDB_TYPE], v.value);
      }
      if (!isPlainObject(value)) {
        const name = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
        throw new MmdbValueError(`${name} is not a storable value (use a plain object, array or mmdb.* wrapper)`, '');
      }
      const obj = value as Record<string, unknown>;
      const keys: string[] = [];
      for (const k in obj) {
        if (Object.hasOwn(obj, k) && obj[k] !== undefined) keys.push(k);
      }
      sortKeys(keys);
      writeControl(sink, FIELD_TYPE.map, keys.length);
      for (const k of keys) {
        writeString(sink, k);
        try {
          encodeValue(sink, obj[k]);
        } catch (e) {
          throw e instanceof MmdbValueError ? e.within(k) : e;
        }
      }
      return;
    }
    default:
      throw new MmdbValueError(`${typeof value} cannot be stored in an MMDB`, '');
  }
}

/** Canonical encoding of `value` as a fresh Buffer (convenience for metadata and tests). */
export function encodeToBuffer(value: MmdbValue): Buffer {
  const sink = new ByteSink();
  encodeValue(sink, value);
  return sink.toBuffer();
}
