/**
 * Value encoding: the default mapping of JS values to MMDB types, forced types through `mmdb.*` and
 * `MMDB_TYPE`, round trips through the `maxmind` reader, and clear errors for values that cannot be stored.
 */
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { encodeToBuffer } from './encoder.ts';
import { decodeTyped } from './test-support.ts';
import { MMDB_TYPE, type MmdbValue, mmdb } from './value.ts';
import { MmdbWriter } from './writer.ts';

const typeOf = (v: MmdbValue): string => decodeTyped(encodeToBuffer(v), 0, 0).node.type;

describe('value encoding', () => {
  it('maps plain JS values to the expected MMDB types', () => {
    const cases: [MmdbValue, string][] = [
      ['text', 'utf8_string'],
      ['', 'utf8_string'],
      [true, 'boolean'],
      [0, 'uint16'],
      [65_535, 'uint16'],
      [65_536, 'uint32'],
      [4_294_967_295, 'uint32'],
      [4_294_967_296, 'uint64'],
      [Number.MAX_SAFE_INTEGER, 'uint64'],
      [-1, 'int32'],
      [-2_147_483_648, 'int32'],
      [1.5, 'double'],
      [-0.25, 'double'],
      [5n, 'uint64'],
      [2n ** 64n - 1n, 'uint64'],
      [2n ** 64n, 'uint128'],
      [2n ** 128n - 1n, 'uint128'],
      [new Uint8Array([1, 2]), 'bytes'],
      [Buffer.from('ab'), 'bytes'],
      [[1, 'a'], 'array'],
      [{ a: 1 }, 'map'],
      [{}, 'map'],
    ];
    for (const [value, type] of cases) expect(typeOf(value), String(value)).toBe(type);
  });

  it('forces types with mmdb.* helpers and hand-built MMDB_TYPE wrappers', () => {
    expect(typeOf(mmdb.float(1.5))).toBe('float');
    expect(typeOf(mmdb.double(3))).toBe('double');
    expect(typeOf(mmdb.uint16(3))).toBe('uint16');
    expect(typeOf(mmdb.uint32(3))).toBe('uint32');
    expect(typeOf(mmdb.int32(3))).toBe('int32');
    expect(typeOf(mmdb.uint64(3))).toBe('uint64');
    expect(typeOf(mmdb.uint128(3n))).toBe('uint128');
    expect(typeOf(mmdb.string('x'))).toBe('utf8_string');
    expect(typeOf(mmdb.bytes(new Uint8Array(0)))).toBe('bytes');
    expect(typeOf(mmdb.boolean(false))).toBe('boolean');
    expect(typeOf({ [MMDB_TYPE]: 'uint32', value: 9 })).toBe('uint32');
    expect(() => mmdb.uint16(70_000)).toThrow(/uint16 needs an integer 0..65535/);
    expect(() => mmdb.int32(2 ** 31)).toThrow(/int32/);
    expect(() => mmdb.uint64(-1)).toThrow(/uint64/);
    expect(() => encodeToBuffer({ [MMDB_TYPE]: 'uint16', value: -1 })).toThrow(/uint16 needs/);
  });

  it('round-trips every type through the maxmind reader', () => {
    const value = {
      str: 'Zürich 東京 🚀',
      long: 'y'.repeat(70_000), // 3-byte size extension
      mid: 'z'.repeat(300), // 2-byte size extension
      t: true,
      f: false,
      u16: 65_535,
      u32: 4_294_967_295,
      u64: 2n ** 64n - 1n,
      u128: 2n ** 128n - 1n,
      i32: -2_147_483_648,
      i32pos: mmdb.int32(2_147_483_647),
      d: Math.PI,
      fl: mmdb.float(0.25),
      bytes: Buffer.from([0, 255]),
      arr: [[], {}, [1, [2, [3]]]],
      many: Array.from({ length: 40 }, (_, i) => i),
    };
    const w = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [] });
    w.insert('8.8.8.0/24', value);
    const got = new Reader(w.toBuffer()).get('8.8.8.8');
    expect(got).toEqual({ ...value, i32pos: 2_147_483_647, fl: 0.25, u64: 2n ** 64n - 1n });
  });

  it('sorts map keys by UTF-8 bytes', () => {
    const node = decodeTyped(encodeToBuffer({ b: 1, a: 1, B: 1, é: 1, '\u{1F600}': 1, '\uFFFD': 1 }), 0, 0).node;
    expect(node.type === 'map' && Object.keys(node.value)).toEqual(['B', 'a', 'b', 'é', '\uFFFD', '\u{1F600}']);
  });

  it('rejects values MMDB cannot store, naming the network and the member', () => {
    const w = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [] });
    const bad: [unknown, RegExp][] = [
      [{ a: { b: null } }, /null cannot be stored .*\(at a\.b\)/],
      [{ a: [1, NaN] }, /NaN is not a storable number .*\(at a\[1\]\)/],
      [{ a: Infinity }, /Infinity/],
      [{ a: -3_000_000_000 }, /does not fit int32/],
      [{ a: 2 ** 60 }, /MAX_SAFE_INTEGER/],
      [{ a: -1n }, /negative bigint/],
      [{ a: 2n ** 128n }, /does not fit uint128/],
      [{ a: new Date(0) }, /Date is not a storable value/],
      [{ a: () => 1 }, /function cannot be stored/],
      [{ a: '\ud800' }, /lone UTF-16 surrogate/],
      [undefined, /undefined cannot be stored/],
    ];
    for (const [value, message] of bad) {
      expect(() => w.insert('192.0.2.0/24', value as MmdbValue), String(message)).toThrow(message);
      expect(() => w.insert('192.0.2.0/24', value as MmdbValue)).toThrow(/^Invalid value for network "192\.0\.2\.0\/24": /);
    }
    expect(w.networkCount).toBe(0); // nothing was added
    expect(new Reader(w.toBuffer()).get('192.0.2.1')).toBeNull();
  });
});
