/**
 * Bodies of the server-to-server POST routes, at most BODY_LIMIT: `application/x-www-form-urlencoded`
 * (the spec), `multipart/form-data` (what many HTTP clients send for "form data": read exactly like the
 * form-encoded body; text fields only) or `application/json`. Any other Content-Type on a body is 415.
 *
 * The body is read inside the route handler, after authentication and rate limiting, so the pipeline's
 * documented order holds for every request (401 → 403 → 429 → 413/400/422 → …): an unauthenticated
 * caller learns nothing about body rules, and a rejected caller's body is never parsed.
 *
 * Validation is one zod schema per route body (see `schema.ts` here and in `server/people/`):
 *   - types and lengths (a field that is not a string, a repeated form field, an over-long value,
 *     a body that is not an object) → 422 "validation error";
 *   - required fields left blank (missing, empty or only spaces) → 400 `blank`; these checks run only
 *     once the types are right, and their issues carry `params.code = 'blank'`.
 * Unknown fields are ignored (zod strips them).
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { ApiError } from '../../core/error-codes.ts';

/** Largest accepted body, form or JSON; larger → 413. Generous: the biggest valid body is ~6 KB. */
export const BODY_LIMIT = '16kb';
/** Longest email address (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** Longest domain name. */
export const MAX_DOMAIN_LENGTH = 253;
/** Longest value of any other text field (title, company, country, linkedin_url …). */
export const MAX_FIELD_LENGTH = 500;

/** The body types the POST routes read, named in the 415 answer. */
export const ACCEPTED_BODY_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'] as const;
const BODY_LIMIT_BYTES = 16 * 1024;
const MAX_FIELDS = 100;

const formParser = express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: MAX_FIELDS });
const jsonParser = express.json({ limit: BODY_LIMIT });
/**
 * multer (busboy underneath) in text-only mode. Its limits bound one field and the number of parts;
 * the whole body is bounded by Content-Length up front (BODY_LIMIT) and, for a chunked body, by these.
 */
const multipartParser = multer({ limits: { fieldSize: BODY_LIMIT_BYTES, fieldNameSize: 200, fields: MAX_FIELDS, parts: MAX_FIELDS, files: 0 } }).none();

/** Whether the request carries a body at all (RFC 9112 §6.3: a length or a transfer coding). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function run(parse: RequestHandler, req: Request): Promise<void> {
  return new Promise<void>((resolve, reject) => parse(req, req.res as Response, (err?: unknown) => (err ? reject(err) : resolve())));
}

/** multer/busboy errors carry no HTTP status: too big → 413, a file part → 422, anything else malformed → 400. */
function multipartError(err: unknown): ApiError {
  const code = (err as { code?: string }).code;
  if (code === 'LIMIT_FIELD_VALUE' || code === 'LIMIT_FIELD_COUNT' || code === 'LIMIT_PART_COUNT' || code === 'LIMIT_FIELD_KEY')
    return new ApiError('too_large', 'request body too large');
  if (code === 'LIMIT_UNEXPECTED_FILE' || code === 'LIMIT_FILE_COUNT')
    return new ApiError('invalid', 'validation error: multipart bodies carry text fields only, not files');
  return new ApiError('invalid', 'request body is not valid multipart/form-data', {}, 400);
}

/**
 * The accepted type the body has, or false. A Content-Type that is exactly a form or JSON type (what
 * clients send, and what the benchmarks send) is taken as is: type-is parses and normalises the header,
 * and body-parser does it again, ~5 µs of a form request in the server profile (measured with
 * `npm run bench -- enrichment` under --cpu-prof). Anything else (parameters, case, multipart) goes
 * through `req.is` as before.
 */
function bodyType(req: Request): string | false {
  const given = req.headers['content-type'];
  if (given === 'application/x-www-form-urlencoded' || given === 'application/json') return given;
  return req.is([...ACCEPTED_BODY_TYPES]) || false;
}

/**
 * Reads the body and returns it as a plain object ({} when there is none).
 * Throws 415 for a body of any other Content-Type (naming the accepted ones), and the parsers' 400
 * (malformed) / 413 (too large) / 415 (unknown charset) errors, which the central error handler answers
 * in the spec's error shape.
 */
export async function readBody(req: Request): Promise<Record<string, unknown>> {
  if (!hasBody(req)) return {};
  const type = bodyType(req);
  if (!type) {
    const given = req.get('content-type');
    throw new ApiError(
      'unsupported_type',
      `unsupported Content-Type${given ? ` ${JSON.stringify(given.slice(0, 100))}` : ' (none given)'}: send ${ACCEPTED_BODY_TYPES.join(', ')}`,
    );
  }
  if (type === 'multipart/form-data') {
    if (Number(req.headers['content-length']) > BODY_LIMIT_BYTES) throw new ApiError('too_large', 'request body too large');
    await run(multipartParser, req).catch((err: unknown) => {
      throw multipartError(err);
    });
  } else {
    await run(type === 'application/json' ? jsonParser : formParser, req);
  }
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid', 'the request body must be form fields or a JSON object');
  return body as Record<string, unknown>;
}

/**
 * An optional text field: a string (trimmed) of at most `max` characters; missing or JSON null reads as "".
 * Repeated form fields (arrays), numbers and objects are refused (422).
 */
export const text = (max: number = MAX_FIELD_LENGTH) =>
  z
    .string({ error: 'must be a single text value' })
    .trim()
    .max(max, { error: `must be at most ${max} characters` })
    .nullish()
    .transform((v) => v ?? '');

/** A blank-field issue: answered `blank` (400, "Required fields are blank"), not `invalid` (422). */
export function blankIssue(ctx: z.RefinementCtx, field: string, message = `${field} is mandatory and cannot be blank`): void {
  ctx.addIssue({ code: 'custom', path: [field], message, params: { code: 'blank' } });
}

/** `.superRefine` check: every named field is non-blank. */
export const requireAll =
  <T extends Record<string, unknown>>(...fields: (keyof T & string)[]) =>
  (value: T, ctx: z.RefinementCtx) => {
    for (const f of fields) if (value[f] === '') blankIssue(ctx, f);
  };

/** Parses a body with a route's schema: `invalid` (422) for the first type/length issue, else `blank` (400). */
export function parseInput<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const invalid = issues.find((i) => !(i.code === 'custom' && (i.params as { code?: string } | undefined)?.code === 'blank'));
  const issue = invalid ?? issues[0];
  const path = issue.path.join('.');
  if (invalid) throw new ApiError('invalid', `validation error: ${path ? `${path}: ` : ''}${issue.message}`);
  throw new ApiError('blank', issue.message);
}
