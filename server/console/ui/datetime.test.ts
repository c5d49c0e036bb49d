import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime } from './datetime.ts';

describe('the console shows one time format', () => {
  it('shows an instant as its UTC minute', () => {
    expect(formatDateTime('2026-11-25T18:42:07.123Z')).toBe('2026-11-25 18:42 UTC');
    expect(formatDateTime('2026-11-25T20:42:07+02:00')).toBe('2026-11-25 18:42 UTC');
    expect(formatDateTime(Date.UTC(2026, 0, 2, 3, 4))).toBe('2026-01-02 03:04 UTC');
  });
  it('shows a day as the UTC day, whether given a day or an instant', () => {
    expect(formatDate('2026-11-25')).toBe('2026-11-25');
    expect(formatDate('2026-11-25T23:59:59-01:00')).toBe('2026-11-26');
  });
  it('shows a missing value as a dash and an unreadable one as given', () => {
    expect(formatDateTime(null)).toBe('—');
    expect(formatDate('')).toBe('—');
    expect(formatDateTime('soon')).toBe('soon');
  });
});
