/**
 * Public types of the web tag: the answer of `GET /v3/company/details` (see the service spec,
 * "Company Identification"), the commands of the `window.svc` queue, the live `window.svc` object and
 * the DOM events it dispatches on `document`.
 *
 * Types only: nothing here ends up in the bundle. Front-end code imports them with
 * `import type { Svc, SvcData } from '<path>/tag/src/types.ts'` (the build copies this file to dist/tag/svc.d.ts).
 */

export type Confidence = 'Very High' | 'High' | 'Moderate' | 'Low';
export type CompanyMatch = 'Match' | 'Non-actionable Match' | 'No Match';
export type BuyingStage = 'Purchase' | 'Decision' | 'Consideration' | 'Awareness' | 'Target';
export type ProfileFit = 'Strong' | 'Moderate' | 'Weak';
export type ConsentState = 'granted' | 'denied' | 'pending';

/**
 * Key `company`. A field with no value is null (never ""); a list with no items is []. A blank answer
 * (No Match, Non-actionable Match, invalid IP) has every company variable null, except the geoIP_*
 * fields of a known network. Fields are optional here because an answer below `minConfidence` is
 * replaced by `{ company: { company_match: 'No Match' } }`; treat absent like null.
 * server/identification/schema.test.ts checks these types against the server's response schema.
 */
