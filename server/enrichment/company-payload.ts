/**
 * The company object of the firmographics, combined and People Enrichment answers: the spec's
 * payload-sample names (camelCase, all strings), built from a catalog row. v2 has no `companyId`.
 */
import type { CompanyRow } from '../../data/sources/schema.ts';
import type { TitleClassification } from '../scoring/model.ts';
import type { EnrichedCompanyV2, EnrichedCompanyV3 } from './schema.ts';

export const NO_TITLE: TitleClassification = { titleLevel: '', titleFunction: '' };

/** v3 / combined / People Enrichment company object; every field "" when `company` is null. */
export function companyV3(company: CompanyRow | null, title: TitleClassification): EnrichedCompanyV3 {
  return { companyId: company?.company_id ?? '', ...companyV2(company, title) };
}

/** v2 company object (no `companyId`); every field "" when `company` is null. */
export function companyV2(company: CompanyRow | null, title: TitleClassification): EnrichedCompanyV2 {
  const c = company;
  const t = c ? title : NO_TITLE;
  return {
    domain: c?.domain ?? '',
    name: c?.name ?? '',
    region: c?.region ?? '',
    country: c?.country ?? '',
    countryISOCode: c?.country_iso_code ?? '',
    state: c?.state ?? '',
    city: c?.city ?? '',
    streetAddress: c?.address ?? '',
    postalCode: c?.zip ?? '',
    companyPhone: c?.phone ?? '',
    industry: c?.industry ?? '',
    employeeRange: c?.employee_range ?? '',
    revenueRange: c?.revenue_range ?? '',
    employeeCount: c?.employee_count ?? '',
    annualRevenue: c?.annual_revenue ?? '',
    titleLevel: t.titleLevel,
    titleFunction: t.titleFunction,
    sicdescription: c?.sic_description ?? '',
    siccode: c?.sic ?? '',
    naicscode: c?.naics ?? '',
    naicsdescription: c?.naics_description ?? '',
  };
}
