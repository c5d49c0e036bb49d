/**
 * The OpenAPI 3.1 description of every public route, generated from the same zod schemas the routes
 * validate with (zod 4's own JSON Schema output: OpenAPI 3.1 schemas are JSON Schema 2020-12), with
 * examples that are real answers on the sample data (./examples.json, see ./sample-examples.ts).
 * openapi.test.ts checks it is valid OpenAPI, that every schema in it compiles, that it names every route
 * the app registers, and that real responses validate against it; contract.test.ts sends real requests
 * through Stoplight Prism against it — so it cannot drift from the code.
 */
import { z } from 'zod';
import { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import { ALSO_STATUS, ERROR_CODES, ERROR_MEANING, ERROR_STATUS, type ErrorCode } from '../../core/error-codes.ts';
import { UsageResponse } from '../credits/usage-route.ts';
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
import { VISITOR_USER_AGENT_HEADER } from '../identification/route.ts';
import { IdentificationQuery, IdentificationResponse } from '../identification/schema.ts';
import {
  PeopleEnrichmentBody,
  PeopleEnrichmentNotFound,
  PeopleEnrichmentResponse,
  PeopleSearchBody,
  PeopleSearchNotFound,
  PeopleSearchResponse,
} from '../people/schema.ts';
import { CustomerRecord, NewTag, NewToken, TagPatch, TagRecord, TagSettings, TokenRecord } from '../state/store.ts';
import { PageViewBeacon } from '../visits/beacon.ts';
import { DeliveryRecord, NewWebhook, WebhookRecord } from '../webhooks/schema.ts';
import examples from './examples.json' with { type: 'json' };

type Json = Record<string, unknown>;

/** Said at the top so tools that default to an older draft (Prism: draft-07) validate with 2020-12. */
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * zod names some string checks as formats no validator knows (`.startsWith()` → `format: "starts_with"`);
 * Ajv refuses unknown formats, and the check is already in the `pattern` zod writes beside it.
 */
const ZOD_ONLY_FORMATS = new Set(['starts_with', 'ends_with', 'includes']);

/** A zod schema as an OpenAPI 3.1 schema object: request bodies as the caller may send them (`input`). */
function schema(s: z.ZodType, io: 'input' | 'output' = 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ jsonSchema }) => {
      const js = jsonSchema as Json;
      if (typeof js.format === 'string' && ZOD_ONLY_FORMATS.has(js.format)) delete js.format;
    },
  }) as Json;
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ---------------------------------------------------------------------------------------------------
// Errors

/** The statuses a code is answered with (core/error-codes.ts: its own, and ALSO_STATUS's). */
const statusesOf = (code: ErrorCode): number[] => [ERROR_STATUS[code], ...((ALSO_STATUS as Partial<Record<ErrorCode, readonly number[]>>)[code] ?? [])];

/** The codes an error answer with this status can carry. */
const codesOfStatus = (status: number): ErrorCode[] => ERROR_CODES.filter((code) => statusesOf(code).includes(status));

const ERROR_CODE_TABLE = [
  '| code | status | meaning |',
  '|---|---|---|',
  ...ERROR_CODES.map((c) => `| \`${c}\` | ${statusesOf(c).join(', ')} | ${ERROR_MEANING[c]} |`),
].join('\n');

const ErrorCodeSchema: Json = {
  type: 'string',
  enum: [...ERROR_CODES],
  description: `The machine-readable reason of an error answer; the message is for people and may change.\n\n${ERROR_CODE_TABLE}`,
  // Scalar (and Redoc) show each value's meaning beside it; JSON Schema has no place for that.
  'x-enumDescriptions': { ...ERROR_MEANING },
};

const ErrorSchema: Json = {
  type: 'object',
  description:
    'Every error answer (spec "Errors"). Not the 404 of the enrichment, scoring and people routes: that is a data answer in the spec\'s shape (`status`, `message` and the route\'s data, every field blank), without a code.',
  properties: {
    status: { type: 'string', const: 'error' },
    message: { type: 'string', description: 'What went wrong, for people (never a secret the caller sent)' },
    code: ref('ErrorCode'),
  },
  required: ['status', 'message', 'code'],
  additionalProperties: false,
};

