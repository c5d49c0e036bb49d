/**
 * The scoring model: one documented, deterministic set of pure functions behind
 *  - the `scores` array of Company Identification (one element per product),
 *  - the person-level `scores` of Lead Scoring and Firmographics and of Lead Scoring.
 *
 * No I/O and no clock: the caller passes everything, including `now`. Every score is an integer 0–100
 * and every label comes from the spec's enum. The numbers below are the model; `README.md` beside this
 * file explains them with a worked example, and `model.test.ts` asserts that example to the digit.
 */

import type { HotAccount, Product } from '../../core/customer-records.ts';
import type { BuyingStage, ContactGrade, ProfileFit } from '../../core/vocabulary.ts';
import { BUYING_STAGES, CONTACT_GRADES, EMPLOYEE_RANGES, PROFILE_FITS, REVENUE_RANGES, TITLE_LEVELS } from '../../core/vocabulary.ts';
import type { EngagementRow, IntentRow } from '../../data/sources/schema.ts';
import { boundedMemo, weakMemo } from '../cache/bounded-cache.ts';

export type { BuyingStage, ContactGrade, ProfileFit };
// The labels and ranges are the product's vocabulary (core/vocabulary.ts); re-exported for readers of the model.
export { BUYING_STAGES, CONTACT_GRADES, EMPLOYEE_RANGES, PROFILE_FITS, REVENUE_RANGES, TITLE_LEVELS };

// ---------------------------------------------------------------------------------------------------
// Labels

/** Lowest score (inclusive) of each buying stage above `Target`. */
export const BUYING_STAGE_THRESHOLDS = Object.freeze({ Awareness: 20, Consideration: 40, Decision: 60, Purchase: 80 } as const);
/** Lowest score (inclusive) of `Strong` and `Moderate`; used by profile fit and contact profile fit. */
export const PROFILE_FIT_THRESHOLDS = Object.freeze({ Strong: 70, Moderate: 40 } as const);
/** Lowest score (inclusive) of grades A, B, C; below C is D. */
export const CONTACT_GRADE_THRESHOLDS = Object.freeze({ A: 75, B: 50, C: 25 } as const);

// ---------------------------------------------------------------------------------------------------
// Company intent (third-party intent signals)

/** A signal's weight halves every this many days of age. */
export const INTENT_HALF_LIFE_DAYS = 30;
/** Signals older than this many days (or dated after `now`) are ignored. */
export const INTENT_WINDOW_DAYS = 90;
/** Saturation constant k: score = 100·(1 − exp(−Σ weight·strength / k)). */
export const INTENT_SATURATION = 100;

// ---------------------------------------------------------------------------------------------------
// First-party intent (the customer's own page views by the account, from its web tag)

/** Points per page view of a high-intent page (pricing, plans, demo, contact, trial, quote, buy). */
export const HIGH_INTENT_PAGE_POINTS = 10;
/** Points per page view of any other page. */
export const PAGE_VIEW_POINTS = 1;
/** Views of one path on one day counted at most this often (a reload loop cannot saturate the score). */
export const PAGE_VIEWS_PER_PATH_DAY_CAP = 20;
export const FIRST_PARTY_HALF_LIFE_DAYS = 7;
export const FIRST_PARTY_WINDOW_DAYS = 30;
/** A path segment naming one of these words (alone or hyphenated: `/request-demo`, `/en/pricing`) is high intent. */
export const HIGH_INTENT_PAGE = /(?:^|[/_-])(?:pricing|plans?|demo|contact|trial|quote|buy)(?:[/_.-]|$)/i;

// ---------------------------------------------------------------------------------------------------
// Company profile (ideal-customer-profile fit)

export const PROFILE_WEIGHTS = Object.freeze({ industry: 40, employee_range: 25, revenue_range: 20, region: 15 } as const);
/** Share of a range dimension's weight earned by a range one step away from an ICP range. */
export const ADJACENT_RANGE_CREDIT = 0.5;

// ---------------------------------------------------------------------------------------------------
// Contact profile (persona fit of the person's title)

