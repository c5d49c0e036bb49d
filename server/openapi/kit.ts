/**
 * The pieces OpenAPI operations are built from — zod schemas as JSON Schema, error answers per status and
 * code, the headers, the request bodies of the server-to-server routes — shared by the routes' own
 * operation documents (each RouteDef's `doc`, server/routes.ts) and the document's components (./document.ts).
 */

import { z } from 'zod';
import { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import { ALSO_STATUS, ERROR_CODES, ERROR_MEANING, ERROR_STATUS, type ErrorCode } from '../../core/error-codes.ts';
import { CombinedBody, FirmographicsV2Body, FirmographicsV3Body, LeadScoringBody } from '../enrichment/schema.ts';
import { VISITOR_USER_AGENT_HEADER } from '../identification/schema.ts';
import { PeopleEnrichmentBody, PeopleSearchBody } from '../people/schema.ts';
import { NewSegment, SegmentPatch, SegmentPreviewBody } from '../segments/schema.ts';
import { CustomerRecord, NewTag, NewToken, TagPatch, TagSettings, TokenRecord } from '../state/store.ts';
import { PageViewBeacon } from '../visits/beacon.ts';
import { NewWebhook } from '../webhooks/schema.ts';

export type Json = Record<string, unknown>;

/** Said at the top so tools that default to an older draft (Prism: draft-07) validate with 2020-12. */
export const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * zod names some string checks as formats no validator knows (`.startsWith()` → `format: "starts_with"`);
 * Ajv refuses unknown formats, and the check is already in the `pattern` zod writes beside it.
 */
export const ZOD_ONLY_FORMATS = new Set(['starts_with', 'ends_with', 'includes']);

/** A zod schema as an OpenAPI 3.1 schema object: request bodies as the caller may send them (`input`). */
export function schema(s: z.ZodType, io: 'input' | 'output' = 'output'): Json {
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

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ---------------------------------------------------------------------------------------------------
// Errors

/** The statuses a code is answered with (core/error-codes.ts: its own, and ALSO_STATUS's). */
export const statusesOf = (code: ErrorCode): number[] => [ERROR_STATUS[code], ...((ALSO_STATUS as Partial<Record<ErrorCode, readonly number[]>>)[code] ?? [])];

/** The codes an error answer with this status can carry. */
export const codesOfStatus = (status: number): ErrorCode[] => ERROR_CODES.filter((code) => statusesOf(code).includes(status));

export const ERROR_CODE_TABLE = [
  '| code | status | meaning |',
  '|---|---|---|',
  ...ERROR_CODES.map((c) => `| \`${c}\` | ${statusesOf(c).join(', ')} | ${ERROR_MEANING[c]} |`),
].join('\n');

export const ErrorCodeSchema: Json = {
  type: 'string',
  enum: [...ERROR_CODES],
  description: `The machine-readable reason of an error answer; the message is for people and may change.\n\n${ERROR_CODE_TABLE}`,
  // Scalar (and Redoc) show each value's meaning beside it; JSON Schema has no place for that.
  'x-enumDescriptions': { ...ERROR_MEANING },
};

export const ErrorSchema: Json = {
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
export function errorSchema(status: number, codes: ErrorCode[] = codesOfStatus(status)): Json {
  if (codes.length === 0 || codes.some((c) => !codesOfStatus(status).includes(c))) throw new Error(`${codes.join(', ')} cannot answer ${status}`);
  return { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: codes } } }] };
}

