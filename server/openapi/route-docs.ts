/**
 * The OpenAPI operation of every route, attached to its RouteDef (`doc`) in the route table; the document
 * (./document.ts) takes them from the table, so a route cannot exist undocumented nor a document entry
 * without its route.
 */
import { IdentificationQuery } from '../identification/schema.ts';
import examples from './examples.json' with { type: 'json' };
import {
  admin,
  adminErrors,
  CORS,
  codesOfStatus,
  errorSchema,
  errors,
  header,
  idParam,
  json,
  jsonBody,
  leadOp,
  meteredHeaders,
  PARTNER,
  PREFLIGHT_ALLOWED,
  pathParam,
  REQUEST_ID,
  RETRY,
  ref,
  STATUS_TEXT,
  SVC_COOKIE,
  schema,
  TAG_ID,
  typesOperation,
  type Variant,
  VISITOR_UA,
  VISITS_QUERY,
  WEBHOOK_ID,
} from './kit.ts';

const ex = examples;
const identificationParams = [
  {
    name: 'ip',
    in: 'query',
    required: false,
    schema: schema(IdentificationQuery.shape.ip.unwrap()),
    description:
      "Token mode: the IPv4 or IPv6 address to identify (default: the caller; IPv6 is our extension to the spec, IPv4-mapped IPv6 and NAT64 `64:ff9b::/96` are looked up as the IPv4 address they carry). Exactly a canonical dotted quad or an IPv6 address. Text that is plainly no address (`garbage`, `999.1.1.1`) is the spec's invalid IP: 200 with every company variable blank. An address spelled ambiguously (a port, brackets, a leading zero, an integer, hex or short quads, a CIDR, spaces, a zone id, too many IPv6 groups, empty) or longer than 64 characters: 422.",
    example: ex.request.ip,
  },
  {
    name: 'test_ip',
    in: 'query',
    required: false,
    schema: schema(IdentificationQuery.shape.test_ip.unwrap()),
    description:
      'Demo tags in demo mode only (tag mode): a sample address to identify, read by the same rule as `ip` (422 for an ambiguously spelled address).',
  },
  PARTNER,
  SVC_COOKIE,
  VISITOR_UA,
  REQUEST_ID,
];
const identificationStatuses = [400, 401, 402, 403, 422, 429, 503];
const identificationDescription =
  'Tag mode (`?tag=`, from a browser: the visitor is the caller) or token mode (`Authorization: Token`, `?ip=` names the address). 1 identification credit per `Match`; `Non-actionable Match` and `No Match` are free.';

