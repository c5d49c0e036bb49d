import { describe, expect, it } from 'vitest';
import { cacheKey, cacheRead, cacheWrite, DAY, safeStorage, type KV } from './cache.ts';
import { matched } from '../test/fixtures.ts';

const memory = (): KV & { map: Map<string, string> } => {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v) };
};
const broken: KV = {
  getItem() {
    throw new Error('SecurityError');
  },
  setItem() {
    throw new Error('QuotaExceededError');
  },
};

describe('cacheKey', () => {
  it('is per tag and per test IP', () => {
    expect(cacheKey('demo-web-tag')).toBe('svc:demo-web-tag');
    expect(cacheKey('demo-web-tag', '')).toBe('svc:demo-web-tag');
    expect(cacheKey('demo-web-tag', '198.51.100.7')).toBe('svc:demo-web-tag:198.51.100.7');
    expect(cacheKey('a', '1.2.3.4')).not.toBe(cacheKey('b', '1.2.3.4'));
  });
});

describe('cacheRead / cacheWrite', () => {
  const t0 = Date.UTC(2026, 0, 1);

  it('serves an entry until its TTL runs out', () => {
    const kv = memory();
    cacheWrite(kv, 'k', matched(), t0, DAY);
    expect(cacheRead(kv, 'k', t0, DAY)).toEqual(matched());
    expect(cacheRead(kv, 'k', t0 + DAY - 1, DAY)).toEqual(matched());
    expect(cacheRead(kv, 'k', t0 + DAY, DAY)).toBeNull();
    expect(cacheRead(kv, 'other', t0, DAY)).toBeNull();
  });

  it('applies the TTL in force when reading, and distrusts a clock that went back', () => {
    const kv = memory();
    cacheWrite(kv, 'k', matched(), t0, DAY);
    expect(cacheRead(kv, 'k', t0 + 60_000, 30_000)).toBeNull();
    expect(cacheRead(kv, 'k', t0 - 1, DAY)).toBeNull();
  });

  it('writes nothing with a TTL of 0 and reads nothing either', () => {
    const kv = memory();
    cacheWrite(kv, 'k', matched(), t0, 0);
    expect(kv.map.size).toBe(0);
    cacheWrite(kv, 'k', matched(), t0, DAY);
    expect(cacheRead(kv, 'k', t0, 0)).toBeNull();
    expect(cacheRead(kv, 'k', t0, NaN)).toBeNull();
  });

  it('ignores garbage entries and broken storage', () => {
    const kv = memory();
    kv.setItem('k', '{not json');
    expect(cacheRead(kv, 'k', t0, DAY)).toBeNull();
    kv.setItem('k', '42');
    expect(cacheRead(kv, 'k', t0, DAY)).toBeNull();
    kv.setItem('k', JSON.stringify({ t: t0 }));
    expect(cacheRead(kv, 'k', t0, DAY)).toBeNull();
    expect(() => cacheWrite(broken, 'k', matched(), t0, DAY)).not.toThrow();
    expect(cacheRead(broken, 'k', t0, DAY)).toBeNull();
  });
});

describe('safeStorage', () => {
  it('uses the storage when it works', () => {
    const kv = memory();
    const s = safeStorage(() => kv);
    s.setItem('a', '1');
    expect(kv.map.get('a')).toBe('1');
    expect(s.getItem('a')).toBe('1');
    expect(s.getItem('b')).toBeNull();
  });

  it('falls back to memory when storage throws or is missing', () => {
    for (const get of [() => broken, () => undefined as unknown as KV, (): KV => { throw new Error('denied'); }]) {
      const s = safeStorage(get);
      expect(s.getItem('a')).toBeNull();
      s.setItem('a', '1');
      expect(s.getItem('a')).toBe('1');
    }
  });

  it('caches through the fallback for the rest of the page view', () => {
    const s = safeStorage(() => broken);
    cacheWrite(s, 'k', matched(), 1000, DAY);
    expect(cacheRead(s, 'k', 2000, DAY)).toEqual(matched());
  });
});
