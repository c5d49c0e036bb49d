import { describe, expect, it } from 'vitest';
import { chartSeries, chartSummary, csvFileName, defaultRange } from './visits-view.ts';

describe('visitors page helpers', () => {
  it('defaults to the last 30 UTC days', () => {
    expect(defaultRange(new Date('2026-03-05T23:30:00Z'))).toEqual({ from: '2026-02-04', to: '2026-03-05' });
  });
  it('turns daily totals into uPlot columns and a summary', () => {
    const daily = [
      { day: '2026-03-01', identified: 2, anonymous: 5 },
      { day: '2026-03-02', identified: 4, anonymous: 1 },
    ];
    expect(chartSeries(daily)).toEqual([
      [1772323200, 1772409600],
      [2, 4],
      [5, 1],
    ]);
    expect(chartSummary(daily)).toBe('Page views per day: 6 identified, 6 anonymous over 2 days; busiest day 2026-03-01 with 7.');
    expect(chartSummary([{ day: '2026-03-01', identified: 0, anonymous: 0 }])).toBe('Page views per day: 0 identified, 0 anonymous over 1 days.');
  });
  it('names CSV downloads after customer, range and segment', () => {
    expect(csvFileName('acme', '2026-03-01', '2026-03-30', null)).toBe('visits-acme-2026-03-01-2026-03-30.csv');
    expect(csvFileName('acme', '2026-03-01', '2026-03-30', 101)).toBe('visits-acme-2026-03-01-2026-03-30-segment-101.csv');
  });
});
