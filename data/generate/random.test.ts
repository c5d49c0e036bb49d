import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mix32, Rng, Weighted } from './random.ts';

const draws = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.uint32());

describe('Rng', () => {
  it('gives the same sequence for the same seed, and treats 1 and "1" as one seed', () => {
    expect(draws(new Rng('demo'), 50)).toEqual(draws(new Rng('demo'), 50));
    expect(draws(new Rng(1), 50)).toEqual(draws(new Rng('1'), 50));
  });

  it('pins the sequence (a change here changes every generated file)', () => {
    expect(draws(new Rng(1), 4)).toEqual([853986954, 1331713668, 2079947259, 3737488659]);
  });

  it('gives different sequences for different seeds', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expect(draws(new Rng(a), 4)).not.toEqual(draws(new Rng(b), 4));
      }),
    );
  });

  it('keeps int() within its inclusive bounds and float() in [0, 1)', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 1000 }), (seed, min, span) => {
        const rng = new Rng(seed);
        for (let i = 0; i < 20; i++) {
          const v = rng.int(min, min + span);
          expect(Number.isInteger(v) && v >= min && v <= min + span).toBe(true);
          const f = rng.float();
          expect(f >= 0 && f < 1).toBe(true);
        }
      }),
    );
  });

  it('reaches both ends of int() ranges', () => {
    const rng = new Rng('ends');
    const seen = new Set(Array.from({ length: 200 }, () => rng.int(1, 3)));
    expect([...seen].sort()).toEqual([1, 2, 3]);
  });

  it('derives independent streams with fork()', () => {
    const a = new Rng('x');
    const b = new Rng('x');
    expect(draws(a.fork('people'), 5)).toEqual(draws(b.fork('people'), 5));
    expect(draws(new Rng('x').fork('people'), 5)).not.toEqual(draws(new Rng('x').fork('networks'), 5));
  });
});

describe('Weighted', () => {
  it('draws only items with positive weight, roughly in proportion', () => {
    const w = new Weighted<string>([
      ['a', 3],
      ['b', 1],
      ['never', 0],
    ]);
    const rng = new Rng('w');
    const counts: Record<string, number> = {};
    for (let i = 0; i < 4000; i++) {
      const x = w.draw(rng);
      counts[x] = (counts[x] ?? 0) + 1;
    }
    expect(counts.never).toBeUndefined();
    expect(counts.a / 4000).toBeGreaterThan(0.7);
    expect(counts.a / 4000).toBeLessThan(0.8);
  });

  it('refuses an empty choice', () => {
    expect(() => new Weighted<string>([['a', 0]])).toThrow();
  });
});

describe('mix32', () => {
  it('is a bijection on the values it is used for (distinct people get distinct LinkedIn suffixes)', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 200_000; i++) seen.add(mix32(i ^ 0x5bd1e995));
    expect(seen.size).toBe(200_000);
  });
});
