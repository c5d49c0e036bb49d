import { describe, expect, it } from 'vitest';
import { chargeMonth, contractYear, dedupeKey, poolOf, quotaPeriod } from './rules.ts';

describe('credit rules', () => {
  it('puts identification in its own pool and every enrichment API in the enrichment pool', () => {
    expect(poolOf('identification')).toBe('identification');
    for (const api of ['company-firmographics-v3', 'company-firmographics-v2', 'lead-scoring-firmographics', 'people-enrichment'] as const) expect(poolOf(api)).toBe('enrichment');
  });
  it('counts contract years from the contract start, anniversaries included', () => {
    expect(contractYear('2026-03-15', new Date('2026-03-15T00:00:00Z'))).toBe(0);
    expect(contractYear('2026-03-15', new Date('2027-03-14T23:59:59Z'))).toBe(0);
    expect(contractYear('2026-03-15', new Date('2027-03-15T00:00:00Z'))).toBe(1);
    expect(contractYear('2024-02-29', new Date('2026-03-01T00:00:00Z'))).toBe(2);
    expect(contractYear('2030-01-01', new Date('2026-01-01T00:00:00Z'))).toBe(0);
    expect(quotaPeriod('2026-01-01', new Date('2027-06-01T00:00:00Z'))).toBe('year-1');
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
