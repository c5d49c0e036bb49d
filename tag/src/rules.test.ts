import { describe, expect, it } from 'vitest';
import { isp, matched, noMatch } from '../test/fixtures.ts';
import { evaluate, rank } from './rules.ts';

const m = matched();

describe('evaluate: keywords', () => {
  it.each([
    ['match', m, true],
    ['match', isp(), false],
    ['match', noMatch(), false],
    ['no match', m, false],
    ['no match', isp(), true],
    ['no match', noMatch(), true],
    ['NO   MATCH', isp(), true],
    ['Match', m, true],
    ['match', null, false],
    ['no match', null, true],
  ] as const)('%s', (rule, data, want) => expect(evaluate(rule, data)).toBe(want));
});

describe('evaluate: comparisons on a matched answer', () => {
  it.each([
    ['segment = "Enterprise Software"', true],
    ["segment = 'enterprise software'", true],
    ['segment = Enterprise Software', true],
    ['segment = 12', true],
    ['segment = 15', true],
    ['segment = 13', false],
    ['segment = "Mid-Market"', false],
    ['segment != "Mid-Market"', true],
    ['segment != "Enterprise Software"', false],
    ['industry = Software', true],
    ['industry=software', true],
    ['industry = "Software"', true],
    ['company.industry = Software', true],
    ['industry = Hardware', false],
    ['industry != Hardware', true],
    ['country_iso_code = US', true],
    ['country = "United States"', true],
    ['country = Germany', false],
    ['country != Germany', true],
    ['employee_range = "1,000 - 4,999"', true],
    ['revenue_range = "$250M - $500M"', true],
    ['employee_count >= 1000', true],
    ['employee_count < 1000', false],
    ['city = "San Francisco"', true],
    ['company_match = Match', true],
    ['confidence >= High', true],
    ['confidence > High', false],
    ['confidence >= Very High', false],
    ['confidence >= "Very High"', false],
    ['confidence <= Moderate', false],
    ['confidence = high', true],
    ['confidence >= Moderate', true],
    ['confidence < Very High', true],
    ['buying_stage >= Consideration', true],
    ['buying_stage >= Purchase', false],
    ['buying_stage = Awareness', true],
    ['buying_stage < Consideration', true],
    ['cdp.buying_stage >= Consideration', true],
    ['cdp.buying_stage = Decision', true],
    ['cdp.buying_stage < Consideration', false],
    ['CDP.buying_stage >= decision', true],
    ['web analytics.buying_stage = Awareness', false],
    ['crm.buying_stage >= Target', false],
    ['profile_fit = Strong', true],
    ['profile_fit >= Moderate', true],
    ['cdp.profile_fit = Moderate', false],
    ['intent_score >= 80', true],
    ['intent_score > 90', false],
    ['cdp.intent_score = 82', true],
    ['is_svcqa = true', true],
    ['company.is_svcqa = true', true],
    ['is_blacklisted = false', true],
  ] as const)('%s', (rule, want) => expect(evaluate(rule, m)).toBe(want));
});

describe('evaluate: and / or', () => {
  it.each([
    ['match and industry = Software', true],
    ['match and industry = Hardware', false],
    ['match AND country_iso_code = US AND confidence >= High', true],
    ['industry = Hardware or country_iso_code = US', true],
    ['industry = Hardware or country_iso_code = DE', false],
    // and binds tighter: false or (true and true)
    ['industry = Hardware or match and country_iso_code = US', true],
    // (true or false) and false would be false; but and binds tighter: true or (false and false)
    ['match or industry = Hardware and country_iso_code = DE', true],
    ['no match or segment = "Enterprise Software"', true],
    ['segment = "Research and Development" or match', true],
    ['segment = "A or B" and match', false],
    ['industry != Hardware and match', true],
    ['confidence >= Very High or buying_stage >= Decision', true],
  ] as const)('%s', (rule, want) => expect(evaluate(rule, m)).toBe(want));

  it('evaluates against a non-match answer', () => {
    const data = isp();
    expect(evaluate('no match and confidence = Low', data)).toBe(true);
    expect(evaluate('segment = "Enterprise Software"', data)).toBe(false);
    expect(evaluate('segment != "Enterprise Software"', data)).toBe(true);
    expect(evaluate('buying_stage >= Target', data)).toBe(false);
    expect(evaluate('confidence >= High', noMatch())).toBe(false);
  });

  it('treats null fields as no values (not even an empty one)', () => {
    const data = { company: { company_match: 'Match' as const, industry: null } } as never;
    expect(evaluate('industry = ""', data)).toBe(false);
    expect(evaluate('industry != ""', data)).toBe(true);
    expect(evaluate('industry = ""', isp())).toBe(true); // "" is a value
  });

  it('treats missing sections as no values', () => {
    const data = { company: { company_match: 'Match' as const } };
    expect(evaluate('segment = 1', data)).toBe(false);
    expect(evaluate('buying_stage >= Target', data)).toBe(false);
    expect(evaluate('industry = Software', data)).toBe(false);
    expect(evaluate('match', data)).toBe(true);
  });
});

