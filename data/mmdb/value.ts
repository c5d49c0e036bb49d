/**
 * The values an MMDB data record can hold, and how a caller forces a specific MMDB type.
 *
 * Default mapping of plain JS values (see `encodeValue` in ./encoder.ts):
 *   string → utf8_string · boolean → boolean · plain object → map · array → array ·
 *   Uint8Array/Buffer → bytes · non-negative integer → the smallest of uint16/uint32/uint64 that fits
 *   (up to Number.MAX_SAFE_INTEGER; larger ones have lost precision: pass a bigint) ·
 *   negative integer (≥ -2^31) → int32 · other finite number → double · bigint → uint64 or uint128.
 * `undefined` map members are left out (like JSON.stringify); `null`, NaN, ±Infinity, negative integers
 * below -2^31, functions, symbols and class instances (Date, Map…) are rejected with an error naming the
 * member; `mmdb.double(NaN)` is allowed when meant.
 *
 * To force a type, wrap the value: `mmdb.uint32(7)`, `mmdb.float(1.5)`, `mmdb.double(3)` … or build
 * `{ [MMDB_TYPE]: 'uint16', value: 7 }` by hand (validated again when encoded).
 */

export const MMDB_TYPE: unique symbol = Symbol('mmdb.type');

/** Payload type of each MMDB type a value can be forced to. */
export interface MmdbPayloads {
  utf8_string: string;
  double: number;
  float: number;
  uint16: number;
  uint32: number;
  int32: number;
  uint64: number | bigint;
  uint128: number | bigint;
  bytes: Uint8Array;
  boolean: boolean;
}
export type MmdbTypeName = keyof MmdbPayloads;

/** A value with a forced MMDB type, e.g. `{ [MMDB_TYPE]: 'uint32', value: 7 }` (or `mmdb.uint32(7)`). */
export type MmdbTypedValue<N extends MmdbTypeName = MmdbTypeName> = {
  [K in N]: { readonly [MMDB_TYPE]: K; readonly value: MmdbPayloads[K] };
}[N];

export interface MmdbMap {
  readonly [key: string]: MmdbValue | undefined;
}

export type MmdbValue = string | number | bigint | boolean | Uint8Array | MmdbTypedValue | readonly MmdbValue[] | MmdbMap;

type MmdbScalar = string | number | bigint | boolean | Uint8Array | MmdbTypedValue;

/**
 * Compile-time check for insert(): accepts any value built from storable parts, including objects
 * typed by an interface (which `MmdbValue`'s index signature would reject). Optional/undefined members
 * are allowed in objects (they are left out of the map); functions, symbols and null are not.
 */
export type MmdbStorable<T> = T extends MmdbScalar | MmdbValue
  ? T
  : T extends readonly unknown[]
    ? { readonly [I in keyof T]: MmdbStorable<T[I]> }
    : T extends (...args: never[]) => unknown
      ? never
      : T extends object
        ? { readonly [K in keyof T]: MmdbStorable<Exclude<T[K], undefined>> | (undefined extends T[K] ? undefined : never) }
        : never;

export const UINT16_MAX = 0xffff;
export const UINT32_MAX = 0xffff_ffff;
export const INT32_MIN = -0x8000_0000;
export const INT32_MAX = 0x7fff_ffff;
export const UINT64_MAX = (1n << 64n) - 1n;
export const UINT128_MAX = (1n << 128n) - 1n;

/** Why `value` is not a valid payload for the MMDB type `type`, or undefined when it is. */
export function checkTypedValue(type: MmdbTypeName, value: unknown): string | undefined {
  switch (type) {
    case 'utf8_string':
      return typeof value === 'string' ? undefined : 'utf8_string needs a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'boolean needs a boolean';
    case 'bytes':
      return value instanceof Uint8Array ? undefined : 'bytes needs a Uint8Array';
    case 'double':
    case 'float':
      return typeof value === 'number' ? undefined : `${type} needs a number`;
    case 'uint16':
      return isIntIn(value, 0, UINT16_MAX) ? undefined : `uint16 needs an integer 0..${UINT16_MAX}, got ${String(value)}`;
    case 'uint32':
      return isIntIn(value, 0, UINT32_MAX) ? undefined : `uint32 needs an integer 0..${UINT32_MAX}, got ${String(value)}`;
    case 'int32':
      return isIntIn(value, INT32_MIN, INT32_MAX) ? undefined : `int32 needs an integer ${INT32_MIN}..${INT32_MAX}, got ${String(value)}`;
    case 'uint64':
    case 'uint128': {
      const max = type === 'uint64' ? UINT64_MAX : UINT128_MAX;
      const big = typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value as number) : undefined;
      return big !== undefined && big >= 0n && big <= max
        ? undefined
        : `${type} needs a bigint or safe integer 0..2^${type === 'uint64' ? 64 : 128}-1, got ${String(value)}`;
    }
    default:
      return `unknown MMDB type ${JSON.stringify(type)}`;
  }
}

function isIntIn(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function typed<N extends MmdbTypeName>(type: N, value: MmdbTypedValue<N>['value']): MmdbTypedValue<N> {
  const problem = checkTypedValue(type, value);
  if (problem) throw new TypeError(`mmdb.${type}(): ${problem}`);
  return Object.freeze({ [MMDB_TYPE]: type, value }) as unknown as MmdbTypedValue<N>;
}

/** Helpers that force an MMDB type; each validates its range eagerly. */
export const mmdb = {
  string: (value: string): MmdbTypedValue<'utf8_string'> => typed('utf8_string', value),
  double: (value: number): MmdbTypedValue<'double'> => typed('double', value),
  float: (value: number): MmdbTypedValue<'float'> => typed('float', value),
  uint16: (value: number): MmdbTypedValue<'uint16'> => typed('uint16', value),
  uint32: (value: number): MmdbTypedValue<'uint32'> => typed('uint32', value),
  int32: (value: number): MmdbTypedValue<'int32'> => typed('int32', value),
  uint64: (value: number | bigint): MmdbTypedValue<'uint64'> => typed('uint64', value),
  uint128: (value: number | bigint): MmdbTypedValue<'uint128'> => typed('uint128', value),
  bytes: (value: Uint8Array): MmdbTypedValue<'bytes'> => typed('bytes', value),
  boolean: (value: boolean): MmdbTypedValue<'boolean'> => typed('boolean', value),
} as const;