/** An error answer's schema, its `code` narrowed to the codes its status can carry (on this route). */
function errorSchema(status: number, codes: ErrorCode[] = codesOfStatus(status)): Json {
  if (codes.length === 0 || codes.some((c) => !codesOfStatus(status).includes(c))) throw new Error(`${codes.join(', ')} cannot answer ${status}`);
  return { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: codes } } }] };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The request cannot be read (`invalid`): malformed body, repeated query parameter, a value the store refuses',
  401: 'Missing, unknown, inactive or malformed credentials (`unauthenticated`)',
  402: 'Quota exhausted: no credits left in this pool for the contract year (`quota_exhausted`)',
  403: 'The credential may not do this (`forbidden`): API group, package, allowed domain, cross-origin',
  404: 'No such record (`not_found`)',
  405: 'Method not allowed on this path (`method_not_allowed`; `Allow` lists the methods it serves)',
  409: 'Already exists, or conflicts with the current state (`conflict`)',
  413: 'Request body too large (`too_large`)',
  415: 'Unsupported Content-Type or charset (`unsupported_type`)',
  422: 'Validation error (`invalid`): the message names the field',
  429: 'Rate limit exceeded (`rate_limited`): retry after Retry-After seconds',
  500: 'Unexpected error on our side (`internal`), logged',
  503: 'State store unavailable (`unavailable`): the request was neither counted nor charged; retry after Retry-After seconds',
};

type Headers = Record<string, Json>;

/** A status's codes and text where a route answers it otherwise than STATUS_TEXT says. */
interface Variant {
  codes: ErrorCode[];
  description: string;
}

/** `blank` is a 400 only where required fields are checked: the enrichment, scoring and people bodies. */
const BLANK_400: Variant = {
  codes: ['blank', 'invalid'],
  description:
    'A required field is blank (`blank`: missing, empty or only spaces), or the body cannot be read (`invalid`: malformed, not form fields or a JSON object)',
};
const DEFAULT_CODES: Partial<Record<number, ErrorCode[]>> = { 400: ['invalid'] };

function errorResponse(status: number, headers: Headers = {}, variant?: Variant): Json {
  return {
    description: variant?.description ?? STATUS_TEXT[status],
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { 'application/json': { schema: errorSchema(status, variant?.codes ?? DEFAULT_CODES[status]) } },
  };
}

/** Error answers by status; `headers(status)` adds the headers that status carries on this route. */
function errors(statuses: number[], headers: (status: number) => Headers = () => ({}), variants: Partial<Record<number, Variant>> = {}): Json {
  return Object.fromEntries(statuses.map((s) => [String(s), errorResponse(s, headers(s), variants[s])]));
}

// ---------------------------------------------------------------------------------------------------
// Headers

/** A response header; a required one is written out, since a Reference Object's other fields are ignored (OpenAPI 3.1 §4.8.23). */
const header = (name: string, required = false): Json => {
  if (!HEADERS[name]) throw new Error(`undeclared header ${name}`);
  return required ? { ...HEADERS[name], required: true } : { $ref: `#/components/headers/${name}` };
};

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    schema: { type: 'string' },
    description: 'The request id (yours, from X-Request-Id, when it is a plain token; else generated): quote it to support',
  },
  'RateLimit-Limit': { schema: { type: 'integer' }, description: "Requests allowed per minute by the caller's own counter" },
  'RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in this minute' },
  'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until the window resets' },
  'Retry-After': { schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait before retrying' },
  Allow: { schema: { type: 'string' }, description: 'The methods this path serves' },
  'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' }, description: 'The admin token is a bearer token' },
  Deprecation: { schema: { type: 'string' }, description: 'RFC 9745: since when this version is deprecated (`@<unix seconds>`)' },
  Link: { schema: { type: 'string' }, description: 'RFC 8288: the successor version (`rel="successor-version"`)' },
  'Access-Control-Allow-Origin': { schema: { type: 'string' }, description: 'The page origin allowed to read the answer (tag mode, domain-restricted tokens)' },
  'Access-Control-Allow-Methods': { schema: { type: 'string' }, description: 'The method the page may use' },
  'Access-Control-Allow-Headers': { schema: { type: 'string' }, description: 'The request headers the page may send' },
  'Access-Control-Max-Age': { schema: { type: 'integer' }, description: 'Seconds the browser may keep this preflight' },
  ETag: { schema: { type: 'string' }, description: 'Of the bytes served: revalidate with If-None-Match' },
};

