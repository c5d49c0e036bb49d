import { describe, expect, it } from 'vitest';
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, NORTHWIND_EUROPE } from '../testing/fixtures.ts';
import { type CompanyLookups, hintMatches, pickCompany, resolveCompany } from './resolve-company.ts';

const companies = [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE];
/** The catalog's domain order: the primary owner first, then by id. */
const byDomain: Record<string, CompanyRow[]> = {
  'northwind.example': [ACME_SOFTWARE, NORTHWIND_EUROPE],
  'bluepeak.example': [BLUEPEAK_MANUFACTURING],
  'northwind.co.uk': [NORTHWIND_EUROPE],
  'gmail.com': [BLUEPEAK_MANUFACTURING], // even if a free-mail domain were in the catalog, it identifies no company
};
const lookups: CompanyLookups = {
  personByEmail: (e) => FIXTURE_PEOPLE.find((p) => p.email.toLowerCase() === e.toLowerCase()) ?? null,
  company: (id) => companies.find((c) => c.company_id === id) ?? null,
  companiesByDomain: (d) => byDomain[d] ?? [],
};
const resolve = (email: string, domain = '', hints = {}) => resolveCompany({ email, domain, hints }, lookups);
const idOf = (r: ReturnType<typeof resolve>) => (r.outcome === 'found' ? r.company.company_id : r.outcome);

describe('resolveCompany', () => {
  it('finds a known person and their company first', () => {
    const r = resolve('JANE.DOE@northwind.example');
    expect(r).toMatchObject({ outcome: 'found', via: 'person', person: { people_id: 'P1001' }, company: { company_id: '900001' } });
  });

  it("uses the email's domain for an unknown person", () => {
    expect(resolve('nobody@bluepeak.example')).toMatchObject({ outcome: 'found', via: 'email-domain', person: null, company: { company_id: '900002' } });
  });

  it('a known person with a free-mail address keeps their company', () => {
    expect(resolve('ada.freelance@gmail.com')).toMatchObject({ outcome: 'found', via: 'person', company: { company_id: '900002' } });
  });

  it('a free-mail address identifies no company; the domain is the fallback', () => {
    expect(resolve('someone@gmail.com')).toEqual({ outcome: 'not-found', person: null });
    expect(resolve('someone@gmail.com', 'https://www.bluepeak.example/')).toMatchObject({ outcome: 'found', via: 'domain', company: { company_id: '900002' } });
    expect(resolve('', 'gmail.com')).toEqual({ outcome: 'not-found', person: null });
  });

  it('falls back to the domain when the email domain is unknown', () => {
    expect(idOf(resolve('x@unknown.example', 'bluepeak.example'))).toBe('900002');
    expect(idOf(resolve('', 'bluepeak.example'))).toBe('900002');
  });

  it('a malformed email is invalid even with a domain', () => {
    expect(resolve('not-an-email', 'bluepeak.example')).toEqual({ outcome: 'invalid-email' });
  });

  it('a malformed or unknown domain finds nothing', () => {
    expect(resolve('', 'not a domain')).toEqual({ outcome: 'not-found', person: null });
    expect(resolve('', 'unknown.example')).toEqual({ outcome: 'not-found', person: null });
  });

  it('keeps the known person when their company is unknown (Lead Scoring scores the contact)', () => {
    const orphan: PersonRow = { ...FIXTURE_PEOPLE[0], people_id: 'P9', email: 'orphan@nowhere.example', company_id: '999999' };
    const r = resolveCompany({ email: 'orphan@nowhere.example', domain: '', hints: {} }, { ...lookups, personByEmail: () => orphan });
    expect(r).toEqual({ outcome: 'not-found', person: orphan });
  });
});

describe('disambiguation of a shared domain', () => {
  it('without hints: the primary owner', () => expect(idOf(resolve('x@northwind.example'))).toBe('900001'));
  it.each([
    ['country name', { country: 'united kingdom' }],
    ['country code', { country: 'GB' }],
    ['company name words', { company: 'Northwind Europe' }],
    ['company name with legal form', { company: 'northwind analytics europe ltd.' }],
    ['industry', { industry: 'IT consulting' }],
    ['subindustry', { industry: 'it services' }],
  ])('by %s', (_n, hints) => expect(idOf(resolve('x@northwind.example', '', hints))).toBe('900003'));

  it('a hint matching both or neither keeps the default order', () => {
    expect(idOf(resolve('x@northwind.example', '', { company: 'Northwind' }))).toBe('900001');
    expect(idOf(resolve('x@northwind.example', '', { country: 'Japan' }))).toBe('900001');
  });

  it('the most matching hints win', () => {
    expect(idOf(resolve('x@northwind.example', '', { country: 'US', industry: 'IT Consulting', company: 'Europe' }))).toBe('900003');
  });

  it('hints never identify a company on their own', () => {
    expect(resolve('', 'unknown.example', { country: 'GB', company: 'Northwind Analytics Europe Ltd' })).toEqual({ outcome: 'not-found', person: null });
    expect(pickCompany([], { country: 'GB' })).toBeNull();
  });

  it('counts matches', () => {
    expect(hintMatches(NORTHWIND_EUROPE, { country: 'GB', company: 'northwind', industry: 'Software' })).toBe(2);
    expect(hintMatches(NORTHWIND_EUROPE, { company: 'Ltd' })).toBe(0);
  });
});
