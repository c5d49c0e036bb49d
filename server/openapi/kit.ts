/**
 * The pieces OpenAPI operations are built from — zod schemas as JSON Schema, error answers per status and
 * code, the headers, references to the request bodies — shared by the operations each feature writes beside
 * its routes (`<feature>/docs.ts`, each RouteDef's `doc`) and the document (./document.ts). It imports
 * core/ only, never a feature: a feature's schemas reach the document through the document's own imports.
 */

import { z } from 'zod';
import { CustomerRecord, TokenRecord } from '../../core/access-records.ts';
import { ALSO_STATUS, ERROR_CODES, ERROR_MEANING, ERROR_STATUS, type ErrorCode } from '../../core/error-codes.ts';

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

/** The request bodies the document declares as components (./bodies.ts, checked against this list). */
export type BodyName =
  | 'FirmographicsV3Body'
  | 'FirmographicsV2Body'
  | 'CombinedBody'
  | 'LeadScoringBody'
  | 'PeopleEnrichmentBody'
  | 'PeopleSearchBody'
  | 'PageViewBeacon'
  | 'EngagementBeacon'
  | 'CustomEventBeacon'
  | 'CustomerSeed'
  | 'CustomerPatch'
  | 'NewSegment'
  | 'SegmentPatch'
  | 'SegmentPreviewBody'
  | 'NewToken'
  | 'NewTag'
  | 'TagPatch'
  | 'TagSettings'
  | 'NewWebhook';

export const BODY_NOTE =
  'At most 16 KB (larger: 413). All values are text (trimmed): email ≤ 254, domain and website ≤ 253, others ≤ 500 characters (longer: 422); unknown fields are ignored.';

/** The POST APIs take form-encoded bodies (the spec; what CRMs send), multipart form data or JSON. */
export function formBody(name: BodyName, example: Record<string, string>): Json {
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

export const jsonBody = (name: BodyName): Json => ({ required: true, content: { 'application/json': { schema: ref(name) } } });

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

export interface LeadOp {
  operationId: string;
  summary: string;
  tag: string;
  group: string;
  bodyName: BodyName;
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

export const admin = (operationId: string, summary: string, op: Json): Json => ({
  operationId,
  summary,
  tags: ['Admin API'],
  security: [{ AdminBearer: [] }, { Session: [] }],
  ...op,
});
export const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });
export const idParam = (what: string) => pathParam('id', `The ${what} id`);

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