const RATE = {
  'RateLimit-Limit': header('RateLimit-Limit'),
  'RateLimit-Remaining': header('RateLimit-Remaining'),
  'RateLimit-Reset': header('RateLimit-Reset'),
};
const RATE_REFUSED = {
  'RateLimit-Limit': header('RateLimit-Limit', true),
  'RateLimit-Remaining': header('RateLimit-Remaining', true),
  'RateLimit-Reset': header('RateLimit-Reset', true),
  'Retry-After': header('Retry-After', true),
};
const RETRY = { 'Retry-After': header('Retry-After', true) };
const CORS = { 'Access-Control-Allow-Origin': header('Access-Control-Allow-Origin') };
const PREFLIGHT_ALLOWED = {
  'Access-Control-Allow-Origin': header('Access-Control-Allow-Origin', true),
  'Access-Control-Allow-Methods': header('Access-Control-Allow-Methods', true),
  'Access-Control-Allow-Headers': header('Access-Control-Allow-Headers', true),
  'Access-Control-Max-Age': header('Access-Control-Max-Age', true),
};
const DEPRECATED_V2 = { Deprecation: header('Deprecation', true), Link: header('Link', true) };

/**
 * The headers of a metered route's answer: the RateLimit-* of the caller's counter on every answer after
 * the rate-limit step (input errors, 402, 404 too), Retry-After on 429 and 503; 401 and 403 come first.
 */
function meteredHeaders(status: number, extra: Headers = {}): Headers {
  if (status === 429) return { ...RATE_REFUSED, ...extra };
  if (status === 503) return { ...RETRY, ...extra };
  if (status === 401 || status === 403 || status === 500) return extra;
  return { ...RATE, ...extra };
}

// ---------------------------------------------------------------------------------------------------
// Request bodies

/**
 * Descriptions of a body's top-level fields, checked against its schema both ways: a field added to the
 * zod schema without a word here fails the build of the document, as does a word for a field it lacks.
 */
function described(json: Json, descriptions: Record<string, string>): Json {
  const properties = json.properties as Record<string, Json>;
  for (const name of Object.keys(properties)) if (!descriptions[name]) throw new Error(`request field ${name} has no description`);
  for (const [name, text] of Object.entries(descriptions)) {
    if (!properties[name]) throw new Error(`described field ${name} is not in the schema`);
    properties[name] = { ...properties[name], description: text };
  }
  return json;
}

/** The string branch of a zod text field (`anyOf: [string, null]`), non-blank: what a required form field must be. */
function nonBlank(field: Json): Json {
  const text = ((field.anyOf as Json[] | undefined) ?? [field]).find((b) => b.type === 'string');
  if (!text) throw new Error('not a text field');
  return { ...text, pattern: '\\S', ...(field.description ? { description: field.description } : {}) };
}

/**
 * Zod checks blank fields after the types (400 `blank`), so its JSON Schema marks nothing required; the
 * document says which fields must be non-blank. `anyOf`: at least one of them.
 */
function requireFields(json: Json, rule: { all: string[] } | { anyOf: string[] }): Json {
  const properties = json.properties as Record<string, Json>;
  if ('all' in rule) {
    for (const f of rule.all) properties[f] = nonBlank(properties[f]!);
    return { ...json, required: rule.all };
  }
  return { ...json, anyOf: rule.anyOf.map((f) => ({ type: 'object', required: [f], properties: { [f]: { type: 'string', pattern: '\\S' } } })) };
}

const LEAD_FIELDS = {
  email: "The lead's email address: the known person, else the company of its domain (free-mail domains identify none)",
  country: "The lead's country: tells apart companies sharing a domain (never identifies a company on its own)",
  company: "The lead's company name: tells apart companies sharing a domain",
  industry: "The company's industry: tells apart companies sharing a domain",
  title: "The lead's job title: gives titleLevel, titleFunction and the contact profile score when the email is no known person",
  website: "The company's website or domain: tried when the email identifies no company (free-mail or unknown domain)",
  role: 'Accepted, not used',
  firstname: 'Accepted, not used',
  lastname: 'Accepted, not used',
  leadsource: 'Accepted, not used',
};

const BODY_NOTE =
  'At most 16 KB (larger: 413). All values are text (trimmed): email ≤ 254, domain and website ≤ 253, others ≤ 500 characters (longer: 422); unknown fields are ignored.';

