import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../enrichment/answers.ts';
import { ACME_SOFTWARE, FIXTURE_PEOPLE } from '../testing/fixtures.ts';
import { findPerson, fullName, type PersonLookups, peopleEnrichmentAnswer } from './enrich-person.ts';
import { PeopleEnrichmentNotFound, PeopleEnrichmentResponse } from './schema.ts';

const lookups: PersonLookups = {
  personById: (id) => FIXTURE_PEOPLE.find((p) => p.people_id === id) ?? null,
  personByEmail: (e) => FIXTURE_PEOPLE.find((p) => p.email.toLowerCase() === e.toLowerCase()) ?? null,
  personByLinkedin: (u) => (u.includes('janedoe') ? FIXTURE_PEOPLE[0] : null),
};
const q = (o: Partial<{ people_id: string; email: string; linkedin_url: string }>) => ({ people_id: '', email: '', linkedin_url: '', ...o });
const title = { titleLevel: 'VP', titleFunction: 'Marketing' };

describe('findPerson', () => {
  it('by people_id, email or profile URL', () => {
    expect(findPerson(q({ people_id: 'P1002' }), lookups)).toMatchObject({ outcome: 'found', person: { people_id: 'P1002' } });
    expect(findPerson(q({ email: 'JANE.DOE@Northwind.example' }), lookups)).toMatchObject({ outcome: 'found', person: { people_id: 'P1001' } });
    expect(findPerson(q({ linkedin_url: 'linkedin.com/in/janedoe' }), lookups)).toMatchObject({ outcome: 'found', person: { people_id: 'P1001' } });
  });
  it('tries people_id, then email, then the URL; the first hit wins', () => {
    expect(findPerson(q({ people_id: 'P1003', email: 'jane.doe@northwind.example' }), lookups)).toMatchObject({ person: { people_id: 'P1003' } });
    expect(findPerson(q({ people_id: 'nope', email: 'jane.doe@northwind.example' }), lookups)).toMatchObject({ person: { people_id: 'P1001' } });
  });
  it('reports a malformed email', () => {
    expect(findPerson(q({ email: 'not an email' }), lookups)).toEqual({ outcome: 'not-found', invalidEmail: true });
    expect(findPerson(q({ email: 'who@nowhere.example' }), lookups)).toEqual({ outcome: 'not-found', invalidEmail: false });
  });
});

describe('peopleEnrichmentAnswer', () => {
  it('200: contact information and firmographics, charging the people id', () => {
    const r = peopleEnrichmentAnswer({ outcome: 'found', person: FIXTURE_PEOPLE[0] }, ACME_SOFTWARE, title, []);
    expect(PeopleEnrichmentResponse.parse(r.body)).toMatchObject({
      person: {
        people_id: 'P1001',
        name: 'Jane Doe',
        email: 'Jane.Doe@northwind.example',
        mobile: '+1 415 555 0199',
        titleLevel: 'VP',
        location: { city: 'San Francisco' },
      },
      company: { companyId: '900001', name: 'Northwind Analytics', titleFunction: 'Marketing' },
    });
    expect(r.charge).toEqual({ api: 'people-enrichment', record: 'P1001' });
  });
  it('a person whose company is unknown gets a blank company', () => {
    const r = peopleEnrichmentAnswer({ outcome: 'found', person: FIXTURE_PEOPLE[0] }, null, title, []);
    expect(PeopleEnrichmentResponse.parse(r.body).company).toMatchObject({ companyId: null, name: null, is_blacklisted: null });
  });
  it('404 with blank data', () => {
    const r = peopleEnrichmentAnswer({ outcome: 'not-found', invalidEmail: false }, null, title, []);
    expect(r.status).toBe(404);
    expect(r.charge).toBeUndefined();
    const body = PeopleEnrichmentNotFound.parse(r.body);
    expect(body.message).toBe(MESSAGES.noData);
    expect(body.person).toMatchObject({ people_id: null, titleLevel: null, location: { country: null } });
    expect(JSON.stringify(body)).not.toContain('""');
  });
  it('flags an excluded account in the company object, and answers null for what the person lacks', () => {
    const r = peopleEnrichmentAnswer({ outcome: 'found', person: { ...FIXTURE_PEOPLE[0], mobile: '', phone: '' } }, ACME_SOFTWARE, title, [
      ACME_SOFTWARE.company_id,
    ]);
    const body = PeopleEnrichmentResponse.parse(r.body);
    expect(body.company.is_blacklisted).toBe(true);
    expect(body.person).toMatchObject({ mobile: null, phone: null });
  });
  it('names people', () => {
    expect(fullName({ first_name: ' Ada ', last_name: '' })).toBe('Ada');
  });
});
