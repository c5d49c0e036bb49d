import { describe, expect, it } from 'vitest';
import type { PersonRow } from '../../core/catalog-records.ts';
import type { Package } from '../../core/customer-records.ts';
import { classifyTitle } from '../scoring/title-classifier.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, NORTHWIND_EUROPE } from '../testing/fixtures.ts';
import { addOnRefusal, buildCommittee, committeeCompanies, committeeCsv, revealRefusal } from './committee.ts';

const person = (people_id: string, title: string, extra: Partial<PersonRow> = {}): PersonRow => ({
  ...FIXTURE_PEOPLE[0]!,
  people_id,
  title,
  first_name: people_id,
  last_name: '',
  ...extra,
});

const ids = (c: ReturnType<typeof buildCommittee>) =>
  c.groups.map((g) => `${g.function ?? '-'}: ${g.levels.map((l) => `${l.level ?? '-'} ${l.people.map((p) => p.people_id).join(',')}`).join(' | ')}`);

describe('the committee of an account', () => {
  it('is the people of every company at its domain, the account first; its own alone without a domain', () => {
    const byDomain = (d: string) => (d === 'northwind.example' ? [ACME_SOFTWARE, NORTHWIND_EUROPE] : []);
    expect(committeeCompanies(NORTHWIND_EUROPE, byDomain).map((c) => c.company_id)).toEqual(['900003']);
    expect(committeeCompanies({ ...NORTHWIND_EUROPE, domain: 'northwind.example' }, byDomain).map((c) => c.company_id)).toEqual(['900003', '900001']);
    expect(committeeCompanies({ ...BLUEPEAK_MANUFACTURING, domain: ' ' }, byDomain).map((c) => c.company_id)).toEqual(['900002']);
  });

  it('groups people by function (vocabulary order, unreadable titles last), then seniority (most senior first), then people id', () => {
    const people = [
      person('P9', 'Marketing Manager'),
      person('P2', 'VP of Marketing'),
      person('P5', 'Chief Executive Officer'),
      person('P1', 'Marketing Manager'),
      person('P7', 'xyzzy'),
      person('P3', 'Software Engineer'),
      person('P4', 'Director of Engineering'),
    ];
    const c = buildCommittee(people, classifyTitle);
    expect(ids(c)).toEqual(['Executive: C-Level P5', 'Marketing: VP P2 | Manager P1,P9', 'Engineering: Director P4 | Staff P3', '-: - P7']);
    expect(c).toMatchObject({ total: 7, shown: 7, truncated: false });
    expect(c.groups.map((g) => g.count)).toEqual([1, 3, 2, 1]);
  });

  it('says which contact details exist as People Search does, never the values', () => {
    const c = buildCommittee(FIXTURE_PEOPLE, classifyTitle);
    const jane = c.groups.flatMap((g) => g.levels.flatMap((l) => l.people)).find((p) => p.people_id === 'P1001')!;
    expect(jane).toEqual({
      people_id: 'P1001',
      name: 'Jane Doe',
      title: 'VP of Marketing',
      titleLevel: 'VP',
      titleFunction: 'Marketing',
      location: { country: 'United States', state: 'California', city: 'San Francisco' },
      has_email: true,
      has_phone: true,
      has_mobile: true,
      company_id: '900001',
    });
    const text = JSON.stringify(c);
    for (const p of FIXTURE_PEOPLE) for (const secret of [p.email, p.phone, p.mobile, p.linkedin_url].filter(Boolean)) expect(text).not.toContain(secret);
  });

  it('keeps the most senior when there are more people than it answers, and stops reading at the scan limit', () => {
    const people = [person('P1', 'Engineer'), person('P2', 'CTO'), person('P3', 'Engineering Manager'), person('P4', 'VP Engineering')];
    const c = buildCommittee(people, classifyTitle, { maxPeople: 2, scanLimit: 10 });
    expect(ids(c)).toEqual(['Engineering: C-Level P2 | VP P4']);
    expect(c).toMatchObject({ total: 4, shown: 2, truncated: true });
    const scanned = buildCommittee(people, classifyTitle, { maxPeople: 10, scanLimit: 3 });
    expect(scanned).toMatchObject({ total: 3, shown: 3, truncated: true });
    expect(buildCommittee([], classifyTitle)).toEqual({ total: 0, shown: 0, truncated: false, groups: [] });
  });

  it('exports one CSV row per person in its order, formula-like cells escaped, no contact detail', () => {
    const people = [
      person('P2', '=HYPERLINK("http://evil.example","VP Sales")', { first_name: '@Mallory', last_name: '' }),
      person('P1', 'VP of Marketing', { first_name: 'Jane', last_name: 'Doe', phone: '', mobile: '' }),
    ];
    const csv = committeeCsv(buildCommittee(people, classifyTitle).groups);
    expect(csv.trim().split('\n')).toEqual([
      'function,seniority,people_id,name,title,company_id,country,state,city,has_email,has_phone,has_mobile',
      'Marketing,VP,P1,Jane Doe,VP of Marketing,900001,United States,California,San Francisco,true,false,false',
      `Sales,VP,P2,'@Mallory,"'=HYPERLINK(""http://evil.example"",""VP Sales"")",900001,United States,California,San Francisco,true,true,true`,
    ]);
    expect(csv).not.toContain(FIXTURE_PEOPLE[0]!.email);
  });
});

describe('who may see and reveal', () => {
  const addOn: { packages: Package[] } = { packages: ['platform', 'people-enrichment'] };
  it('needs the people add-on with platform or sales-intelligence, as People Search and Enrichment do', () => {
    expect(addOnRefusal(addOn, 'people-search')).toBeNull();
    expect(addOnRefusal({ packages: ['sales-intelligence', 'people-enrichment'] }, 'people-enrichment')).toBeNull();
    expect(addOnRefusal({ packages: ['platform'] }, 'people-search')).toBe(
      'The people at an account need the people-enrichment add-on package with platform or sales-intelligence (this customer has: platform)',
    );
    expect(addOnRefusal({ packages: ['people-enrichment'] }, 'people-enrichment')).toBe(
      'Revealing a person needs the people-enrichment add-on package with platform or sales-intelligence (this customer has: people-enrichment)',
    );
  });

  it('needs the people:reveal permission too, the add-on said first', () => {
    expect(revealRefusal(addOn, { role: 'marketer', mayReveal: true })).toBeNull();
    expect(revealRefusal(addOn, { role: 'viewer', mayReveal: false })).toBe('your role (viewer) may not reveal people: it needs the people:reveal permission');
    expect(revealRefusal({ packages: [] }, { role: 'viewer', mayReveal: false })).toMatch(/^Revealing a person needs .* \(this customer has: no package\)$/);
  });
});