export const identificationDocs = {
  get: {
    operationId: 'identifyCompany',
    summary: 'Identify the company behind an IP address',
    tags: ['Company Identification'],
    description: identificationDescription,
    security: [{ Token: [] }, { TagMode: [] }],
    parameters: identificationParams,
    responses: {
      200: {
        description: 'The company (or a blank company with `No Match` / `Non-actionable Match`)',
        headers: meteredHeaders(200, CORS),
        content: {
          'application/json': {
            schema: ref('IdentificationResponse'),
            examples: { match: { value: ex.identification }, noMatch: { value: ex.identificationNoMatch } },
          },
        },
      },
      ...errors(identificationStatuses, (s) => meteredHeaders(s, s === 401 || s === 403 || s === 503 ? {} : CORS)),
    },
  },
  head: {
    operationId: 'identifyCompanyHead',
    summary: 'The headers of the identification answer, without a body: never charged',
    tags: ['Company Identification'],
    description: `${identificationDescription} A HEAD exports no record, so it is never charged (nor refused for want of credit).`,
    security: [{ Token: [] }, { TagMode: [] }],
    parameters: identificationParams,
    responses: Object.fromEntries(
      [200, 400, 401, 403, 422, 429, 503].map((s) => [
        String(s),
        {
          description: s === 200 ? 'As GET, without the body' : STATUS_TEXT[s],
          headers: meteredHeaders(s, s === 401 || s === 403 || s === 503 ? {} : CORS),
        },
      ]),
    ),
  },
  options: {
    operationId: 'identificationPreflight',
    summary: 'CORS preflight (a browser using a domain-restricted token)',
    description: 'Allowed when the tag named in `?tag=` (or, without one, an active domain-restricted identification token or any web tag) allows the Origin.',
    tags: ['Company Identification'],
    security: [],
    parameters: [{ name: 'tag', in: 'query', required: false, schema: { type: 'string' }, description: 'The web tag the page uses' }],
    responses: {
      204: { description: 'Allowed methods and headers for the Origin', headers: PREFLIGHT_ALLOWED },
      ...errors([403, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
};

export const enrichCompanyDoc = leadOp({
  operationId: 'enrichCompany',
  summary: 'Company Firmographics v3: the company of an email or domain',
  tag: 'Enrichment and scoring',
  group: 'company-firmographics',
  bodyName: 'FirmographicsV3Body',
  okName: 'FirmographicsV3Response',
  notFoundName: 'FirmographicsV3NotFound',
  ok: ex.firmographicsV3,
  notFound: ex.firmographicsV3NotFound,
  example: { email: ex.request.email },
  charged: true,
});

export const enrichCompanyV2Doc = leadOp({
  operationId: 'enrichCompanyV2',
  summary: 'Company Firmographics v2 (deprecated: use /v1/enrichment/company)',
  tag: 'Enrichment and scoring',
  group: 'company-firmographics',
  deprecated: true,
  bodyName: 'FirmographicsV2Body',
  okName: 'FirmographicsV2Response',
  notFoundName: 'FirmographicsV2NotFound',
  ok: ex.firmographicsV2,
  example: { email: ex.request.email },
  charged: true,
});

export const scoreAndEnrichLeadDoc = leadOp({
  operationId: 'scoreAndEnrichLead',
  summary: 'Lead Scoring and Firmographics',
  tag: 'Enrichment and scoring',
  group: 'lead-scoring-firmographics',
  bodyName: 'CombinedBody',
  okName: 'CombinedResponse',
  notFoundName: 'CombinedNotFound',
  ok: ex.combined,
  example: { email: ex.request.email, country: 'Netherlands' },
  charged: true,
});

export const scoreLeadDoc = leadOp({
  operationId: 'scoreLead',
  summary: 'Lead Scoring',
  tag: 'Enrichment and scoring',
  group: 'lead-scoring',
  bodyName: 'LeadScoringBody',
  okName: 'LeadScoringResponse',
  notFoundName: 'LeadScoringNotFound',
  ok: ex.leadScoring,
  example: { email: ex.request.email, country: 'Netherlands' },
  charged: false,
});

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

export const usageDocs = {
  get: {
    operationId: 'getUsage',
    summary: 'What the calling token has left: credits per pool, when the contract year restarts, its rate limit',
    description: "A token of any API group asks about itself. Free (never charged); counted in the token's rate limit like any call.",
    tags: ['Operating'],
    security: [{ Token: [] }],
    parameters: [REQUEST_ID],
    responses: {
      200: { description: "The token's usage", headers: meteredHeaders(200), content: json(ref('UsageResponse')) },
      ...errors([401, 403, 429, 503], (s) => meteredHeaders(s)),
    },
  },
};

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

export const tagBundleDocs = {
  get: {
    operationId: 'getTagBundle',
    summary: 'The web tag bundle',
    tags: ['Web tag'],
    security: [],
    responses: {
      200: {
        description: 'JavaScript (gzip when accepted)',
        headers: { ETag: header('ETag', true) },
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
      304: { description: 'Not modified (If-None-Match)', headers: { ETag: header('ETag', true) } },
      ...errors([404]),
    },
  },
};

export const tagTypesDocs = typesOperation('getTagTypes', "The tag's TypeScript declarations: window.svc, answers, events, dataLayer pushes");

export const tagPreactTypesDocs = typesOperation('getTagPreactTypes', 'TypeScript declarations of the Preact helper (dist/tag/preact.js)');

export const tagBundleForTagDocs = {
  get: {
    operationId: 'getTagBundleForTag',
    summary: "A tag's bundle with its settings inlined (`<tagId>.js`)",
    tags: ['Web tag'],
    security: [],
    parameters: [
      { name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}\\.js$' }, example: `${ex.request.tag}.js` },
    ],
    responses: {
      200: {
        description: 'JavaScript (gzip when accepted)',
        headers: { ETag: header('ETag', true) },
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
      304: { description: 'Not modified (If-None-Match)', headers: { ETag: header('ETag', true) } },
      404: {
        description: 'Unknown tag (a JavaScript comment, so a page that loads it runs nothing), or the bundle is not built (JSON)',
        content: { 'application/javascript': { schema: { type: 'string' } }, 'application/json': { schema: errorSchema(404) } },
      },
      ...errors([503], () => RETRY),
    },
  },
};

/** The demo page at `/` and `/index.html`. */
/** The demo page at `/` and `/index.html` (served when it is built). */
export const demoSiteDocs = (path: '/' | '/index.html') => ({
  get: {
    operationId: path === '/' ? 'getDemoSite' : 'getDemoSiteIndex',
    summary: 'The demo site (served when it is built): a customer marketing page with the snippet, under a CSP with a per-answer nonce',
    tags: ['Web tag'],
    security: [],
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors([404]) },
  },
});

export const demoVisitorsDocs = {
  get: {
    operationId: 'listDemoVisitors',
    summary: 'Demo mode only (SVC_DEMO): sample visitors of the demo page',
    tags: ['Web tag'],
    security: [],
    responses: {
      200: {
        description: 'Sample visitors',
        content: json({
          type: 'object',
          properties: {
            visitors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { label: { type: 'string' }, ip: { type: 'string' }, kind: { type: 'string' }, company: { type: 'string' } },
                required: ['label', 'ip', 'kind'],
              },
            },
          },
          required: ['visitors'],
        }),
      },
      ...errors([503], () => RETRY),
    },
  },
};

export const customersDocs = {
  get: admin('listCustomers', 'List customers', {
    responses: { 200: { description: 'Customers', content: json({ type: 'array', items: ref('Customer') }, [ex.customer]) }, ...adminErrors('read') },
  }),
  post: admin('createCustomer', 'Create a customer (and its Lead Scoring token when it has the advanced package)', {
    requestBody: jsonBody('CustomerSeed'),
    responses: {
      201: { description: "Created; `lead_scoring_token` holds the Lead Scoring token's secret, shown only here", content: json(ref('CreatedCustomer')) },
      ...adminErrors('write', 409, 422),
    },
  }),
};

export const customerDocs = {
  get: admin('getCustomer', 'A customer', {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The customer', content: json(ref('Customer'), ex.customer) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateCustomer', 'Change a customer: only the fields given', {
    parameters: [idParam('customer')],
    requestBody: jsonBody('CustomerPatch'),
    responses: {
      200: {
        description: 'The customer; `lead_scoring_token` is set when this change created the Lead Scoring token',
        content: json(ref('CreatedCustomer')),
      },
      ...adminErrors('write', 404, 422),
    },
  }),
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

export const webhooksDocs = {
  get: admin('listWebhooks', "A customer's webhook endpoints (signing secrets are never shown again)", {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'Endpoints', content: json({ type: 'array', items: ref('Webhook') }) }, ...adminErrors('read', 404) },
  }),
  post: admin('createWebhook', 'Register a webhook endpoint: its signing secret is in this answer only', {
    parameters: [idParam('customer')],
    requestBody: jsonBody('NewWebhook'),
    responses: {
      201: { description: 'Created', content: json(ref('WebhookWithSecret')) },
      ...adminErrors('write', 404, 422),
      ...errors([409], undefined, {
        409: { codes: ['conflict'], description: 'The customer already has 20 endpoints, the most it may have (`conflict`): delete one first' },
      }),
    },
  }),
};

export const webhookDocs = {
  get: admin('getWebhook', 'A webhook endpoint', {
    parameters: [idParam('customer'), WEBHOOK_ID],
    responses: { 200: { description: 'The endpoint', content: json(ref('Webhook')) }, ...adminErrors('read', 404) },
  }),
  delete: admin('deleteWebhook', 'Remove a webhook endpoint (its undelivered events are dropped)', {
    parameters: [idParam('customer'), WEBHOOK_ID],
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete', 404) },
  }),
};

export const webhookDeliveriesDocs = {
  get: admin('listWebhookDeliveries', "An endpoint's delivery log, newest first", {
    parameters: [
      idParam('customer'),
      WEBHOOK_ID,
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
        description: 'At most this many deliveries',
      },
    ],
    responses: { 200: { description: 'Deliveries', content: json({ type: 'array', items: ref('Delivery') }) }, ...adminErrors('read', 404, 422) },
  }),
};

export const creditsDocs = {
  get: admin('getCredits', "A customer's credit balances and usage", {
    parameters: [idParam('customer')],
    responses: {
      200: {
        description: 'Balances per pool for the contract year; usage per API and month',
        content: json(
          {
            type: 'object',
            properties: {
              customer: { type: 'string' },
              contract_start: { type: 'string' },
              balances: { type: 'array', items: { type: 'object' } },
              usage: { type: 'array', items: { type: 'object' } },
            },
            required: ['customer', 'contract_start', 'balances', 'usage'],
          },
          ex.credits,
        ),
      },
      ...adminErrors('read', 404),
    },
  }),
};

export const tokensDocs = {
  get: admin('listTokens', 'List tokens (secrets are never shown again)', {
    parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' }, description: "Only this customer's tokens" }],
    responses: { 200: { description: 'Tokens with rotation advice', content: json({ type: 'array', items: ref('Token') }) }, ...adminErrors('read') },
  }),
  post: admin('createToken', 'Create a token: the secret is in this answer only', {
    requestBody: jsonBody('NewToken'),
    responses: { 201: { description: 'Created', content: json(ref('TokenWithSecret')) }, ...adminErrors('write', 404, 422) },
  }),
};

export const tokenDocs = {
  get: admin('getToken', 'A token', {
    parameters: [idParam('token')],
    responses: { 200: { description: 'The token', content: json(ref('Token')) }, ...adminErrors('read', 404) },
  }),
  delete: admin('deleteToken', 'Delete a token', {
    parameters: [idParam('token')],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
  }),
};

/** The token actions (`POST /admin/api/tokens/:id/<action>`): they take no body. */
export const tokenActionDocs = (action: 'deactivate' | 'activate' | 'rotate') => ({
  post: admin(
    `${action}Token`,
    action === 'rotate' ? 'Rotate a token: a new secret, in this answer only' : `${action[0]!.toUpperCase()}${action.slice(1)} a token`,
    {
      description: 'Takes no body: send it without one (with or without a Content-Type).',
      parameters: [idParam('token')],
      responses: {
        200: { description: 'The token', content: json(ref(action === 'rotate' ? 'TokenWithSecret' : 'Token')) },
        ...adminErrors('write', 404),
      },
    },
  ),
});

export const tagsDocs = {
  get: admin('listTags', 'List web tags', {
    parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' }, description: "Only this customer's tags" }],
    responses: { 200: { description: 'Tags', content: json({ type: 'array', items: ref('Tag') }, ex.tags) }, ...adminErrors('read') },
  }),
  post: admin('createTag', 'Create a web tag', {
    requestBody: jsonBody('NewTag'),
    responses: { 201: { description: 'Created', content: json(ref('Tag')) }, ...adminErrors('write', 404, 409, 422) },
  }),
};

export const tagDocs = {
  get: admin('getTag', 'A web tag', {
    parameters: [TAG_ID],
    responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateTag', 'Change a tag: only the fields given (allowed domains, limits, answers, disabled, settings)', {
    parameters: [TAG_ID],
    requestBody: jsonBody('TagPatch'),
    responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('write', 404, 422) },
  }),
  delete: admin('deleteTag', 'Delete a web tag: its id answers as unknown from then on (a disabled tag, PATCH `disabled`, can come back)', {
    parameters: [TAG_ID],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
  }),
};

export const tagSettingsDocs = {
  patch: admin('replaceTagSettings', "Replace a tag's settings (inlined into /tag/v1/<tagId>.js; absent keys keep the bundle's defaults)", {
    parameters: [idParam('tag')],
    requestBody: jsonBody('TagSettings'),
    responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('write', 404, 422) },
  }),
};

