/** The OpenAPI operation of the raw page-view export (export.ts), over the shared kit. */
import { admin, adminErrors, idParam, schema } from '../openapi/kit.ts';
import { EXPORT_KINDS, ExportedEngagementRow } from './engagement-export.ts';
import { DEFAULT_EXPORT_LIMIT, ExportedPageView, MAX_EXPORT_LIMIT } from './export.ts';

export const eventsExportDocs = {
  get: admin(
    'exportPageViews',
    "The customer's raw page views, as NDJSON: one JSON object per line, each the view as the NDJSON event log writes it plus its `cursor`, in the order the views were recorded, from every node (the views kept in the state store for SVC_EVENTS_RETENTION_DAYS). Streamed; gzip when the client accepts it. Fewer lines than `limit`: the range is done; else ask again with the last line's `cursor`. `kind=engagement`: instead, the engaged time per page and the custom event counts per name of each identified account and UTC day (from the web tag), one row per line in the order day, account, kind, key, resumed the same way (a day's rows are final once it is over)",
    {
      parameters: [
        idParam('customer'),
        {
          name: 'kind',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: [...EXPORT_KINDS], default: 'pageviews' },
          description: '`pageviews`: the raw page views; `engagement`: engaged time and custom event counts per account and day',
        },
        {
          name: 'from',
          in: 'query',
          required: false,
          schema: { type: 'string', format: 'date' },
          description: 'First UTC day of the views (default: 30 days up to `to`)',
        },
        { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Last UTC day of the views (default: today)' },
        {
          name: 'cursor',
          in: 'query',
          required: false,
          schema: { type: 'string', pattern: '^\\d{1,15}-\\d{1,15}$' },
          description: 'A line’s `cursor`: only the lines after it (resume an export)',
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: MAX_EXPORT_LIMIT, default: DEFAULT_EXPORT_LIMIT },
          description: 'Lines of this answer at most',
        },
      ],
      responses: {
        200: {
          description: 'NDJSON: each line one page view (the schema is of one line); none when the range holds none',
          headers: { 'Content-Encoding': { description: '`gzip` when the request accepted it (Accept-Encoding)', schema: { type: 'string', enum: ['gzip'] } } },
          content: { 'application/x-ndjson': { schema: { oneOf: [schema(ExportedPageView), schema(ExportedEngagementRow)] } } },
        },
        ...adminErrors('read', 422),
      },
    },
  ),
};
