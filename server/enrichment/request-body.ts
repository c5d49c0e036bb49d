/**
 * Bodies of the server-to-server POST routes: form-encoded (the spec) or JSON, at most BODY_LIMIT.
 *
 * The body is read inside the route handler, after authentication and rate limiting, so the pipeline's
 * documented order holds for every request (401 → 403 → 429 → 413/400/422 → …): an unauthenticated
 * caller learns nothing about body rules, and a rejected caller's body is never parsed.
 *
 * Validation is one zod schema per route body (see `schema.ts` here and in `server/people/`):
 *   - types and lengths (a field that is not a string, a repeated form field, an over-long value,
 *     a body that is not an object) → 422 "validation error";
 *   - required fields left blank (missing, empty or only spaces) → 400; these checks run only once the
 *     types are right, and their issues carry `params.status = 400`.
 * Unknown fields are ignored (zod strips them).
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { HttpError } from '../http/errors.ts';

/** Largest accepted body, form or JSON; larger → 413. Generous: the biggest valid body is ~6 KB. */
export const BODY_LIMIT = '16kb';
/** Longest email address (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** Longest domain name. */
export const MAX_DOMAIN_LENGTH = 253;
/** Longest value of any other text field (title, company, country, linkedin_url …). */
export const MAX_FIELD_LENGTH = 500;

const parsers: RequestHandler[] = [
  express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 100 }),
  express.json({ limit: BODY_LIMIT }),
];

/**
 * Reads the body (form or JSON; any other content type reads as empty) and returns it as a plain object.
 * Throws the body parser's 400 (malformed JSON) / 413 (too large) / 415 (unknown charset) errors,
 * which the central error handler answers in the spec's error shape.
 */
export async function readBody(req: Request): Promise<Record<string, unknown>> {
  const res = req.res as Response;
  for (const parse of parsers) {
    await new Promise<void>((resolve, reject) => parse(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  }
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(422, 'the request body must be form fields or a JSON object');
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

/** A blank-field issue: answered 400 ("Required fields are blank"), not 422. */
export function blankIssue(ctx: z.RefinementCtx, field: string, message = `${field} is mandatory and cannot be blank`): void {
  ctx.addIssue({ code: 'custom', path: [field], message, params: { status: 400 } });
}

/** `.superRefine` check: every named field is non-blank. */
export const requireAll =
  <T extends Record<string, unknown>>(...fields: (keyof T & string)[]) =>
  (value: T, ctx: z.RefinementCtx) => {
    for (const f of fields) if (value[f] === '') blankIssue(ctx, f);
  };

/** Parses a body with a route's schema; 422 for the first type/length issue, else 400 for a blank field. */
export function parseInput<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const invalid = issues.find((i) => !(i.code === 'custom' && (i.params as { status?: number } | undefined)?.status === 400));
  const issue = invalid ?? issues[0];
  const path = issue.path.join('.');
  if (invalid) throw new HttpError(422, `validation error: ${path ? `${path}: ` : ''}${issue.message}`);
  throw new HttpError(400, issue.message);
}
