/** The OpenAPI operations of the People routes (route.ts), over the shared kit. */
import examples from '../openapi/examples.json' with { type: 'json' };
import { leadOp } from '../openapi/kit.ts';

const ex = examples;

export const enrichPersonDoc = leadOp({
  operationId: 'enrichPerson',
  summary: 'People Enrichment: a person by email, LinkedIn URL or people id',
  tag: 'People',
  group: 'people-enrichment',
  bodyName: 'PeopleEnrichmentBody',
  okName: 'PeopleEnrichmentResponse',
  notFoundName: 'PeopleEnrichmentNotFound',
  ok: ex.peopleEnrichment,
  example: { email: ex.request.email },
  charged: true,
});

export const searchPeopleDoc = leadOp({
  operationId: 'searchPeople',
  summary: 'People Search: people of a company domain, filtered and paged',
  tag: 'People',
  group: 'people-search',
  bodyName: 'PeopleSearchBody',
  okName: 'PeopleSearchResponse',
  notFoundName: 'PeopleSearchNotFound',
  ok: ex.peopleSearch,
  example: { domain: ex.request.domain, page_size: '2' },
  charged: false,
});
