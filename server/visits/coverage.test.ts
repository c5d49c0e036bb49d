import { describe, expect, it } from 'vitest';
import { UNIDENTIFIED_REASONS } from '../../core/vocabulary.ts';
import { coverageOf, matchRate, SPLIT_KEYS, splitOf } from './coverage.ts';

const zeros = Object.fromEntries(UNIDENTIFIED_REASONS.map((r) => [r, 0])) as Record<(typeof UNIDENTIFIED_REASONS)[number], number>;

describe('the report’s coverage', () => {
  it('splits each day’s anonymous page views by reason, the rest unclassified, adding up to them; the match rate per day and over the range', () => {
    const daily = [
      { day: '2026-11-20', identified: 3, anonymous: 7 },
      { day: '2026-11-21', identified: 0, anonymous: 0 },
      // Counted before reasons were recorded: all unclassified.
      { day: '2026-11-22', identified: 1, anonymous: 2 },
    ];
    const c = coverageOf(daily, [
      { day: '2026-11-20', reasons: { ...zeros, isp: 4, vpn: 2, bot: 1 } },
      { day: '2026-11-21', reasons: zeros },
    ]);
    expect(c.daily.map((d) => d.match_rate)).toEqual([0.3, null, 0.3333]);
    expect(c.match_rate).toBe(0.3077);
    expect(c.daily[0]!.unidentified).toEqual({ ...zeros, isp: 4, vpn: 2, bot: 1, unclassified: 0 });
    expect(c.daily[2]!.unidentified).toEqual({ ...zeros, unclassified: 2 });
    expect(c.unidentified).toEqual({ ...zeros, isp: 4, vpn: 2, bot: 1, unclassified: 2 });
    for (const [i, d] of c.daily.entries()) expect(SPLIT_KEYS.reduce((n, k) => n + d.unidentified[k], 0)).toBe(daily[i]!.anonymous);
    expect(SPLIT_KEYS.reduce((n, k) => n + c.unidentified[k], 0)).toBe(9);
  });

  it('rounds the match rate as Home does (4 decimals), null without page views', () => {
    expect(matchRate(2, 1)).toBe(0.6667);
    expect(matchRate(0, 0)).toBeNull();
    expect(matchRate(0, 5)).toBe(0);
    expect(splitOf(3, undefined)).toEqual({ ...zeros, unclassified: 3 });
  });
});
