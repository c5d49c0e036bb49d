import { describe, expect, it } from 'vitest';
import { contractYearRange, displayPrefix, formatCount, formatMonth } from './format.ts';

describe('formatMonth', () => {
  it('names the month', () => {
    expect(formatMonth('2026-01')).toBe('Jan 2026');
    expect(formatMonth('2025-12')).toBe('Dec 2025');
  });
  it('leaves anything else as it came', () => {
    expect(formatMonth('2026-13')).toBe('2026-13');
    expect(formatMonth('soon')).toBe('soon');
  });
});

describe('formatCount and displayPrefix', () => {
  it('groups thousands', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(100000)).toBe('100,000');
  });
  it('shows the stored prefix with an ellipsis, nothing more', () => {
    expect(displayPrefix('abcd')).toBe('abcd…');
  });
});

describe('contractYearRange', () => {
  it('turns the server period into the dates it covers', () => {
    expect(contractYearRange('year-0', '2026-01-01')).toBe('2026-01-01 to 2026-12-31');
    expect(contractYearRange('year-1', '2026-03-01')).toBe('2027-03-01 to 2028-02-29');
    expect(contractYearRange('year-2', '2025-07-15')).toBe('2027-07-15 to 2028-07-14');
  });
  it('leaves an unknown period or start as it came', () => {
    expect(contractYearRange('2026', '2026-01-01')).toBe('2026');
    expect(contractYearRange('year-0', 'someday')).toBe('year-0');
  });
});
