import { describe, expect, it } from 'vitest';
import { API_GROUPS, PACKAGES } from './customer-records.ts';
import { isEntitled } from './entitlements.ts';

describe('isEntitled', () => {
  it('People Enrichment and People Search are an add-on: people-enrichment AND platform or sales-intelligence', () => {
    for (const group of ['people-enrichment', 'people-search'] as const) {
      expect(isEntitled(['people-enrichment'], group)).toBe(false);
      expect(isEntitled(['people-enrichment', 'advanced'], group)).toBe(false);
      expect(isEntitled(['platform'], group)).toBe(false);
      expect(isEntitled(['people-enrichment', 'platform'], group)).toBe(true);
      expect(isEntitled(['sales-intelligence', 'people-enrichment'], group)).toBe(true);
    }
  });

  it('the other groups need one of their packages', () => {
    expect(isEntitled(['platform'], 'identification')).toBe(true);
    expect(isEntitled(['sales-intelligence'], 'identification')).toBe(false);
    expect(isEntitled(['sales-intelligence'], 'company-firmographics')).toBe(true);
    expect(isEntitled(['sales-intelligence'], 'lead-scoring-firmographics')).toBe(true);
    expect(isEntitled(['advanced'], 'lead-scoring')).toBe(true);
    for (const g of API_GROUPS) expect(isEntitled([], g)).toBe(false);
  });

  it('the Segments API is granted by the operator: no package covers it', () => {
    expect(isEntitled([...PACKAGES], 'segments')).toBe(false);
    expect(isEntitled({ packages: [...PACKAGES], grants: [] }, 'segments')).toBe(false);
    expect(isEntitled({ packages: [], grants: ['segments'] }, 'segments')).toBe(true);
    // A grant adds nothing else.
    for (const g of API_GROUPS) expect(isEntitled({ packages: [], grants: ['segments'] }, g)).toBe(false);
  });
});