export const STATUS_TEXT: Record<number, string> = {
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

export type Headers = Record<string, Json>;

/** A status's codes and text where a route answers it otherwise than STATUS_TEXT says. */
export interface Variant {
  codes: ErrorCode[];
  description: string;
}

/** `blank` is a 400 only where required fields are checked: the enrichment, scoring and people bodies. */
export const BLANK_400: Variant = {
  codes: ['blank', 'invalid'],
  description:
    'A required field is blank (`blank`: missing, empty or only spaces), or the body cannot be read (`invalid`: malformed, not form fields or a JSON object)',
};
export const DEFAULT_CODES: Partial<Record<number, ErrorCode[]>> = { 400: ['invalid'] };

export function errorResponse(status: number, headers: Headers = {}, variant?: Variant): Json {
  return {
    description: variant?.description ?? STATUS_TEXT[status],
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { 'application/json': { schema: errorSchema(status, variant?.codes ?? DEFAULT_CODES[status]) } },
  };
}

/** Error answers by status; `headers(status)` adds the headers that status carries on this route. */
export function errors(statuses: number[], headers: (status: number) => Headers = () => ({}), variants: Partial<Record<number, Variant>> = {}): Json {
  return Object.fromEntries(statuses.map((s) => [String(s), errorResponse(s, headers(s), variants[s])]));
}

// ---------------------------------------------------------------------------------------------------
// Headers

/** A response header; a required one is written out, since a Reference Object's other fields are ignored (OpenAPI 3.1 §4.8.23). */
export const header = (name: string, required = false): Json => {
  if (!HEADERS[name]) throw new Error(`undeclared header ${name}`);
  return required ? { ...HEADERS[name], required: true } : { $ref: `#/components/headers/${name}` };
};

export const HEADERS: Record<string, Json> = {
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
  Location: { schema: { type: 'string' }, description: 'Where the redirect goes' },
};

export const RATE = {
  'RateLimit-Limit': header('RateLimit-Limit'),
  'RateLimit-Remaining': header('RateLimit-Remaining'),
  'RateLimit-Reset': header('RateLimit-Reset'),
};
export const RATE_REFUSED = {
  'RateLimit-Limit': header('RateLimit-Limit', true),
  'RateLimit-Remaining': header('RateLimit-Remaining', true),
  'RateLimit-Reset': header('RateLimit-Reset', true),
  'Retry-After': header('Retry-After', true),
};
export const RETRY = { 'Retry-After': header('Retry-After', true) };
export const CORS = { 'Access-Control-Allow-Origin': header('Access-Control-Allow-Origin') };
export const PREFLIGHT_ALLOWED = {
  'Access-Control-Allow-Origin': header('Access-Control-Allow-Origin', true),
  'Access-Control-Allow-Methods': header('Access-Control-Allow-Methods', true),
  'Access-Control-Allow-Headers': header('Access-Control-Allow-Headers', true),
  'Access-Control-Max-Age': header('Access-Control-Max-Age', true),
};
export const DEPRECATED_V2 = { Deprecation: header('Deprecation', true), Link: header('Link', true) };

/**
 * The headers of a metered route's answer: the RateLimit-* of the caller's counter on every answer after
 * the rate-limit step (input errors, 402, 404 too), Retry-After on 429 and 503; 401 and 403 come first.
 */
export function meteredHeaders(status: number, extra: Headers = {}): Headers {
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
export function described(json: Json, descriptions: Record<string, string>): Json {
  const properties = json.properties as Record<string, Json>;
  for (const name of Object.keys(properties)) if (!descriptions[name]) throw new Error(`request field ${name} has no description`);
  for (const [name, text] of Object.entries(descriptions)) {
    if (!properties[name]) throw new Error(`described field ${name} is not in the schema`);
    properties[name] = { ...properties[name], description: text };
  }
  return json;
}

/** The string branch of a zod text field (`anyOf: [string, null]`), non-blank: what a required form field must be. */
export function nonBlank(field: Json): Json {
  const text = ((field.anyOf as Json[] | undefined) ?? [field]).find((b) => b.type === 'string');
  if (!text) throw new Error('not a text field');
  return { ...text, pattern: '\\S', ...(field.description ? { description: field.description } : {}) };
}

/**
 * Zod checks blank fields after the types (400 `blank`), so its JSON Schema marks nothing required; the
 * document says which fields must be non-blank. `anyOf`: at least one of them.
 */
export function requireFields(json: Json, rule: { all: string[] } | { anyOf: string[] }): Json {
  const properties = json.properties as Record<string, Json>;
  if ('all' in rule) {
    for (const f of rule.all) properties[f] = nonBlank(properties[f]!);
    return { ...json, required: rule.all };
  }
  return { ...json, anyOf: rule.anyOf.map((f) => ({ type: 'object', required: [f], properties: { [f]: { type: 'string', pattern: '\\S' } } })) };
}

export const LEAD_FIELDS = {
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

export const BODY_NOTE =
  'At most 16 KB (larger: 413). All values are text (trimmed): email ≤ 254, domain and website ≤ 253, others ≤ 500 characters (longer: 422); unknown fields are ignored.';

export const bodies = {
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
    account_lists: 'Named account lists `{id, name, company_ids}` a segment can use (`in_list`); edited at /admin/api/customers/:id/lists',
    grants: 'API groups granted beyond the packages (`segments`: the Segments API)',
    kept_query_params:
      'Query parameters that make a page of its own on the account page (`plan` keeps `/pricing?plan=pro` apart); every other one, UTM included, is collapsed into the path',
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
    grants: 'API groups granted beyond the packages (the whole list; `segments`: the Segments API). Removing one makes its tokens answer 403',
    kept_query_params: 'Query parameters kept apart on the account page (the whole list)',
  }),
  NewSegment: described(schema(NewSegment, 'input'), {
    name: 'A name for people, unique in the customer (case-insensitive)',
    match: 'The rule: every listed field matches one of its values (AND across fields, OR within one, case-insensitive); an empty rule matches nothing',
  }),
  SegmentPatch: described(schema(SegmentPatch, 'input'), {
    name: 'The new name (unique in the customer)',
    match: 'The new rule (the whole rule)',
  }),
  SegmentPreviewBody: described(schema(SegmentPreviewBody, 'input'), {
    match: 'The rule to preview',
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
    disabled:
      'A disabled tag answers lookups and page views 403 (`web tag … is disabled`) and its /tag/v1/<tagId>.js 404 with a JavaScript comment; false enables it again',
    settings: 'Bundle settings (the whole object, as PATCH …/settings)',
  }),
  TagSettings: described(schema(TagSettings, 'input'), {
    fields: 'Answer fields pushed to dataLayer (address and phone are left out by default)',
    min_confidence: 'Answers below this confidence are not used',
    cache_ttl_ms: 'How long the tag keeps an answer in the browser',
    consent_default: 'Consent state before the page sets one',
    anti_flicker_timeout_ms: 'How long personalised elements stay hidden at most',
    honor_gpc: 'Whether Global Privacy Control suppresses the lookup (default true)',
    features:
      'Which bundle variant the tag gets: personalisation, form_fill, spa, page_views, debug are on when absent; integrations is off when absent (true: the code, the page chooses the tools; {ga4, segment}: those tools told by default)',
  }),
  NewWebhook: described(schema(NewWebhook, 'input'), {
    url: 'Where events are POSTed: an absolute http(s) URL without credentials',
    events: 'The events to receive: account.visited, account.hot, segment.entered, tag.installed',
    hot_paths: 'Path globs (`/pricing*`) that make a visit `account.hot`',
    description: 'A note for people',
    event_versions: 'The payload version per event (`{"account.visited": 1}`); events not named get their newest version (GET /schemas lists them)',
    segment_names: 'Segment names in payloads (ids always); default false for JSON endpoints, true for Slack',
    scores: 'Scores per product in account events (v2); default false',
    format:
      '`json` (default): signed event bodies; `slack`: the URL is a Slack incoming webhook and gets Block Kit messages (account.visited, account.hot, segment.entered; one message per account visit, a digest when several are due, at most one a second)',
    filters:
      'Which accounts raise events (every format): `segments` (in any of these segment ids), `hot_only` (a hot account, or a view of a hot page), `min_page_views` (page views in this visit, this one included); all given must hold',
  }),
};

/** The POST APIs take form-encoded bodies (the spec; what CRMs send), multipart form data or JSON. */
export function formBody(name: keyof typeof bodies, example: Record<string, string>): Json {
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

export const jsonBody = (name: keyof typeof bodies): Json => ({ required: true, content: { 'application/json': { schema: ref(name) } } });

// ---------------------------------------------------------------------------------------------------
// Responses and operations

export const TokenWithAdvice = TokenRecord.extend({ needs_rotation: z.boolean(), reasons: z.array(z.string()) });
/** Creating or rotating a token is the only time its secret is shown. */
export const TokenWithSecret = TokenWithAdvice.extend({ token: z.string() });
/** Creating a customer (or giving it the advanced package) creates its Lead Scoring token: shown once. */
export const CreatedCustomer = CustomerRecord.extend({ lead_scoring_token: z.object({ id: z.string(), token: z.string() }).nullable() });

export const json = (schemaRef: Json, example?: unknown) => ({ 'application/json': { schema: schemaRef, ...(example !== undefined ? { example } : {}) } });

export const PARTNER = {
  name: 'X-svc-CustomID',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Partners only, with their own token: `<partner>-<customer>-<customer_api_token>` (on behalf of a customer) or `<partner>-<partner_api_token>`',
};
export const SVC_COOKIE = {
  name: 'SvcCookie',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Optional visitor cookie value forwarded by server-side callers',
};
export const REQUEST_ID = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'Your id for this request: echoed and logged when it is a plain token (`^[A-Za-z0-9._:-]{1,128}$`), else replaced by a generated one',
};
export const VISITOR_UA = {
  name: VISITOR_USER_AGENT_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description:
    "Token mode with `?ip=` only: the visitor's own User-Agent, for bot detection (the request's User-Agent is the integration's, so it is not classified then)",
};

export interface LeadOp {
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

export function leadOp(o: LeadOp): { post: Json } {
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
export function typesOperation(operationId: string, summary: string): { get: Json } {
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

export const admin = (operationId: string, summary: string, op: Json): Json => ({
  operationId,
  summary,
  tags: ['Admin API'],
  security: [{ AdminBearer: [] }, { Session: [] }],
  ...op,
});
export const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });
export const idParam = (what: string) => pathParam('id', `The ${what} id`);
export const WEBHOOK_ID = pathParam('webhookId', 'The webhook endpoint id');
export const TAG_ID = pathParam('tagId', 'The tag id');

/**
 * Every admin answer can be 401 (with `WWW-Authenticate`), 403 (a signed-in user whose role may not do
 * it), 404 (a user asking about another customer: as if it did not exist), 429 (too many failed
 * credentials from this address: every admin request is refused for the rest of that minute) and 503 (the
 * store); writes can also be 403 (cross-origin) and, when they carry a body, 400 (unreadable JSON), 413
 * (over 64 KB) and 415 (not JSON: a write without a body has no type to check); DELETE reads no type.
 */
export function adminErrors(kind: 'read' | 'write' | 'delete', ...extra: number[]): Json {
  const writes = kind === 'write' ? [400, 413, 415] : [];
  const statuses = [...new Set([401, 403, 404, ...writes, ...extra, 429, 503])].sort((a, b) => a - b);
  return errors(statuses, (s): Headers => (s === 401 ? { 'WWW-Authenticate': header('WWW-Authenticate', true) } : s === 429 || s === 503 ? RETRY : {}));
}

export const VISITS_QUERY = [
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
