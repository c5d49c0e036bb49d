/**
 * Request and response shapes of the company-level enrichment routes (spec endpoints 2–5). Each body
 * schema is the validation, the TypeScript type and the parameter documentation of its route.
 * All parameters are strings (form fields or JSON string values), trimmed; unknown fields are ignored.
 * Lengths: email ≤ 254, domain ≤ 253, every other field ≤ 500 characters (longer → 422).
 */
import { z } from 'zod';
import { IntentTopicsAnswer } from '../../core/topic-records.ts';
import { BUYING_STAGES, CONTACT_GRADES, PROFILE_FITS } from '../../core/vocabulary.ts';
import { nullableText } from '../http/null-rule.ts';
import { blankIssue, MAX_DOMAIN_LENGTH, MAX_EMAIL_LENGTH, MAX_FIELD_LENGTH, requireAll, textBody } from './request-body.ts';

/**
 * Lead attributes every route accepts. `country`, `company` and `industry` disambiguate when a domain
 * maps to several companies (they never identify a company on their own); `title` gives titleLevel,
 * titleFunction and the contact profile score when the email matches no known person; `website` is the
 * company domain tried when the email identifies no company (free-mail or unknown domain);
 * `role`, `firstname`, `lastname`, `leadsource` are accepted and not used.
 */
const LEAD_FIELDS = {
  email: MAX_EMAIL_LENGTH,
  country: MAX_FIELD_LENGTH,
  company: MAX_FIELD_LENGTH,
  industry: MAX_FIELD_LENGTH,
  title: MAX_FIELD_LENGTH,
  role: MAX_FIELD_LENGTH,
  firstname: MAX_FIELD_LENGTH,
  lastname: MAX_FIELD_LENGTH,
  leadsource: MAX_FIELD_LENGTH,
  website: MAX_DOMAIN_LENGTH,
} as const;

/** POST /v1/enrichment/company (Company Firmographics v3): `email` or `domain` (email first, domain as fallback). */
export const FirmographicsV3 = textBody({ ...LEAD_FIELDS, domain: MAX_DOMAIN_LENGTH }, (b, ctx) => {
  if (b.email === '' && b.domain === '') blankIssue(ctx, 'email', 'email is mandatory and cannot be blank (or send domain)');
});
export const FirmographicsV3Body = FirmographicsV3.schema;
export type FirmographicsV3Body = z.infer<typeof FirmographicsV3Body>;

/** POST /v2/people/enrichment (Company Firmographics v2): `email` required. */
export const FirmographicsV2 = textBody(LEAD_FIELDS, requireAll('email'));
export const FirmographicsV2Body = FirmographicsV2.schema;
export type FirmographicsV2Body = z.infer<typeof FirmographicsV2Body>;

/** POST /v2/people/full (Lead Scoring and Firmographics): `email` required; `country` recommended (optional). */
export const Combined = textBody(LEAD_FIELDS, requireAll('email'));
export const CombinedBody = Combined.schema;
export type CombinedBody = z.infer<typeof CombinedBody>;

/** POST /v2/people/score (Lead Scoring): `email` and `country` required. */
export const LeadScoring = textBody(LEAD_FIELDS, requireAll('email', 'country'));
export const LeadScoringBody = LeadScoring.schema;
export type LeadScoringBody = z.infer<typeof LeadScoringBody>;

/** Any of the lead bodies above: what the company resolution reads. */
export type LeadBody = Record<keyof typeof LEAD_FIELDS, string> & { domain?: string };

// ---------------------------------------------------------------------------------------------------
// Responses (the spec's payload samples: camelCase company fields, strings; null rule: an absent
// field is null, a 404's company has every field null — server/http/null-rule.ts)

export const EnrichedCompanyV2 = z
  .object({
    domain: nullableText(),
    name: nullableText(),
    region: nullableText(),
    country: nullableText(),
    countryISOCode: nullableText(),
    state: nullableText(),
    city: nullableText(),
    streetAddress: nullableText(),
    postalCode: nullableText(),
    companyPhone: nullableText(),
    industry: nullableText(),
    employeeRange: nullableText(),
    revenueRange: nullableText(),
    employeeCount: nullableText(),
    annualRevenue: nullableText(),
    titleLevel: nullableText(),
    titleFunction: nullableText(),
    sicdescription: nullableText(),
    siccode: nullableText(),
    naicscode: nullableText(),
    naicsdescription: nullableText(),
    /** The account is excluded in the customer's settings (spec: combined response's field table); null when blank. */
    is_blacklisted: z.boolean().nullable(),
  })
  .strict();
export type EnrichedCompanyV2 = z.infer<typeof EnrichedCompanyV2>;

/** v3 and combined: the v2 fields plus `companyId` (first, as in the samples). */
export const EnrichedCompanyV3 = z.object({ companyId: nullableText(), ...EnrichedCompanyV2.shape }).strict();
export type EnrichedCompanyV3 = z.infer<typeof EnrichedCompanyV3>;

export const SegmentsObject = z
  .object({ ids: z.array(z.number()), names: z.array(z.string()), list: z.array(z.object({ name: z.string().nullable(), id: z.number() })) })
  .strict();

const score = z.number().int().min(0).max(100);
export const PersonScore = z
  .object({
    product: z.string(),
    company_intent_score: score,
    company_buying_stage: z.enum(BUYING_STAGES),
    company_profile_score: score,
    company_profile_fit: z.enum(PROFILE_FITS),
    contact_intent_score: score,
    contact_grade: z.enum(CONTACT_GRADES),
    contact_profile_score: score,
    contact_profile_fit: z.enum(PROFILE_FITS),
  })
  .strict();

// `intent_topics`: beyond the spec, additive, only for a token with the `intent_topics` setting (core/topic-records.ts).
const intent_topics = IntentTopicsAnswer.optional();
export const FirmographicsV3Response = z.object({ company: EnrichedCompanyV3, segments: SegmentsObject, intent_topics }).strict();
export const FirmographicsV2Response = z.object({ company: EnrichedCompanyV2, segments: SegmentsObject, intent_topics }).strict();
export const CombinedResponse = z.object({ company: EnrichedCompanyV3, scores: z.array(PersonScore), segments: SegmentsObject, intent_topics }).strict();
export const LeadScoringResponse = z.object({ scores: z.array(PersonScore) }).strict();

/** 404 bodies: the spec's error object plus the route's data, every field blank, and the code every non-2xx body carries. */
export const notFound = {
  status: z.literal('error'),
  message: z.string(),
  code: z.literal('not_found').describe('The error code of every non-2xx body (`not_found`: invalid email, or no data)'),
};
export const FirmographicsV3NotFound = FirmographicsV3Response.extend(notFound);
export const FirmographicsV2NotFound = FirmographicsV2Response.extend(notFound);
export const CombinedNotFound = CombinedResponse.extend(notFound);
export const LeadScoringNotFound = LeadScoringResponse.extend(notFound);
