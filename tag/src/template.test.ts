import { describe, expect, it } from 'vitest';
import { isp, matched, noMatch } from '../test/fixtures.ts';
import { get, lookup, render } from './template.ts';

const m = matched();

describe('lookup', () => {
  it.each([
    ['company.name', 'Globex Corporation'],
    ['name', 'Globex Corporation'],
    ['industry', 'Software'],
    ['confidence', 'High'],
    ['segments.names', 'Enterprise Software, North America'],
    ['segments.ids', '12, 15'],
    ['segments.names.0', 'Enterprise Software'],
    ['scores.0.buying_stage', 'Decision'],
    ['scores.0.intent_score', '82'],
    ['company.is_svcqa', 'true'],
    ['company', ''],
    ['company.nope', ''],
    ['nope.deeper.still', ''],
    ['company.name.toString', ''],
    ['constructor', ''],
    ['', ''],
  ])('%s → %j', (path, want) => expect(lookup(m, path)).toBe(want));

  it('renders a null field (the API null rule) like an absent one: empty, or the fallback', () => {
    const blank = { company: { ...m.company, name: null, industry: null } };
    expect(lookup(blank, 'company.name')).toBe('');
    expect(lookup(blank, 'industry')).toBe('');
    expect(render('Hello {company.name|there}', blank)).toBe('Hello there');
    expect(render('company.name', blank)).toBeNull();
  });

  it('handles null data and null fields', () => {
    expect(lookup(null, 'company.name')).toBe('');
    expect(lookup(noMatch(), 'confidence')).toBe('');
    expect(get(m, 'company.companyId')).toBe('c-000042');
  });
});

describe('render', () => {
  it.each([
    ['company.name', 'Globex Corporation'],
    ['company.name|there', 'Globex Corporation'],
    ['Hello {company.name|there}', 'Hello Globex Corporation'],
    ['Hello { company.name | there}', 'Hello Globex Corporation'],
    ['Acme for {company.name|teams like yours}', 'Acme for Globex Corporation'],
    ['{name} in {city}, {country_iso_code}', 'Globex Corporation in San Francisco, US'],
    ['Built for {industry} teams ({confidence} confidence)', 'Built for Software teams (High confidence)'],
    ['literal text {', 'literal text {'],
    ['<b>{company.name}</b>', '<b>Globex Corporation</b>'], // text, never HTML: the caller sets textContent
  ])('%j', (tpl, want) => expect(render(tpl, m)).toBe(want));

  it('uses fallbacks for blank values and keeps the default text without one', () => {
    const data = isp();
    expect(render('Hello {company.name|there}', data)).toBe('Hello there');
    expect(render('Acme for {company.name|teams like yours}', data)).toBe('Acme for teams like yours');
    expect(render('company.name|your team', data)).toBe('your team');
    expect(render('Hello {company.name|}!', data)).toBe('Hello !');
    expect(render('company.name', data)).toBeNull();
    expect(render('Hello {company.name}', data)).toBeNull();
    expect(render('{company.name|there} from {company.city}', data)).toBeNull();
    expect(render('Hello {company.name|there}', null)).toBe('Hello there');
  });
});