// Title levels: TITLE_LEVELS, most senior first; one step in that list earns `ADJACENT_LEVEL_CREDIT`.
export const CONTACT_PROFILE_WEIGHTS = Object.freeze({ level: 50, function: 50 } as const);
export const ADJACENT_LEVEL_CREDIT = 0.5;
/** Spellings accepted for the levels (compared after lower-casing and dropping non-alphanumerics). */
export const TITLE_LEVEL_ALIASES: Readonly<Record<string, (typeof TITLE_LEVELS)[number]>> = Object.freeze({
  clevel: 'C-Level',
  csuite: 'C-Level',
  cxo: 'C-Level',
  executive: 'C-Level',
  vp: 'VP',
  vicepresident: 'VP',
  svp: 'VP',
  evp: 'VP',
  director: 'Director',
  manager: 'Manager',
  staff: 'Staff',
  individualcontributor: 'Staff',
  nonmanager: 'Staff',
});

// ---------------------------------------------------------------------------------------------------
// Contact intent (first-party engagement)

/** Points per unit of `count`, before recency decay. Unknown activities score 0. */
export const ENGAGEMENT_WEIGHTS = Object.freeze({
  meeting: 40,
  form_fill: 25,
  webinar: 15,
  email_click: 5,
  page_view: 2,
  email_open: 1,
} as const);
export const CONTACT_INTENT_HALF_LIFE_DAYS = 14;
export const CONTACT_INTENT_WINDOW_DAYS = 90;
/** Saturation constant k: score = 100·(1 − exp(−Σ weight·count·decay / k)). */
export const CONTACT_INTENT_SATURATION = 40;

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------------
// Inputs (typed structurally so that catalog rows, API objects and test fixtures all fit)

export type IntentSignal = Pick<IntentRow, 'topic' | 'strength' | 'observed_at'>;
/** The account's page views on the customer's own site per UTC day and path (the visit store's summary). */
export interface PageViewSummary {
  day: string;
  path: string;
  page_views: number;
}
export type Engagement = Pick<EngagementRow, 'activity' | 'count' | 'observed_at'>;
/** The firmographics the profile score reads; a missing or blank field is unknown (matches nothing). */
export interface CompanyProfileInput {
  industry?: string;
  employee_range?: string;
  revenue_range?: string;
  region?: string;
  country_iso_code?: string;
}
/** Output of the title classifier (`./title-classifier.ts`), or any object of that shape. */
export interface TitleClassification {
  titleLevel: string;
  titleFunction: string;
}
export type ScoringProduct = Pick<Product, 'name' | 'display_name' | 'icp' | 'intent_topics' | 'persona'>;
export type Persona = Product['persona'];

// ---------------------------------------------------------------------------------------------------
// Small shared pieces

/**
 * Case-, space- and punctuation-insensitive key used for every string comparison of the model: NFKC,
 * lower case, keep only letters, digits, `$` and `+` (so `1,000-4,999` = `1000 - 4999`, `C-Level` = `c level`).
 */
const computeKey = (s: string): string =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}$+]/gu, '');

/**
 * Keys of the strings seen so far. The model keys the same few vocabulary strings (ICP lists, range
 * orders, topics, the lead's industry and ranges) several times per product on every scored answer;
 * NFKC plus a Unicode regex cost ~0.3 µs each, most of personScores' 17 µs for two products, and a Map
 * hit brings it to ~5 µs (measured). Bounded (server/cache/bounded-cache.ts).
 */
const keyOf = boundedMemo(computeKey, 10_000);

const key = (s: string | undefined | null): string => (s ? keyOf(s) : '');

/**
 * The keys of a list (ICP dimension, intent topics), computed once per list when the list is frozen: a
 * customer's products come from the auth cache, deep-frozen, so they are the same arrays on every
 * request until the record changes. Why: keying and building a Set of every ICP list and topic list per
 * product on every scored Match was most of the model's time in a tag-mode lookup (--cpu-prof under
 * `npm run bench -- identification`, with explainFirstParty and the signal dates below).
 */
const keyLists = new WeakMap<readonly string[], readonly string[]>();
const keySets = new WeakMap<readonly string[], ReadonlySet<string>>();

