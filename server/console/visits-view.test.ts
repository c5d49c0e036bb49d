import { describe, expect, it } from 'vitest';
import { UNIDENTIFIED_REASONS } from '../../core/vocabulary.ts';
import {
  chartSeries,
  chartSummary,
  csvFileName,
  daysCsvFileName,
  defaultRange,
  matchRateLegend,
  matchRateSeries,
  matchRateSummary,
  splitRows,
} from './visits-view.ts';

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
  it('draws the match rate as the identified share per day in percent, a gap on a day without page views', () => {
    const daily = [
      { day: '2026-03-01', identified: 2, anonymous: 6 },
      { day: '2026-03-02', identified: 0, anonymous: 0 },
      { day: '2026-03-03', identified: 1, anonymous: 2 },
    ];
    expect(matchRateSeries(daily)).toEqual([
      [1772323200, 1772409600, 1772496000],
      [25, null, 33.3],
    ]);
    expect(matchRateLegend(daily, 0)).toBe('25.0%');
    expect(matchRateLegend(daily, 1)).toBe('—');
    expect(matchRateLegend(daily, null)).toBe('27.3%');
    expect(matchRateSummary(daily)).toBe(
      'Match rate per day: 27.3% of 11 page views identified over 3 days; lowest 25.0% on 2026-03-01, highest 33.3% on 2026-03-03.',
    );
    expect(matchRateSummary([{ day: '2026-03-01', identified: 0, anonymous: 0 }])).toBe('Match rate per day: — of 0 page views identified over 1 days.');
  });
  it('lists the reasons of the split with their share, other and unclassified only when they hold page views', () => {
    const zeros = Object.fromEntries([...UNIDENTIFIED_REASONS, 'unclassified'].map((r) => [r, 0])) as Parameters<typeof splitRows>[0];
    const rows = splitRows({ ...zeros, isp: 3, vpn: 1 }, 4);
    expect(rows.map((r) => r.key)).toEqual(['isp', 'hosting', 'bot', 'vpn', 'proxy', 'tor', 'relay', 'no_data']);
    expect(rows[0]).toEqual({ key: 'isp', label: 'Internet service provider', page_views: 3, share: '75.0%' });
    expect(
      splitRows({ ...zeros, other: 1, unclassified: 2 }, 3)
        .map((r) => r.key)
        .slice(-2),
    ).toEqual(['other', 'unclassified']);
    expect(splitRows(zeros, 0)[0]!.share).toBe('—');
    expect(daysCsvFileName('acme', '2026-03-01', '2026-03-30', 101)).toBe('visits-acme-2026-03-01-2026-03-30-segment-101-days.csv');
  });
});
