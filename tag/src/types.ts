/**
 * Public types of the web tag: the answer of `GET /v3/company/details` (see the service spec,
 * "Company Identification"), the commands of the `window.svc` queue, the live `window.svc` object and
 * the DOM events it dispatches on `document`.
 *
 * Types only: nothing here ends up in the bundle.
 */

export type Confidence = 'Very High' | 'High' | 'Moderate' | 'Low';
export type CompanyMatch = 'Match' | 'Non-actionable Match' | 'No Match';
export type BuyingStage = 'Purchase' | 'Decision' | 'Consideration' | 'Awareness' | 'Target';
export type ProfileFit = 'Strong' | 'Moderate' | 'Weak';

/** Key `company`. Absent values come back as null or "" (blank for an invalid IP or no match). */
export interface SvcCompany {
  company_match: CompanyMatch;
  additional_comment?: string | null;
  companyId?: string | null;
  name?: string | null;
  domain?: string | null;
  industry?: string | null;
  industry_v2?: { industry: string; subindustry: string }[] | null;
  country?: string | null;
  country_iso_code?: string | null;
  state?: string | null;
  state_code?: string | null;
  city?: string | null;
  address?: string | null;
  zip?: string | null;
  phone?: string | null;
  region?: string | null;
  employee_count?: string | null;
  employee_range?: string | null;
  annual_revenue?: string | null;
  revenue_range?: string | null;
  sic?: string | null;
  sic_description?: string | null;
  naics?: string | null;
  naics_description?: string | null;
  is_blacklisted?: boolean | null;
  is_svcqa?: boolean | null;
  geoIP_country?: string | null;
  geoIP_state?: string | null;
  geoIP_city?: string | null;
}

/** One element of key `scores` per product (only when the tag has scores enabled). */
export interface SvcScore {
  is_svcqa?: boolean;
  product: string;
  product_display_name?: string;
  intent_score?: number;
  buying_stage?: BuyingStage;
  profile_score?: number;
  profile_fit?: ProfileFit;
}

/** Key `segments`; `names` and the names in `list` only when the tag has segment names enabled. */
export interface SvcSegments {
  ids?: number[];
  names?: string[];
  list?: { id: number; name?: string }[];
}

/** The 200 answer of `GET /v3/company/details`, stored on `window.svc.data`. */
export interface SvcData {
  company: SvcCompany;
  scores?: SvcScore[] | null;
  segments?: SvcSegments | null;
  confidence?: Confidence | '' | null;
}

/** Options of the `init` command. */
export interface SvcInitOptions {
  /** Public tag id (required before anything is requested). */
  tag?: string;
  /** API origin, e.g. `https://svc.example.com`; default: the origin the bundle was loaded from. */
  endpoint?: string;
  /** Lifetime of the cached answer in milliseconds; default 24 h; 0 disables the cache. */
  cacheTtl?: number;
}

/** `detail` of `svc:ready`, and the argument of `ready`/`on('ready')` callbacks. */
export interface SvcReadyDetail {
  data: SvcData;
  /** True when the answer came from the local cache (no request was made). */
  cached: boolean;
}

/** `detail` of `svc:error`, and the argument of `on('error')` callbacks. `status` 0: network error. */
export interface SvcErrorDetail {
  status: number;
  message: string;
}

export interface SvcEventMap {
  ready: SvcReadyDetail;
  error: SvcErrorDetail;
}

/** Commands accepted by `window.svc.push` (before and after the bundle loads). Unknown ones are ignored. */
export type SvcCommand =
  | ['init', SvcInitOptions]
  | ['setTag', string]
  | ['onReady', (detail: SvcReadyDetail) => void];

/** `window.svc` once the bundle has run. */
export interface Svc {
  /** The last answer, or null before it arrives (and after an error). */
  data: SvcData | null;
  /** Runs commands at once. */
  push(...commands: SvcCommand[]): void;
  /** Subscribes to every later `ready` / `error`. */
  on<K extends keyof SvcEventMap>(event: K, callback: (detail: SvcEventMap[K]) => void): void;
  /** Calls back once with the data: at once if it is already there, else on the next `ready`. */
  ready(callback: (detail: SvcReadyDetail) => void): void;
}

declare global {
  interface Window {
    /** A command queue (array) until the bundle runs, then the live object. */
    svc?: Svc | SvcCommand[];
    dataLayer?: unknown[];
  }
  interface DocumentEventMap {
    'svc:ready': CustomEvent<SvcReadyDetail>;
    'svc:error': CustomEvent<SvcErrorDetail>;
  }
}