function keysOf(list: readonly string[]): readonly string[] {
  let k = keyLists.get(list);
  if (k === undefined) {
    k = list.map(key);
    if (Object.isFrozen(list)) keyLists.set(list, k);
  }
  return k;
}

function keySetOf(list: readonly string[]): ReadonlySet<string> {
  let k = keySets.get(list);
  if (k === undefined) {
    k = new Set(keysOf(list));
    if (Object.isFrozen(list)) keySets.set(list, k);
  }
  return k;
}

const toScore = (x: number): number => Math.min(100, Math.max(0, Math.round(x)));

const saturate = (points: number, k: number): number => toScore(100 * (1 - Math.exp(-points / k)));

/** Sum in ascending order so that the result does not depend on input order (float addition is not associative). */
const sumAscending = (xs: number[]): number => [...xs].sort((a, b) => a - b).reduce((s, x) => s + x, 0);

const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Milliseconds since the epoch of an ISO date or date-time; a time without a zone is UTC. NaN if unreadable.
 * Remembered per string (a pure function of it). Why: an account's intent signals are dated by day, so a
 * few hundred distinct strings cover the catalog, yet every scored Match parsed each of its signals'
 * dates (regex, Date.UTC, Date.parse): ~40% of companyScores in a tag-mode lookup (--cpu-prof under
 * `npm run bench -- identification`). Bounded (server/cache/bounded-cache.ts).
 */
export const parseObservedAt: (s: string) => number = boundedMemo(parseIso, 10_000);

function parseIso(s: string): number {
  const m = ISO.exec(s.trim());
  if (!m) return Number.NaN;
  const [, date, time, zone] = m;
  const [y, mo, d] = date.split('-').map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return Number.NaN; // e.g. 2026-02-30
  const offset = zone === undefined || /^z$/i.test(zone) ? 'Z' : zone.replace(/^([+-]\d{2}):?(\d{2})$/, '$1:$2');
  return Date.parse(`${date}T${time ?? '00:00'}${offset}`);
}

function assertNow(now: Date): number {
  const t = now.getTime();
  if (!Number.isFinite(t)) throw new RangeError('scoring: `now` is an invalid Date');
  return t;
}

/** Age in days (fractional) of an observation at `nowMs`; NaN if the date is unreadable. */
const ageInDays = (observedAt: string, nowMs: number): number => ageInDaysOf(parseObservedAt(observedAt), nowMs);

/** 0.5^(age/halfLife) for 0 ≤ age ≤ window, else 0 (future, too old, or unreadable date). */
const decay = (ageDays: number, halfLifeDays: number, windowDays: number): number =>
  ageDays >= 0 && ageDays <= windowDays ? 0.5 ** (ageDays / halfLifeDays) : 0;

/** Recency weight of an observation: 0.5^(age/halfLife) inside the window, 0 in the future, beyond it or if unreadable. */
export function recencyWeight(observedAt: string, now: Date, halfLifeDays: number, windowDays: number): number {
  return decay(ageInDays(observedAt, assertNow(now)), halfLifeDays, windowDays);
}

const lowestFirst = <L extends string>(score: number, thresholds: ReadonlyArray<readonly [L, number]>, lowest: L): L => {
  let label = lowest;
  for (const [l, min] of thresholds) if (score >= min) label = l;
  return label;
};

// ---------------------------------------------------------------------------------------------------
// Company intent

export interface IntentContribution {
  topic: string;
  strength: number;
  ageDays: number;
  weight: number;
  points: number;
}
export interface FirstPartyContribution {
  path: string;
  day: string;
  page_views: number;
  high_intent: boolean;
  ageDays: number;
  weight: number;
  points: number;
}
export interface IntentBreakdown {
  contributions: IntentContribution[];
  /** The account's own page views on the customer's site (every product counts them alike). */
  first_party: FirstPartyContribution[];
  points: number;
  score: number;
}

