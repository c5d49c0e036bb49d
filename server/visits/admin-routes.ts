/**
 * Admin API routes of page views (mounted inside the admin router, so behind its bearer auth):
 *   GET /admin/api/customers/:id/visits?from=YYYY-MM-DD&to=YYYY-MM-DD[&segment=ID]  (JSON, or CSV with
 *       `Accept: text/csv`) and …/visits.csv — the visitors report;
 *   GET /admin/api/customers/:id/tag-sightings — the origins each of the customer's tags was last seen on.
 */
import type { Request, Response, Router } from 'express';
import { ApiError } from '../../core/error-codes.ts';
import type { Dataset } from '../data/dataset.ts';
import type { AccessRecords } from '../state/store.ts';
import type { PageViewRecorder } from './recorder.ts';
import { buildReport, reportCsv, VisitsQuery } from './report.ts';

export interface VisitsAdminDeps {
  store: Pick<AccessRecords, 'getCustomer' | 'listTags'>;
  dataset: Dataset;
  recorder: PageViewRecorder;
}

export function mountVisitsAdmin(admin: Router, deps: VisitsAdminDeps): void {
  const report = async (req: Request, res: Response, csv: boolean) => {
    const customer = await deps.store.getCustomer(String(req.params.id));
    if (!customer) throw new ApiError('not_found', `unknown customer ${req.params.id}`);
    const query = VisitsQuery.parse(req.query);
    if (query.segment !== null && !customer.segments.some((s) => s.id === query.segment)) {
      throw new ApiError('invalid', `segment: customer ${customer.id} has no segment ${query.segment}`);
    }
    const [accounts, daily] = await Promise.all([
      deps.recorder.visits.accountVisits(customer.id, query.from, query.to),
      deps.recorder.visits.dailyTotals(customer.id, query.from, query.to),
    ]);
    const { catalog } = deps.dataset.current;
    const body = buildReport({ customer, query, accounts, daily, company: (id) => catalog.company(id) });
    if (!csv) return void res.json(body);
    res
      .type('text/csv; charset=utf-8')
      .attachment(`visits-${customer.id}-${query.from}-${query.to}${query.segment !== null ? `-segment-${query.segment}` : ''}.csv`)
      .send(reportCsv(body));
  };

  admin.get('/customers/:id/visits.csv', (req, res) => report(req, res, true));
  admin.get('/customers/:id/visits', (req, res) => report(req, res, req.accepts(['application/json', 'text/csv']) === 'text/csv'));

  admin.get('/customers/:id/tag-sightings', async (req, res) => {
    const customer = await deps.store.getCustomer(req.params.id);
    if (!customer) throw new ApiError('not_found', `unknown customer ${req.params.id}`);
    const tags = await deps.store.listTags(customer.id);
    res.json(await deps.recorder.visits.tagSightings(tags.map((t) => t.tag_id)));
  });
}
