import { describe, expect, it } from 'vitest';
import { chargeMonth, contractYear, dedupeKey, poolOf, quotaPeriod } from './rules.ts';

describe('credit rules', () => {
  it('puts identification in its own pool and every enrichment API in the enrichment pool', () => {
    expect(poolOf('identification')).toBe('identification');
    for (const api of ['company-firmographics-v3', 'company-firmographics-v2', 'lead-scoring-firmographics', 'people-enrichment'] as const)
      expect(poolOf(api)).toBe('enrichment');
  });
  it('counts contract years from the contract start, anniversaries included', () => {
    expect(contractYear('2026-03-15', new Date('2026-03-15T00:00:00Z'))).toBe(0);
    expect(contractYear('2026-03-15', new Date('2027-03-14T23:59:59Z'))).toBe(0);
    expect(contractYear('2026-03-15', new Date('2027-03-15T00:00:00Z'))).toBe(1);
    expect(contractYear('2024-02-29', new Date('2026-03-01T00:00:00Z'))).toBe(2);
    expect(contractYear('2030-01-01', new Date('2026-01-01T00:00:00Z'))).toBe(0);
    expect(quotaPeriod('2026-01-01', new Date('2027-06-01T00:00:00Z'))).toBe('year-1');
  });
  it('answers the same when asked again, in any order across anniversaries and month ends (remembered intervals)', () => {
    // Asked forwards, backwards and around each boundary, so a remembered interval is tested at both its ends.
    const instants = [
      '2027-03-15T00:00:00Z',
      '2027-03-14T23:59:59.999Z',
      '2028-03-15T00:00:00Z',
      '2026-03-15T00:00:00Z',
      '2026-03-14T23:59:59Z',
      '2028-03-14T23:59:59.999Z',
      '2027-12-31T23:59:59.999Z',
      '2028-01-01T00:00:00Z',
    ];
    const expected = [1, 0, 2, 0, 0, 1, 1, 1];
    for (let round = 0; round < 2; round++) for (const [i, at] of instants.entries()) expect(contractYear('2026-03-15', new Date(at))).toBe(expected[i]);
    // A leap-day start: its anniversary is March 1 in other years; a start with a time of day keeps it.
    const leap = [
      ['2025-02-28T23:59:59Z', 0],
      ['2025-03-01T00:00:00Z', 1],
      ['2028-02-29T00:00:00Z', 4],
      ['2028-02-28T23:59:59Z', 3],
      ['2027-03-01T00:00:00Z', 3],
    ] as const;
    for (let round = 0; round < 2; round++) for (const [at, y] of leap) expect(contractYear('2024-02-29', new Date(at))).toBe(y);
    const timed = [
      ['2027-06-01T11:59:59Z', 0],
      ['2027-06-01T12:00:00Z', 1],
      ['2027-06-01T11:59:59Z', 0],
    ] as const;
    for (const [at, y] of timed) expect(contractYear('2026-06-01T12:00:00Z', new Date(at))).toBe(y);
    const months = [
      ['2026-12-01T00:00:00Z', '2026-12'],
      ['2026-11-30T23:59:59.999Z', '2026-11'],
      ['2027-01-01T00:00:00Z', '2027-01'],
      ['2026-12-31T23:59:59.999Z', '2026-12'],
    ] as const;
    for (let round = 0; round < 2; round++) for (const [at, m] of months) expect(chargeMonth(new Date(at))).toBe(m);
  });
  it('uses the UTC calendar month', () => {
    expect(chargeMonth(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(chargeMonth(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
  });
  it('dedupes enrichment per (API, record, month) and never identification', () => {
    const now = new Date('2026-11-10T00:00:00Z');
    expect(dedupeKey('c1', 'identification', '1.2.3.4', now)).toBeNull();
    expect(dedupeKey('c1', 'company-firmographics-v3', '42', now)).toBe('c1|company-firmographics-v3|42|2026-11');
    expect(dedupeKey('c1', 'company-firmographics-v3', '42', now)).not.toBe(dedupeKey('c1', 'lead-scoring-firmographics', '42', now));
    expect(dedupeKey('c1', 'company-firmographics-v3', '42', now)).not.toBe(dedupeKey('c2', 'company-firmographics-v3', '42', now));
    expect(dedupeKey('c1', 'people-enrichment', 'P1', now)).not.toBe(dedupeKey('c1', 'people-enrichment', 'P1', new Date('2026-12-01T00:00:00Z')));
  });
});
