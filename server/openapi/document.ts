/**
 * The OpenAPI 3.1 description of every public route, generated from the same zod schemas the routes
 * validate with (zod 4's own JSON Schema output: OpenAPI 3.1 schemas are JSON Schema 2020-12), with
 * examples that are real answers on the sample data (./examples.json, see ./sample-examples.ts).
 * openapi.test.ts checks it is valid OpenAPI, that it names every route the app registers, and that real
 * responses validate against it — so it cannot drift from the code.
 */
import { z } from 'zod';
import { CustomerPatch, CustomerSeed } from '../../data/sources/schema.ts';
import {
  CombinedBody,
  CombinedNotFound,
  CombinedResponse,
  FirmographicsV2Body,
  FirmographicsV2NotFound,
  FirmographicsV2Response,
  FirmographicsV3Body,
  FirmographicsV3NotFound,
  FirmographicsV3Response,
  LeadScoringBody,
  LeadScoringNotFound,
  LeadScoringResponse,
} from '../enrichment/schema.ts';
import { IdentificationQuery, IdentificationResponse } from '../identification/schema.ts';
import { PeopleEnrichmentBody, PeopleEnrichmentNotFound, PeopleEnrichmentResponse, PeopleSearchBody, PeopleSearchNotFound, PeopleSearchResponse } from '../people/schema.ts';
import { CustomerRecord, NewTag, NewToken, TagPatch, TagRecord, TagSettings, TokenRecord } from '../state/store.ts';
import { PageViewBeacon } from '../visits/beacon.ts';
import { DeliveryRecord, NewWebhook, WebhookRecord } from '../webhooks/schema.ts';
import examples from './examples.json' with { type: 'json' };

type Json = Record<string, unknown>;

/** A zod schema as an OpenAPI 3.1 schema object: request bodies as the caller may send them (`input`). */
function schema(s: z.ZodType, io: 'input' | 'output' = 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  return rest;
}

const ErrorBody = z.object({ status: z.literal('error'), message: z.string() });
const TokenWithAdvice = TokenRecord.extend({ needs_rotation: z.boolean(), reasons: z.array(z.string()) });
/** Creating or rotating a token is the only time its secret is shown. */
const TokenWithSecret = TokenWithAdvice.extend({ token: z.string() });
const CreatedCustomer = CustomerRecord.extend({ lead_scoring_token: z.string().nullable() });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request (repeated query parameter, unparsable body)',
  401: 'Missing or unknown credentials',
  402: 'Quota exhausted: no credits left in this pool for the contract year',
  403: 'Token of another API group, package not bought, or origin not allowed',
  404: 'Not found',
  405: 'Method not allowed on this path (the `Allow` header lists the methods it serves)',
  409: 'Already exists',
  413: 'Request body too large',
  415: 'Unsupported Content-Type or charset',
  422: 'Input failed validation (the message names the field)',
  429: 'Rate limit exceeded (Retry-After and RateLimit-* headers say when to retry)',
  503: 'State store unavailable: the request was neither counted nor charged; retry shortly',
};

function errors(...statuses: number[]): Json {
  return Object.fromEntries(statuses.map((s) => [String(s), { description: STATUS_TEXT[s], content: { 'application/json': { schema: ref('Error') } } }]));
}

const json = (schemaRef: Json, example?: unknown) => ({ 'application/json': { schema: schemaRef, ...(example !== undefined ? { example } : {}) } });

/** The POST APIs take form-encoded bodies (as CRMs send them) or JSON. */
function body(name: string, example: Record<string, string>): Json {
  return {
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema: ref(name), example }, 'application/json': { schema: ref(name), example } },
  };
}

const API_ERRORS = [400, 401, 403, 413, 415, 422, 429, 503];
const RATE_HEADERS = {
  'RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per minute' },
  'RateLimit-Remaining': { schema: { type: 'integer' } },
  'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets' },
  'X-Request-Id': { schema: { type: 'string' }, description: 'The request id (yours, from X-Request-Id, or generated): quote it to support' },
};
const PARTNER = {
  name: 'X-svc-CustomID',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Partners only, with their own token: `<partner>-<customer>-<customer_api_token>` (on behalf of a customer) or `<partner>-<partner_api_token>`',
};
const SVC_COOKIE = { name: 'SvcCookie', in: 'header', required: false, schema: { type: 'string' }, description: 'Optional visitor cookie value forwarded by server-side callers' };
const REQUEST_ID = { name: 'X-Request-Id', in: 'header', required: false, schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }, description: 'Your id for this request, echoed and logged' };

