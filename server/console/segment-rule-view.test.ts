import { describe, expect, it } from 'vitest';
import { SegmentMatch } from '../../core/customer-records.ts';
import { EMPLOYEE_RANGES, REVENUE_RANGES } from '../../core/vocabulary.ts';
import { MATCH_FIELDS, segmentMatches } from '../segments/evaluate.ts';
import { NewSegment } from '../segments/schema.ts';
import { ACME_SOFTWARE } from '../testing/fixtures.ts';
import {
  addCondition,
  addValues,
  BUILDER_FIELDS,
  cleanRule,
  FIELD_SPECS,
  freeFields,
  hasConditions,
  removeCondition,
  removeValue,
  ruleInWords,
  ruleKey,
  segmentBody,
  suggestions,
  toggleChoice,
  usedFields,
} from './segment-rule-view.ts';

describe('the builder fields', () => {
  it('are rule fields the server evaluates, with pickers exactly where the vocabulary is fixed', () => {
    for (const f of BUILDER_FIELDS) expect(MATCH_FIELDS[f], f).toBeDefined();
    expect(FIELD_SPECS.employee_range.choices).toBe(EMPLOYEE_RANGES);
    expect(FIELD_SPECS.revenue_range.choices).toBe(REVENUE_RANGES);
    expect(BUILDER_FIELDS.filter((f) => FIELD_SPECS[f].choices)).toEqual(['employee_range', 'revenue_range']);
    expect(BUILDER_FIELDS.filter((f) => FIELD_SPECS[f].prefix)).toEqual(['sic_prefix', 'naics_prefix']);
  });
});

describe('editing a rule', () => {
  it('adds one condition per field, offers only the free fields, and removes a condition', () => {
    let m = addCondition({}, 'industry');
    expect(m).toEqual({ industry: [] });
    expect(addCondition(m, 'industry')).toBe(m);
    m = addCondition(m, 'employee_range');
    expect(usedFields(m)).toEqual(['industry', 'employee_range']);
    expect(freeFields(m)).not.toContain('industry');
    expect(freeFields(m)).toHaveLength(BUILDER_FIELDS.length - 2);
    expect(removeCondition(m, 'industry')).toEqual({ employee_range: [] });
  });

  it('adds typed values: comma-separated, trimmed, codes upper-cased, never twice (any case)', () => {
    const r = addValues({ industry: ['Software'] }, 'industry', ' Retail,  software , Media');
    expect(r).toEqual({ ok: true, match: { industry: ['Software', 'Retail', 'Media'] } });
    expect(addValues({}, 'country_iso_code', 'us, de')).toEqual({ ok: true, match: { country_iso_code: ['US', 'DE'] } });
    expect(addValues({}, 'sic_prefix', '73')).toEqual({ ok: true, match: { sic_prefix: ['73'] } });
  });

  it('refuses values the catalog cannot hold, naming the field and the value; nothing changes', () => {
    expect(addValues({}, 'country_iso_code', 'USA')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Country: “USA” is not valid \(a two-letter/),
    });
    expect(addValues({}, 'sic_prefix', '7a')).toMatchObject({ ok: false, message: expect.stringMatching(/^SIC code: “7a”/) });
    expect(addValues({}, 'naics_prefix', '1234567')).toMatchObject({ ok: false });
    expect(addValues({}, 'employee_range', 'huge')).toMatchObject({ ok: false, message: expect.stringMatching(/one of 1-9, 10-49/) });
    expect(addValues({}, 'industry', ' , ')).toMatchObject({ ok: false, message: 'Industry: e.g. Software' });
    expect(addValues({ country_iso_code: ['US'] }, 'country_iso_code', 'DE, nope')).toMatchObject({ ok: false });
  });

  it('toggles picker values, kept in the vocabulary order; removes a typed value', () => {
    let m = toggleChoice({}, 'employee_range', '10,000+', true);
    m = toggleChoice(m, 'employee_range', '1-9', true);
    m = toggleChoice(m, 'employee_range', '1-9', true);
    expect(m).toEqual({ employee_range: ['1-9', '10,000+'] });
    expect(toggleChoice(m, 'employee_range', '1-9', false)).toEqual({ employee_range: ['10,000+'] });
    expect(removeValue({ industry: ['A', 'B'] }, 'industry', 'A')).toEqual({ industry: ['B'] });
  });
});

