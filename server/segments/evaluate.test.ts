import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../data/sources/schema.ts';
import { matchingSegments, NO_LISTS, segmentMatches, segmentsPayload } from './evaluate.ts';

const company = {
  company_id: '1',
  industry: 'Software',
  employee_range: '1,000-4,999',
  country_iso_code: 'US',
  region: 'North America',
  revenue_range: '$100M-$250M',
} as CompanyRow;

describe('segment rules', () => {
  it('AND across fields, OR within a field, case-insensitive', () => {
    expect(segmentMatches({ industry: ['software', 'Media'], country_iso_code: ['US'] }, company, NO_LISTS)).toBe(true);
    expect(segmentMatches({ industry: ['Software'], country_iso_code: ['DE'] }, company, NO_LISTS)).toBe(false);
  });
  it('an empty rule matches nothing', () => expect(segmentMatches({}, company, NO_LISTS)).toBe(false));
  it('a missing company matches no segment', () => {
    expect(matchingSegments([{ id: 1, name: 'x', match: { industry: ['Software'] } }], null)).toEqual([]);
  });
  it('hides names unless allowed, keeping ids', () => {
    const segs = [{ id: 7, name: 'Enterprise', match: {} }];
    expect(segmentsPayload(segs, false)).toEqual({ ids: [7], names: [], list: [{ name: null, id: 7 }] });
    expect(segmentsPayload(segs, true)).toEqual({ ids: [7], names: ['Enterprise'], list: [{ name: 'Enterprise', id: 7 }] });
  });
});
