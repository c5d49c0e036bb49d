/**
 * The people-level routes DESIGN.md decides, on the shared pipeline:
 *   POST /v2/enrichment/people  People Enrichment  group people-enrichment  charges the people id
 *   POST /v2/search/people      People Search      group people-search      never charges
 * Bodies: form-encoded or JSON (`../enrichment/request-body.ts`); shapes: `schema.ts`.
 */
import type { Router } from 'express';
import { authenticateToken } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import type { Dataset } from '../data/dataset.ts';
import { parseDomain } from '../enrichment/email.ts';
import { parseInput, readBody } from '../enrichment/request-body.ts';
import { apiRoute } from '../http/api-route.ts';
import type { MeteringSteps } from '../http/pipeline.ts';
import type { AccessRecords } from '../state/store.ts';
import { findPerson, peopleEnrichmentAnswer } from './enrich-person.ts';
import { PeopleEnrichmentBody, PeopleSearchBody } from './schema.ts';
import { companiesInIndustries, peopleSearchAnswer, searchPeople } from './search.ts';
import { classifyTitle } from './title-classifier.ts';

export interface PeopleDeps {
  config: Config;
  store: AccessRecords;
  dataset: Dataset;
  pipeline: MeteringSteps;
}

export function mountPeople(router: Router, deps: PeopleDeps): void {
  router.post(
    '/v2/enrichment/people',
    apiRoute(
      deps.pipeline,
      (req) => authenticateToken(deps.store, req, 'people-enrichment'),
      async (req, caller) => {
        const query = parseInput(PeopleEnrichmentBody, await readBody(req));
        const { catalog } = deps.dataset.current;
        const resolution = findPerson(query, catalog);
        const person = resolution.outcome === 'found' ? resolution.person : null;
        const company = person?.company_id ? catalog.company(person.company_id) : null;
        return peopleEnrichmentAnswer(resolution, company, classifyTitle(person?.title ?? ''), caller.customer.excluded_accounts);
      },
    ),
  );

  router.post(
    '/v2/search/people',
    apiRoute(
      deps.pipeline,
      (req) => authenticateToken(deps.store, req, 'people-search'),
      async (req) => {
        const query = parseInput(PeopleSearchBody, await readBody(req));
        const { catalog } = deps.dataset.current;
        const domain = parseDomain(query.domain);
        const companies = domain ? catalog.companiesByDomain(domain) : [];
        if (companies.length === 0) return peopleSearchAnswer(query, null);
        const inIndustries = companiesInIndustries(companies, query.industries);
        const people = inIndustries.length > 0 ? catalog.peopleOfCompanies(inIndustries.map((c) => c.company_id)) : [];
        return peopleSearchAnswer(query, searchPeople(people, query, query, classifyTitle));
      },
    ),
  );
}
