import { describe, expect, it } from 'vitest';
import { isDelivered, MAX_ATTEMPTS, nextAttemptAt } from './retry-policy.ts';

describe('webhook retry policy', () => {
  it('retries about 1 min, 5 min, 30 min, 2 h and 6 h after each failure, then gives up', () => {
    const t = 1_000_000;
    expect([1, 2, 3, 4, 5].map((attempts) => (nextAttemptAt(attempts, t)! - t) / 1000)).toEqual([60, 300, 1800, 7200, 21600]);
    expect(MAX_ATTEMPTS).toBe(6);
    expect(nextAttemptAt(6, t)).toBeNull();
  });

  it('counts only 2xx answers as delivered', () => {
    expect([200, 201, 204, 299].every(isDelivered)).toBe(true);
    expect([null, 199, 301, 400, 410, 500, 503].some(isDelivered)).toBe(false);
  });
});