/** Points of the account's first-party page views: high-intent pages weigh more, recent views more. */
export function explainFirstParty(pageViews: readonly PageViewSummary[], now: Date): FirstPartyContribution[] {
  const t = assertNow(now);
  const out: FirstPartyContribution[] = [];
  for (const v of pageViews) {
    const views = Math.min(PAGE_VIEWS_PER_PATH_DAY_CAP, Math.max(0, Number(v.page_views)));
    const pathname = v.path.split('?')[0];
    const high_intent = HIGH_INTENT_PAGE.test(pathname);
    const ageDays = ageInDays(v.day, t);
    const weight = decay(ageDays, FIRST_PARTY_HALF_LIFE_DAYS, FIRST_PARTY_WINDOW_DAYS);
    if (Number.isNaN(views) || views === 0 || weight === 0) continue;
    const points = (high_intent ? HIGH_INTENT_PAGE_POINTS : PAGE_VIEW_POINTS) * views * weight;
    out.push({ path: v.path, day: v.day, page_views: views, high_intent, ageDays, weight, points });
  }
  return out;
}

/**
 * Every counted signal with its age, recency weight and points, the account's first-party page views,
 * the total and the score.
 */
export function explainIntent(
  signals: readonly IntentSignal[],
  product: Pick<ScoringProduct, 'intent_topics'>,
  now: Date,
  pageViews: readonly PageViewSummary[] = [],
): IntentBreakdown {
  const t = assertNow(now);
  return intentOf(signals, signalAges(signals, t), product, explainFirstParty(pageViews, now));
}

/** Each signal's age in days at `nowMs` (NaN if its date is unreadable). */
const signalAges = (signals: readonly IntentSignal[], nowMs: number): number[] => signals.map((s) => ageInDays(s.observed_at, nowMs));

/**
 * explainIntent with the parts that do not depend on the product (signal ages, first-party page views)
 * computed by the caller: companyScores computes them once for all its products.
 */
function intentOf(
  signals: readonly IntentSignal[],
  ages: readonly number[],
  product: Pick<ScoringProduct, 'intent_topics'>,
  first_party: FirstPartyContribution[],
): IntentBreakdown {
  const counts = topicFilter(product);
  const contributions: IntentContribution[] = [];
  for (let i = 0; i < signals.length; i++) {
    const s = signals[i];
    if (!counts(s.topic)) continue;
    const strength = signalStrength(s.strength);
    const ageDays = ages[i];
    const weight = signalWeight(ageDays);
    if (Number.isNaN(strength) || weight === 0) continue;
    contributions.push({ topic: s.topic, strength, ageDays, weight, points: weight * strength });
  }
  const points = sumAscending([...contributions.map((c) => c.points), ...first_party.map((c) => c.points)]);
  return { contributions, first_party, points, score: saturate(points, INTENT_SATURATION) };
}

/*
 * The pieces of intentOf, for the segment membership index (server/segments/intent-index.ts), which
 * scores every company of the catalog with the same arithmetic without building signal objects.
 */

/** Whether a signal's topic counts for the product: an empty topic list means "no restriction", like an empty ICP dimension. */
export function topicFilter(product: Pick<ScoringProduct, 'intent_topics'>): (topic: string) => boolean {
  const topics = keySetOf(product.intent_topics);
  return (topic) => topics.size === 0 || topics.has(key(topic));
}

/** A signal's strength as counted, 0–100 (NaN: unreadable, the signal does not count). */
export const signalStrength = (raw: number | string): number => Math.min(100, Math.max(0, Number(raw)));

/** A signal's recency weight at an age in days (0: it does not count). */
export const signalWeight = (ageDays: number): number => decay(ageDays, INTENT_HALF_LIFE_DAYS, INTENT_WINDOW_DAYS);

/** The intent score of the points counted (each signal's weight·strength and the first-party points), as intentOf sums them. */
export const intentScoreOfPoints = (points: number[]): number => saturate(sumAscending(points), INTENT_SATURATION);

/** Age in days (fractional) of an observation at `nowMs` (its time from parseObservedAt); NaN if unreadable. */
export const ageInDaysOf = (observedAtMs: number, nowMs: number): number => (nowMs - observedAtMs) / DAY_MS;