export const livenessDocs = {
  get: {
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'Alive', content: json({ type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] }) } },
  },
};

export const readinessDocs = {
  get: {
    operationId: 'getReadiness',
    summary: 'Readiness: data loaded and state store reachable',
    tags: ['Operating'],
    security: [],
    responses: {
      200: {
        description: 'Ready',
        content: json({
          type: 'object',
          properties: { status: { const: 'ok' }, checks: { type: 'object', additionalProperties: { type: 'string' } } },
          required: ['status', 'checks'],
        }),
      },
      503: {
        description: 'Not ready: the message says why (an error answer with the checks)',
        content: json({
          type: 'object',
          properties: {
            status: { const: 'error' },
            message: { type: 'string' },
            code: { allOf: [ref('ErrorCode')], enum: codesOfStatus(503) },
            checks: { type: 'object', additionalProperties: { type: 'string' } },
          },
          required: ['status', 'message', 'code', 'checks'],
        }),
      },
    },
  },
};

export const metricsDocs = {
  get: {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (also unauthenticated on SVC_METRICS_PORT)',
    description: "Guarded by the admin token and by the admin API's throttle of failed credentials.",
    tags: ['Operating'],
    security: [{ AdminBearer: [] }],
    responses: {
      200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...errors([401, 429], (s) => (s === 401 ? { 'WWW-Authenticate': header('WWW-Authenticate', true) } : RETRY)),
    },
  },
};

