import { describe, expect, it } from 'vitest';
import { FAMILIES, type FeatureRow, likeness, minThousandths, profileOf, rankLookalikes, reaches } from './method.ts';

const row = (over: Partial<FeatureRow> = {}): FeatureRow => ({
  industry: 'Software',
  subindustry: 'Application Software',
  naics: '511210',
  employee_range: '200-499',
  sic: '7372',
  revenue_range: '$10M-$50M',
  country_iso_code: 'US',
  region: 'North America',
  ...over,
});

/** Three seed accounts: two alike, one a little apart (another NAICS and SIC, the next size band, GB). */
const SEEDS: FeatureRow[] = [
  row(),
  row({ subindustry: 'Business Intelligence Software' }),
  row({ naics: '518210', employee_range: '500-999', sic: '7374', country_iso_code: 'GB', region: 'EMEA' }),
];
const PROFILE = profileOf(SEEDS);

describe('the lookalike method', () => {
  it('weighs eight firmographic families, the seed’s own weight over the families it has values for', () => {
    expect(FAMILIES.map((f) => [f.key, f.weight])).toEqual([
      ['industry', 3],
      ['subindustry', 3],
      ['naics', 2.5],
      ['employees', 2],
      ['sic', 1.5],
      ['revenue', 1.5],
      ['country', 1],
      ['region', 1],
    ]);
    expect(PROFILE.weight).toBe(15.5);
    expect(PROFILE.seeds).toBe(3);
  });

  it('scores the seed’s typical account 1, with a reason per family, the largest share first', () => {
    expect(likeness(PROFILE, row())).toEqual({
      score: 1,
      reasons: [
        'same industry (Software)',
        'same sub-industry (Application Software)',
        'shares NAICS 511210',
        '200–499 employees',
        'shares SIC 7372',
        '$10M–$50M revenue',
        'same country (US)',
        'same region (North America)',
      ],
    });
  });

  it('gives part credit: shared code prefixes, the next band, a value fewer seeds have (ignoring case)', () => {
    const b = row({
      industry: 'software',
      subindustry: 'Business Intelligence Software',
      naics: '511199',
      employee_range: '1,000-4,999',
      sic: '7371',
      revenue_range: '$50M-$100M',
      country_iso_code: 'DE',
      region: 'EMEA',
    });
    // industry 3×1 + sub-industry 3×½ + NAICS 2.5×0.6 (511: credit 0.6) + employees 2×¼ (next band of the
    // rarer 500–999) + SIC 1.5×0.8 (737) + revenue 1.5×½ (next band) + country 0 + region 1×½ = 8.95 of 15.5.
    expect(likeness(PROFILE, b)).toEqual({
      score: 0.577,
      reasons: [
        'same industry (software)',
        'same sub-industry (Business Intelligence Software)',
        'shares NAICS 511',
        'shares SIC 737',
        'similar revenue ($50M–$100M)',
        'same region (EMEA)',
      ],
    });
  });

  it('scores a blank account 0 and leaves a family no seed account has a value for out of the weight', () => {
    const blank = row({ industry: '', subindustry: '', naics: '', employee_range: '', sic: '', revenue_range: '', country_iso_code: '', region: '' });
    expect(likeness(PROFILE, blank)).toEqual({ score: 0, reasons: [] });
    const retail = profileOf([{ ...blank, industry: 'Retail' }]);
    expect(retail.weight).toBe(3);
    expect(likeness(retail, { ...blank, industry: ' RETAIL ', region: 'EMEA' })).toEqual({ score: 1, reasons: ['same industry (RETAIL)'] });
    expect(likeness(profileOf([]), row())).toEqual({ score: 0, reasons: [] });
  });

  it('ranks by score, equal scores by company id, the seed’s own accounts left out, whatever the input order', () => {
    const rows = [
      { company_id: 'b', ...row({ region: 'EMEA' }) },
      { company_id: 'a', ...row() },
      { company_id: '0a', ...row() },
      { company_id: 'seed-1', ...row() },
      { company_id: 'c', ...row({ industry: 'Retail', subindustry: '', naics: '452210', sic: '5311' }) },
    ];
    const seeds = new Set(['seed-1']);
    const ranked = rankLookalikes(PROFILE, rows, seeds, 10);
    expect(ranked.map((r) => [r.company_id, r.score])).toEqual([
      ['0a', 1],
      ['a', 1],
      ['b', 0.968],
      ['c', 0.355],
    ]);
    const shuffled = [rows[4], rows[2], rows[0], rows[3], rows[1]];
    expect(rankLookalikes(PROFILE, shuffled, seeds, 10)).toEqual(ranked);
    expect(rankLookalikes(profileOf([...SEEDS].reverse()), rows, seeds, 10)).toEqual(ranked);
    expect(rankLookalikes(PROFILE, rows, seeds, 2).map((r) => r.company_id)).toEqual(['0a', 'a']);
  });

  it('explains a tie between the seed’s own band and a neighbour the same way, whatever order the seed is counted in', () => {
    const small = row({ employee_range: '10-49' });
    const mid = row({ employee_range: '50-199' });
    // 10–49 itself: ½ of the seed's most common band; 50–199 next to it: 1 × ½. Equal: the band itself is named.
    for (const seeds of [
      [small, mid, mid],
      [mid, mid, small],
    ])
      expect(likeness(profileOf(seeds), row({ employee_range: '10-49' })).reasons).toContain('10–49 employees');
    expect(likeness(profileOf([mid]), row({ employee_range: '200-499' })).reasons).toContain('similar size (200–499 employees)');
  });

  it('compares a score with a minimum in thousandths, as the index does', () => {
    expect([0, 0.57, 0.7, 0.7005, 1].map(minThousandths)).toEqual([0, 570, 700, 701, 1000]);
    expect(reaches(0.57, 0.57)).toBe(true);
    expect(reaches(0.569, 0.57)).toBe(false);
    expect(reaches(0.7, 0.7005)).toBe(false);
    expect(reaches(0.701, 0.7005)).toBe(true);
    expect(reaches(0, 0)).toBe(true);
  });
});
