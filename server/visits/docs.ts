/** The OpenAPI operations of the page-view beacon (events-route.ts) and the visits reports (admin-routes.ts), over the shared kit. */
import { z } from 'zod';
import examples from '../openapi/examples.json' with { type: 'json' };
import { admin, adminErrors, CORS, errors, idParam, json, meteredHeaders, PREFLIGHT_ALLOWED, RETRY, ref, schema, VISITS_QUERY } from '../openapi/kit.ts';
import { TOP_PAGES } from '../state/visits/store.ts';
import { SPLIT_KEYS } from './coverage.ts';
import { DAY_CSV_COLUMNS } from './report.ts';

const ex = examples;
/** The three beacons of `POST /v1/events`, by `type`. */
const BEACONS = [ref('PageViewBeacon'), ref('EngagementBeacon'), ref('CustomEventBeacon')];

export const pageViewDocs = {
  post: {
    operationId: 'recordPageView',
    summary: 'Page views, engaged time and custom events from the web tag (navigator.sendBeacon): recorded, never charged',
    description:
      "Checked like a tag lookup (tag, Origin/Referer, the tag's limits), then answered 204 before the view is recorded. " +
      "The body is the JSON beacon sent as `text/plain` (a simple CORS request, no preflight): a page view, engaged time (when the page is hidden or left) or a custom event (`svc('track', …)`); it is read as text whatever its Content-Type, at most 4 KB. " +
      'Engaged time and custom events are kept only for identified accounts; a custom event’s properties that look like an email, a token or a phone number are dropped.',
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
        'text/plain': { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: { oneOf: BEACONS } } },
        'application/json': { schema: { oneOf: BEACONS } },
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

const MatchRate = z.number().min(0).max(1).nullable().describe('Identified / all page views (0–1, 4 decimals); null without page views');

const Split = z
  .object(
    Object.fromEntries(
      SPLIT_KEYS.map((k) => [
        k,
        z.number().int().describe(
          {
            isp: 'An internet service provider’s network (homes, mobile, cafés)',
            hosting: 'A hosting or cloud provider (or a network whose privacy reason is hosting)',
            bot: 'A bot user agent, or a known bot network',
            vpn: 'An anonymous VPN',
            proxy: 'A public or residential proxy',
            tor: 'A Tor exit node',
            relay: 'A privacy relay (such as iCloud Private Relay)',
            no_data: 'No network holds the address, or the dataset has no company for it',
            other: 'A network of another non-company kind',
            unclassified: 'Counted before svc recorded why (or imported without it): the rest of `anonymous`',
          }[k],
        ),
      ]),
    ) as Record<(typeof SPLIT_KEYS)[number], z.ZodNumber>,
  )
  .describe('Anonymous page views by why they matched no company: adds up to the anonymous page views');

const Report = z.object({
  customer_id: z.string(),
  from: z.string(),
  to: z.string(),
  segment: z.number().int().nullable(),
  totals: z.object({
    page_views: z.number().int(),
    identified: z.number().int().describe('Page views of a Match (a company network’s company)'),
    anonymous: z.number().int().describe('Every other page view (coverage.unidentified says why)'),
    accounts: z.number().int().describe('Accounts listed (those in `segment` when given)'),
  }),
  daily: z.array(z.object({ day: z.string(), identified: z.number().int(), anonymous: z.number().int() })).describe('Every day of the range, zeros included'),
  coverage: z
    .object({
      match_rate: MatchRate,
      unidentified: Split,
      daily: z.array(z.object({ day: z.string(), match_rate: MatchRate, unidentified: Split })).describe('Every day of the range, as `daily`'),
    })
    .describe('How many of the page views were identified, and why the others were not'),
  accounts: z.array(
    z.object({
      company_id: z.string(),
      name: z.string().nullable(),
      domain: z.string().nullable(),
      page_views: z.number().int(),
      sessions: z.number().int(),
      first_seen: z.string(),
      last_seen: z.string(),
      top_pages: z
        .array(z.object({ path: z.string(), page_views: z.number().int() }))
        .max(TOP_PAGES)
        .describe('Most viewed pages, query parameters collapsed but the customer’s `kept_query_params` (`/?utm_source=x` is `/`)'),
      segment_ids: z.array(z.number().int()),
      hot_account: z.boolean(),
      excluded: z.boolean(),
    }),
  ),
});

const ROWS = {
  name: 'rows',
  in: 'query',
  required: false,
  schema: { type: 'string', enum: ['accounts', 'days'] },
  description: `CSV only: one row per account (the default), or per day of the range with its coverage (\`${DAY_CSV_COLUMNS.join(', ')}\`; the reasons add up to \`anonymous\`)`,
};

export const visitsReportDocs = {
  get: admin('getVisitsReport', 'Accounts that visited (first-party page views), most page views first; `Accept: text/csv` for CSV', {
    description:
      'The range’s page views per day, identified or anonymous, and its coverage: the match rate (identified / all page views) per day and over the range, and the anonymous page views split by why they matched no company, as the recorder decided for each view (a bot user agent, then no network, then the network’s privacy reason, then its kind — the rule of a tag lookup’s `Non-actionable Match`). The split adds up to the anonymous page views. Accounts’ top pages count each page once whatever its UTM and other query parameters, but those the customer keeps (`kept_query_params`).',
    parameters: [idParam('customer'), ...VISITS_QUERY, ROWS],
    responses: {
      200: { description: 'The report', content: { ...json(schema(Report)), 'text/csv': { schema: { type: 'string' } } } },
      ...adminErrors('read', 404, 422),
    },
  }),
};

export const visitsReportCsvDocs = {
  get: admin('getVisitsReportCsv', 'The visitors report as CSV (same parameters): the accounts, or with `rows=days` the days and their coverage', {
    parameters: [idParam('customer'), ...VISITS_QUERY, ROWS],
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