export const openApiDocs = {
  get: {
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } },
  },
};

export const apiReferenceDocs = {
  get: {
    operationId: 'getApiReference',
    summary: 'The rendered API reference (Scalar), with "try it" against this server',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
};

export const apiReferenceRendererDocs = {
  get: {
    operationId: 'getApiReferenceRenderer',
    summary: 'The reference renderer, served from this server (no CDN)',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' } } } }, ...errors([404]) },
  },
};

const LOGIN_BODY = {
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email', maxLength: 254 }, password: { type: 'string', maxLength: 256 } },
        required: ['email', 'password'],
      },
    },
  },
};
const SET_COOKIE = {
  'Set-Cookie': {
    description: 'The session cookie (`svc_session`, or `__Host-svc_session` over HTTPS): HttpOnly, SameSite=Lax',
    required: true,
    schema: { type: 'string' },
  },
};
const AUTH_TAG = ['Users and sign-in'];
const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    customer_id: { type: 'string' },
    email: { type: 'string' },
    role: { enum: ['owner', 'admin', 'marketer', 'viewer'] },
    password_set: { type: 'boolean' },
    sso: { type: 'boolean' },
    created_at: { type: 'string' },
    last_login_at: { type: ['string', 'null'] },
  },
  required: ['id', 'customer_id', 'email', 'role', 'password_set', 'sso', 'created_at', 'last_login_at'],
};
const linkSchema = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      description:
        "The one-time link (the console, with the token in the fragment). Absent when a user invites an address outside the customer's single sign-on allowed_domains: then it is only mailed",
    },
    token: { type: 'string', description: 'Absent when url is' },
    expires_at: { type: 'string' },
    mailed: { type: 'boolean', description: 'Whether it was also mailed (SVC_SMTP_URL)' },
  },
  required: ['expires_at', 'mailed'],
};
const ssoSchema = {
  type: 'object',
  properties: {
    issuer: { type: 'string' },
    client_id: { type: 'string' },
    allowed_domains: { type: 'array', items: { type: 'string' } },
    default_role: { enum: ['owner', 'admin', 'marketer', 'viewer'] },
    display_name: { type: 'string' },
    email_verified_optional: {
      type: 'boolean',
      description: 'true: an ID token without email_verified is accepted (providers that never send it); false or absent: email_verified must be true',
    },
    customer_id: { type: 'string' },
  },
  required: ['issuer', 'client_id', 'allowed_domains', 'default_role', 'display_name'],
};
const USER_ID = { name: 'userId', in: 'path', required: true, schema: { type: 'string' }, description: 'The user id' };
const sessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    created_at: { type: 'string' },
    last_seen_at: { type: 'string' },
    expires_at: { type: 'string' },
    ip: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    method: { type: 'string' },
    current: { type: 'boolean' },
  },
  required: ['id', 'created_at', 'last_seen_at', 'expires_at', 'current'],
};

