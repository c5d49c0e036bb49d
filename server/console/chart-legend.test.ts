import { describe, expect, it } from 'vitest';
import { legendValue } from './chart-legend.ts';

const daily = [
  { day: '2026-11-23', identified: 1200, anonymous: 30 },
  { day: '2026-11-24', identified: 0, anonymous: 5 },
  { day: '2026-11-25', identified: 7, anonymous: 0 },
];

describe('the chart legend before and while hovering', () => {
  it('shows the range and its totals when no day is hovered, not a dash', () => {
    expect(legendValue(daily, 'day', null)).toBe('2026-11-23 to 2026-11-25 (total)');
    expect(legendValue(daily, 'identified', null)).toBe('1,207');
    expect(legendValue(daily, 'anonymous', undefined)).toBe('35');
  });
  it('shows the hovered day and its counts, zero as 0', () => {
    expect(legendValue(daily, 'day', 1)).toBe('2026-11-24');
    expect(legendValue(daily, 'identified', 1)).toBe('0');
    expect(legendValue(daily, 'anonymous', 0)).toBe('30');
  });
  it('reads sensibly for a one-day range and for no days at all', () => {
    expect(legendValue(daily.slice(0, 1), 'day', null)).toBe('2026-11-23 (total)');
    expect(legendValue([], 'day', null)).toBe('no days');
    expect(legendValue([], 'identified', null)).toBe('0');
  });
  it('treats an index past the data as not hovering', () => {
    expect(legendValue(daily, 'identified', 9)).toBe('1,207');
  });
});