const bodies = {
  FirmographicsV3Body: requireFields(
    described(schema(FirmographicsV3Body, 'input'), {
      ...LEAD_FIELDS,
      domain: "The company's domain: used when email is blank or identifies no company (email is tried first)",
    }),
    { anyOf: ['email', 'domain'] },
  ),
  FirmographicsV2Body: requireFields(described(schema(FirmographicsV2Body, 'input'), LEAD_FIELDS), { all: ['email'] }),
  CombinedBody: requireFields(described(schema(CombinedBody, 'input'), { ...LEAD_FIELDS, country: `${LEAD_FIELDS.country}. Recommended.` }), {
    all: ['email'],
  }),
  LeadScoringBody: requireFields(described(schema(LeadScoringBody, 'input'), LEAD_FIELDS), { all: ['email', 'country'] }),
  PeopleEnrichmentBody: requireFields(
    described(schema(PeopleEnrichmentBody, 'input'), {
      people_id: 'A people id (from People Search): tried first',
      email: "The person's email address: tried second",
      linkedin_url: "The person's professional-network profile URL: tried last",
    }),
    { anyOf: ['people_id', 'email', 'linkedin_url'] },
  ),
  PeopleSearchBody: requireFields(
    described(schema(PeopleSearchBody, 'input'), {
      domain: "The company's domain: the people of the companies behind it are searched",
      locations: 'Only people whose country, state or city equals one of these (comma-separated text, or a list)',
      industries: 'Only people of companies whose industry or subindustry equals one of these',
      job_titles: 'Only people whose title contains one of these as a word sequence, or whose titleLevel or titleFunction equals one',
      page: 'Page number, from 1',
      page_size: 'Profiles per page, 1–100',
    }),
    { all: ['domain'] },
  ),
  PageViewBeacon: described(schema(PageViewBeacon, 'input'), {
    type: 'Always `pageview`',
    path: "The page's path; only `utm_*` query parameters are kept, the fragment never",
    referrer: 'The referring page (a URL or a host): only its host is kept',
    session: 'A random id the tag keeps for the browser session',
  }),
  CustomerSeed: described(schema(CustomerSeed, 'input'), {
    id: "The customer's id (1–64 of A–Z a–z 0–9 _ -); an existing id is a 409",
    name: "The customer's name",
    packages: 'Packages bought: which API groups its tokens may call (advanced also gets an automatic Lead Scoring token)',
    identification_credits: 'Company Identification credits per contract year',
    enrichment_credits: 'Enrichment API credits per contract year',
    contract_start: 'Start of the contract (YYYY-MM-DD): quotas run per contract year from here',
    products: 'Predictive models (product categories): ideal customer profile, intent topics, persona; one score per product',
    segments: 'Account segments: a segment matches when every listed field matches one of its values',
    excluded_accounts: 'Company ids excluded in the platform settings (`is_blacklisted`)',
    hot_accounts: 'Company ids flagged as hot accounts (`is_svcqa`), optionally for some products only',
    tags: 'Web tags to create or update with the customer',
  }),
  CustomerPatch: described(schema(CustomerPatch, 'input'), {
    name: "The customer's name",
    packages: 'Packages bought (the whole list; adding advanced creates the Lead Scoring token)',
    identification_credits: 'Company Identification credits per contract year',
    enrichment_credits: 'Enrichment API credits per contract year',
    contract_start: 'Start of the contract (YYYY-MM-DD)',
    products: 'Predictive models (the whole list)',
    segments: 'Account segments (the whole list)',
    excluded_accounts: 'Excluded company ids (the whole list)',
    hot_accounts: 'Hot accounts (the whole list)',
  }),
  NewToken: described(schema(NewToken, 'input'), {
    customer_id: 'The customer the token belongs to',
    api_group: "The one API group the token may call; the customer's packages must cover it (else 403)",
    name: 'A name for people: name it after its integration',
    integrations: 'The integrations that use it (labels)',
    allowed_domains:
      "Identification tokens only: page domains a browser may use it from (`example.com`, `*.example.com`, `localhost`); such a token answers only for the visitor's own address",
    scores: 'Whether answers carry scores (off by default)',
    segment_names: 'Whether answers carry segment names (off by default)',
    rate_limit: 'Requests per minute',
  }),
  NewTag: described(schema(NewTag, 'input'), {
    customer_id: 'The customer the tag belongs to (its packages must cover identification)',
    tag_id: 'Your own id for the tag (4–64 of A–Z a–z 0–9 _ -); generated when absent',
    allowed_domains: 'Page domains the tag answers on (at least one; `*.example.com` for subdomains)',
    scores: 'Whether answers carry scores',
    segment_names: 'Whether answers carry segment names',
    rate_limit: 'Requests per minute across all visitors of the tag',
    visitor_rate_limit: 'Requests per minute per visitor address',
    demo: 'Demo tags honour `test_ip` in demo mode',
    settings: 'Bundle settings inlined into /tag/v1/<tagId>.js (see TagSettings)',
  }),
  TagPatch: described(schema(TagPatch, 'input'), {
    allowed_domains: 'Page domains the tag answers on (the whole list, at least one)',
    scores: 'Whether answers carry scores',
    segment_names: 'Whether answers carry segment names',
    rate_limit: 'Requests per minute across all visitors of the tag',
    visitor_rate_limit: 'Requests per minute per visitor address',
    demo: 'Demo tags honour `test_ip` in demo mode',
    settings: 'Bundle settings (the whole object, as PATCH …/settings)',
  }),
  TagSettings: described(schema(TagSettings, 'input'), {
    fields: 'Answer fields pushed to dataLayer (address and phone are left out by default)',
    min_confidence: 'Answers below this confidence are not used',
    cache_ttl_ms: 'How long the tag keeps an answer in the browser',
    consent_default: 'Consent state before the page sets one',
    anti_flicker_timeout_ms: 'How long personalised elements stay hidden at most',
    honor_gpc: 'Whether Global Privacy Control suppresses the lookup (default true)',
    features: 'Which bundle variant the tag gets (absent features are on)',
  }),
  NewWebhook: described(schema(NewWebhook, 'input'), {
    url: 'Where events are POSTed: an absolute http(s) URL without credentials',
    events: 'The events to receive',
    hot_paths: 'Path globs (`/pricing*`) that make a visit `account.hot`',
    description: 'A note for people',
  }),
};

