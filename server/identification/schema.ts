/** The Company Identification response (spec "Company object", "Scores array", "Segments object"). */
import { z } from 'zod';
import { CONFIDENCES } from '../../data/sources/schema.ts';

export const COMPANY_MATCHES = ['Match', 'Non-actionable Match', 'No Match'] as const;
export const BUYING_STAGES = ['Target', 'Awareness', 'Consideration', 'Decision', 'Purchase'] as const;
export const PROFILE_FITS = ['Strong', 'Moderate', 'Weak'] as const;

export const IdentifiedCompany = z.object({
  company_match: z.enum(COMPANY_MATCHES),
  additional_comment: z.string(),
  companyId: z.string(),
  name: z.string(),
  domain: z.string(),
  industry: z.string(),
  industry_v2: z.array(z.object({ industry: z.string(), subindustry: z.string() })),
  country: z.string(),
  country_iso_code: z.string(),
  state: z.string(),
  state_code: z.string(),
  city: z.string(),
  address: z.string(),
  zip: z.string(),
  phone: z.string(),
  region: z.string(),
  employee_count: z.string(),
  employee_range: z.string(),
  annual_revenue: z.string(),
  revenue_range: z.string(),
  sic: z.string(),
  sic_description: z.string(),
  naics: z.string(),
  naics_description: z.string(),
  is_blacklisted: z.boolean(),
  is_svcqa: z.boolean(),
  geoIP_country: z.string(),
  geoIP_state: z.string(),
  geoIP_city: z.string(),
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
  list: z.array(z.object({ name: z.string(), id: z.number() })),
});

export const IdentificationResponse = z.object({
  company: IdentifiedCompany,
  scores: z.array(CompanyScore),
  segments: Segments,
  confidence: z.enum(CONFIDENCES),
});
export type IdentificationResponse = z.infer<typeof IdentificationResponse>;

/** Query of GET /v3/company/details. Repeated parameters (arrays) are refused by the string types. */
export const IdentificationQuery = z.object({
  tag: z.string().max(64).optional(),
  ip: z.string().max(64).optional(),
  test_ip: z.string().max(64).optional(),
});
