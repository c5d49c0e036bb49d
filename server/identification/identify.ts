/**
 * Pure decision: what the identification API answers for one visitor, given what the index and catalog
 * know and the customer's configuration. No I/O, so every rule of the spec is unit-tested here.
 */
import type { NetworkRecord } from '../../data/build/network-record.ts';
import type { CompanyRow, Confidence, IntentRow } from '../../data/sources/schema.ts';
import { companyScores, type PageViewSummary } from '../scoring/model.ts';
import { matchingSegments, segmentsPayload } from '../segments/evaluate.ts';
import type { CustomerRecord } from '../state/store.ts';
import type { IdentificationResponse, IdentifiedCompany } from './schema.ts';

export const COMMENTS = {
  match: 'A company name or domain match was found for this IP address.',
  noMatch: 'No company name or domain was found for this IP address.',
  nonActionable: (what: string) =>
    `No valid B2B use case: the IP address matched ${what}, not a company name or domain.`,
  botAgent: 'No valid B2B use case: the request came from a bot user agent, not a company name or domain.',
} as const;

const NON_ACTIONABLE_WHAT: Record<string, string> = {
  isp: 'an internet service provider',
  hosting: 'a hosting or cloud provider',
  bot: 'a known bot network',
};

export interface IdentifyInput {
  /** Null when the visitor address is not a usable IPv4 address. */
  ip: string | null;
  network: NetworkRecord | null;
  company: CompanyRow | null;
  signals: IntentRow[];
  /** The account's page views on the customer's own site (first-party intent for the scores); optional. */
  pageViews?: PageViewSummary[];
  customer: CustomerRecord;
  settings: { scores: boolean; segment_names: boolean };
  isBot: boolean;
  now: Date;
}

export function identify(input: IdentifyInput): IdentificationResponse {
  const { network, company, customer, settings } = input;
  const geo = {
    geoIP_country: network?.country ?? '',
    geoIP_state: network?.state ?? '',
    geoIP_city: network?.city ?? '',
  };

  if (!input.ip || !network) {
    return { company: blankCompany('No Match', COMMENTS.noMatch, geo), scores: [], segments: segmentsPayload([], settings.segment_names), confidence: 'Low' };
  }
  const confidence = network.confidence as Confidence;
  if (input.isBot || network.kind !== 'company' || !company) {
    const comment = input.isBot ? COMMENTS.botAgent : COMMENTS.nonActionable(NON_ACTIONABLE_WHAT[network.kind] ?? `a ${network.kind} network`);
    return { company: blankCompany('Non-actionable Match', comment, geo), scores: [], segments: segmentsPayload([], settings.segment_names), confidence };
  }

  const hot = customer.hot_accounts.find((h) => h.company_id === company.company_id);
  const segments = matchingSegments(customer.segments, company);
  return {
    company: {
      company_match: 'Match',
      additional_comment: COMMENTS.match,
      companyId: company.company_id,
      name: company.name,
      domain: company.domain,
      industry: company.industry,
      industry_v2: company.industry ? [{ industry: company.industry, subindustry: company.subindustry }] : [],
      country: company.country,
      country_iso_code: company.country_iso_code,
      state: company.state,
      state_code: company.state_code,
      city: company.city,
      address: company.address,
      zip: company.zip,
      phone: company.phone,
      region: company.region,
      employee_count: company.employee_count,
      employee_range: company.employee_range,
      annual_revenue: company.annual_revenue,
      revenue_range: company.revenue_range,
      sic: company.sic,
      sic_description: company.sic_description,
      naics: company.naics,
      naics_description: company.naics_description,
      is_blacklisted: customer.excluded_accounts.includes(company.company_id),
      is_svcqa: hot !== undefined,
      ...geo,
    },
    scores: settings.scores
      ? companyScores({ company, signals: input.signals, pageViews: input.pageViews, products: customer.products, hotAccount: hot, now: input.now })
      : [],
    segments: segmentsPayload(segments, settings.segment_names),
    confidence,
  };
}

function blankCompany(match: IdentifiedCompany['company_match'], comment: string, geo: Pick<IdentifiedCompany, 'geoIP_country' | 'geoIP_state' | 'geoIP_city'>): IdentifiedCompany {
  return {
    company_match: match,
    additional_comment: comment,
    companyId: '',
    name: '',
    domain: '',
    industry: '',
    industry_v2: [],
    country: '',
    country_iso_code: '',
    state: '',
    state_code: '',
    city: '',
    address: '',
    zip: '',
    phone: '',
    region: '',
    employee_count: '',
    employee_range: '',
    annual_revenue: '',
    revenue_range: '',
    sic: '',
    sic_description: '',
    naics: '',
    naics_description: '',
    is_blacklisted: false,
    is_svcqa: false,
    ...geo,
  };
}
