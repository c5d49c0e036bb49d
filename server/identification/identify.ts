/**
 * Pure decision: what the identification API answers for one visitor, given what the index and catalog
 * know and the customer's configuration. No I/O, so every rule of the spec is unit-tested here.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { PrivacyReason } from '../../core/vocabulary.ts';
import type { NetworkRecord } from '../../data/build/network-record.ts';
import type { Confidence, IntentRow } from '../../data/sources/schema.ts';
import { weakMemo } from '../cache/bounded-cache.ts';
import { orNull } from '../http/null-rule.ts';
import { companyScores, type PageViewSummary } from '../scoring/model.ts';
import { type AccountFacts, matchingSegments, segmentsPayload } from '../segments/evaluate.ts';
import { companyDisplayName } from './display-name.ts';
import type { IdentificationResponse, IdentifiedCompany } from './schema.ts';

export const COMMENTS = {
  match: 'A company name or domain match was found for this IP address.',
  noMatch: 'No company name or domain was found for this IP address.',
  nonActionable: (what: string) => `No valid B2B use case: the IP address matched ${what}, not a company name or domain.`,
  botAgent: 'No valid B2B use case: the request came from a bot user agent, not a company name or domain.',
} as const;

const NON_ACTIONABLE_WHAT: Record<string, string> = {
  isp: 'an internet service provider',
  hosting: 'a hosting or cloud provider',
  bot: 'a known bot network',
};

/** What the comment names for a privacy network (the company object's `privacy`). */
export const PRIVACY_WHAT: Record<PrivacyReason, string> = {
  vpn: 'an anonymous VPN',
  tor: 'a Tor exit node',
  proxy: 'a public or residential proxy',
  relay: 'a privacy relay (such as iCloud Private Relay)',
  hosting: 'a hosting or cloud provider',
};

/**
 * The network's privacy reason: its own (networks.csv `privacy`, e.g. from GeoIP2 Anonymous IP), else
 * `hosting` for a hosting network (the same fact its kind states), else null.
 */
export function privacyOf(network: NetworkRecord | null): PrivacyReason | null {
  if (!network) return null;
  return network.privacy ?? (network.kind === 'hosting' ? 'hosting' : null);
}

export interface IdentifyInput {
  /** Null when the visitor address is not a usable IPv4 or IPv6 address. */
  ip: string | null;
  network: NetworkRecord | null;
  company: CompanyRow | null;
  signals: IntentRow[];
  /** The account's page views on the customer's own site (first-party intent for the scores); optional. */
  pageViews?: readonly PageViewSummary[];
  /** What the account did, when the customer's segment rules read it (server/segments/account-facts.ts). */
  facts?: AccountFacts;
  customer: CustomerRecord;
  settings: { scores: boolean; segment_names: boolean };
  isBot: boolean;
  now: Date;
}

export function identify(input: IdentifyInput): IdentificationResponse {
  const { network, company, customer, settings } = input;
  const geo = {
    geoIP_country: orNull(network?.country),
    geoIP_state: orNull(network?.state),
    geoIP_city: orNull(network?.city),
  };

  if (!input.ip || !network) {
    return {
      company: blankCompany('No Match', COMMENTS.noMatch, geo, null),
      scores: [],
      segments: segmentsPayload([], settings.segment_names),
      confidence: 'Low',
    };
  }
  const confidence = network.confidence as Confidence;
  const privacy = privacyOf(network);
  // A privacy network hides its users whatever its kind: a company's range that serves as a VPN exit says
  // nothing about the visitor behind it.
  if (input.isBot || network.kind !== 'company' || !company || network.privacy) {
    const comment = input.isBot
      ? COMMENTS.botAgent
      : COMMENTS.nonActionable(network.privacy ? PRIVACY_WHAT[network.privacy] : (NON_ACTIONABLE_WHAT[network.kind] ?? `a ${network.kind} network`));
    return {
      company: blankCompany('Non-actionable Match', comment, geo, privacy),
      scores: [],
      segments: segmentsPayload([], settings.segment_names),
      confidence,
    };
  }

  const hot = customer.hot_accounts.find((h) => h.company_id === company.company_id);
  const own = ownFirmographics(company);
  const segments = matchingSegments(customer, company, input.facts);
  return {
    company: {
      company_match: 'Match',
      additional_comment: COMMENTS.match,
      ...own,
      is_blacklisted: customer.excluded_accounts.includes(company.company_id),
      is_svcqa: hot !== undefined,
      ...geo,
      privacy: null,
    },
    scores: settings.scores
      ? companyScores({ company, signals: input.signals, pageViews: input.pageViews, products: customer.products, hotAccount: hot, now: input.now })
      : [],
    segments: segmentsPayload(segments, settings.segment_names),
    confidence,
  };
}

