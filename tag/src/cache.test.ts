import { describe, expect, it } from 'vitest';
import { matched } from '../test/fixtures.ts';
import { type CacheEntry, cacheKey, freshAnswer } from './cache.ts';

describe('cache', () => {
  it('keys per tag and test IP', () => {
    expect(cacheKey('t1', null)).toBe('svc:t1');
    expect(cacheKey('t1', '198.51.100.7')).toBe('svc:t1:198.51.100.7');
  });

  it('answers a fresh entry, nothing for an expired, dropped or unreadable one', () => {
    const stored = JSON.stringify({ t: 1_000, d: matched() } satisfies CacheEntry);
    expect(freshAnswer(stored, 500, 1_400)).toEqual(matched());
    expect(freshAnswer(stored, 500, 1_500)).toBeUndefined();
    expect(freshAnswer(stored, 0, 1_000)).toBeUndefined();
    for (const junk of [null, '', '{', '{"t":1}', '{"t":1,"d":{}}', 'null']) expect(freshAnswer(junk, 1e9, 2)).toBeUndefined();
  });
});