describe('evaluate: parentheses and not', () => {
  it.each([
    ['(match)', true],
    ['( match )', true],
    ['not match', false],
    ['NOT no match', true],
    ['not not match', true],
    ['not industry = Hardware', true],
    ['not country_iso_code = US', false],
    ['not (country_iso_code = US or country_iso_code = CA)', false],
    ['not (country_iso_code = DE or country_iso_code = CA)', true],
    // not binds tighter than and: (not false) and true
    ['not industry = Hardware and match', true],
    // without parentheses: true or (false and false); with them: (true or false) and false
    ['match or industry = Hardware and country_iso_code = DE', true],
    ['(match or industry = Hardware) and country_iso_code = DE', false],
    ['(industry = Hardware or match) and (confidence >= High or segment = 13)', true],
    ['((match))', true],
    ['(not match) or (segment = "Enterprise Software" and not segment = 13)', true],
    ['(segment = "Research (and) Development") or match', true],
    ['industry=Software and(country_iso_code=US)', true],
    ['match and not(industry = Software)', false],
    // quotes before, after and around parentheses
    ['segment = ")" or (match)', true],
    ['(match) and segment = "Enterprise Software"', true],
    ['(segment = \'a (b\' or match) and segment = "("', false],
    ["not (segment = '(' or segment = 'x)') and (match)", true],
  ] as const)('%s', (rule, want) => expect(evaluate(rule, m)).toBe(want));

  it('evaluates not against a non-match answer', () => {
    expect(evaluate('not match', isp())).toBe(true);
    expect(evaluate('not (match and confidence >= High)', noMatch())).toBe(true);
  });
});

describe('evaluate: malformed rules are false and never throw', () => {
  it.each([
    '',
    '   ',
    'and',
    'or',
    'match and',
    'and match',
    'match or',
    'match or or match',
    'match and and match',
    'industry',
    'industry =',
    'industry = ',
    '= Software',
    'industry == = Software',
    'industry => Software',
    'industry ! Software',
    'industry ~ Software',
    'segment = "Enterprise Software',
    "segment = 'Enterprise Software",
    'segment = "Enterprise" "Software"',
    'segment = "Enterprise" Software',
    'match)',
    '(match',
    '()',
    'not (match',
    'not',
    'match not',
    'not and match',
    '(industry = ) or match',
    'segment = Enterprise "Software"',
    'no',
    'no matches',
    'match match',
    'segments = 15',
    'industry = Software extra = 1',
    'segment = Enterprise=Software',
    // a malformed term poisons the whole rule, even when another term would be true
    'match or industry =',
    'industry = Software or )',
  ])('%j', (rule) => {
    expect(() => evaluate(rule, m)).not.toThrow();
    expect(evaluate(rule, m)).toBe(false);
    expect(evaluate(rule, null)).toBe(false);
  });

  it('survives odd inputs', () => {
    expect(evaluate(undefined as unknown as string, m)).toBe(false);
    expect(evaluate(42 as unknown as string, m)).toBe(false);
    expect(evaluate('constructor = x', m)).toBe(false);
    expect(evaluate('confidence >= constructor', m)).toBe(false);
    expect(evaluate('__proto__.x = 1', m)).toBe(false);
    expect(evaluate('match', { company: null } as never)).toBe(false);
    expect(evaluate('industry = x', {} as never)).toBe(false);
  });
});

describe('evaluate: scores and products', () => {
  it('compares a score field across products, or for the product before the dot', () => {
    const data = matched();
    data.company.is_svcqa = false;
    expect(evaluate('is_svcqa = true', data)).toBe(true); // the cdp product is hot
    expect(evaluate('cdp.is_svcqa = true', data)).toBe(true);
    expect(evaluate('crm.is_svcqa = true', data)).toBe(false);
    expect(evaluate('company.is_svcqa = true', data)).toBe(false);
    expect(evaluate('profile_score >= 90', data)).toBe(true);
    expect(evaluate('cdp.profile_score >= 92', data)).toBe(false);
    expect(evaluate('intent_score < 40', data)).toBe(true); // Web Analytics: 35
  });

  it('ranks the scales', () => {
    expect(rank('Very High')).toBeGreaterThan(rank('High'));
    expect(rank('Strong')).toBeGreaterThan(rank('moderate'));
    expect(rank('Purchase')).toBeGreaterThan(rank('Decision'));
    expect(rank('12')).toBe(12);
    for (const v of ['', ' ', null, undefined, 'constructor', 'abc']) expect(rank(v)).toBeNaN();
  });
});