export interface SvcCompany {
  company_match: CompanyMatch;
  additional_comment?: string;
  companyId?: string | null;
  name?: string | null;
  /**
   * The name people say, without legal forms ("Lariat Software" for "Lariat Software, Inc."): for text a
   * visitor reads (`data-svc-text="Hello {company.display_name|there}"`); `name` is the legal name.
   */
  display_name?: string | null;
  domain?: string | null;
  industry?: string | null;
  industry_v2?: { industry: string; subindustry: string | null }[];
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
  /**
   * Beyond the spec: why the network hides who is behind it (an anonymous VPN, a Tor exit node, a public or
   * residential proxy, a privacy relay such as iCloud Private Relay, a hosting or cloud provider); such a
   * network answers `Non-actionable Match`. null: no such network known.
   */
  privacy?: 'vpn' | 'tor' | 'proxy' | 'relay' | 'hosting' | null;
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

/** Key `segments`; `names` ([] otherwise) and the names in `list` (null otherwise) only when the tag has segment names enabled. */
export interface SvcSegments {
  ids?: number[];
  names?: string[];
  list?: { name: string | null; id: number }[];
}

/**
 * The 200 answer of `GET /v3/company/details`, stored on `window.svc.data`. An answer below the minimum
 * confidence is replaced by `{ company: { company_match: 'No Match' } }` (docs/tag.md, "What happens on a page").
 */
export interface SvcData {
  company: SvcCompany;
  scores?: SvcScore[] | null;
  segments?: SvcSegments | null;
  confidence?: Confidence | '' | null;
}

/**
 * Options of the `init` command (and of the per-tag bundle's server-managed settings, which are applied
 * first; the page's commands override them).
 */
export interface SvcInitOptions {
  /** Public tag id (required before anything is requested). */
  tag?: string;
  /**
   * Base URL of the API, e.g. `https://svc.example.com` or a first-party proxy path
   * `https://www.customer.com/svc`; default: where the bundle was loaded from (its URL up to `/tag/v1/`).
   */
  endpoint?: string;
  /** Lifetime of the cached answer in milliseconds; default 24 h; 0 disables the cache. */
  cacheTTL?: number;
  /** Answers below this confidence are treated as no match. Default: none. */
  minConfidence?: Confidence | '';
  /** Answer fields pushed to `dataLayer` (see the README); default all but address, zip, phone and geoIP. */
  fields?: string[];
  /** Consent state; default `granted`. `pending` holds the lookup until `granted`. */
  consent?: ConsentState;
  /** Anti-flicker timeout in ms since the snippet ran; default 1000. */
  timeout?: number;
  /** Honour Global Privacy Control (no lookup when `navigator.globalPrivacyControl`); default true. */
  gpc?: boolean;
  /** Log each decision to the console (also `?svc_debug=1`; bundles with the `debug` feature only). */
  debug?: boolean;
  /** Report page views (bundles with the `page_views` feature; default true, with the visitor's permission only). */
  pageViews?: boolean;
  /**
   * Query parameters a page view keeps besides `utm_*` (server-managed: the customer's `kept_query_params`,
   * inlined into the per-tag bundle; the server keeps only those whatever a page sends). Default none.
   */
  keptParams?: string[];
  /** The analytics tools the account is reported to (bundles with the `integrations` feature); default none. */
  integrations?: SvcIntegrations;
}

/**
 * Argument of the `integrations` command (and the tag's `integrations` setting): which of the page's own
 * analytics tools are told the identified account, once per answer (a `Match` only), with the fields the
 * `fields` setting allows. The tag never loads a tool; one that is not on the page when the answer arrives
 * is looked for once more 2 s later (a tool loaded by GTM), then left alone.
 */
export interface SvcIntegrations {
  /** GA4: `gtag('set', 'user_properties', {svc_company_name: …, …})`: within GA4's limits (25 properties, names ≤ 24, values ≤ 36 cut at a word), every product's stage and intent. */
  ga4?: boolean;
  /** Segment: `analytics.group(companyId, {name, domain, industry, employee_range, …})` (the dataLayer fields without `svc_`). */
  segment?: boolean;
}

/** `detail` of `svc:ready`, and the argument of `ready`/`onReady`/`on('ready')` callbacks. */
export interface SvcReadyDetail {
  data: SvcData;
  /** True when the answer came from the local cache (no request was made). */
  cached: boolean;
  /** Milliseconds the anti-flicker rule kept personalised elements hidden (0 without the snippet's rule). */
  hidden: number;
}

/**
 * Why the tag made no lookup by choice: the `message` of an `svc:error` with `status` 0 that no request
 * caused, checked in this order — `opted out` (`optOut(true)` is stored), `gpc` (the browser sends Global
 * Privacy Control and the tag was not told `gpc: false`), `consent denied`. A `pending` consent is no
 * error: the tag waits for a decision. Exactly the set the tag emits (tag/refusals.test.ts).
 */
export type SvcRefusal = 'opted out' | 'gpc' | 'consent denied';

/**
 * `detail` of `svc:error`, and the argument of `on('error')` callbacks. `status` is the HTTP status, or 0
 * when no answer came: no lookup by choice (`message` is an `SvcRefusal`: `opted out`, `gpc` or
 * `consent denied`), or a network error (the browser's message). Otherwise `message` is the server's.
 */
export interface SvcErrorDetail {
  status: number;
  message: SvcRefusal | (string & {});
}

/** One personalised element, as reported by `svc:personalized`. The rule attributes it carries are copied. */
export interface SvcPersonalizedElement {
  element: Element;
  /** Whether the element is visible (not `hidden`) after personalisation. */
  shown: boolean;
  /** `data-svc-show`, `data-svc-hide`, `data-svc-text`, `data-svc-attr`, `data-svc-fill` when present. */
  show?: string;
  hide?: string;
  text?: string;
  attr?: string;
  fill?: string;
}

/**
 * `detail` of `svc:personalized`: the elements personalised by this pass (each element once per page
 * view: a history navigation starts a new view; elements added later come in later events).
 */
export interface SvcPersonalizedDetail {
  elements: SvcPersonalizedElement[];
}

export interface SvcEventMap {
  ready: SvcReadyDetail;
  error: SvcErrorDetail;
  personalized: SvcPersonalizedDetail;
}

/** Commands accepted by `window.svc.push` (before and after the bundle loads). Unknown ones are ignored. */
export type SvcCommand =
  | ['init', SvcInitOptions]
  | ['setTag', string]
  | ['setEndpoint', string]
  | ['onReady', (detail: SvcReadyDetail) => void]
  | ['optOut', boolean]
  | ['consent', ConsentState]
  | ['setCacheTTL', number]
  | ['setMinConfidence', Confidence | '']
  | ['setFields', string[]]
  | ['personalize']
  | ['debug', boolean]
  | ['integrations', SvcIntegrations]
  | ['track', string, SvcEventProperties?];

/**
 * A custom event's properties (`svc.push(['track', 'demo_requested', { plan: 'pro' }])`): at most 10, flat
 * (a string of at most 200 characters, a number or a boolean), names of letters, digits and `_`. The server
 * drops any property that looks like an email address, a token or a phone number, or whose name says it holds one.
 */
export type SvcEventProperties = Record<string, string | number | boolean>;

/**
 * `window.svc` before the bundle runs: the snippet's command queue (`push` queues), with its anti-flicker
 * reveal `r()` (hidden ms). The bundle replays it, then replaces it with the live object (`Svc`).
 */
export type SvcQueue = SvcCommand[] & { r?: () => number };

/** `window.svc` once the bundle has run. */
export interface Svc {
  /** The last answer, or null before it arrives (and after an error or when no lookup is made). */
  data: SvcData | null;
  /** The last `svc:error` detail (absent before any; `data` is null after it). */
  error?: SvcErrorDetail;
  /** Runs commands at once (before the bundle runs, `window.svc` is an array and `push` queues them). */
  push(...commands: SvcCommand[]): void;
  /** Calls `cb` with the detail of every later `svc:<event>` (`ready`, `error`, `personalized`). */
  on<K extends 'ready' | 'error' | 'personalized'>(event: K, cb: (detail: DocumentEventMap[`svc:${K}`]['detail']) => void): void;
  /** Calls `cb` once with the `svc:ready` detail: at once when the answer is already there (late subscribers). */
  ready(cb: (detail: SvcReadyDetail) => void): void;
}

/**
 * `window.svc`: the snippet's queue until the bundle runs, then the live object. `push` works on both
 * (`window.svc?.push(['consent', 'granted'])`; before the snippet ran: `(window.svc ||= []).push(…)`);
 * `data`, `on` and `ready` only on the live one: `if (window.svc && !Array.isArray(window.svc)) …`.
 */
export type SvcGlobal = Svc | SvcQueue;

/**
 * Company fields as pushed to `dataLayer`: `svc_` + the answer's field name in lower case, `companyId`,
 * `name` and `domain` as `svc_company_id`, `svc_company_name`, `svc_company_domain` (`geoIP_city` →
 * `svc_geoip_city`). Which ones are present is the `fields` setting (default: all but address, zip,
 * phone, geoIP_* and industry_v2); a field with no value is pushed as null.
 */
export type SvcDataLayerCompanyFields = {
  [K in keyof SvcCompany as `svc_${K extends 'companyId' ? 'company_id' : K extends 'name' ? 'company_name' : K extends 'domain' ? 'company_domain' : Lowercase<K>}`]?: Exclude<
    SvcCompany[K],
    undefined
  > | null;
};

/** Pushed to `dataLayer` for a `Match` (after `svc.data` is set, before `svc:ready`). */
export interface SvcCompanyDetailsLoaded extends SvcDataLayerCompanyFields {
  event: 'svc_company_details_loaded';
  svc_company_match: 'Match';
  /** With the `confidence` field; '' is pushed as null. */
  svc_confidence?: Confidence | null;
  /** With the `segments` field: the ids / names joined by commas (`"12,15"`), null when the answer has none. */
  svc_segment_ids?: string | null;
  svc_segment_names?: string | null;
  /** With the `scores` field, per scored product P (lower case, non-alphanumerics as `_`: `svc_cdp_intent_score`). */
  [key: `svc_${string}_buying_stage`]: BuyingStage;
  [key: `svc_${string}_intent_score`]: number;
  [key: `svc_${string}_profile_fit`]: ProfileFit;
  [key: `svc_${string}_profile_score`]: number;
  [key: `svc_${string}_is_svcqa`]: boolean;
}

/** Pushed to `dataLayer` for any other answer (No Match, Non-actionable Match, below the minimum confidence). */
export interface SvcCompanyNotIdentified {
  event: 'svc_company_not_identified';
  svc_company_match: Exclude<CompanyMatch, 'Match'>;
}

/**
 * What the tag pushes to `dataLayer` (one push per answer), told apart by `event`:
 * `if (e.event === 'svc_company_details_loaded') e.svc_company_name`.
 */
export type SvcDataLayerEvent = SvcCompanyDetailsLoaded | SvcCompanyNotIdentified;

declare global {
  interface Window {
    /** A command queue (array) until the bundle runs, then the live object. */
    svc?: SvcGlobal;
  }
  /**
   * GTM's `dataLayer` (also `window.dataLayer`), declared as a global variable of type `any[]` and NOT
   * as a member of `Window`: a page's own `interface Window { dataLayer: … }` (any type, optional or
   * not) merges with it, as does `var dataLayer: any[]`. Only another global variable of another type
   * (e.g. `declare var dataLayer: any`) conflicts (tag/types.test.ts). The tag pushes `SvcDataLayerEvent`s.
   */
  // biome-ignore lint/suspicious/noExplicitAny: GTM pages declare `var dataLayer: any[]`; a global var must repeat that exact type (TS2403), so `any[]` it is.
  var dataLayer: any[];
  interface Navigator {
    /** Global Privacy Control (https://globalprivacycontrol.org). */
    globalPrivacyControl?: boolean;
  }
  interface DocumentEventMap {
    'svc:ready': CustomEvent<SvcReadyDetail>;
    'svc:error': CustomEvent<SvcErrorDetail>;
    'svc:personalized': CustomEvent<SvcPersonalizedDetail>;
  }
}
