import { describe, expect, it } from 'vitest';
import { cacheKey } from './cache.ts';

describe('cache', () => {
  it('keys per tag and test IP', () => {
    expect(cacheKey('t1', null)).toBe('svc:t1');
    expect(cacheKey('t1', '198.51.100.7')).toBe('svc:t1:198.51.100.7');
  });
});
