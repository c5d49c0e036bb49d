/**
 * Shapes of the batch enrichment route (`POST /v3/batch/enrichment`) and its items. The envelope is
 * checked whole (a bad one is 422 for the request); each item is checked on its own, so one bad item is
 * that item's 422 and the others are answered.
 *
 * An item is `{email}` or `{domain}`, read exactly as the single route reads those fields (strings,
 * trimmed, email ≤ 254 and domain ≤ 253 characters; unknown fields ignored). Unlike the single route,
 * which takes both (email first, domain as fallback) and answers 400 `blank` for neither, an item must name
 * exactly one: neither or both is that item's 422 `invalid`, so what each result answers is unambiguous.
 */
import { z } from 'zod';
import { MAX_DOMAIN_LENGTH, MAX_EMAIL_LENGTH, text } from './request-body.ts';
import { EnrichedCompanyV3, FirmographicsV3Response, SegmentsObject } from './schema.ts';

/** Most items one batch may carry; more → 422 for the whole request. */
export const MAX_BATCH_ITEMS = 100;
/** Largest batch body in bytes (larger → 413): 100 items of the longest email take ≈ 27 KB. */
export const BATCH_BODY_LIMIT = 128 * 1024;

const SHAPE = '{"items": [{"email": "…"} or {"domain": "…"}, …]}';

export const BatchEnrichmentBody = z.object(
  {
    items: z
      .array(z.unknown(), {
        error: (issue) => (issue.input === undefined ? `required: send a JSON body ${SHAPE}` : `must be an array of 1 to ${MAX_BATCH_ITEMS} items`),
      })
      .min(1, { error: `must hold 1 to ${MAX_BATCH_ITEMS} items` })
      .max(MAX_BATCH_ITEMS, { error: `at most ${MAX_BATCH_ITEMS} items per batch: split the list (or enrich a file with \`svc enrich\`)` })
      .describe(`1 to ${MAX_BATCH_ITEMS} items, each \`{"email": …}\` or \`{"domain": …}\`; answered one result per item, in order`),
  },
  { error: `the body must be a JSON object ${SHAPE}` },
);
export type BatchEnrichmentBody = z.infer<typeof BatchEnrichmentBody>;

export const BatchItem = z
  .object(
    {
      email: text(MAX_EMAIL_LENGTH).describe("The lead's email address (its person's company, else its domain's)"),
      domain: text(MAX_DOMAIN_LENGTH).describe("A company's domain (`example.com`; a URL's host is read too)"),
    },
    { error: 'must be an object: {"email": "…"} or {"domain": "…"}' },
  )
  .superRefine((item, ctx) => {
    if (item.email === '' && item.domain === '') ctx.addIssue({ code: 'custom', message: 'email or domain is required (one of them, not blank)' });
    else if (item.email !== '' && item.domain !== '') ctx.addIssue({ code: 'custom', message: 'send email or domain, not both' });
  });
export type BatchItem = z.infer<typeof BatchItem>;

/** A found item: the single route's 200 body plus its status. */
export const BatchFound = z
  .object({ status: z.literal(200), company: EnrichedCompanyV3, segments: SegmentsObject, intent_topics: FirmographicsV3Response.shape.intent_topics })
  .strict();

/** An item no company was found for: the single route's 404 body (every field null), its status and `not_found`. */
export const BatchNotFound = z
  .object({
    status: z.literal(404),
    message: z.string(),
    code: z.literal('not_found'),
    company: EnrichedCompanyV3,
    segments: SegmentsObject,
    intent_topics: FirmographicsV3Response.shape.intent_topics,
  })
  .strict();

/** An item that is not valid (422), whose company the credits no longer cover (402), or that the state store could not charge now (503). */
export const BatchItemError = z
  .object({
    status: z.union([z.literal(402), z.literal(422), z.literal(503)]),
    message: z.string(),
    code: z.enum(['quota_exhausted', 'invalid', 'unavailable']),
  })
  .strict();

export const BatchResult = z.union([BatchFound, BatchNotFound, BatchItemError]);
export type BatchResult = z.infer<typeof BatchResult>;

export const BatchEnrichmentResponse = z.object({ results: z.array(BatchResult).describe('One result per item, in the order of the items') }).strict();
export type BatchEnrichmentResponse = z.infer<typeof BatchEnrichmentResponse>;
