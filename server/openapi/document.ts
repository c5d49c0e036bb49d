/**
 * The OpenAPI 3.1 description of every public route, generated from the same zod schemas the routes
 * validate with (zod 4's own JSON Schema output: OpenAPI 3.1 schemas are JSON Schema 2020-12), with
 * examples that are real answers on the sample data (./examples.json, see ./sample-examples.ts).
 * The paths are the route table's (server/routes.ts: each RouteDef's `doc`). openapi.test.ts checks it is
 * valid OpenAPI, that every schema in it compiles, and that real responses validate against it; contract.test.ts sends real requests
 * through Stoplight Prism against it — so it cannot drift from the code.
 */
import { z } from 'zod';
import { CustomerRecord, TagRecord } from '../../core/access-records.ts';
import { Segment } from '../../core/customer-records.ts';
import { UsageResponse } from '../credits/usage-route.ts';
import {
  CombinedNotFound,
  CombinedResponse,
  FirmographicsV2NotFound,
  FirmographicsV2Response,
  FirmographicsV3NotFound,
  FirmographicsV3Response,
  LeadScoringNotFound,
  LeadScoringResponse,
} from '../enrichment/schema.ts';
import { EVENT_SCHEMAS, type EventSchema, schemaPath } from '../events/registry.ts';
import { openApiPath, type RouteDef } from '../http/route-def.ts';
import { IdentificationAnswer } from '../identification/schema.ts';
import { PeopleEnrichmentNotFound, PeopleEnrichmentResponse, PeopleSearchNotFound, PeopleSearchResponse } from '../people/schema.ts';
import { ROUTES } from '../routes.ts';
import { SegmentAccounts, SegmentMembership, SegmentPreview, SegmentsList } from '../segments/schema.ts';
import { DeliveryRecord, WebhookRecord } from '../webhooks/schema.ts';
import { bodies } from './bodies.ts';
import {
  CreatedCustomer,
  DIALECT,
  ErrorCodeSchema,
  ErrorSchema,
  errorResponse,
  HEADERS,
  header,
  type Json,
  schema,
  TokenWithAdvice,
  TokenWithSecret,
} from './kit.ts';

export function openApiDocument(serverUrl?: string, routes: readonly RouteDef[] = ROUTES): Json {
  return withCommonAnswers(document(serverUrl, routes));
}

/**
 * The paths of the route table: each route's own operation, and a HEAD beside every GET that answers one
 * (the router serves HEAD on each GET route unless it says `head: false`): the route's own `headDoc`, else
 * derived from the GET's. Copied so the document's additions never reach the table's objects.
 */
function pathsOf(routes: readonly RouteDef[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.doc === null) continue;
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = structuredClone(route.doc);
    if (route.method === 'GET' && route.head !== false) item.head = structuredClone(route.headDoc ?? headOf(route.doc));
  }
  return paths;
}

/**
 * A GET's HEAD (OpenAPI has no "HEAD as GET", so each path lists it): the same parameters, security and
 * statuses with their headers, but no body (no `content`), and never a 402 — a HEAD exports no record,
 * so the pipeline never charges it.
 */
function headOf(get: Json): Json {
  const { operationId, summary, description, responses, requestBody: _none, ...rest } = get as Json & { responses: Record<string, Json> };
  const said = 'HEAD: the status and headers GET answers, without a body; never charged.';
  return {
    ...rest,
    operationId: `${operationId}Head`,
    summary: `${summary} (HEAD: headers only)`,
    description: description ? `${description}\n\n${said}` : said,
    responses: Object.fromEntries(
      Object.entries(responses)
        .filter(([status]) => status !== '402')
        .map(([status, { content: _body, ...response }]) => [status, response]),
    ),
  };
}

/**
 * Said once here rather than on every operation: every answer carries X-Request-Id, any route can fail
 * unexpectedly (500), and a method a path of the table does not serve is answered 405 with `Allow`.
 */
function withCommonAnswers(doc: Json): Json {
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = op.responses as Record<string, Json>;
      responses['405'] ??= errorResponse(405, { Allow: header('Allow', true) });
      responses['500'] ??= errorResponse(500);
      // A HEAD answer has no body, errors included.
      if (method === 'head') for (const status of ['405', '500']) delete responses[status].content;
      for (const response of Object.values(responses))
        response.headers = { 'X-Request-Id': header('X-Request-Id', true), ...(response.headers as Json | undefined) };
    }
  }
  return doc;
}

