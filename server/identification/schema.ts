/**
 * The Company Identification response (spec "Company object", "Scores array", "Segments object").
 * Null rule (server/http/null-rule.ts): an absent company field is null; a blank answer (No Match,
 * Non-actionable Match, invalid IP) has every company variable null except the geoIP_* of a known network.
 * `schema.test.ts` keeps the tag's public types (tag/src/types.ts) equal to these.
 */
import { z } from 'zod';
import { IntentTopicsAnswer } from '../../core/topic-records.ts';
import { BUYING_STAGES, COMPANY_MATCHES, CONFIDENCES, PRIVACY_REASONS, PROFILE_FITS } from '../../core/vocabulary.ts';
import { nullableText } from '../http/null-rule.ts';

export const IdentifiedCompany = z.object({
  company_match: z.enum(COMPANY_MATCHES),
  additional_comment: z.string(),
  companyId: nullableText(),
  name: nullableText(),
  // Beyond the spec, additive: what a page shows a visitor (core/company-name.ts).
  display_name: nullableText().describe('The name people say: `name` without its legal form ("Lariat Software" for "Lariat Software, Inc.")'),
  domain: nullableText(),
  industry: nullableText(),
  industry_v2: z.array(z.object({ industry: z.string(), subindustry: nullableText() })),
  country: nullableText(),
  country_iso_code: nullableText(),
  state: nullableText(),
  state_code: nullableText(),
  city: nullableText(),
  address: nullableText(),
  zip: nullableText(),
  phone: nullableText(),
  region: nullableText(),
  employee_count: nullableText(),
  employee_range: nullableText(),
  annual_revenue: nullableText(),
  revenue_range: nullableText(),
  sic: nullableText(),
  sic_description: nullableText(),
  naics: nullableText(),
  naics_description: nullableText(),
  is_blacklisted: z.boolean().nullable(),
  is_svcqa: z.boolean().nullable(),
  geoIP_country: nullableText(),
  geoIP_state: nullableText(),
  geoIP_city: nullableText(),
  // Beyond the spec, additive: why the visitor's network hides who is behind it.
  privacy: z
    .enum(PRIVACY_REASONS)
    .nullable()
    .describe(
      'Why the network hides who is behind it: `vpn` (anonymous VPN), `tor` (Tor exit node), `proxy` (public or residential proxy), `relay` (a privacy relay such as iCloud Private Relay), `hosting` (hosting or cloud provider); such a network answers `Non-actionable Match`. null: none known.',
    ),
});
export type IdentifiedCompany = z.infer<typeof IdentifiedCompany>;

export const CompanyScore = z.object({
  is_svcqa: z.boolean(),
  product: z.string(),
  product_display_name: z.string(),
  intent_score: z.number().int().min(0).max(100),
  buying_stage: z.enum(BUYING_STAGES),
  profile_score: z.number().int().min(0).max(100),
  profile_fit: z.enum(PROFILE_FITS),
});

export const Segments = z.object({
  ids: z.array(z.number()),
  names: z.array(z.string()),
  list: z.array(z.object({ name: z.string().nullable(), id: z.number() })),
});

export const IdentificationResponse = z.object({
  company: IdentifiedCompany,
  scores: z.array(CompanyScore),
  segments: Segments,
  confidence: z.enum(CONFIDENCES),
});
export type IdentificationResponse = z.infer<typeof IdentificationResponse>;

/**
 * What a token's identification answers: the response above, and — beyond the spec, additive, only for a
 * token with the `intent_topics` setting — the account's followed intent topics. The web tag's answer is
 * the response above (tags never carry topics), which `tag/src/types.ts` mirrors.
 */
export const IdentificationAnswer = IdentificationResponse.extend({ intent_topics: IntentTopicsAnswer.optional() });
export type IdentificationAnswer = z.infer<typeof IdentificationAnswer>;

/**
 * Longest value of a query parameter: a textual IPv6 address is at most 45 characters, a zone index
 * (`%eth0`) adds a few, tag ids are far shorter; nothing longer is worth reading.
 */
export const MAX_QUERY_VALUE_LENGTH = 64;

const queryValue = () =>
  z
    .string({ error: 'must be given at most once' })
    .max(MAX_QUERY_VALUE_LENGTH, { error: `is too long (at most ${MAX_QUERY_VALUE_LENGTH} characters)` })
    .optional();

/** Query of GET /v3/company/details. Repeated parameters (arrays) are refused by the string types. */
export const IdentificationQuery = z.object({
  tag: queryValue(),
  ip: queryValue(),
  test_ip: queryValue(),
});

/** The header a server-side caller may use to pass on the visitor's own User-Agent, when it has one. */
export const VISITOR_USER_AGENT_HEADER = 'X-svc-Visitor-User-Agent';