/**
 * 0–100 from the account's intent signals on the product's topics and its first-party page views,
 * recency-weighted and saturating.
 */
export function intentScore(
  signals: readonly IntentSignal[],
  product: Pick<ScoringProduct, 'intent_topics'>,
  now: Date,
  pageViews: readonly PageViewSummary[] = [],
): number {
  return explainIntent(signals, product, now, pageViews).score;
}

const BUYING_STAGE_STEPS = [
  ['Awareness', BUYING_STAGE_THRESHOLDS.Awareness],
  ['Consideration', BUYING_STAGE_THRESHOLDS.Consideration],
  ['Decision', BUYING_STAGE_THRESHOLDS.Decision],
  ['Purchase', BUYING_STAGE_THRESHOLDS.Purchase],
] as const;

export function buyingStage(intentScore: number): BuyingStage {
  return lowestFirst(intentScore, BUYING_STAGE_STEPS, 'Target');
}

// ---------------------------------------------------------------------------------------------------
// Company profile

export interface ProfileBreakdown {
  industry: number;
  employee_range: number;
  revenue_range: number;
  region: number;
  points: number;
  score: number;
}

/** Credit 0–1 of an ordered range against the ICP list: 1 exact, ADJACENT_RANGE_CREDIT one step away. */
function rangeCredit(value: string | undefined, wanted: readonly string[], order: readonly string[]): number {
  if (wanted.length === 0) return 1;
  const v = key(value);
  if (v === '') return 0;
  const wantedKeys = keysOf(wanted);
  if (wantedKeys.includes(v)) return 1;
  const orderKeys = keysOf(order);
  const i = orderKeys.indexOf(v);
  if (i < 0) return 0; // unknown spelling: exact match only
  return wantedKeys.some((w) => {
    const j = orderKeys.indexOf(w);
    return j >= 0 && Math.abs(i - j) === 1;
  })
    ? ADJACENT_RANGE_CREDIT
    : 0;
}

function listCredit(values: ReadonlyArray<string | undefined>, wanted: readonly string[]): number {
  if (wanted.length === 0) return 1;
  const w = keySetOf(wanted);
  return values.some((v) => key(v) !== '' && w.has(key(v))) ? 1 : 0;
}

/** Points per ICP dimension, their sum and the rounded score. */
export function explainProfile(company: CompanyProfileInput, product: Pick<ScoringProduct, 'icp'>): ProfileBreakdown {
  const { icp } = product;
  const W = PROFILE_WEIGHTS;
  const industry = W.industry * listCredit([company.industry], icp.industries);
  const employee_range = W.employee_range * rangeCredit(company.employee_range, icp.employee_ranges, EMPLOYEE_RANGES);
  const revenue_range = W.revenue_range * rangeCredit(company.revenue_range, icp.revenue_ranges, REVENUE_RANGES);
  // The region dimension matches the company's region or its ISO country code (ICPs list either).
  const region = W.region * listCredit([company.region, company.country_iso_code], icp.regions);
  const points = industry + employee_range + revenue_range + region;
  return { industry, employee_range, revenue_range, region, points, score: toScore(points) };
}

/** 0–100 ideal-customer-profile fit; an empty ICP dimension counts as a full match. */
export function profileScore(company: CompanyProfileInput, product: Pick<ScoringProduct, 'icp'>): number {
  return explainProfile(company, product).score;
}

/** Per company, then per ICP: the profile score (frozen inputs only, see rememberedProfileScore). */
const profileScores = weakMemo((company: CompanyProfileInput) => weakMemo((icp: ScoringProduct['icp']) => profileScore(company, { icp })));

/**
 * profileScore of frozen inputs (the catalog's rows, a stored customer's products) remembered per company
 * and ICP: the fit cannot change while neither does, and an identification answer asked for it on every
 * lookup (2 % of a tag-mode lookup's CPU, --cpu-prof). Anything not frozen is computed each time.
 */
function rememberedProfileScore(company: CompanyProfileInput, product: Pick<ScoringProduct, 'icp'>): number {
  const icp = product.icp;
  if (!Object.isFrozen(company) || !Object.isFrozen(icp)) return profileScore(company, product);
  return profileScores(company)(icp);
}