function document(serverUrl: string | undefined, routes: readonly RouteDef[]): Json {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: DIALECT,
    info: {
      title: 'svc API',
      version: '1',
      description:
        'Company Identification (web tag and server-to-server), company enrichment, lead scoring and people APIs, the admin API, and the operating endpoints. ' +
        'Errors are always `{"status":"error","message":…,"code":…}`; `code` is one of the ErrorCode values.',
    },
    servers: [{ url: serverUrl ?? '/' }],
    tags: [
      { name: 'Company Identification' },
      { name: 'Enrichment and scoring' },
      { name: 'People' },
      { name: 'Segments API' },
      { name: 'Web tag' },
      { name: 'Admin API' },
      { name: 'Users and sign-in' },
      { name: 'Events', description: 'JSON Schemas of every event the product emits; the webhook events are also under `webhooks`' },
      { name: 'Operating' },
    ],
    components: {
      securitySchemes: {
        Token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: "An API token of the route's API group, sent as `Authorization: Token <secret>`.",
        },
        TagMode: {
          type: 'apiKey',
          in: 'query',
          name: 'tag',
          description: "Tag mode (browsers): the web tag id; the page's Origin (or Referer) must be one of the tag's allowed domains. No secret involved.",
        },
        AdminBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin token (SVC_ADMIN_TOKEN, or the one printed at first start): the operator, every customer.',
        },
        Session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description:
            "A signed-in user's session (POST /auth/login; `__Host-svc_session` over HTTPS): their own customer, what their role allows; writes need this server's Origin.",
        },
      },
      headers: HEADERS,
      schemas: {
        ErrorCode: ErrorCodeSchema,
        Error: ErrorSchema,
        IdentificationResponse: schema(IdentificationAnswer),
        FirmographicsV3Response: schema(FirmographicsV3Response),
        FirmographicsV3NotFound: schema(FirmographicsV3NotFound),
        FirmographicsV2Response: schema(FirmographicsV2Response),
        FirmographicsV2NotFound: schema(FirmographicsV2NotFound),
        CombinedResponse: schema(CombinedResponse),
        CombinedNotFound: schema(CombinedNotFound),
        LeadScoringResponse: schema(LeadScoringResponse),
        LeadScoringNotFound: schema(LeadScoringNotFound),
        PeopleEnrichmentResponse: schema(PeopleEnrichmentResponse),
        PeopleEnrichmentNotFound: schema(PeopleEnrichmentNotFound),
        PeopleSearchResponse: schema(PeopleSearchResponse),
        PeopleSearchNotFound: schema(PeopleSearchNotFound),
        ...bodies,
        Customer: schema(CustomerRecord),
        Token: schema(TokenWithAdvice),
        TokenWithSecret: schema(TokenWithSecret),
        CreatedCustomer: schema(CreatedCustomer),
        Tag: schema(TagRecord),
        Webhook: schema(WebhookRecord),
        WebhookWithSecret: schema(WebhookRecord.extend({ secret: z.string() })),
        Delivery: schema(DeliveryRecord),
        UsageResponse: schema(UsageResponse),
        Segment: schema(Segment),
        SegmentPreview: schema(SegmentPreview),
        SegmentsList: schema(SegmentsList),
        SegmentAccounts: schema(SegmentAccounts),
        SegmentMembership: schema(SegmentMembership),
      },
    },
    paths: pathsOf(routes),
    webhooks: webhooksOf(),
  };
}

/**
 * The webhook events (server/events/registry.ts), each version's payload inline: what a receiver gets,
 * signed (`Svc-Signature`), with the version its endpoint chose (`event_versions`).
 */
function webhooksOf(): Json {
  const byName = new Map<string, EventSchema[]>();
  for (const e of EVENT_SCHEMAS) if (e.channel === 'webhook') byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  return Object.fromEntries(
    [...byName].map(([name, versions]) => [
      name,
      {
        post: {
          operationId: `webhook_${name.replace(/\W+/g, '_')}`,
          summary: versions[versions.length - 1]!.description,
          description: `Versions: ${versions.map((v) => `${v.version} (schema ${schemaPath(name, v.version)})`).join(', ')}. The endpoint's \`event_versions\` chooses one. Headers: \`Svc-Signature\` (t=…,v1=HMAC-SHA256 of "t.body"), \`Svc-Event-Id\`, \`Svc-Delivery-Attempt\`. A 2xx answer within the timeout is a delivery; anything else is retried.`,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: versions.length === 1 ? schema(versions[0]!.schema) : { oneOf: versions.map((v) => schema(v.schema)) } } },
          },
          responses: { '2XX': { description: 'Delivered' }, default: { description: 'Not delivered: retried with backoff' } },
        },
      },
    ]),
  );
}
