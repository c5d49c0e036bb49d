import { describe, expect, it } from 'vitest';
import type { PersonRow } from '../../core/catalog-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, NORTHWIND_EUROPE } from '../testing/fixtures.ts';
import { PeopleSearchBody, PeopleSearchNotFound, PeopleSearchResponse } from './schema.ts';
import { companiesInIndustries, jobTitleMatches, locationMatches, peopleSearchAnswer, profileOf, searchPeople } from './search.ts';

/** A stand-in classification so these tests do not depend on the classifier's vocabulary. */
const classify = (title: string) => ({
  titleLevel: /vp|vice/i.test(title) ? 'VP' : /chief/i.test(title) ? 'C-Level' : 'Staff',
  titleFunction: /marketing/i.test(title) ? 'Marketing' : 'Other',
});
const page = (n: number, size: number) => ({ page: n, page_size: size });

describe('profiles', () => {
  it('say only whether contact details exist', () => {
    const p = profileOf(FIXTURE_PEOPLE[0], classify(FIXTURE_PEOPLE[0].title));
    expect(PeopleSearchResponse.shape.profiles.element.parse(p)).toEqual({
      people_id: 'P1001',
      name: 'Jane Doe',
      title: 'VP of Marketing',
      titleLevel: 'VP',
      titleFunction: 'Marketing',
      location: { country: 'United States', state: 'California', city: 'San Francisco' },
      has_email: true,
      has_phone: true,
      has_mobile: true,
    });
    expect(JSON.stringify(p)).not.toMatch(/@|\+1 415/);
    expect(profileOf(FIXTURE_PEOPLE[2], classify('x'))).toMatchObject({ has_email: true, has_phone: false, has_mobile: false });
  });
  it('answer null, never "", for what a person lacks (null rule)', () => {
    const p = profileOf({ ...FIXTURE_PEOPLE[0], title: '', state: '', city: ' ' }, { titleLevel: '', titleFunction: '' });
    expect(PeopleSearchResponse.shape.profiles.element.parse(p)).toMatchObject({
      title: null,
      titleLevel: null,
      titleFunction: null,
      location: { country: 'United States', state: null, city: null },
    });
  });
});

describe('filters', () => {
  it('locations match country, state or city, ignoring case and accents', () => {
    const p = FIXTURE_PEOPLE[1]; // Germany / Bavaria / Munich
    for (const l of [['germany'], ['BAVARIA'], ['munich'], ['Nowhere', 'Munich']]) expect(locationMatches(p, l)).toBe(true);
    expect(locationMatches({ ...p, city: 'München' }, ['munchen'])).toBe(true);
    expect(locationMatches(p, ['France'])).toBe(false);
    expect(locationMatches(p, [])).toBe(true);
  });

  it('industries match the company industry or subindustry', () => {
    const all = [ACME_SOFTWARE, NORTHWIND_EUROPE, BLUEPEAK_MANUFACTURING];
    expect(companiesInIndustries(all, ['software']).map((c) => c.company_id)).toEqual(['900001']);
    expect(companiesInIndustries(all, ['IT services', 'Industrial Machinery']).map((c) => c.company_id)).toEqual(['900003', '900002']);
    expect(companiesInIndustries(all, [])).toHaveLength(3);
  });

  it('job titles match title word sequences or the level/function', () => {
    const t = 'VP of Marketing';
    const c = { titleLevel: 'VP', titleFunction: 'Marketing' };
    for (const q of [['vp'], ['marketing'], ['VP of marketing'], ['of marketing'], ['Sales', 'vp']]) expect(jobTitleMatches(t, c, q)).toBe(true);
    for (const q of [['market'], ['sales'], ['marketing vp'], ['   ']]) expect(jobTitleMatches(t, c, q)).toBe(false);
    expect(jobTitleMatches('Head of Growth', { titleLevel: 'Director', titleFunction: 'Marketing' }, ['marketing'])).toBe(true);
  });
});

describe('searchPeople', () => {
  const people: PersonRow[] = [...FIXTURE_PEOPLE].sort((a, b) => (a.people_id < b.people_id ? -1 : 1));

  it('counts every match and returns the requested page only', () => {
    expect(searchPeople(people, { locations: [], job_titles: [] }, page(1, 2), classify)).toMatchObject({
      total: 5,
      profiles: [{ people_id: 'P1001' }, { people_id: 'P1002' }],
    });
    expect(searchPeople(people, { locations: [], job_titles: [] }, page(3, 2), classify).profiles.map((p) => p.people_id)).toEqual(['P1005']);
    expect(searchPeople(people, { locations: [], job_titles: [] }, page(4, 2), classify)).toEqual({ total: 5, profiles: [] });
  });

  it('ANDs filters', () => {
    const r = searchPeople(people, { locations: ['Germany'], job_titles: ['chief'] }, page(1, 25), classify);
    expect(r.profiles.map((p) => p.people_id)).toEqual(['P1002']);
  });
});

describe('PeopleSearchBody', () => {
  it('reads comma-separated forms and JSON arrays alike', () => {
    const form = PeopleSearchBody.parse({ domain: 'x.example', locations: 'Germany, ,Bavaria', job_titles: 'vp', page: '2', page_size: '10' });
    expect(form).toMatchObject({ locations: ['Germany', 'Bavaria'], industries: [], job_titles: ['vp'], page: 2, page_size: 10 });
    const json = PeopleSearchBody.parse({ domain: 'x.example', locations: ['Germany', 'Bavaria'], page: 2, page_size: 10 });
    expect(json).toMatchObject({ locations: ['Germany', 'Bavaria'], page: 2, page_size: 10 });
    expect(PeopleSearchBody.parse({ domain: 'x.example', page: '' })).toMatchObject({ page: 1, page_size: 25 });
  });
  it.each([
    { page_size: 101 },
    { page_size: '101' },
    { page_size: 0 },
    { page_size: 2.5 },
    { page_size: '2.5' },
    { page: 0 },
    { page: '-1' },
    { page: 'one' },
    { page: '1e3' },
    { locations: 'x'.repeat(501) },
    { locations: Array(51).fill('x') },
    { job_titles: [1] },
    { industries: { a: 1 } },
  ])('refuses %j', (extra) => {
    expect(PeopleSearchBody.safeParse({ domain: 'x.example', ...extra }).success).toBe(false);
  });
});

describe('peopleSearchAnswer', () => {
  const q = PeopleSearchBody.parse({ domain: 'x.example', page: 2, page_size: 10 });
  it('200 with total, paging and profiles; never charged', () => {
    const r = peopleSearchAnswer(q, { total: 0, profiles: [] });
    expect(r).toEqual({ status: 200, body: { total: 0, page: 2, page_size: 10, profiles: [] } });
  });
  it('404 for an unknown domain', () => {
    const r = peopleSearchAnswer(q, null);
    expect(r.status).toBe(404);
    expect(PeopleSearchNotFound.parse(r.body)).toMatchObject({ status: 'error', total: 0, profiles: [] });
  });
});