const PROFILE_FIT_STEPS = [
  ['Moderate', PROFILE_FIT_THRESHOLDS.Moderate],
  ['Strong', PROFILE_FIT_THRESHOLDS.Strong],
] as const;

export function profileFit(score: number): ProfileFit {
  return lowestFirst(score, PROFILE_FIT_STEPS, 'Weak');
}

// ---------------------------------------------------------------------------------------------------
// Contact profile

export interface ContactProfileBreakdown {
  level: number;
  function: number;
  points: number;
  score: number;
}

/** The canonical level (`C-Level` … `Staff`) of a spelling, or undefined. */
export function canonicalLevel(level: string | undefined | null): (typeof TITLE_LEVELS)[number] | undefined {
  return TITLE_LEVEL_ALIASES[key(level)];
}

function levelCredit(level: string | undefined, wanted: readonly string[]): number {
  if (wanted.length === 0) return 1;
  const v = key(level);
  if (v === '') return 0;
  if (wanted.some((w) => key(w) === v)) return 1;
  const c = canonicalLevel(level);
  if (c === undefined) return 0;
  const i = TITLE_LEVELS.indexOf(c);
  let best = 0;
  for (const w of wanted) {
    const cw = canonicalLevel(w);
    if (cw === undefined) continue;
    const d = Math.abs(i - TITLE_LEVELS.indexOf(cw));
    if (d === 0) return 1;
    if (d === 1) best = ADJACENT_LEVEL_CREDIT;
  }
  return best;
}

/** Level and function points, their sum and the rounded score. A missing title matches only empty persona lists. */
export function explainContactProfile(title: Partial<TitleClassification> | null | undefined, persona: Persona): ContactProfileBreakdown {
  const W = CONTACT_PROFILE_WEIGHTS;
  const level = W.level * levelCredit(title?.titleLevel, persona.levels);
  const fn = W.function * listCredit([title?.titleFunction], persona.functions);
  const points = level + fn;
  return { level, function: fn, points, score: toScore(points) };
}

export function contactProfileScore(title: Partial<TitleClassification> | null | undefined, persona: Persona): number {
  return explainContactProfile(title, persona).score;
}

export function contactProfileFit(score: number): ProfileFit {
  return profileFit(score);
}

// ---------------------------------------------------------------------------------------------------
// Contact intent

export interface EngagementContribution {
  activity: string;
  count: number;
  ageDays: number;
  weight: number;
  points: number;
}
export interface ContactIntentBreakdown {
  contributions: EngagementContribution[];
  points: number;
  score: number;
}

/** Weight of an activity name (`Form Fill`, `form-fill` and `form_fill` are the same); 0 if unknown. */
export function activityWeight(activity: string): number {
  const k = activity
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return Object.hasOwn(ENGAGEMENT_WEIGHTS, k) ? ENGAGEMENT_WEIGHTS[k as keyof typeof ENGAGEMENT_WEIGHTS] : 0;
}

export function explainContactIntent(engagement: readonly Engagement[], now: Date): ContactIntentBreakdown {
  const t = assertNow(now);
  const contributions: EngagementContribution[] = [];
  for (const e of engagement) {
    const count = Math.max(0, Number(e.count));
    const unit = activityWeight(e.activity);
    const ageDays = ageInDays(e.observed_at, t);
    const weight = decay(ageDays, CONTACT_INTENT_HALF_LIFE_DAYS, CONTACT_INTENT_WINDOW_DAYS);
    if (Number.isNaN(count) || count === 0 || unit === 0 || weight === 0) continue;
    contributions.push({ activity: e.activity, count, ageDays, weight, points: unit * count * weight });
  }
  const points = sumAscending(contributions.map((c) => c.points));
  return { contributions, points, score: saturate(points, CONTACT_INTENT_SATURATION) };
}

/** 0–100 from the person's first-party engagement, recency-weighted and saturating. No engagement → 0. */
export function contactIntentScore(engagement: readonly Engagement[], now: Date): number {
  return explainContactIntent(engagement, now).score;
}

