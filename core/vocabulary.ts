/**
 * The product's one vocabulary: every enumeration that more than one layer uses (source data, the data
 * generator, the scoring model, the API responses, the console, the tag's public types) is written once,
 * here, and imported everywhere else. In the neutral core, with no imports, so the browser bundles can
 * use it too. `./vocabulary.test.ts` checks that the layers use these very lists;
 * `server/identification/schema.test.ts` checks the tag's types (`tag/src/types.ts`) against them and
 * against the server's response schemas.
 */

/** Confidence in an identification (spec "Company Identification"), most confident first. */
export const CONFIDENCES = ['Very High', 'High', 'Moderate', 'Low'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/** `company.company_match` of Company Identification. */
export const COMPANY_MATCHES = ['Match', 'Non-actionable Match', 'No Match'] as const;
export type CompanyMatch = (typeof COMPANY_MATCHES)[number];

/**
 * Why a network hides who is behind it (the company object's `privacy`, beyond the spec): an anonymous
 * VPN, a Tor exit node, a public or residential proxy, a privacy relay (iCloud Private Relay and the like),
 * a hosting or cloud provider. Such a network answers `Non-actionable Match`.
 */
export const PRIVACY_REASONS = ['vpn', 'tor', 'proxy', 'relay', 'hosting'] as const;
export type PrivacyReason = (typeof PRIVACY_REASONS)[number];

/**
 * Why a page view matched no company (the Visitors report's split of its anonymous page views), decided when
 * it is recorded (server/data/network-company.ts): the network's kind (`isp`, `hosting`, `bot`) or a bot user
 * agent (`bot`); the network's privacy reason (`vpn`, `proxy`, `tor`, `relay`; a privacy `hosting` is
 * `hosting`); `no_data` when no network holds the address or the dataset has no company for it; `other`
 * for a network of another non-company kind (a mapping of licensed data may name more).
 */
export const UNIDENTIFIED_REASONS = ['isp', 'hosting', 'bot', 'vpn', 'proxy', 'tor', 'relay', 'no_data', 'other'] as const;
export type UnidentifiedReason = (typeof UNIDENTIFIED_REASONS)[number];

/** Buying stages, lowest to highest: the scoring model maps intent scores onto this order. */
export const BUYING_STAGES = ['Target', 'Awareness', 'Consideration', 'Decision', 'Purchase'] as const;
export type BuyingStage = (typeof BUYING_STAGES)[number];

/** Profile fits (company and contact), weakest to strongest. */
export const PROFILE_FITS = ['Weak', 'Moderate', 'Strong'] as const;
export type ProfileFit = (typeof PROFILE_FITS)[number];

/** Contact grades, lowest to highest. */
export const CONTACT_GRADES = ['D', 'C', 'B', 'A'] as const;
export type ContactGrade = (typeof CONTACT_GRADES)[number];

/** Title levels (`titleLevel`), most senior first; a scoring model ranks by index. */
export const TITLE_LEVELS = ['C-Level', 'VP', 'Director', 'Manager', 'Staff'] as const;
export type TitleLevel = (typeof TITLE_LEVELS)[number];

/**
 * Title functions (`titleFunction`) the classifier answers (server/scoring/title-classifier.ts says why
 * each exists). `Other` = a level was recognised but no function.
 */
export const TITLE_FUNCTIONS = [
  'Executive',
  'Marketing',
  'Sales',
  'Engineering',
  'IT',
  'Information Security',
  'Product',
  'Design',
  'Data & Analytics',
  'Finance',
  'Human Resources',
  'Operations',
  'Legal',
  'Customer Success',
  'Procurement',
  'Education',
  'Healthcare',
  'Research',
  'Other',
] as const;
export type TitleFunction = (typeof TITLE_FUNCTIONS)[number];

/**
 * Employee ranges, smallest first (the scoring model's adjacency = neighbours in this list). Frozen, as
 * is REVENUE_RANGES: the scoring model remembers the keys of frozen lists only.
 */
export const EMPLOYEE_RANGES = Object.freeze(['1-9', '10-49', '50-199', '200-499', '500-999', '1,000-4,999', '5,000-9,999', '10,000+'] as const);
export type EmployeeRange = (typeof EMPLOYEE_RANGES)[number];

/** Revenue ranges, smallest first. */
export const REVENUE_RANGES = Object.freeze(['$1M-$10M', '$10M-$50M', '$50M-$100M', '$100M-$250M', '$250M-$500M', '$500M-$1B', '$1B-$10B', '$10B+'] as const);
export type RevenueRange = (typeof REVENUE_RANGES)[number];

/** Requests per minute a token may make unless its own `rate_limit` says otherwise (spec "Limits"). */
export const DEFAULT_TOKEN_LIMIT = 100;

/**
 * A web tag's default limits (spec "Limits"; the policy is server/limits/policy.ts): requests per minute per
 * visitor — generous because whole offices share one NAT address — and across all visitors of the tag.
 * Both are settings of the tag (`visitor_rate_limit`, `rate_limit`); here because the tag records, the
 * state's migrations and the console's form all default to them.
 */
export const TAG_PER_VISITOR_LIMIT = 300;
export const TAG_CEILING = 6_000;