function enrichmentOp(o: { summary: string; tag: string; bodyName: string; okName: string; notFoundName: string; ok: unknown; notFound?: unknown; example: Record<string, string>; deprecated?: boolean; group: string }): Json {
  return {
    post: {
      summary: o.summary,
      tags: [o.tag],
      ...(o.deprecated ? { deprecated: true } : {}),
      description: `Token of API group \`${o.group}\`. Charged per exported record (1 credit, free again within the month).`,
      security: [{ Token: [] }],
      parameters: [PARTNER, REQUEST_ID],
      requestBody: body(o.bodyName, o.example),
      responses: {
        200: { description: 'Found', headers: RATE_HEADERS, content: json(ref(o.okName), o.ok) },
        404: { description: 'No data found: the error message with blank fields', content: json(ref(o.notFoundName), o.notFound) },
        402: errors(402)['402'],
        ...errors(...API_ERRORS),
      },
    },
  };
}

const admin = (summary: string, op: Json): Json => ({ summary, tags: ['Admin API'], security: [{ AdminBearer: [] }], ...op });
const idParam = (what: string) => ({ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: `The ${what} id` });
const adminErrors = (...extra: number[]) => errors(401, ...extra);

export function openApiDocument(serverUrl?: string): Json {
  return withMethodNotAllowed(document(serverUrl));
}

/** Every path answers 405 (+ Allow) to a method it does not serve: said once, on each of its operations. */
function withMethodNotAllowed(doc: Json): Json {
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(item)) (op.responses as Json)['405'] ??= errors(405)['405'];
  }
  return doc;
}