export function contactGrade(score: number): ContactGrade {
  const t = CONTACT_GRADE_THRESHOLDS;
  return lowestFirst(
    score,
    [
      ['C', t.C],
      ['B', t.B],
      ['A', t.A],
    ],
    'D',
  );
}

// ---------------------------------------------------------------------------------------------------
// Composers: exactly the spec's shapes

export interface CompanyScore {
  is_svcqa: boolean;
  product: string;
  product_display_name: string;
  intent_score: number;
  buying_stage: BuyingStage;
  profile_score: number;
  profile_fit: ProfileFit;
}

export interface PersonScore {
  product: string;
  company_intent_score: number;
  company_buying_stage: BuyingStage;
  company_profile_score: number;
  company_profile_fit: ProfileFit;
  contact_intent_score: number;
  contact_grade: ContactGrade;
  contact_profile_score: number;
  contact_profile_fit: ProfileFit;
}

/** Hot-account flag for one product: the account is hot and its product list is empty or names this product. */
export function isHotForProduct(hotAccount: Pick<HotAccount, 'products'> | null | undefined, productName: string): boolean {
  if (!hotAccount) return false;
  return hotAccount.products.length === 0 || hotAccount.products.some((p) => key(p) === key(productName));
}

/**
 * The Company Identification `scores` array, one element per product, in product order.
 * `signals` are this account's intent signals; `hotAccount` is this account's hot-account entry, if any.
 */
export function companyScores(input: {
  company: CompanyProfileInput;
  signals: readonly IntentSignal[];
  products: readonly ScoringProduct[];
  hotAccount?: Pick<HotAccount, 'products'> | null;
  /** The account's page views on the customer's own site (first-party intent); none when absent. */
  pageViews?: readonly PageViewSummary[];
  now: Date;
}): CompanyScore[] {
  const { company, signals, products, hotAccount, now, pageViews = [] } = input;
  const t = assertNow(now);
  // The same for every product: computed once (see intentOf).
  const ages = signalAges(signals, t);
  const firstParty = explainFirstParty(pageViews, now);
  return products.map((p) => {
    const intent = intentOf(signals, ages, p, firstParty).score;
    const profile = rememberedProfileScore(company, p);
    return {
      is_svcqa: isHotForProduct(hotAccount, p.name),
      product: p.name,
      product_display_name: p.display_name,
      intent_score: intent,
      buying_stage: buyingStage(intent),
      profile_score: profile,
      profile_fit: profileFit(profile),
    };
  });
}

/**
 * The person-level `scores` array, one element per product. With no company (unknown person or company)
 * the company scores are 0 / Target / 0 / Weak; the contact scores still come from the title and engagement.
 */
export function personScores(input: {
  company: CompanyProfileInput | null | undefined;
  signals: readonly IntentSignal[];
  products: readonly ScoringProduct[];
  title: Partial<TitleClassification> | null | undefined;
  engagement: readonly Engagement[];
  /** The company's page views on the customer's own site (first-party intent); none when absent. */
  pageViews?: readonly PageViewSummary[];
  now: Date;
}): PersonScore[] {
  const { company, signals, products, title, engagement, now, pageViews = [] } = input;
  const t = assertNow(now);
  const contactIntent = contactIntentScore(engagement, now);
  const grade = contactGrade(contactIntent);
  // The same for every product: computed once (see intentOf).
  const ages = company ? signalAges(signals, t) : [];
  const firstParty = company ? explainFirstParty(pageViews, now) : [];
  return products.map((p) => {
    const intent = company ? intentOf(signals, ages, p, firstParty).score : 0;
    const profile = company ? profileScore(company, p) : 0;
    const contactProfile = contactProfileScore(title, p.persona);
    return {
      product: p.name,
      company_intent_score: intent,
      company_buying_stage: buyingStage(intent),
      company_profile_score: profile,
      company_profile_fit: profileFit(profile),
      contact_intent_score: contactIntent,
      contact_grade: grade,
      contact_profile_score: contactProfile,
      contact_profile_fit: contactProfileFit(contactProfile),
    };
  });
}
