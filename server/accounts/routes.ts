/**
 * The account page's routes (workspace API, `reports:read`, the customer's own ids only):
 *   GET /admin/api/customers/:id/accounts?q=               the search box: companies by id, domain or name prefix
 *   GET /admin/api/customers/:id/accounts/:companyId       the account page (account.ts) as JSON;
 *       `Accept: text/csv` or `…/:companyId.csv`            its page views per day and its sessions' pages as CSV
 * The company comes from the catalog (any company may be looked at, visited or not); an unknown one is 404.
 */
import accepts from 'accepts';
import { create as contentDisposition } from 'content-disposition';
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteContext, RouteDef, RouteResult } from '../http/route-def.ts';
import { LOG_KEEP } from '../state/outbox/store.ts';
import { VisitsQuery } from '../visits/report.ts';
import type { DeliveryRecord } from '../webhooks/schema.ts';
import { accountCsv, foundAccount, SEARCH_LIMIT } from './account.ts';
import { accountDocs, accountSearchDocs } from './docs.ts';
import { gatherAccountPage } from './gather.ts';

const ACCESS = { permission: 'reports:read', customer: { from: 'param', name: 'id' } } as const;

const customerOf = (ctx: RouteContext): Promise<CustomerRecord> => customerOr404(ctx.services.store, ctx.req.params.id!);

const SearchQuery = z.object({ q: z.string().max(200, 'q: at most 200 characters').default('') });

/**
 * Deliveries of the customer's endpoints about this account. The outbox keeps a log of LOG_KEEP finished
 * deliveries per endpoint (and at most 20 endpoints per customer): each log read once, filtered by the
 * account its event names.
 */
async function deliveriesOf(ctx: RouteContext, customerId: string, companyId: string): Promise<DeliveryRecord[]> {
  const outbox = ctx.services.webhooks?.webhookStore;
  if (!outbox) return [];
  const endpoints = await outbox.listEndpoints(customerId);
  const logs = await Promise.all(endpoints.map((e) => outbox.listDeliveries(customerId, e.id, LOG_KEEP)));
  return logs.flat().filter((d) => d.company_id === companyId);
}

async function accountPage(ctx: RouteContext, csvSuffix: boolean): Promise<RouteResult> {
  const customer = await customerOf(ctx);
  const { catalog } = ctx.services.dataset.current;
  let companyId = ctx.req.params.companyId!;
  let company = catalog.company(companyId);
  let csv = csvSuffix;
  if (!company && companyId.endsWith('.csv')) {
    companyId = companyId.slice(0, -'.csv'.length);
    company = catalog.company(companyId);
    csv = true;
  }
  if (!company) throw new ApiError('not_found', `unknown company ${companyId}`);
  const { from, to } = parseRecord(VisitsQuery, { from: ctx.req.query.from, to: ctx.req.query.to });
  const { page } = await gatherAccountPage(
    { catalog, recorder: ctx.services.recorder, deliveries: (c, a) => deliveriesOf(ctx, c, a), crm: ctx.services.crm?.deps.crm },
    customer,
    company,
    { from, to },
    new Date(),
  );
  if (!csv) return { status: 200, body: page };
  const filename = `account-${customer.id}-${company.company_id}-${from}-${to}.csv`;
  return { status: 200, text: accountCsv(page), type: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': contentDisposition(filename) } };
}

export const accountRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/accounts',
    access: ACCESS,
    doc: accountSearchDocs.get,
    async handler(ctx) {
      const customer = await customerOf(ctx);
      const { q } = parseRecord(SearchQuery, { q: ctx.req.query.q });
      const found = ctx.services.dataset.current.catalog.searchCompanies(q, SEARCH_LIMIT);
      return { status: 200, body: { customer_id: customer.id, q, accounts: found.map(foundAccount) } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/accounts/:companyId',
    access: ACCESS,
    doc: accountDocs.get,
    // CSV when the path ends in .csv or the client prefers it to JSON (no Accept header is JSON).
    handler: (ctx) => accountPage(ctx, accepts(ctx.req.raw).type(['application/json', 'text/csv']) === 'text/csv'),
  }),
];
