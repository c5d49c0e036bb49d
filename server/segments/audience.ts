/**
 * A segment as a paid-media audience file: LinkedIn Matched Audiences' company list. Pure: the columns,
 * one row per member account, the file's name, and the signed link that downloads it without signing in
 * (./audience-routes.ts serves both).
 *
 * The columns are those of the company-list CSV template Campaign Manager hands out (its headers must be
 * kept as they are: LinkedIn Help, "Requirements for contact targeting lists in Campaign Manager",
 * linkedin.com/help/lms/answer/a1489764 — "don't change or remove the headers"; and "Matched Audiences best
 * practices", linkedin.com/help/lms/answer/a424450 — "use our templates", the company name and Company Page
 * URL improving the match). They are, one for one, the company fields LinkedIn's Marketing API matches a
 * company list on (learn.microsoft.com/en-us/linkedin/marketing/matched-audiences/
 * create-and-manage-segment-companies: companyName, companyWebsiteDomain, companyEmailDomain,
 * companyPageUrl, stockSymbol, industries, city, state, country, postalCode). svc fills what its catalog
 * holds and leaves the rest blank (a blank cell is allowed: every field but one identifier is optional);
 * the catalog knows no LinkedIn page and no ticker.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { linkMac, linkMacMatches } from '../auth/signing-key.ts';

/** The formats an audience file is written in (`?format=`). */
export const AUDIENCE_FORMATS = ['linkedin'] as const;
export type AudienceFormat = (typeof AUDIENCE_FORMATS)[number];

export const isAudienceFormat = (value: string): value is AudienceFormat => (AUDIENCE_FORMATS as readonly string[]).includes(value);

/** LinkedIn's company-list template headers, in the template's order. */
export const LINKEDIN_COLUMNS = [
  'companyname',
  'companywebsite',
  'companyemaildomain',
  'linkedincompanypageurl',
  'stocksymbol',
  'industry',
  'city',
  'state',
  'companycountry',
  'zipcode',
] as const;

/**
 * One company as a template row: the primary domain is both its website and its email domain (the catalog
 * keys companies by the domain their mail uses); the country by its name.
 */
export function linkedinRow(c: Pick<CompanyRow, 'name' | 'domain' | 'industry' | 'city' | 'state' | 'country' | 'zip'>): string[] {
  return [c.name, c.domain, c.domain, '', '', c.industry, c.city, c.state, c.country, c.zip];
}

/** The download's file name: whose, which segment, which day (UTC). */
export const audienceFileName = (customerId: string, segmentId: number, format: AudienceFormat, now: Date): string =>
  `${format}-audience-${customerId}-segment-${segmentId}-${now.toISOString().slice(0, 10)}.csv`;

// ---------------------------------------------------------------------------------------------------
// The signed link

/** The state-store setting that holds the links' key (../auth/signing-key.ts). */
export const AUDIENCE_KEY_SETTING = 'audience_link_key';
const PURPOSE = 'svc segment audience v1';

/** How long a link works: 24 hours unless asked, at most 7 days (a link is a bearer credential for one file). */
export const LINK_HOURS = { default: 24, max: 168 } as const;

/** What a link names: one customer's segment in one format, until a time (Unix seconds). */
export interface AudienceLink {
  customerId: string;
  segmentId: string;
  format: string;
  expires: number;
}

const parts = (l: AudienceLink) => [PURPOSE, l.customerId, l.segmentId, l.format, String(l.expires)];

/** The link's signature: an HMAC over the purpose, the customer, the segment, the format and the expiry. */
export const audienceSignature = (key: Buffer, link: AudienceLink): string => linkMac(key, parts(link));

/**
 * Why a link may not be used, or null when it may: its signature is not ours for exactly these values
 * (forged, or any of them altered), or it expired. The signature is checked first: an altered expiry is
 * a forgery, not an expired link.
 */
export function linkRefusal(key: Buffer, link: AudienceLink, signature: string, nowMs: number): 'forged' | 'expired' | null {
  if (!linkMacMatches(key, parts(link), signature)) return 'forged';
  return link.expires * 1000 <= nowMs ? 'expired' : null;
}
