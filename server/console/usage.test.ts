import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../../core/usage-records.ts';
import { usageTable } from './usage.ts';

const row = (api: string, month: string, charges: number, partner_charges = 0, pool: UsageRow['pool'] = 'enrichment'): UsageRow => ({
  pool,
  api,
  month,
  charges,
  partner_charges,
});

describe('usageTable', () => {
  it('has one row per API and one column per month, oldest month first, zeros where nothing was charged', () => {
    const t = usageTable([
      row('firmographics-v3', '2026-02', 5, 1),
      row('identification', '2026-01', 7, 0, 'identification'),
      row('firmographics-v3', '2026-01', 2),
      row('people-enrichment', '2026-02', 3),
    ]);
    expect(t.months).toEqual(['2026-01', '2026-02']);
    expect(t.rows).toEqual([
      { pool: 'enrichment', api: 'firmographics-v3', charges: [2, 5], partnerCharges: [0, 1], total: 7 },
      { pool: 'enrichment', api: 'people-enrichment', charges: [0, 3], partnerCharges: [0, 0], total: 3 },
      { pool: 'identification', api: 'identification', charges: [7, 0], partnerCharges: [0, 0], total: 7 },
    ]);
  });

  it('keeps only the most recent months', () => {
    const t = usageTable(
      ['2025-10', '2025-11', '2025-12', '2026-01'].map((m, i) => row('x', m, i + 1)),
      2,
    );
    expect(t.months).toEqual(['2025-12', '2026-01']);
    expect(t.rows[0]).toMatchObject({ charges: [3, 4], total: 7 });
  });

  it('is empty without usage', () => {
    expect(usageTable([])).toEqual({ months: [], rows: [] });
  });
});