/** The POST APIs take form-encoded bodies (the spec; what CRMs send), multipart form data or JSON. */
function formBody(name: keyof typeof bodies, example: Record<string, string>): Json {
  return {
    required: true,
    description: BODY_NOTE,
    content: {
      'application/x-www-form-urlencoded': { schema: ref(name), example },
      'multipart/form-data': { schema: ref(name), example },
      'application/json': { schema: ref(name), example },
    },
  };
}

const jsonBody = (name: keyof typeof bodies): Json => ({ required: true, content: { 'application/json': { schema: ref(name) } } });

// ---------------------------------------------------------------------------------------------------
// Responses and operations

const TokenWithAdvice = TokenRecord.extend({ needs_rotation: z.boolean(), reasons: z.array(z.string()) });
/** Creating or rotating a token is the only time its secret is shown. */
const TokenWithSecret = TokenWithAdvice.extend({ token: z.string() });
/** Creating a customer (or giving it the advanced package) creates its Lead Scoring token: shown once. */
const CreatedCustomer = CustomerRecord.extend({ lead_scoring_token: z.object({ id: z.string(), token: z.string() }).nullable() });

const json = (schemaRef: Json, example?: unknown) => ({ 'application/json': { schema: schemaRef, ...(example !== undefined ? { example } : {}) } });

const PARTNER = {
  name: 'X-svc-CustomID',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Partners only, with their own token: `<partner>-<customer>-<customer_api_token>` (on behalf of a customer) or `<partner>-<partner_api_token>`',
};
const SVC_COOKIE = {
  name: 'SvcCookie',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Optional visitor cookie value forwarded by server-side callers',
};
const REQUEST_ID = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Your id for this request: echoed and logged when it is a plain token (`^[A-Za-z0-9._:-]{1,128}$`), else replaced by a generated one',
};
const VISITOR_UA = {
  name: VISITOR_USER_AGENT_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description:
    "Token mode with `?ip=` only: the visitor's own User-Agent, for bot detection (the request's User-Agent is the integration's, so it is not classified then)",
};

interface LeadOp {
  operationId: string;
  summary: string;
  tag: string;
  group: string;
  bodyName: keyof typeof bodies;
  okName: string;
  notFoundName: string;
  ok: unknown;
  notFound?: unknown;
  example: Record<string, string>;
  /** Whether an exported record costs an Enrichment API credit (then 402 when none is left). */
  charged: boolean;
  deprecated?: boolean;
}

function leadOp(o: LeadOp): Json {
  const extra = o.deprecated ? DEPRECATED_V2 : {};
  const statuses = [400, 401, ...(o.charged ? [402] : []), 403, 413, 415, 422, 429, 503];
  return {
    post: {
      operationId: o.operationId,
      summary: o.summary,
      tags: [o.tag],
      ...(o.deprecated ? { deprecated: true } : {}),
      description:
        `Token of API group \`${o.group}\`. ` +
        (o.charged
          ? 'Charged per exported record: 1 Enrichment API credit, free again for the rest of the calendar month; a 404 is never charged.'
          : 'Never charged.') +
        (o.deprecated ? ' Every answer says it is deprecated (`Deprecation`, and `Link` to the successor).' : ''),
      security: [{ Token: [] }],
      parameters: [PARTNER, REQUEST_ID],
      requestBody: formBody(o.bodyName, o.example),
      responses: {
        200: { description: 'Found', headers: meteredHeaders(200, extra), content: json(ref(o.okName), o.ok) },
        404: {
          description: "No data found (or an invalid email): `status` and `message` with the route's data, every field blank; a data answer, so without a code",
          headers: meteredHeaders(404, extra),
          content: json(ref(o.notFoundName), o.notFound),
        },
        ...errors(statuses, (s) => meteredHeaders(s, extra), { 400: BLANK_400 }),
      },
    },
  };
}

