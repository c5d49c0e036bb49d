/**
 * Deduplication: identical records are stored once (key order irrelevant), repeated sub-values become
 * pointers when that is shorter, records that no address resolves to are not written at all.
 */
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { assembleDataSection, ValueStore } from './data-section.ts';
import { OracleValueStore, oracleAssembleDataSection } from './data-section-oracle.ts';
import { dataSectionValues, decodeTyped, fileSections } from './test-support.ts';
import { MmdbWriter } from './writer.ts';

const writer = (): MmdbWriter => new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [] });

describe('data section deduplication', () => {
  it('1,000 networks with the same record store it once, and the file stays small', () => {
    const w = writer();
    const record = { kind: 'company', company_id: '100001', confidence: 'Very High', country: 'US', city: 'Springfield' };
    for (let i = 0; i < 1000; i++) w.insert(`${10 + (i >> 8)}.${i & 255}.7.0/24`, { ...record });
    expect(w.distinctValueCount).toBe(1);
    const buf = w.toBuffer();
    const values = dataSectionValues(buf);
    expect(values).toHaveLength(1);
    const s = fileSections(buf);
    // One copy of the record (≈ 90 bytes); the rest is tree and metadata.
    expect(s.dataEnd - s.dataStart).toBeLessThan(120);
    expect(buf.length).toBeLessThan(s.treeSize + 16 + 120 + 400);
    const r = new Reader(buf);
    expect(r.get('10.0.7.1')).toEqual(record);
    expect(r.get('13.231.7.255')).toEqual(record);
  });

  it('treats maps with the same members in another key order as the same record', () => {
    const w = writer();
    w.insert('1.0.0.0/24', { a: 1, b: 'x', c: [1, 2] });
    w.insert('2.0.0.0/24', { c: [1, 2], b: 'x', a: 1 });
    w.insert('3.0.0.0/24', { b: 'x', a: 1, c: [1, 2], d: undefined });
    expect(w.distinctValueCount).toBe(1);
    expect(dataSectionValues(w.toBuffer())).toHaveLength(1);
  });

  it('reuses repeated keys, strings and nested maps through pointers (never pointer-to-pointer)', () => {
    const names = { de: 'Vereinigte Staaten', en: 'United States', fr: 'États-Unis', ja: 'アメリカ合衆国' };
    const w = writer();
    for (let i = 0; i < 50; i++) w.insert(`10.0.${i}.0/24`, { country: { iso_code: 'US', names }, city_id: 1000 + i });
    const buf = w.toBuffer();
    const s = fileSections(buf);
    const stats = { pointers: 0 };
    let p = s.dataStart;
    let count = 0;
    while (p < s.dataEnd) {
      p = decodeTyped(buf, p, s.dataStart, stats).end; // throws on a pointer to a pointer
      count++;
    }
    expect(count).toBe(50);
    expect(stats.pointers).toBeGreaterThanOrEqual(49 * 2); // at least the `country` key and map per copy
    // Without pointers every record would repeat the ~120-byte `country` map.
    expect(s.dataEnd - s.dataStart).toBeLessThan(50 * 40);
    const r = new Reader(buf);
    for (let i = 0; i < 50; i++) expect(r.get(`10.0.${i}.9`)).toEqual({ country: { iso_code: 'US', names }, city_id: 1000 + i });
  });

  it('does not write records that no address resolves to', () => {
    const w = writer();
    w.insert('10.0.0.0/24', 'shadowed');
    w.insert('10.0.0.0/25', 'low');
    w.insert('10.0.0.128/25', 'high');
    expect(w.distinctValueCount).toBe(3);
    const values = dataSectionValues(w.toBuffer()).map((v) => v.value);
    expect(values.sort()).toEqual(['high', 'low']);
  });

  it('merges adjacent networks with the same record: 256 × /32 build the same file as one /24', () => {
    const opts = { ipVersion: 4, databaseType: 't', description: {}, languages: [], buildEpoch: 1 } as const;
    const split = new MmdbWriter(opts);
    for (let i = 255; i >= 0; i--) split.insert(`10.0.0.${i}/32`, 'same');
    const whole = new MmdbWriter(opts);
    whole.insert('10.0.0.0/24', 'same');
    expect(split.toBuffer().equals(whole.toBuffer())).toBe(true);
  });
});

describe('data section assembly (byte tables) matches the Map-based implementation it replaced', () => {
  /** Deterministic values with many repeats at every level: strings, numbers, nested maps and arrays. */
  const values = (n: number, seed: number): unknown[] => {
    let s = seed;
    const rnd = (k: number) => {
      s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
      return (s >>> 12) % k; // the high bits: an LCG's low bits cycle quickly
    };
    const word = () => ['Berlin', 'Cork', 'München', 'São Paulo', 'x', 'ab', 'abc', '東京', ''][rnd(9)];
    const leaf = (): unknown => [word(), rnd(70_000), -rnd(5), rnd(2) === 0, 1.5 + rnd(3), `id-${rnd(500)}`][rnd(6)];
    const map = (depth: number): unknown => {
      const m: Record<string, unknown> = {};
      const keys = ['kind', 'city', 'company_id', 'names', 'list', 'confidence'];
      for (let k = 0; k < 1 + rnd(5); k++) {
        const r = rnd(10);
        m[keys[rnd(keys.length)]] = depth > 0 && r === 0 ? map(depth - 1) : depth > 0 && r === 1 ? [leaf(), map(depth - 1), leaf()] : leaf();
      }
      return m;
    };
    return Array.from({ length: n }, () => (rnd(8) === 0 ? leaf() : map(2)));
  };

  for (const [label, limit] of [
    ['dictionary unbounded', undefined],
    ['dictionary limit reached early', 50],
  ] as const) {
    it(`writes the same bytes and offsets (${label})`, () => {
      const store = new ValueStore();
      const oracle = new OracleValueStore();
      for (const v of values(5000, 7)) expect(store.intern(v)).toBe(oracle.intern(v));
      expect(store.size).toBe(oracle.size);
      // A first-reference order that skips some values and visits the rest shuffled.
      const order = Array.from({ length: store.size }, (_, i) => (i * 7919) % store.size).filter((id) => id % 5 !== 3);
      const ours = assembleDataSection(store, order, order.length, limit);
      const theirs = oracleAssembleDataSection(oracle, order, order.length, limit);
      expect(ours.bytes.equals(theirs.bytes)).toBe(true);
      for (const id of order) expect(ours.offsets[id]).toBe(theirs.offsets[id]);
    });
  }
});
