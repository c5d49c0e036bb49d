/**
 * Pure decisions of People Enrichment: which person a request names, and the answer.
 *   - Identifiers are tried in the order people_id, email, linkedin_url; the first that finds a person wins.
 *   - 200 `{ person, company }`: the person's contact information and their company's firmographics (the
 *     v3 company object with `is_blacklisted`; every field null when the person's company is not in the catalog). Charged once per
 *     people id and month (`people-enrichment`).
 *   - 404 `{ status: "error", message, person: blank, company: blank }` when no person is found (blank:
 *     every field null, null rule).
 */
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { MESSAGES } from '../enrichment/answers.ts';
import { companyV3 } from '../enrichment/company-payload.ts';
import { orNull } from '../http/null-rule.ts';
import type { RouteResult } from '../http/route-def.ts';
import { parseEmail } from '../net/email.ts';
import type { TitleClassification } from '../scoring/model.ts';
import type { EnrichedPerson, PeopleEnrichmentBody } from './schema.ts';

export interface PersonLookups {
  personById(id: string): PersonRow | null;
  personByEmail(email: string): PersonRow | null;
  personByLinkedin(url: string): PersonRow | null;
}

export type PersonResolution = { outcome: 'found'; person: PersonRow } | { outcome: 'not-found'; invalidEmail: boolean };

export function findPerson(query: PeopleEnrichmentBody, lookups: PersonLookups): PersonResolution {
  const email = query.email === '' ? null : parseEmail(query.email);
  const person =
    (query.people_id !== '' ? lookups.personById(query.people_id) : null) ??
    (email ? lookups.personByEmail(email.address) : null) ??
    (query.linkedin_url !== '' ? lookups.personByLinkedin(query.linkedin_url) : null);
  if (person) return { outcome: 'found', person };
  return { outcome: 'not-found', invalidEmail: query.email !== '' && email === null };
}

/** "First Last", either part may be blank. */
export function fullName(p: Pick<PersonRow, 'first_name' | 'last_name'>): string {
  return [p.first_name.trim(), p.last_name.trim()].filter(Boolean).join(' ');
}

export function personPayload(p: PersonRow | null, title: TitleClassification): EnrichedPerson {
  return {
    people_id: orNull(p?.people_id),
    name: p ? orNull(fullName(p)) : null,
    first_name: orNull(p?.first_name),
    last_name: orNull(p?.last_name),
    title: orNull(p?.title),
    titleLevel: p ? orNull(title.titleLevel) : null,
    titleFunction: p ? orNull(title.titleFunction) : null,
    email: orNull(p?.email),
    phone: orNull(p?.phone),
    mobile: orNull(p?.mobile),
    linkedin_url: orNull(p?.linkedin_url),
    location: { country: orNull(p?.country), state: orNull(p?.state), city: orNull(p?.city) },
  };
}

export function peopleEnrichmentAnswer(
  resolution: PersonResolution,
  company: CompanyRow | null,
  title: TitleClassification,
  excludedAccounts: readonly string[],
): RouteResult {
  if (resolution.outcome === 'not-found') {
    const message = resolution.invalidEmail ? MESSAGES.invalidEmail : MESSAGES.noData;
    return {
      status: 404,
      body: { status: 'error', message, person: personPayload(null, title), company: companyV3(null, title, excludedAccounts), code: 'not_found' },
    };
  }
  const { person } = resolution;
  return {
    status: 200,
    body: { person: personPayload(person, title), company: companyV3(company, title, excludedAccounts) },
    charge: { api: 'people-enrichment', record: person.people_id },
  };
}