/** A blank company (null rule): every company variable null; the reason and the network's geoIP kept. */
function blankCompany(
  match: IdentifiedCompany['company_match'],
  comment: string,
  geo: Pick<IdentifiedCompany, 'geoIP_country' | 'geoIP_state' | 'geoIP_city'>,
  privacy: PrivacyReason | null,
): IdentifiedCompany {
  return {
    company_match: match,
    additional_comment: comment,
    companyId: null,
    name: null,
    display_name: null,
    domain: null,
    industry: null,
    industry_v2: [],
    country: null,
    country_iso_code: null,
    state: null,
    state_code: null,
    city: null,
    address: null,
    zip: null,
    phone: null,
    region: null,
    employee_count: null,
    employee_range: null,
    annual_revenue: null,
    revenue_range: null,
    sic: null,
    sic_description: null,
    naics: null,
    naics_description: null,
    is_blacklisted: null,
    is_svcqa: null,
    ...geo,
    privacy,
  };
}

/**
 * The identification answer's company fields that describe the company itself (no match verdict, no
 * geoIP), and `privacy` null: a company answered as itself was not reached through a privacy network.
 */
export type Firmographics = Omit<
  IdentifiedCompany,
  'company_match' | 'additional_comment' | 'is_blacklisted' | 'is_svcqa' | 'geoIP_country' | 'geoIP_state' | 'geoIP_city'
>;

/**
 * A row's firmographics without `privacy` (the schema's order puts it last, after the geoIP fields), built
 * once per catalog row: rows are immutable and belong to one data snapshot, and a lookup's answer copies it.
 */
export const ownFirmographics: (row: CompanyRow) => Readonly<Omit<Firmographics, 'privacy'>> = weakMemo((row) => {
  const { privacy: _last, ...rest } = firmographics(row);
  return Object.freeze(rest);
});

/** The firmographics as identification answers them (the null rule of every answer); the account page shows the same. */
export function firmographics(company: CompanyRow): Firmographics {
  return {
    companyId: orNull(company.company_id),
    name: orNull(company.name),
    display_name: orNull(companyDisplayName(company.name)),
    domain: orNull(company.domain),
    industry: orNull(company.industry),
    industry_v2: company.industry.trim() ? [{ industry: company.industry, subindustry: orNull(company.subindustry) }] : [],
    country: orNull(company.country),
    country_iso_code: orNull(company.country_iso_code),
    state: orNull(company.state),
    state_code: orNull(company.state_code),
    city: orNull(company.city),
    address: orNull(company.address),
    zip: orNull(company.zip),
    phone: orNull(company.phone),
    region: orNull(company.region),
    employee_count: orNull(company.employee_count),
    employee_range: orNull(company.employee_range),
    annual_revenue: orNull(company.annual_revenue),
    revenue_range: orNull(company.revenue_range),
    sic: orNull(company.sic),
    sic_description: orNull(company.sic_description),
    naics: orNull(company.naics),
    naics_description: orNull(company.naics_description),
    privacy: null,
  };
}
