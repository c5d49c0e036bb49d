/**
 * The fields of the server-to-server POST bodies (read by server/http/body.ts, `fields`: form-encoded,
 * multipart text fields or JSON, at most LEAD_BODY_LIMIT, after authentication and rate limiting).
 *
 * Validation is one zod schema per route body (see `schema.ts` here and in `server/people/`):
 *   - types and lengths (a field that is not a string, a repeated form field, an over-long value,
 *     a body that is not an object) → 422 "validation error";
 *   - required fields left blank (missing, empty or only spaces) → 400 `blank`; these checks run only
 *     once the types are right, and their issues carry `params.code = 'blank'`.
 * Unknown fields are ignored (zod strips them).
 */
import { z } from 'zod';

/** Largest accepted body, form, multipart or JSON, in bytes; larger → 413. Generous: the biggest valid body is ~6 KB. */
export const LEAD_BODY_LIMIT = 16 * 1024;
/** Longest email address (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** Longest domain name. */
export const MAX_DOMAIN_LENGTH = 253;
/** Longest value of any other text field (title, company, country, linkedin_url …). */
export const MAX_FIELD_LENGTH = 500;

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

/** A body of text fields: its zod schema (validation, type, documentation) and `fast`, the same reading of an ordinary body. */
export interface TextBody<T> {
  schema: z.ZodType<T>;
  /**
   * What `schema` answers for a body it accepts — a plain object whose known fields are absent, null or
   * strings within their lengths (after trimming), passing the refinement — read without zod; anything
   * else is undefined, and the schema decides and words the error. Why: zod's per-field pipeline (string,
   * trim, max, nullish, transform) was ~8 % of an enrichment POST's CPU (--cpu-prof). `schema.test.ts`
   * holds the two equal on generated bodies.
   */
  fast: (body: unknown) => T | undefined;
}

/**
 * Text fields, each at most its length (`text(max)`), unknown fields ignored, checked as a whole by
 * `refine` (a blank required field: `blankIssue`).
 */
export function textBody<K extends string>(
  maxes: Readonly<Record<K, number>>,
  refine: (value: Record<K, string>, ctx: z.RefinementCtx) => void,
): TextBody<Record<K, string>> {
  const names = Object.keys(maxes) as K[];
  const shape = Object.fromEntries(names.map((name) => [name, text(maxes[name])])) as Record<K, ReturnType<typeof text>>;
  const schema = z.object(shape).superRefine(refine as (value: unknown, ctx: z.RefinementCtx) => void) as unknown as z.ZodType<Record<K, string>>;
  let refused = false;
  const ctx = {
    addIssue: () => {
      refused = true;
    },
  } as unknown as z.RefinementCtx;
  const fast = (body: unknown): Record<K, string> | undefined => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const out = {} as Record<K, string>;
    for (const name of names) {
      const v = (body as Record<string, unknown>)[name];
      if (v === undefined || v === null) out[name] = '';
      else if (typeof v !== 'string') return undefined;
      else {
        const trimmed = v.trim();
        if (trimmed.length > maxes[name]) return undefined;
        out[name] = trimmed;
      }
    }
    refused = false;
    refine(out, ctx);
    return refused ? undefined : out;
  };
  return { schema, fast };
}