export const authDocs = {
  login: {
    operationId: 'signIn',
    summary: 'Sign in with email and password: a session cookie',
    description:
      'Any wrong pair is the same 401, an unknown email included. Too many failures for the account (10 in 15 minutes) or from the address (30 in 15 minutes; an IPv6 address counts under its /64), counted across all nodes: 429 with Retry-After.',
    tags: AUTH_TAG,
    security: [],
    requestBody: LOGIN_BODY,
    responses: {
      204: { description: 'Signed in', headers: SET_COOKIE },
      ...errors([400, 401, 403, 413, 415, 422, 429, 503], (s) => (s === 429 || s === 503 ? RETRY : {})),
    },
  },
  accept: {
    operationId: 'acceptInvitation',
    summary: 'Take an invitation or password-reset link: set the password, get a session cookie',
    description:
      'The token of the link (valid 72 h, once). Passwords: at least 12 characters; the most common ones are refused (422). A new password ends every other session and every other reset link of the account.',
    tags: AUTH_TAG,
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { token: { type: 'string' }, password: { type: 'string', minLength: 12, maxLength: 256 } },
            required: ['token', 'password'],
          },
        },
      },
    },
    responses: {
      204: { description: 'Password set, signed in', headers: SET_COOKIE },
      ...errors([400, 401, 403, 409, 413, 415, 422, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
  me: admin('whoAmI', 'Who is signed in', {
    tags: AUTH_TAG,
    responses: {
      200: {
        description: 'The user (the operator token: role `operator`, no email or customer)',
        content: json({
          type: 'object',
          properties: {
            email: { type: ['string', 'null'] },
            role: { type: 'string' },
            customer_id: { type: ['string', 'null'] },
            session_id: { type: 'string' },
          },
          required: ['email', 'role', 'customer_id'],
        }),
      },
      ...adminErrors('read'),
    },
  }),
  logout: {
    operationId: 'signOut',
    summary: 'Sign out: the session ends and its cookie is cleared',
    tags: AUTH_TAG,
    security: [],
    responses: { 204: { description: 'Signed out', headers: SET_COOKIE }, ...errors([403, 503], (s) => (s === 503 ? RETRY : {})) },
  },
  sessions: admin('listMySessions', "The signed-in user's sessions", {
    tags: AUTH_TAG,
    responses: { 200: { description: 'Sessions', content: json({ type: 'array', items: sessionSchema }) }, ...adminErrors('read', 400) },
  }),
  endSession: admin('endMySession', 'End one of my sessions (sign out elsewhere)', {
    tags: AUTH_TAG,
    parameters: [idParam('session')],
    responses: { 204: { description: 'Ended' }, ...adminErrors('delete', 400) },
  }),
};

export const userDocs = {
  invite: admin('inviteUser', 'Invite a person: a one-time link to set their password (72 h)', {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { email: { type: 'string', format: 'email' }, role: { enum: ['owner', 'admin', 'marketer', 'viewer'] } },
            required: ['email', 'role'],
          },
        },
      },
    },
    responses: { 201: { description: 'The link, shown once', content: json(linkSchema) }, ...adminErrors('write', 409, 422) },
  }),
  list: admin('listUsers', "A customer's users", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    responses: { 200: { description: 'Users', content: json({ type: 'array', items: userSchema }) }, ...adminErrors('read') },
  }),
  setRole: admin('setUserRole', "Change a user's role (their sessions end)", {
    tags: AUTH_TAG,
    parameters: [idParam('customer'), USER_ID],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { type: 'object', properties: { role: { enum: ['owner', 'admin', 'marketer', 'viewer'] } }, required: ['role'] } },
      },
    },
    responses: { 200: { description: 'The user', content: json(userSchema) }, ...adminErrors('write', 409, 422) },
  }),
  remove: admin('removeUser', 'Remove a user (their sessions end)', {
    tags: AUTH_TAG,
    parameters: [idParam('customer'), USER_ID],
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete', 409) },
  }),
  resetPassword: admin('resetUserPassword', 'A one-time link for the user to set a new password (72 h)', {
    tags: AUTH_TAG,
    parameters: [idParam('customer'), USER_ID],
    responses: { 201: { description: 'The link, shown once', content: json(linkSchema) }, ...adminErrors('write') },
  }),
  getSso: admin('getSso', "The customer's single sign-on provider (never its client secret)", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    responses: { 200: { description: 'The provider', content: json(ssoSchema) }, ...adminErrors('read') },
  }),
  putSso: admin('setSso', "Set the customer's OpenID Connect provider", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: { ...ssoSchema.properties, client_secret: { type: 'string' } },
            required: ['issuer', 'client_id', 'client_secret', 'allowed_domains', 'default_role', 'display_name'],
          },
        },
      },
    },
    responses: { 200: { description: 'The provider', content: json(ssoSchema) }, ...adminErrors('write', 409, 422) },
  }),
  deleteSso: admin('removeSso', "Remove the customer's single sign-on provider", {
    tags: AUTH_TAG,
    parameters: [idParam('customer')],
    responses: { 204: { description: 'Removed' }, ...adminErrors('delete') },
  }),
  audit: admin('getAuditLog', 'The audit log: every change and sign-in, oldest first (`Accept: text/csv` for CSV)', {
    tags: AUTH_TAG,
    parameters: [
      idParam('customer'),
      { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'First UTC day (default: 90 days before `to`)' },
      { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Last UTC day (default: today)' },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 } },
    ],
    responses: {
      200: {
        description: 'Events',
        content: {
          ...json({
            type: 'object',
            properties: {
              events: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    at: { type: 'string' },
                    actor: { type: 'string' },
                    ip: { type: ['string', 'null'] },
                    action: { type: 'string' },
                    target: { type: ['string', 'null'] },
                    before: { type: ['object', 'null'] },
                    after: { type: ['object', 'null'] },
                  },
                  required: ['id', 'at', 'actor', 'action'],
                },
              },
            },
            required: ['events'],
          }),
          'text/csv': { schema: { type: 'string' } },
        },
      },
      ...adminErrors('read', 422),
    },
  }),
};

