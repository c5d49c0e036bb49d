import { describe, expect, it } from 'vitest';
import { BoundedCache, boundedMemo, weakMemo } from './bounded-cache.ts';

describe('BoundedCache', () => {
  it('keeps what it was given until it is full, then starts over', () => {
    const cache = new BoundedCache<string, number>(2);
    expect(cache.set('a', 1)).toBe(1);
    cache.set('b', 2);
    expect([cache.get('a'), cache.get('b')]).toEqual([1, 2]);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, undefined, 3]);
  });
});

describe('boundedMemo', () => {
  it('computes each key once while it is remembered', () => {
    const calls: string[] = [];
    const upper = boundedMemo((s: string) => {
      calls.push(s);
      return s.toUpperCase();
    }, 2);
    expect([upper('a'), upper('a'), upper('b'), upper('a')]).toEqual(['A', 'A', 'B', 'A']);
    expect(calls).toEqual(['a', 'b']);
    upper('c'); // full: starts over
    upper('a');
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('weakMemo', () => {
  it('computes once per key object, another object with the same contents anew', () => {
    const calls: object[] = [];
    const size = weakMemo((o: { items: number[] }) => {
      calls.push(o);
      return o.items.length;
    });
    const a = { items: [1, 2] };
    const b = { items: [1, 2] };
    expect([size(a), size(a), size(b)]).toEqual([2, 2, 2]);
    expect(calls).toEqual([a, b]);
  });
});