/** A TypeScript declarations file the tag build writes and the server serves as text. */
function typesOperation(operationId: string, summary: string): Json {
  return {
    get: {
      operationId,
      summary,
      tags: ['Web tag'],
      security: [],
      responses: {
        200: {
          description: 'TypeScript declarations (text)',
          headers: { ETag: header('ETag', true) },
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        304: { description: 'Not modified (If-None-Match)', headers: { ETag: header('ETag', true) } },
        ...errors([404]),
      },
    },
  };
}

const admin = (operationId: string, summary: string, op: Json): Json => ({ operationId, summary, tags: ['Admin API'], security: [{ AdminBearer: [] }], ...op });
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });
const idParam = (what: string) => pathParam('id', `The ${what} id`);
const WEBHOOK_ID = pathParam('webhookId', 'The webhook endpoint id');
const TAG_ID = pathParam('tagId', 'The tag id');

/**
 * Every admin answer can be 401 (with `WWW-Authenticate`), 429 (too many failed credentials from this
 * address: every admin request is refused for the rest of that minute) and 503 (the store); writes can
 * also be 403 (cross-origin) and, when they carry a body, 400 (unreadable JSON), 413 (over 64 KB) and 415
 * (not JSON: a write without a body has no type to check); DELETE reads no type.
 */
function adminErrors(kind: 'read' | 'write' | 'delete', ...extra: number[]): Json {
  const writes = kind === 'write' ? [400, 403, 413, 415] : kind === 'delete' ? [403] : [];
  const statuses = [...new Set([401, ...writes, ...extra, 429, 503])].sort((a, b) => a - b);
  return errors(statuses, (s): Headers => (s === 401 ? { 'WWW-Authenticate': header('WWW-Authenticate', true) } : s === 429 || s === 503 ? RETRY : {}));
}

const VISITS_QUERY = [
  {
    name: 'from',
    in: 'query',
    required: false,
    schema: { type: 'string', format: 'date' },
    description: 'First UTC day (default: the report is the 30 days up to `to`)',
  },
  {
    name: 'to',
    in: 'query',
    required: false,
    schema: { type: 'string', format: 'date' },
    description: 'Last UTC day (default: today); a report covers at most 366 days',
  },
  {
    name: 'segment',
    in: 'query',
    required: false,
    schema: { type: 'string', pattern: '^\\d{1,9}$' },
    description: 'Only accounts in this segment of the customer (an unknown one: 422)',
  },
];

/** Paths the API router serves: a method they do not serve is 405 + Allow (the app's own paths answer it 404). */
const ROUTER_PATH = /^\/(v1|v2|v3|tag|demo|admin)\//;

export function openApiDocument(serverUrl?: string): Json {
  return withCommonAnswers(document(serverUrl));
}

/**
 * Said once here rather than on every operation: every answer carries X-Request-Id, any route can fail
 * unexpectedly (500), and a method a router path does not serve is answered 405 with `Allow`.
 */
function withCommonAnswers(doc: Json): Json {
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(item)) {
      const responses = op.responses as Record<string, Json>;
      if (ROUTER_PATH.test(path)) responses['405'] ??= errorResponse(405, { Allow: header('Allow', true) });
      responses['500'] ??= errorResponse(500);
      for (const response of Object.values(responses))
        response.headers = { 'X-Request-Id': header('X-Request-Id', true), ...(response.headers as Json | undefined) };
    }
  }
  return doc;
}

