/**
 * Record size: the smallest of 24/28/32 bits whose records can hold node numbers, "no data" (= node
 * count) and every data pointer (node_count + 16 + data offset); a forced size that is too small fails.
 */
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { chooseRecordSize } from './search-tree.ts';
import { fileSections } from './test-support.ts';
import { MmdbWriter } from './writer.ts';

describe('record size', () => {
  it('picks the smallest size that fits node_count + 16 + data section size', () => {
    expect(chooseRecordSize(1, 0)).toBe(24);
    expect(chooseRecordSize(2 ** 24 - 16 - 1000, 1000)).toBe(24);
    expect(chooseRecordSize(2 ** 24 - 16 - 1000, 1001)).toBe(28);
    expect(chooseRecordSize(3_000_000, 20_000_000)).toBe(28); // a tree too big for 24 bits
    expect(chooseRecordSize(2 ** 28 - 16, 0)).toBe(28);
    expect(chooseRecordSize(2 ** 28 - 15, 0)).toBe(32);
    expect(chooseRecordSize(40_000_000, 300_000_000)).toBe(32);
    expect(chooseRecordSize(2 ** 32 - 16, 0)).toBe(32);
    expect(() => chooseRecordSize(2 ** 32, 0)).toThrow(/too large for MMDB/);
  });

  const blobs = (w: MmdbWriter): void => {
    // Two distinct 9 MB values: the data section alone needs more than 24-bit records can address.
    w.insert('10.0.0.0/8', { blob: new Uint8Array(9_000_000).fill(1) });
    w.insert('11.0.0.0/8', { blob: new Uint8Array(9_000_000).fill(2) });
    w.insert('12.0.0.0/8', { small: true });
  };

  it('chooses 28 bits automatically when the data section outgrows 24-bit records', () => {
    const w = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [] });
    blobs(w);
    const buf = w.toBuffer();
    const s = fileSections(buf);
    expect(s.recordSize).toBe(28);
    expect(s.dataEnd - s.dataStart).toBeGreaterThan(2 ** 24);
    expect(new Reader(buf).get('12.1.2.3')).toEqual({ small: true });
  });

  it('refuses a forced record size that is too small, and honours a larger one', () => {
    const small = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [], recordSize: 24 });
    blobs(small);
    expect(() => small.toBuffer()).toThrow(/recordSize 24 is too small .* \(would need 28\)/);

    const big = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [], recordSize: 32 });
    big.insert('1.2.3.0/24', 'x');
    const buf = big.toBuffer();
    expect(fileSections(buf).recordSize).toBe(32);
    expect(new Reader(buf).get('1.2.3.4')).toBe('x');
  });
});
