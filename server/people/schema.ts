/**
 * Request and response shapes of People Enrichment (`POST /v2/enrichment/people`) and People Search
 * (`POST /v2/search/people`), whose contracts DESIGN.md and issue 3 decide (the spec shows none).
 * Bodies are form-encoded or JSON; unknown fields are ignored; text fields are trimmed and ≤ 500
 * characters (email ≤ 254, domain ≤ 253); longer → 422; blank required fields → 400.
 * Answers follow the null rule (server/http/null-rule.ts): an absent field is null, never "".
 */
import { z } from 'zod';
import { blankIssue, MAX_DOMAIN_LENGTH, MAX_EMAIL_LENGTH, requireAll, text } from '../enrichment/request-body.ts';
import { EnrichedCompanyV3, notFound } from '../enrichment/schema.ts';
import { nullableText } from '../http/null-rule.ts';

// ---------------------------------------------------------------------------------------------------
// People Enrichment

/** One of `people_id`, `email`, `linkedin_url` (tried in that order; the first that finds a person wins). */
export const PeopleEnrichmentBody = z.object({ people_id: text(), email: text(MAX_EMAIL_LENGTH), linkedin_url: text() }).superRefine((b, ctx) => {
  if (b.people_id === '' && b.email === '' && b.linkedin_url === '')
    blankIssue(ctx, 'email', 'email, linkedin_url or people_id is mandatory and cannot be blank');
});
export type PeopleEnrichmentBody = z.infer<typeof PeopleEnrichmentBody>;

export const PersonLocation = z.object({ country: nullableText(), state: nullableText(), city: nullableText() }).strict();

export const EnrichedPerson = z
  .object({
    people_id: nullableText(),
    name: nullableText(),
    first_name: nullableText(),
    last_name: nullableText(),
    title: nullableText(),
    titleLevel: nullableText(),
    titleFunction: nullableText(),
    email: nullableText(),
    phone: nullableText(),
    mobile: nullableText(),
    linkedin_url: nullableText(),
    location: PersonLocation,
  })
  .strict();
export type EnrichedPerson = z.infer<typeof EnrichedPerson>;

/** 200: the person's contact information and their company's firmographics (blank company when unknown). */
export const PeopleEnrichmentResponse = z.object({ person: EnrichedPerson, company: EnrichedCompanyV3 }).strict();
export const PeopleEnrichmentNotFound = PeopleEnrichmentResponse.extend(notFound);

// ---------------------------------------------------------------------------------------------------
// People Search

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE = 1_000_000;
const MAX_TERMS = 50;
const MAX_TERM_LENGTH = 100;

/** A filter: comma-separated text (forms) or an array of texts (JSON, or a repeated form field). Blank terms are dropped. */
const terms = z
  .union([z.string().max(500), z.array(z.string().max(MAX_TERM_LENGTH)).max(MAX_TERMS)], {
    error: `must be comma-separated text (at most 500 characters) or a list of at most ${MAX_TERMS} texts of at most ${MAX_TERM_LENGTH} characters`,
  })
  .nullish()
  .transform((v) => (v == null ? [] : Array.isArray(v) ? v : v.split(',')).map((t) => t.trim()).filter((t) => t !== ''));

/** A positive integer as a JSON number or a decimal string; blank → the default. */
const integer = (fallback: number, max: number) =>
  z
    .union([z.number(), z.string()], { error: `must be an integer from 1 to ${max}` })
    .nullish()
    .transform((v, ctx) => {
      if (v == null || (typeof v === 'string' && v.trim() === '')) return fallback;
      const n = typeof v === 'number' ? v : /^\s*\d{1,9}\s*$/.test(v) ? Number(v) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer from 1 to ${max}` });
        return z.NEVER;
      }
      return n;
    });

/**
 * `domain` required. Filters (AND across filters, OR within one, case- and accent-insensitive):
 *   locations   the person's country, state or city equals a term;
 *   industries  the company's industry or subindustry equals a term;
 *   job_titles  a term is a word sequence of the person's title, or equals its titleLevel or titleFunction.
 * `page` ≥ 1 (default 1), `page_size` 1–100 (default 25).
 */
export const PeopleSearchBody = z
  .object({
    domain: text(MAX_DOMAIN_LENGTH),
    locations: terms,
    industries: terms,
    job_titles: terms,
    page: integer(1, MAX_PAGE),
    page_size: integer(DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  })
  .superRefine(requireAll('domain'));
export type PeopleSearchBody = z.infer<typeof PeopleSearchBody>;

export const PeopleProfile = z
  .object({
    people_id: z.string().min(1),
    name: nullableText(),
    title: nullableText(),
    titleLevel: nullableText(),
    titleFunction: nullableText(),
    location: PersonLocation,
    has_email: z.boolean(),
    has_phone: z.boolean(),
    has_mobile: z.boolean(),
  })
  .strict();
export type PeopleProfile = z.infer<typeof PeopleProfile>;

export const PeopleSearchResponse = z
  .object({
    total: z.number().int().min(0),
    page: z.number().int().min(1),
    page_size: z.number().int().min(1).max(MAX_PAGE_SIZE),
    profiles: z.array(PeopleProfile),
  })
  .strict();
export type PeopleSearchResponse = z.infer<typeof PeopleSearchResponse>;
export const PeopleSearchNotFound = PeopleSearchResponse.extend(notFound);