export const ssoDocs = {
  start: {
    operationId: 'startSso',
    summary: "Sign in with the customer's OpenID Connect provider: a redirect to it",
    tags: AUTH_TAG,
    security: [],
    parameters: [
      { name: 'customerId', in: 'path', required: true, schema: { type: 'string' }, description: 'The customer whose provider to use' },
      {
        name: 'link',
        in: 'query',
        required: false,
        schema: { type: 'string' },
        description: "Present: link single sign-on to the signed-in user's account (needs their session; the provider must vouch for the same email)",
      },
    ],
    responses: {
      302: {
        description: 'To the provider (authorization code + PKCE), with a short-lived cookie holding the pending sign-in',
        headers: { Location: header('Location', true) },
      },
      ...errors([401, 404, 503], (s) => (s === 503 ? RETRY : {})),
    },
  },
  callback: {
    operationId: 'finishSso',
    summary: "The provider's redirect back: a session, then the console",
    description:
      'A refused sign-in (wrong state, expired code, an email outside the allowed domains, an unverified email, another identity than the one the user is bound to, a password account not linked …) redirects to the console with the reason.',
    tags: AUTH_TAG,
    security: [],
    parameters: [
      { name: 'code', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'state', in: 'query', required: false, schema: { type: 'string' } },
    ],
    responses: {
      302: { description: 'To the console (signed in, or with the reason it was refused)', headers: { Location: header('Location', true) } },
      ...errors([503], () => RETRY),
    },
  },
};

