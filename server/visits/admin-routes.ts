import accepts from 'accepts';
import { create as contentDisposition } from 'content-disposition';
import { ApiError } from '../../core/error-codes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteContext, RouteDef, RouteResult } from '../http/route-def.ts';
import { tagSightingsDocs, visitsReportCsvDocs, visitsReportDocs } from './docs.ts';
import { EngagementExportQuery, engagementChunks, exportKind } from './engagement-export.ts';
import { EventsExportQuery, exportChunks } from './export.ts';
import { eventsExportDocs } from './export-docs.ts';
import { buildReport, reportCsv, reportDaysCsv, VisitsQuery } from './report.ts';

async function report(ctx: RouteContext, csv: boolean): Promise<RouteResult> {
  const { store, recorder, dataset } = ctx.services;
  const customer = await customerOr404(store, ctx.req.params.id!);
  const query = parseRecord(VisitsQuery, ctx.req.query);
  if (query.segment !== null && !customer.segments.some((s) => s.id === query.segment)) {
    throw new ApiError('invalid', `segment: customer ${customer.id} has no segment ${query.segment}`);
  }
  const [accounts, daily, unidentified] = await Promise.all([
    recorder.visits.accountVisits(customer.id, query.from, query.to),
    recorder.visits.dailyTotals(customer.id, query.from, query.to),
    recorder.visits.unidentifiedPageViews(customer.id, query.from, query.to),
  ]);
  const { catalog } = dataset.current;
  const body = buildReport({ customer, query, accounts, daily, unidentified, company: (companyId) => catalog.company(companyId) });
  if (!csv) return { status: 200, body };
  const days = query.rows === 'days';
  const filename = `visits-${customer.id}-${query.from}-${query.to}${query.segment !== null ? `-segment-${query.segment}` : ''}${days ? '-days' : ''}.csv`;
  // The header Express's res.attachment() wrote (the same package): browsers save the report under this name.
  const text = days ? reportDaysCsv(body) : reportCsv(body);
  return { status: 200, text, type: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': contentDisposition(filename) } };
}

export const visitsAdminRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/visits.csv',
    access: { permission: 'reports:read', customer: { from: 'param', name: 'id' } },
    doc: visitsReportCsvDocs.get,
    handler: (ctx) => report(ctx, true),
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/visits',
    access: { permission: 'reports:read', customer: { from: 'param', name: 'id' } },
    doc: visitsReportDocs.get,
    // CSV only when the client prefers it to JSON (no Accept header, or one naming neither, is JSON).
    handler: (ctx) => report(ctx, accepts(ctx.req.raw).type(['application/json', 'text/csv']) === 'text/csv'),
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/events',
    access: { permission: 'reports:read', customer: { from: 'param', name: 'id' } },
    doc: eventsExportDocs.get,
    async handler(ctx) {
      const { store, recorder } = ctx.services;
      const customer = await customerOr404(store, ctx.req.params.id!);
      // `kind=engagement`: engaged time and custom event counts per account and day (./engagement-export.ts).
      if (exportKind(ctx.req.query.kind) === 'engagement') {
        const q = parseRecord(EngagementExportQuery, ctx.req.query);
        const rows = recorder.engagement?.engagementRows(customer.id, q) ?? (async function* () {})();
        return { status: 200, type: 'application/x-ndjson; charset=utf-8', stream: engagementChunks(customer.id, rows) };
      }
      const query = parseRecord(EventsExportQuery, ctx.req.query);
      // Read a page at a time as the client takes the lines: memory stays bounded whatever the range.
      return { status: 200, type: 'application/x-ndjson; charset=utf-8', stream: exportChunks(recorder.visits.rawPageViews(customer.id, query)) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/tag-sightings',
    access: { permission: 'reports:read', customer: { from: 'param', name: 'id' } },
    doc: tagSightingsDocs.get,
    async handler(ctx) {
      const { store, recorder } = ctx.services;
      const customer = await customerOr404(store, ctx.req.params.id!);
      const tags = await store.listTags(customer.id);
      return { status: 200, body: await recorder.visits.tagSightings(tags.map((t) => t.tag_id)) };
    },
  }),
];