function document(serverUrl?: string): Json {
  const ex = examples;
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: '1',
      description:
        'Company Identification (web tag and server-to-server), company enrichment, lead scoring and people APIs, the admin API, and the operating endpoints. Errors are always `{"status":"error","message":…}`.',
    },
    servers: [{ url: serverUrl ?? '/' }],
    tags: [
      { name: 'Company Identification' },
      { name: 'Enrichment and scoring' },
      { name: 'People' },
      { name: 'Web tag' },
      { name: 'Admin API' },
      { name: 'Operating' },
    ],
    components: {
      securitySchemes: {
        Token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API token of the route\'s API group, sent as `Authorization: Token <secret>`.' },
        TagMode: {
          type: 'apiKey',
          in: 'query',
          name: 'tag',
          description: 'Tag mode (browsers): the web tag id; the page\'s Origin (or Referer) must be one of the tag\'s allowed domains. No secret involved.',
        },
        AdminBearer: { type: 'http', scheme: 'bearer', description: 'The admin token (SVC_ADMIN_TOKEN, or the one printed at first start).' },
      },
      schemas: {
        Error: schema(ErrorBody),
        IdentificationResponse: schema(IdentificationResponse),
        FirmographicsV3Body: schema(FirmographicsV3Body, 'input'),
        FirmographicsV3Response: schema(FirmographicsV3Response),
        FirmographicsV3NotFound: schema(FirmographicsV3NotFound),
        FirmographicsV2Body: schema(FirmographicsV2Body, 'input'),
        FirmographicsV2Response: schema(FirmographicsV2Response),
        FirmographicsV2NotFound: schema(FirmographicsV2NotFound),
        CombinedBody: schema(CombinedBody, 'input'),
        CombinedResponse: schema(CombinedResponse),
        CombinedNotFound: schema(CombinedNotFound),
        LeadScoringBody: schema(LeadScoringBody, 'input'),
        LeadScoringResponse: schema(LeadScoringResponse),
        LeadScoringNotFound: schema(LeadScoringNotFound),
        PeopleEnrichmentBody: schema(PeopleEnrichmentBody, 'input'),
        PeopleEnrichmentResponse: schema(PeopleEnrichmentResponse),
        PeopleEnrichmentNotFound: schema(PeopleEnrichmentNotFound),
        PeopleSearchBody: schema(PeopleSearchBody, 'input'),
        PeopleSearchResponse: schema(PeopleSearchResponse),
        PeopleSearchNotFound: schema(PeopleSearchNotFound),
        CustomerSeed: schema(CustomerSeed, 'input'),
        Customer: schema(CustomerRecord),
        NewToken: schema(NewToken, 'input'),
        Token: schema(TokenWithAdvice),
        TokenWithSecret: schema(TokenWithSecret),
        CreatedCustomer: schema(CreatedCustomer),
        NewTag: schema(NewTag, 'input'),
        Tag: schema(TagRecord),
        TagSettings: schema(TagSettings, 'input'),
        TagPatch: schema(TagPatch, 'input'),
        CustomerPatch: schema(CustomerPatch, 'input'),
        PageViewBeacon: schema(PageViewBeacon, 'input'),
        NewWebhook: schema(NewWebhook, 'input'),
        Webhook: schema(WebhookRecord),
        WebhookWithSecret: schema(WebhookRecord.extend({ secret: z.string() })),
        Delivery: schema(DeliveryRecord),
      },
    },
    paths: {
      '/v3/company/details': {
        get: {
          summary: 'Identify the company behind an IP address',
          tags: ['Company Identification'],
          description:
            'Tag mode (`?tag=`, from a browser: the visitor is the caller) or token mode (`Authorization: Token`, `?ip=` names the address). 1 identification credit per `Match`; `Non-actionable Match` and `No Match` are free.',
          security: [{ Token: [] }, { TagMode: [] }],
          parameters: [
            { name: 'ip', in: 'query', required: false, schema: schema(IdentificationQuery.shape.ip.unwrap()), description: 'Token mode: the IPv4 address to identify (default: the caller).', example: ex.request.ip },
            { name: 'test_ip', in: 'query', required: false, schema: schema(IdentificationQuery.shape.test_ip.unwrap()), description: 'Demo mode only (tag mode): a sample address to identify.' },
            PARTNER,
            SVC_COOKIE,
            REQUEST_ID,
          ],
          responses: {
            200: {
              description: 'The company (or a blank company with `No Match` / `Non-actionable Match`)',
              headers: RATE_HEADERS,
              content: { 'application/json': { schema: ref('IdentificationResponse'), examples: { match: { value: ex.identification }, noMatch: { value: ex.identificationNoMatch } } } },
            },
            402: errors(402)['402'],
            ...errors(...API_ERRORS),
          },
        },
        options: {
          summary: 'CORS preflight (a browser using a domain-restricted token)',
          tags: ['Company Identification'],
          security: [],
          responses: { 204: { description: 'Allowed methods and headers for the Origin' } },
        },
      },
      '/v1/enrichment/company': enrichmentOp({
        summary: 'Company Firmographics v3: the company of an email or domain',
        tag: 'Enrichment and scoring',
        group: 'company-firmographics',
        bodyName: 'FirmographicsV3Body',
        okName: 'FirmographicsV3Response',
        notFoundName: 'FirmographicsV3NotFound',
        ok: ex.firmographicsV3,
        notFound: ex.firmographicsV3NotFound,
        example: { email: ex.request.email },
      }),
      '/v2/people/enrichment': enrichmentOp({
        summary: 'Company Firmographics v2 (deprecated: use /v1/enrichment/company)',
        tag: 'Enrichment and scoring',
        group: 'company-firmographics',
        deprecated: true,
        bodyName: 'FirmographicsV2Body',
        okName: 'FirmographicsV2Response',
        notFoundName: 'FirmographicsV2NotFound',
        ok: ex.firmographicsV2,
        example: { email: ex.request.email },
      }),
      '/v2/people/full': enrichmentOp({
        summary: 'Lead Scoring and Firmographics',
        tag: 'Enrichment and scoring',
        group: 'lead-scoring-firmographics',
        bodyName: 'CombinedBody',
        okName: 'CombinedResponse',
        notFoundName: 'CombinedNotFound',
        ok: ex.combined,
        example: { email: ex.request.email },
      }),
      '/v2/people/score': enrichmentOp({
        summary: 'Lead Scoring',
        tag: 'Enrichment and scoring',
        group: 'lead-scoring',
        bodyName: 'LeadScoringBody',
        okName: 'LeadScoringResponse',
        notFoundName: 'LeadScoringNotFound',
        ok: ex.leadScoring,
        example: { email: ex.request.email, country: 'Netherlands' },
      }),
      '/v2/enrichment/people': enrichmentOp({
        summary: 'People Enrichment: a person by email, LinkedIn URL or people id',
        tag: 'People',
        group: 'people-enrichment',
        bodyName: 'PeopleEnrichmentBody',
        okName: 'PeopleEnrichmentResponse',
        notFoundName: 'PeopleEnrichmentNotFound',
        ok: ex.peopleEnrichment,
        example: { email: ex.request.email },
      }),
      '/v2/search/people': (() => {
        const op = enrichmentOp({
          summary: 'People Search: people of a company domain, filtered and paged',
          tag: 'People',
          group: 'people-search',
          bodyName: 'PeopleSearchBody',
          okName: 'PeopleSearchResponse',
          notFoundName: 'PeopleSearchNotFound',
          ok: ex.peopleSearch,
          example: { domain: ex.request.domain, page_size: '2' },
        });
        const post = op.post as Json;
        const { 402: _never, ...responses } = post.responses as Json;
        return { post: { ...post, description: 'Token of API group `people-search`. Never charged.', responses } };
      })(),
      '/v1/events': {
        post: {
          summary: 'Page views from the web tag (navigator.sendBeacon): recorded, never charged',
          description: 'Checked like a tag lookup (tag, Origin/Referer, the tag limits). The body is JSON sent as `text/plain` (a simple CORS request, no preflight), at most 4 KB.',
          tags: ['Web tag'],
          security: [],
          parameters: [{ name: 'tag', in: 'query', required: true, schema: { type: 'string' }, example: ex.request.tag }],
          requestBody: { required: true, content: { 'text/plain': { schema: ref('PageViewBeacon') }, 'application/json': { schema: ref('PageViewBeacon') } } },
          responses: { 204: { description: 'Accepted (recorded after the answer)' }, ...errors(400, 401, 403, 413, 415, 429) },
        },
        options: {
          summary: 'CORS preflight (only for JSON senders; the beacon needs none)',
          tags: ['Web tag'],
          security: [],
          parameters: [{ name: 'tag', in: 'query', required: false, schema: { type: 'string' } }],
          responses: { 204: { description: 'Allowed origin' }, ...errors(403) },
        },
      },
      '/tag/v1/svc.js': {
        get: {
          summary: 'The web tag bundle',
          tags: ['Web tag'],
          security: [],
          responses: { 200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' } } } }, 304: { description: 'Not modified (ETag)' }, ...errors(404) },
        },
      },
      '/tag/v1/{file}': {
        get: {
          summary: "A tag's bundle with its settings inlined (`<tagId>.js`)",
          tags: ['Web tag'],
          security: [],
          parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.js$' }, example: `${ex.request.tag}.js` }],
          responses: {
            200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' } } } },
            304: { description: 'Not modified (ETag)' },
            404: { description: 'Unknown tag (a JavaScript comment), or the bundle is not built', content: { 'application/javascript': { schema: { type: 'string' } }, 'application/json': { schema: ref('Error') } } },
          },
        },
      },
      ...Object.fromEntries(
        ['/', '/index.html'].map((path) => [
          path,
          {
            get: {
              summary: 'The demo site (served when it is built): a customer marketing page with the snippet, under a CSP with a per-answer nonce',
              tags: ['Web tag'],
              security: [],
              responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
            },
          },
        ]),
      ),
      '/demo/api/visitors': {
        get: {
          summary: 'Demo mode only (SVC_DEMO): sample visitors of the demo page',
          tags: ['Web tag'],
          security: [],
          responses: { 200: { description: 'Sample visitors', content: json({ type: 'object', properties: { visitors: { type: 'array', items: { type: 'object' } } }, required: ['visitors'] }) } },
        },
      },
      '/admin/api/customers': {
        get: admin('List customers', { responses: { 200: { description: 'Customers', content: json({ type: 'array', items: ref('Customer') }, [ex.customer]) }, ...adminErrors() } }),
        post: admin('Create a customer (and its Lead Scoring token when it has the package)', {
          requestBody: { required: true, content: json(ref('CustomerSeed')) },
          responses: {
            201: { description: 'Created', content: json(ref('CreatedCustomer')) },
            ...adminErrors(400, 403, 409, 415, 422),
          },
        }),
      },
      '/admin/api/customers/{id}': {
        get: admin('A customer', { parameters: [idParam('customer')], responses: { 200: { description: 'The customer', content: json(ref('Customer'), ex.customer) }, ...adminErrors(404) } }),
        patch: admin('Change a customer: only the fields given', {
          parameters: [idParam('customer')],
          requestBody: { required: true, content: json(ref('CustomerPatch')) },
          responses: { 200: { description: 'The customer', content: json(ref('CreatedCustomer')) }, ...adminErrors(400, 403, 404, 415, 422) },
        }),
      },
      '/admin/api/customers/{id}/visits': {
        get: admin('Accounts that visited (first-party page views), most page views first; `Accept: text/csv` for CSV', {
          parameters: [
            idParam('customer'),
            { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'First UTC day (default: 30 days ago)' },
            { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' }, description: 'Last UTC day (default: today)' },
            { name: 'segment', in: 'query', required: false, schema: { type: 'integer' }, description: 'Only accounts in this segment' },
          ],
          responses: {
            200: { description: 'The report', content: { ...json({ type: 'object' }), 'text/csv': { schema: { type: 'string' } } } },
            ...adminErrors(404, 422),
          },
        }),
      },
      '/admin/api/customers/{id}/visits.csv': {
        get: admin('The visitors report as CSV (same parameters)', {
          parameters: [idParam('customer'), { name: 'from', in: 'query', required: false, schema: { type: 'string', format: 'date' } }, { name: 'to', in: 'query', required: false, schema: { type: 'string', format: 'date' } }, { name: 'segment', in: 'query', required: false, schema: { type: 'integer' } }],
          responses: { 200: { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } }, ...adminErrors(404, 422) },
        }),
      },
      '/admin/api/customers/{id}/tag-sightings': {
        get: admin("Where the customer's tags were last seen (origins and times, from page views and lookups)", {
          parameters: [idParam('customer')],
          responses: { 200: { description: 'Sightings', content: json({ type: 'array', items: { type: 'object', properties: { tag_id: { type: 'string' }, origin: { type: 'string' }, last_seen_at: { type: 'string' } }, required: ['tag_id', 'origin', 'last_seen_at'] } }) }, ...adminErrors(404) },
        }),
      },
      '/admin/api/customers/{id}/webhooks': {
        get: admin("A customer's webhook endpoints (signing secrets are never shown again)", {
          parameters: [idParam('customer')],
          responses: { 200: { description: 'Endpoints', content: json({ type: 'array', items: ref('Webhook') }) }, ...adminErrors(404) },
        }),
        post: admin('Register a webhook endpoint: its signing secret is in this answer only', {
          parameters: [idParam('customer')],
          requestBody: { required: true, content: json(ref('NewWebhook')) },
          responses: { 201: { description: 'Created', content: json(ref('WebhookWithSecret')) }, ...adminErrors(403, 404, 415, 422) },
        }),
      },
      '/admin/api/customers/{id}/webhooks/{webhookId}': {
        get: admin('A webhook endpoint', {
          parameters: [idParam('customer'), { name: 'webhookId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The endpoint', content: json(ref('Webhook')) }, ...adminErrors(404) },
        }),
        delete: admin('Remove a webhook endpoint (its undelivered events are dropped)', {
          parameters: [idParam('customer'), { name: 'webhookId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 204: { description: 'Removed' }, ...adminErrors(403, 404) },
        }),
      },
      '/admin/api/customers/{id}/webhooks/{webhookId}/deliveries': {
        get: admin("An endpoint's delivery log, newest first", {
          parameters: [
            idParam('customer'),
            { name: 'webhookId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
          ],
          responses: { 200: { description: 'Deliveries', content: json({ type: 'array', items: ref('Delivery') }) }, ...adminErrors(404, 422) },
        }),
      },
      '/admin/api/customers/{id}/credits': {
        get: admin("A customer's credit balances and usage", {
          parameters: [idParam('customer')],
          responses: {
            200: {
              description: 'Balances per pool for the contract year; usage per API and month',
              content: json({ type: 'object', properties: { customer: { type: 'string' }, contract_start: { type: 'string' }, balances: { type: 'array', items: { type: 'object' } }, usage: { type: 'array', items: { type: 'object' } } }, required: ['customer', 'contract_start', 'balances', 'usage'] }, ex.credits),
            },
            ...adminErrors(404),
          },
        }),
      },
      '/admin/api/tokens': {
        get: admin('List tokens (secrets are never shown again)', {
          parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' } }],
          responses: { 200: { description: 'Tokens with rotation advice', content: json({ type: 'array', items: ref('Token') }) }, ...adminErrors() },
        }),
        post: admin('Create a token: the secret is in this answer only', {
          requestBody: { required: true, content: json(ref('NewToken')) },
          responses: { 201: { description: 'Created', content: json(ref('TokenWithSecret')) }, ...adminErrors(400, 403, 404, 415, 422) },
        }),
      },
      '/admin/api/tokens/{id}': {
        get: admin('A token', { parameters: [idParam('token')], responses: { 200: { description: 'The token', content: json(ref('Token')) }, ...adminErrors(404) } }),
        delete: admin('Delete a token', { parameters: [idParam('token')], responses: { 204: { description: 'Deleted' }, ...adminErrors(403, 404) } }),
      },
      ...Object.fromEntries(
        (['deactivate', 'activate', 'rotate'] as const).map((action) => [
          `/admin/api/tokens/{id}/${action}`,
          {
            post: admin(action === 'rotate' ? 'Rotate a token: a new secret, in this answer only' : `${action[0]!.toUpperCase()}${action.slice(1)} a token`, {
              parameters: [idParam('token')],
              responses: {
                200: { description: 'The token', content: json(ref(action === 'rotate' ? 'TokenWithSecret' : 'Token')) },
                ...adminErrors(403, 404, 415),
              },
            }),
          },
        ]),
      ),
      '/admin/api/tags': {
        get: admin('List web tags', {
          parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' } }],
          responses: { 200: { description: 'Tags', content: json({ type: 'array', items: ref('Tag') }, ex.tags) }, ...adminErrors() },
        }),
        post: admin('Create a web tag', { requestBody: { required: true, content: json(ref('NewTag')) }, responses: { 201: { description: 'Created', content: json(ref('Tag')) }, ...adminErrors(400, 403, 404, 409, 415, 422) } }),
      },
      '/admin/api/tags/{tagId}': {
        get: admin('A web tag', {
          parameters: [{ name: 'tagId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors(404) },
        }),
        patch: admin("Change a tag: only the fields given (allowed domains, limits, answers, settings)", {
          parameters: [{ name: 'tagId', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: json(ref('TagPatch')) },
          responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors(403, 404, 415, 422) },
        }),
      },
      '/admin/api/tags/{id}/settings': {
        patch: admin("Replace a tag's settings (inlined into /tag/v1/<tagId>.js)", {
          parameters: [idParam('tag')],
          requestBody: { required: true, content: json(ref('TagSettings')) },
          responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors(403, 404, 415, 422) },
        }),
      },
      '/healthz': {
        get: { summary: 'Liveness: the process answers', tags: ['Operating'], security: [], responses: { 200: { description: 'Alive', content: json({ type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] }) } } },
      },
      '/readyz': {
        get: {
          summary: 'Readiness: data loaded and state store reachable',
          tags: ['Operating'],
          security: [],
          responses: {
            200: { description: 'Ready', content: json({ type: 'object', properties: { status: { const: 'ok' }, checks: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['status', 'checks'] }) },
            503: { description: 'Not ready: the message says why', content: json({ type: 'object', properties: { status: { const: 'error' }, message: { type: 'string' }, checks: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['status', 'message', 'checks'] }) },
          },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics (also unauthenticated on SVC_METRICS_PORT)',
          tags: ['Operating'],
          security: [{ AdminBearer: [] }],
          responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errors(401, 503) },
        },
      },
      '/openapi.json': {
        get: { summary: 'This document', tags: ['Operating'], security: [], responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } },
      },
      '/docs': {
        get: { summary: 'The rendered API reference (Scalar), with "try it" against this server', tags: ['Operating'], security: [], responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } } },
      },
      '/docs/scalar.js': {
        get: { summary: 'The reference renderer, served from this server (no CDN)', tags: ['Operating'], security: [], responses: { 200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' } } } } } },
      },
    },
  };
}
