/**
 * The account page's People section (workspace API, the customer's own ids only):
 *   GET  /admin/api/customers/:id/accounts/:companyId/people                       reports:read   the buying committee (JSON;
 *        `Accept: text/csv` or `…/people.csv`: CSV)
 *   POST /admin/api/customers/:id/accounts/:companyId/people/:personId/reveal      people:reveal  People Enrichment's answer
 * Both need the people add-on, as the APIs whose answers they are (committee.ts `addOnRefusal`): 403.
 * A reveal is charged by the pipeline's credit step as People Enrichment (`people-enrichment`, the people
 * id, monthly dedup: server/credits/rules.ts), with the customer as the caller, then audited.
 */
import accepts from 'accepts';
import { create as contentDisposition } from 'content-disposition';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { TITLE_LEVELS } from '../../core/vocabulary.ts';
import type { Caller } from '../auth/authenticate.ts';
import { may } from '../auth/principal.ts';
import { customerOr404 } from '../customers/lookup.ts';
import type { Catalog } from '../data/catalog.ts';
import { adminRoute } from '../http/admin-route.ts';
import type { RouteContext, RouteDef, RouteResult } from '../http/route-def.ts';
import { peopleEnrichmentAnswer } from '../people/enrich-person.ts';
import { classifyTitle } from '../scoring/title-classifier.ts';
import { addOnRefusal, buildCommittee, committeeCompanies, committeeCsv, revealRefusal } from './committee.ts';
import { committeeDocs } from './docs.ts';
import type { CommitteeAnswer } from './schema.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
const BASE = '/admin/api/customers/:id/accounts/:companyId/people';

interface Account {
  customer: CustomerRecord;
  company: CompanyRow;
  catalog: Catalog;
}

/** The customer (404), what its packages cover (403), then the company of the catalog (404). */
async function accountOf(ctx: RouteContext, group: 'people-search' | 'people-enrichment'): Promise<Account> {
  const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
  const refused = addOnRefusal(customer, group);
  if (refused !== null) throw new ApiError('forbidden', refused);
  const { catalog } = ctx.services.dataset.current;
  const companyId = ctx.req.params.companyId!;
  const company = catalog.company(companyId);
  if (!company) throw new ApiError('not_found', `unknown company ${companyId}`);
  return { customer, company, catalog };
}

function committeeAnswer(ctx: RouteContext, { customer, company, catalog }: Account): CommitteeAnswer {
  const companies = committeeCompanies(company, (d) => catalog.companiesByDomain(d));
  const committee = buildCommittee(catalog.peopleOfCompanies(companies.map((c) => c.company_id)), classifyTitle);
  const principal = ctx.principal!;
  const reason = revealRefusal(customer, {
    role: principal.kind === 'operator' ? 'operator' : principal.user.role,
    mayReveal: may(principal, 'people:reveal'),
  });
  return {
    customer_id: customer.id,
    company_id: company.company_id,
    domain: company.domain.trim() || null,
    companies: companies.map((c) => ({ company_id: c.company_id, name: c.name.trim() || null })),
    ...committee,
    levels: [...TITLE_LEVELS],
    reveal: { allowed: reason === null, reason },
  };
}

async function committee(ctx: RouteContext, csv: boolean): Promise<RouteResult> {
  const account = await accountOf(ctx, 'people-search');
  const answer = committeeAnswer(ctx, account);
  if (!csv) return { status: 200, body: answer };
  const filename = `people-${account.customer.id}-${account.company.company_id}.csv`;
  return { status: 200, text: committeeCsv(answer.groups), type: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': contentDisposition(filename) } };
}

/** The customer as the credit step's caller: no token, no tag (its usage records name no token). */
const customerCaller = (customer: CustomerRecord): Caller => ({
  customer,
  token: null,
  tag: null,
  settings: { scores: false, segment_names: false },
  corsOrigin: null,
  partner: null,
});

export const committeeRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: BASE,
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: committeeDocs.get,
    // CSV when the client prefers it to JSON (no Accept header is JSON), as the account page's own route.
    handler: (ctx) => committee(ctx, accepts(ctx.req.raw).type(['application/json', 'text/csv']) === 'text/csv'),
  }),
  adminRoute({
    method: 'GET',
    path: `${BASE}.csv`,
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: committeeDocs.csv,
    handler: (ctx) => committee(ctx, true),
  }),
  adminRoute({
    method: 'POST',
    path: `${BASE}/:personId/reveal`,
    access: { permission: 'people:reveal', customer: CUSTOMER },
    doc: committeeDocs.reveal,
    async handler(ctx) {
      const { customer, company, catalog } = await accountOf(ctx, 'people-enrichment');
      const personId = ctx.req.params.personId!;
      const person = catalog.personById(personId);
      const members = committeeCompanies(company, (d) => catalog.companiesByDomain(d));
      if (!person || !members.some((c) => c.company_id === person.company_id)) {
        throw new ApiError('not_found', `no person ${personId} among the people of company ${company.company_id}`);
      }
      const answer = peopleEnrichmentAnswer(
        { outcome: 'found', person },
        catalog.company(person.company_id),
        classifyTitle(person.title),
        customer.excluded_accounts,
      );
      // Charged before anything is shown: out of credits is 402 and the details stay hidden.
      await ctx.charge(answer.charge!, customerCaller(customer));
      await ctx.audit({
        customer: customer.id,
        action: 'person.reveal',
        target: person.people_id,
        after: { account: company.company_id, company_id: person.company_id },
      });
      return { status: answer.status, body: answer.body };
    },
  }),
];