// ---------------------------------------------------------------------------------------------------
// Segments (server/segments/routes.ts)

const SEGMENT_ID = pathParam('segmentId', 'The segment id (a positive integer, per customer)');

/** The rule (core/customer-records.ts SegmentMatch), for the operations that take one. */
const SEGMENT_RULE = [
  'The rule (`match`): each present field is one condition — a catalog field (`industry`, `employee_range`, `country_iso_code`, `sic_prefix` …) holds when one of its values matches (ignoring case); `in_list` when the account is in one of the lists named; `intent` `{product, stages?, min_score?}` when the account’s buying stage for one of the customer’s products is one of `stages` and/or its intent score (the one identification answers) is at least `min_score`; `visited` `{path, days}` when the account viewed a page matching `path` (`*` = any characters, without the query string, ignoring case; starts with `/`) in the last `days` UTC days (1–400); `page_views` `{min, days}` when its page views in the last `days` days are at least `min`.',
  '`op` combines them: `all` (default) or `any`. `groups` (at most 20, top level only) are conditions of their own, each with its own `op` and at least one condition. A rule without conditions matches nothing.',
  'Example: `{"op":"all","industry":["Software","SaaS"],"country_iso_code":["US"],"groups":[{"op":"any","visited":{"path":"/pricing*","days":14},"intent":{"product":"crm","stages":["Decision","Purchase"]}}]}`.',
  'A bad rule is a 422 naming the field (a group inside a group, an empty group, a path not starting with `/`, a list or product the customer does not have).',
].join('\n\n');

