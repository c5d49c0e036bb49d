/** The OpenAPI operations of the page-view beacon (events-route.ts) and the visits reports (admin-routes.ts), over the shared kit. */
import examples from '../openapi/examples.json' with { type: 'json' };
import { admin, adminErrors, CORS, errors, idParam, json, meteredHeaders, PREFLIGHT_ALLOWED, RETRY, ref, VISITS_QUERY } from '../openapi/kit.ts';

const ex = examples;

export const pageViewDocs = {
  post: {
    operationId: 'recordPageView',
    summary: 'Page views from the web tag (navigator.sendBeacon): recorded, never charged',
    description:
      "Checked like a tag lookup (tag, Origin/Referer, the tag's limits), then answered 204 before the view is recorded. " +
      'The body is the JSON page view sent as `text/plain` (a simple CORS request, no preflight); it is read as text whatever its Content-Type, at most 4 KB.',
    tags: ['Web tag'],
    security: [],
    parameters: [
      {
        name: 'tag',
        in: 'query',
        required: true,
        schema: { type: 'string' },
        description: 'The web tag id (missing or unknown: 401)',
        example: ex.request.tag,
      },
      {
        name: 'test_ip',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description:
          'Demo tags in demo mode only: the sample address the view is recorded for, read by the same rule as identification’s `ip` (422 for an ambiguously spelled address).',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'text/plain': { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: ref('PageViewBeacon') } },
        'application/json': { schema: ref('PageViewBeacon') },
      },
    },
    responses: {
      204: { description: 'Accepted (recorded after the answer)', headers: meteredHeaders(204, CORS) },
      ...errors([400, 401, 403, 413, 415, 422, 429, 503], (s) => meteredHeaders(s, s === 401 || s === 403 || s === 503 ? {} : CORS)),
    },
  },
  options: {
    operationId: 'pageViewPreflight',
    summary: 'CORS preflight (only for JSON senders; the beacon needs none)',
    description: 'Allowed when the tag named in `?tag=` allows the Origin; refused like the identification preflight.',
    tags: ['Web tag'],
    security: [],
    parameters: [{ name: 'tag', in: 'query', required: false, schema: { type: 'string' }, description: 'The web tag the page uses' }],
    responses: { 204: { description: 'Allowed origin', headers: PREFLIGHT_ALLOWED }, ...errors([403, 503], (s) => (s === 503 ? RETRY : {})) },
  },
};

export const visitsReportDocs = {
  get: admin('getVisitsReport', 'Accounts that visited (first-party page views), most page views first; `Accept: text/csv` for CSV', {
    parameters: [idParam('customer'), ...VISITS_QUERY],
    responses: {
      200: { description: 'The report', content: { ...json({ type: 'object' }), 'text/csv': { schema: { type: 'string' } } } },
      ...adminErrors('read', 404, 422),
    },
  }),
};

export const visitsReportCsvDocs = {
  get: admin('getVisitsReportCsv', 'The visitors report as CSV (same parameters)', {
    parameters: [idParam('customer'), ...VISITS_QUERY],
    responses: { 200: { description: 'CSV (an attachment)', content: { 'text/csv': { schema: { type: 'string' } } } }, ...adminErrors('read', 404, 422) },
  }),
};

export const tagSightingsDocs = {
  get: admin('listTagSightings', "Where the customer's tags were last seen (origins and times, from page views and lookups)", {
    parameters: [idParam('customer')],
    responses: {
      200: {
        description: 'Sightings',
        content: json({
          type: 'array',
          items: {
            type: 'object',
            properties: { tag_id: { type: 'string' }, origin: { type: 'string' }, last_seen_at: { type: 'string' } },
            required: ['tag_id', 'origin', 'last_seen_at'],
          },
        }),
      },
      ...adminErrors('read', 404),
    },
  }),
};
