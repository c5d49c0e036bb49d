/**
 * The company object of the firmographics, combined and People Enrichment answers: the spec's
 * payload-sample names (camelCase, strings), built from a catalog row, plus `is_blacklisted` (the
 * combined response's field table: the account is excluded in the customer's settings). v2 has no
 * `companyId`. Null rule: an absent field is null; with no company every field is null.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { orNull } from '../http/null-rule.ts';
import type { TitleClassification } from '../scoring/model.ts';
import type { EnrichedCompanyV2, EnrichedCompanyV3 } from './schema.ts';

export const NO_TITLE: TitleClassification = { titleLevel: '', titleFunction: '' };

/** v3 / combined / People Enrichment company object; every field null when `company` is null. */
export function companyV3(company: CompanyRow | null, title: TitleClassification, excludedAccounts: readonly string[]): EnrichedCompanyV3 {
  return { companyId: orNull(company?.company_id), ...companyV2(company, title, excludedAccounts) };
}

/** v2 company object (no `companyId`); every field null when `company` is null. */
export function companyV2(company: CompanyRow | null, title: TitleClassification, excludedAccounts: readonly string[]): EnrichedCompanyV2 {
  const c = company;
  const t = c ? title : NO_TITLE;
  return {
    domain: orNull(c?.domain),
    name: orNull(c?.name),
    region: orNull(c?.region),
    country: orNull(c?.country),
    countryISOCode: orNull(c?.country_iso_code),
    state: orNull(c?.state),
    city: orNull(c?.city),
    streetAddress: orNull(c?.address),
    postalCode: orNull(c?.zip),
    companyPhone: orNull(c?.phone),
    industry: orNull(c?.industry),
    employeeRange: orNull(c?.employee_range),
    revenueRange: orNull(c?.revenue_range),
    employeeCount: orNull(c?.employee_count),
    annualRevenue: orNull(c?.annual_revenue),
    titleLevel: orNull(t.titleLevel),
    titleFunction: orNull(t.titleFunction),
    sicdescription: orNull(c?.sic_description),
    siccode: orNull(c?.sic),
    naicscode: orNull(c?.naics),
    naicsdescription: orNull(c?.naics_description),
    is_blacklisted: c ? excludedAccounts.includes(c.company_id) : null,
  };
}