export const segmentsDocs = {
  get: admin('listSegments', "A customer's segments", {
    parameters: [idParam('customer')],
    responses: { 200: { description: 'Segments, in creation order', content: json({ type: 'array', items: ref('Segment') }) }, ...adminErrors('read', 404) },
  }),
  post: admin('createSegment', 'Create a segment: its id is given here, never reused after a delete', {
    description: `The segment is part of identification, enrichment and tag answers on every node within a second. Names are unique per customer (case-insensitive): 409.\n\n${SEGMENT_RULE}`,
    parameters: [idParam('customer')],
    requestBody: jsonBody('NewSegment'),
    responses: { 201: { description: 'Created', content: json(ref('Segment')) }, ...adminErrors('write', 404, 409, 422) },
  }),
};

export const segmentDocs = {
  get: admin('getSegment', 'A segment', {
    parameters: [idParam('customer'), SEGMENT_ID],
    responses: { 200: { description: 'The segment', content: json(ref('Segment')) }, ...adminErrors('read', 404) },
  }),
  patch: admin('updateSegment', 'Rename a segment or change its rule (its id stays)', {
    description: SEGMENT_RULE,
    parameters: [idParam('customer'), SEGMENT_ID],
    requestBody: jsonBody('SegmentPatch'),
    responses: { 200: { description: 'The segment', content: json(ref('Segment')) }, ...adminErrors('write', 404, 409, 422) },
  }),
  delete: admin('deleteSegment', 'Delete a segment (its id is never given again)', {
    parameters: [idParam('customer'), SEGMENT_ID],
    responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
  }),
};

export const segmentPreviewDocs = {
  post: admin('previewSegment', 'How many accounts of the catalog a rule matches, and the first 20 of them (nothing is saved)', {
    description: `Intent conditions are evaluated on every company's intent score (at most 10 minutes old over the catalog; identification scores the visitor's account at the moment), behaviour conditions on the accounts that visited the customer's site.\n\n${SEGMENT_RULE}`,
    parameters: [idParam('customer')],
    requestBody: jsonBody('SegmentPreviewBody'),
    responses: { 200: { description: 'The preview', content: json(ref('SegmentPreview')) }, ...adminErrors('write', 404, 422) },
  }),
};

const segmentsApi = (
  operationId: string,
  summary: string,
  description: string,
  parameters: unknown[],
  statuses: number[],
  okDescription: string,
  body: string,
  variants: Partial<Record<number, Variant>> = {},
) => ({
  get: {
    operationId,
    summary,
    description: `${description} Token group \`segments\` (granted per customer by the operator). Free (never charged); rate limited like every token.`,
    tags: ['Segments API'],
    security: [{ Token: [] }],
    parameters: [...parameters, REQUEST_ID],
    responses: {
      200: { description: okDescription, headers: meteredHeaders(200), content: json(ref(body)) },
      ...errors(statuses, (s) => meteredHeaders(s), variants),
    },
  },
});

export const segmentsApiDocs = segmentsApi(
  'listSegmentsApi',
  "The customer's segments with their sizes",
  'Each segment with the number of accounts of the catalog it matches.',
  [],
  [401, 403, 429, 503],
  'Segments',
  'SegmentsList',
);

export const segmentAccountsDocs = segmentsApi(
  'listSegmentAccounts',
  "A segment's member accounts, a page at a time",
  'Members in a stable order (company id); pass `next_cursor` as `cursor` for the next page.',
  [
    SEGMENT_ID,
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, description: 'Accounts per page' },
    { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'The `next_cursor` of the previous page (opaque)' },
  ],
  [401, 403, 404, 422, 429, 503],
  'A page of accounts',
  'SegmentAccounts',
);

export const segmentMembershipDocs = segmentsApi(
  'getSegmentMembership',
  "Which segments a domain's company is in",
  "The same segment ids Company Identification answers for that company; names only when the token's `segment_names` setting is on. A domain no company has: 404.",
  [{ name: 'domain', in: 'query', required: true, schema: { type: 'string' }, description: "The company's domain (`example.com`)" }],
  [400, 401, 403, 404, 422, 429, 503],
  'The company and its segments',
  'SegmentMembership',
  // The spec's 400 "required fields are blank": the one 400 this route answers (a domain that is no domain name: 422 `invalid`).
  { 400: { codes: ['blank'], description: 'The domain is missing, empty or only spaces (`blank`)' } },
);
