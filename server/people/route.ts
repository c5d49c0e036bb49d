/**
 * The people-level routes DESIGN.md decides, on the shared pipeline:
 *   POST /v2/enrichment/people  People Enrichment  group people-enrichment  charges the people id
 *   POST /v2/search/people      People Search      group people-search      never charges
 * Bodies: form-encoded or JSON (`../enrichment/request-body.ts`); shapes: `schema.ts`.
 */

import { LEAD_BODY_LIMIT } from '../enrichment/request-body.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import { parseDomain } from '../net/email.ts';
import { classifyTitle } from '../scoring/title-classifier.ts';
import { enrichPersonDoc, searchPeopleDoc } from './docs.ts';
import { findPerson, peopleEnrichmentAnswer } from './enrich-person.ts';
import { PeopleEnrichmentBody, PeopleSearchBody } from './schema.ts';
import { companiesInIndustries, peopleSearchAnswer, searchPeople } from './search.ts';

export const peopleRoutes: RouteDef[] = [
  apiRoute({
    method: 'POST',
    path: '/v2/enrichment/people',
    auth: { kind: 'token', group: 'people-enrichment' },
    body: { types: 'fields', limit: LEAD_BODY_LIMIT, schema: PeopleEnrichmentBody, validation: 'fields' },
    charges: 'people-enrichment',
    doc: enrichPersonDoc.post,
    handler(ctx) {
      const { catalog } = ctx.services.dataset.current;
      const resolution = findPerson(ctx.body, catalog);
      const person = resolution.outcome === 'found' ? resolution.person : null;
      const company = person?.company_id ? catalog.company(person.company_id) : null;
      return peopleEnrichmentAnswer(resolution, company, classifyTitle(person?.title ?? ''), ctx.caller!.customer.excluded_accounts);
    },
  }),
  apiRoute({
    method: 'POST',
    path: '/v2/search/people',
    auth: { kind: 'token', group: 'people-search' },
    body: { types: 'fields', limit: LEAD_BODY_LIMIT, schema: PeopleSearchBody, validation: 'fields' },
    doc: searchPeopleDoc.post,
    handler(ctx) {
      const query = ctx.body;
      const { catalog } = ctx.services.dataset.current;
      const domain = parseDomain(query.domain);
      const companies = domain ? catalog.companiesByDomain(domain) : [];
      if (companies.length === 0) return peopleSearchAnswer(query, null);
      const inIndustries = companiesInIndustries(companies, query.industries);
      const people = inIndustries.length > 0 ? catalog.peopleOfCompanies(inIndustries.map((c) => c.company_id)) : [];
      return peopleSearchAnswer(query, searchPeople(people, query, query, classifyTitle));
    },
  }),
];