function document(serverUrl?: string): Json {
  const ex = examples;
  const identificationParams = [
    {
      name: 'ip',
      in: 'query',
      required: false,
      schema: schema(IdentificationQuery.shape.ip.unwrap()),
      description: 'Token mode: the IPv4 address to identify (default: the caller). Longer than 64 characters: 422.',
      example: ex.request.ip,
    },
    {
      name: 'test_ip',
      in: 'query',
      required: false,
      schema: schema(IdentificationQuery.shape.test_ip.unwrap()),
      description: 'Demo tags in demo mode only (tag mode): a sample address to identify.',
    },
    PARTNER,
    SVC_COOKIE,
    VISITOR_UA,
    REQUEST_ID,
  ];
  const identificationStatuses = [400, 401, 402, 403, 422, 429, 503];
  const identificationDescription =
    'Tag mode (`?tag=`, from a browser: the visitor is the caller) or token mode (`Authorization: Token`, `?ip=` names the address). 1 identification credit per `Match`; `Non-actionable Match` and `No Match` are free.';
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
      { name: 'Web tag' },
      { name: 'Admin API' },
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
        AdminBearer: { type: 'http', scheme: 'bearer', description: 'The admin token (SVC_ADMIN_TOKEN, or the one printed at first start).' },
      },
      headers: HEADERS,
      schemas: {
        ErrorCode: ErrorCodeSchema,
        Error: ErrorSchema,
        IdentificationResponse: schema(IdentificationResponse),
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
      },
    },
    paths: {
      '/v3/company/details': {
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
          description:
            'Allowed when the tag named in `?tag=` (or, without one, an active domain-restricted identification token or any web tag) allows the Origin.',
          tags: ['Company Identification'],
          security: [],
          parameters: [{ name: 'tag', in: 'query', required: false, schema: { type: 'string' }, description: 'The web tag the page uses' }],
          responses: {
            204: { description: 'Allowed methods and headers for the Origin', headers: PREFLIGHT_ALLOWED },
            ...errors([403, 503], (s) => (s === 503 ? RETRY : {})),
          },
        },
      },
      '/v1/enrichment/company': leadOp({
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
      }),
      '/v2/people/enrichment': leadOp({
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
      }),
      '/v2/people/full': leadOp({
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
      }),
      '/v2/people/score': leadOp({
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
      }),
      '/v2/enrichment/people': leadOp({
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
      }),
      '/v2/search/people': leadOp({
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
      }),
      '/v3/usage': {
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
      },
      '/v1/events': {
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
            ...errors([400, 401, 403, 413, 415, 429, 503], (s) => meteredHeaders(s, s === 401 || s === 403 || s === 503 ? {} : CORS)),
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
      },
      '/tag/v1/svc.js': {
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
      },
      '/tag/v1/svc.d.ts': typesOperation('getTagTypes', "The tag's TypeScript declarations: window.svc, answers, events, dataLayer pushes"),
      '/tag/v1/preact.d.ts': typesOperation('getTagPreactTypes', 'TypeScript declarations of the Preact helper (dist/tag/preact.js)'),
      '/tag/v1/{file}': {
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
      },
      ...Object.fromEntries(
        (['/', '/index.html'] as const).map((path) => [
          path,
          {
            get: {
              operationId: path === '/' ? 'getDemoSite' : 'getDemoSiteIndex',
              summary: 'The demo site (served when it is built): a customer marketing page with the snippet, under a CSP with a per-answer nonce',
              tags: ['Web tag'],
              security: [],
              responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors([404]) },
            },
          },
        ]),
      ),
      '/demo/api/visitors': {
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
      },
      '/admin/api/customers': {
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
      },
      '/admin/api/customers/{id}': {
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
      },
      '/admin/api/customers/{id}/visits': {
        get: admin('getVisitsReport', 'Accounts that visited (first-party page views), most page views first; `Accept: text/csv` for CSV', {
          parameters: [idParam('customer'), ...VISITS_QUERY],
          responses: {
            200: { description: 'The report', content: { ...json({ type: 'object' }), 'text/csv': { schema: { type: 'string' } } } },
            ...adminErrors('read', 404, 422),
          },
        }),
      },
      '/admin/api/customers/{id}/visits.csv': {
        get: admin('getVisitsReportCsv', 'The visitors report as CSV (same parameters)', {
          parameters: [idParam('customer'), ...VISITS_QUERY],
          responses: { 200: { description: 'CSV (an attachment)', content: { 'text/csv': { schema: { type: 'string' } } } }, ...adminErrors('read', 404, 422) },
        }),
      },
      '/admin/api/customers/{id}/tag-sightings': {
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
      },
      '/admin/api/customers/{id}/webhooks': {
        get: admin('listWebhooks', "A customer's webhook endpoints (signing secrets are never shown again)", {
          parameters: [idParam('customer')],
          responses: { 200: { description: 'Endpoints', content: json({ type: 'array', items: ref('Webhook') }) }, ...adminErrors('read', 404) },
        }),
        post: admin('createWebhook', 'Register a webhook endpoint: its signing secret is in this answer only', {
          parameters: [idParam('customer')],
          requestBody: jsonBody('NewWebhook'),
          responses: { 201: { description: 'Created', content: json(ref('WebhookWithSecret')) }, ...adminErrors('write', 404, 422) },
        }),
      },
      '/admin/api/customers/{id}/webhooks/{webhookId}': {
        get: admin('getWebhook', 'A webhook endpoint', {
          parameters: [idParam('customer'), WEBHOOK_ID],
          responses: { 200: { description: 'The endpoint', content: json(ref('Webhook')) }, ...adminErrors('read', 404) },
        }),
        delete: admin('deleteWebhook', 'Remove a webhook endpoint (its undelivered events are dropped)', {
          parameters: [idParam('customer'), WEBHOOK_ID],
          responses: { 204: { description: 'Removed' }, ...adminErrors('delete', 404) },
        }),
      },
      '/admin/api/customers/{id}/webhooks/{webhookId}/deliveries': {
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
      },
      '/admin/api/customers/{id}/credits': {
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
      },
      '/admin/api/tokens': {
        get: admin('listTokens', 'List tokens (secrets are never shown again)', {
          parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' }, description: "Only this customer's tokens" }],
          responses: { 200: { description: 'Tokens with rotation advice', content: json({ type: 'array', items: ref('Token') }) }, ...adminErrors('read') },
        }),
        post: admin('createToken', 'Create a token: the secret is in this answer only', {
          requestBody: jsonBody('NewToken'),
          responses: { 201: { description: 'Created', content: json(ref('TokenWithSecret')) }, ...adminErrors('write', 404, 422) },
        }),
      },
      '/admin/api/tokens/{id}': {
        get: admin('getToken', 'A token', {
          parameters: [idParam('token')],
          responses: { 200: { description: 'The token', content: json(ref('Token')) }, ...adminErrors('read', 404) },
        }),
        delete: admin('deleteToken', 'Delete a token', {
          parameters: [idParam('token')],
          responses: { 204: { description: 'Deleted' }, ...adminErrors('delete', 404) },
        }),
      },
      ...Object.fromEntries(
        (['deactivate', 'activate', 'rotate'] as const).map((action) => [
          `/admin/api/tokens/{id}/${action}`,
          {
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
          },
        ]),
      ),
      '/admin/api/tags': {
        get: admin('listTags', 'List web tags', {
          parameters: [{ name: 'customer', in: 'query', required: false, schema: { type: 'string' }, description: "Only this customer's tags" }],
          responses: { 200: { description: 'Tags', content: json({ type: 'array', items: ref('Tag') }, ex.tags) }, ...adminErrors('read') },
        }),
        post: admin('createTag', 'Create a web tag', {
          requestBody: jsonBody('NewTag'),
          responses: { 201: { description: 'Created', content: json(ref('Tag')) }, ...adminErrors('write', 404, 409, 422) },
        }),
      },
      '/admin/api/tags/{tagId}': {
        get: admin('getTag', 'A web tag', {
          parameters: [TAG_ID],
          responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('read', 404) },
        }),
        patch: admin('updateTag', 'Change a tag: only the fields given (allowed domains, limits, answers, settings)', {
          parameters: [TAG_ID],
          requestBody: jsonBody('TagPatch'),
          responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('write', 404, 422) },
        }),
      },
      '/admin/api/tags/{id}/settings': {
        patch: admin('replaceTagSettings', "Replace a tag's settings (inlined into /tag/v1/<tagId>.js; absent keys keep the bundle's defaults)", {
          parameters: [idParam('tag')],
          requestBody: jsonBody('TagSettings'),
          responses: { 200: { description: 'The tag', content: json(ref('Tag')) }, ...adminErrors('write', 404, 422) },
        }),
      },
      '/healthz': {
        get: {
          operationId: 'getLiveness',
          summary: 'Liveness: the process answers',
          tags: ['Operating'],
          security: [],
          responses: { 200: { description: 'Alive', content: json({ type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] }) } },
        },
      },
      '/readyz': {
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
      },
      '/metrics': {
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
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          tags: ['Operating'],
          security: [],
          responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } },
        },
      },
      '/docs': {
        get: {
          operationId: 'getApiReference',
          summary: 'The rendered API reference (Scalar), with "try it" against this server',
          tags: ['Operating'],
          security: [],
          responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
        },
      },
      '/docs/scalar.js': {
        get: {
          operationId: 'getApiReferenceRenderer',
          summary: 'The reference renderer, served from this server (no CDN)',
          tags: ['Operating'],
          security: [],
          responses: { 200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' } } } }, ...errors([404]) },
        },
      },
    },
  };
}