describe('the rule as saved, previewed and read', () => {
  it('drops conditions without values; an empty rule has no conditions', () => {
    expect(cleanRule({ industry: [], region: ['EMEA'] })).toEqual({ region: ['EMEA'] });
    expect(hasConditions({ industry: [] })).toBe(false);
    expect(hasConditions({ company_id: ['1'] })).toBe(true);
  });

  it('has one key whatever the field order, ignoring empty conditions', () => {
    expect(ruleKey({ industry: ['A'], region: ['B'] })).toBe(ruleKey({ region: ['B'], industry: ['A'], state: [] }));
    expect(ruleKey({ industry: ['A'] })).not.toBe(ruleKey({ industry: ['A', 'C'] }));
  });

  it('reads in words: AND across fields, OR within one, prefixes as "starts with", other fields kept', () => {
    expect(ruleInWords({ industry: ['Software', 'Retail', 'Media'], employee_range: ['1,000-4,999'], sic_prefix: ['73'] })).toBe(
      'Industry is Software, Retail or Media, and Employees is 1,000-4,999, and SIC code starts with 73',
    );
    expect(ruleInWords({ company_id: ['1', '2', '3', '4', '5', '6'] })).toBe('Company id is one of 6 values');
    expect(ruleInWords({ industry: [] })).toBe('matches no account yet: add a condition');
  });

  it('suggests the values other segments use', () => {
    expect(suggestions([{ industry: ['Software', 'retail'] }, { industry: ['Software'] }, { region: ['EMEA'] }], 'industry')).toEqual(['retail', 'Software']);
  });
});

describe('saving', () => {
  const others = [
    { id: 101, name: 'Enterprise Software' },
    { id: 102, name: 'EMEA' },
  ];

  it('sends the trimmed name and the clean rule, which the API schema takes and the server evaluates', () => {
    const built = toggleChoice({ industry: ['software'], state: [] }, 'employee_range', '1,000-4,999', true);
    const r = segmentBody('  Big software ', built, others, null);
    expect(r).toEqual({ ok: true, body: { name: 'Big software', match: { industry: ['software'], employee_range: ['1,000-4,999'] } } });
    if (!r.ok) return;
    expect(NewSegment.safeParse(r.body).success).toBe(true);
    expect(SegmentMatch.safeParse(r.body.match).success).toBe(true);
    // The builder's values are what the catalog stores (case-insensitive): the fixture company matches.
    expect(segmentMatches(r.body.match, { ...ACME_SOFTWARE, industry: 'Software', employee_range: '1,000-4,999' })).toBe(true);
  });

  it('refuses a missing, long or taken name (not the segment being edited) and an empty rule', () => {
    expect(segmentBody(' ', { region: ['EMEA'] }, others, null)).toMatchObject({ ok: false, field: 'name' });
    expect(segmentBody('x'.repeat(201), { region: ['EMEA'] }, others, null)).toMatchObject({ ok: false, field: 'name' });
    expect(segmentBody('enterprise SOFTWARE', { region: ['EMEA'] }, others, null)).toMatchObject({
      ok: false,
      field: 'name',
      message: 'Name: the segment “Enterprise Software” has this name already.',
    });
    expect(segmentBody('Enterprise software', { region: ['EMEA'] }, others, 101)).toMatchObject({ ok: true });
    expect(segmentBody('New', { industry: [] }, others, null)).toMatchObject({ ok: false, field: 'rule' });
  });
});
