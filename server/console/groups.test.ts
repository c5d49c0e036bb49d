import { describe, expect, it } from 'vitest';
import { isEntitled } from '../../core/entitlements.ts';
import { ALL_GROUPS, creatableGroups, GROUP_LABELS, groupUsesDomains } from './groups.ts';

describe('creatableGroups', () => {
  it('offers only the groups the packages cover, in display order', () => {
    expect(creatableGroups(['platform'])).toEqual(['identification', 'company-firmographics', 'lead-scoring-firmographics']);
    expect(creatableGroups(['sales-intelligence'])).toEqual(['company-firmographics', 'lead-scoring-firmographics']);
    expect(creatableGroups(['people-enrichment'])).toEqual([]);
    expect(creatableGroups(['sales-intelligence', 'people-enrichment'])).toEqual([
      'company-firmographics',
      'lead-scoring-firmographics',
      'people-enrichment',
      'people-search',
    ]);
    expect(creatableGroups(['advanced'])).toEqual(['lead-scoring']);
    expect(creatableGroups([])).toEqual([]);
    expect(creatableGroups(['platform', 'sales-intelligence', 'advanced', 'people-enrichment'])).toEqual(ALL_GROUPS);
  });

  it('agrees with the server rule for every package combination', () => {
    const packages = ['platform', 'sales-intelligence', 'advanced', 'people-enrichment'];
    for (let mask = 0; mask < 1 << packages.length; mask++) {
      const chosen = packages.filter((_, i) => mask & (1 << i));
      expect(creatableGroups(chosen)).toEqual(ALL_GROUPS.filter((g) => isEntitled(chosen, g)));
    }
  });

  it('labels every group; only identification takes allowed domains', () => {
    expect(ALL_GROUPS).toHaveLength(6);
    for (const g of ALL_GROUPS) expect(GROUP_LABELS[g]).toBeTruthy();
    expect(ALL_GROUPS.filter(groupUsesDomains)).toEqual(['identification']);
  });
});
