/**
 * Pure decisions: the status, body and charge of each company-level enrichment route, given what the
 * catalog knows about the lead. The route module does the lookups; everything here is unit-tested.
 *
 *   v3 / v2 firmographics  200 { company, segments }                charge company id (per API)
 *   combined (full)        200 { company, scores, segments }        charge company id
 *   Lead Scoring           200 { scores }                           never charged
 *   404 (invalid email, or no company for the firmographics/combined routes): the spec's error object
 *   `{ status: "error", message }` plus the route's data with every field null (null rule), and
 *   `code: "not_found"` as on every non-2xx body (the batch's 404 items are these bodies).
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import type { IntentTopicAnswer } from '../../core/topic-records.ts';
import type { EngagementRow, IntentRow } from '../../data/sources/schema.ts';
import type { RouteResult } from '../http/route-def.ts';
import { type PageViewSummary, personScores, type TitleClassification } from '../scoring/model.ts';
import { type AccountFacts, matchingSegments, segmentsPayload } from '../segments/evaluate.ts';
import { companyV2, companyV3 } from './company-payload.ts';
import type { CompanyResolution } from './resolve-company.ts';

export const MESSAGES = {
  invalidEmail: 'the email address is not valid: no data found',
  noData: 'No data found. If you think this is a mistake, please contact support.',
} as const;

/**
 * RFC 9745 `Deprecation` (the date v3 became the current Company Firmographics version) and RFC 8288
 * `Link` to the successor, set by the v2 route on every answer (errors included).
 */
export const V2_DEPRECATION_HEADERS = {
  Deprecation: '@1735689600', // 2025-01-01T00:00:00Z
  Link: '</v1/enrichment/company>; rel="successor-version"',
} as const;

/** What the route looked up for one request. */
export interface LeadFacts {
  resolution: CompanyResolution;
  /** The title the answer classifies: the known person's, else the request's (see `leadTitle`). */
  title: TitleClassification;
  /** Intent signals of the resolved company ([] when none). */
  signals: readonly Pick<IntentRow, 'topic' | 'strength' | 'observed_at'>[];
  /** Engagement of the known person ([] when the email matches no person). */
  engagement: readonly Pick<EngagementRow, 'activity' | 'count' | 'observed_at'>[];
  /** The company's page views on the customer's own site (first-party intent); absent = none. */
  pageViews?: readonly PageViewSummary[];
  /** What the company did, when the customer's segment rules read it (server/segments/account-facts.ts). */
  account?: AccountFacts;
}

export interface AnswerContext {
  customer: Pick<CustomerRecord, 'segments' | 'products' | 'packages' | 'excluded_accounts' | 'hot_accounts'> & Partial<Pick<CustomerRecord, 'account_lists'>>;
  /** `intent_topics`: the answer carries the account's followed intent topics (a token's setting; absent: off). */
  settings: { segment_names: boolean; intent_topics?: boolean };
  now: Date;
  /** The account's followed intent topics (server/data/catalog-topics.ts `followedTopics`), read when the setting is on. */
  topics?: (companyId: string) => IntentTopicAnswer[];
}

/** The title to classify: the known person's catalog title when there is one, else the request's `title`. */
export function leadTitle(person: Pick<PersonRow, 'title'> | null, requestTitle: string): string {
  return person?.title.trim() ? person.title : requestTitle;
}

const found = (r: CompanyResolution): CompanyRow | null => (r.outcome === 'found' ? r.company : null);
const notFoundMessage = (r: CompanyResolution) => (r.outcome === 'invalid-email' ? MESSAGES.invalidEmail : MESSAGES.noData);

function segments(company: CompanyRow | null, ctx: AnswerContext, facts?: AccountFacts) {
  return segmentsPayload(matchingSegments(ctx.customer, company, facts), ctx.settings.segment_names);
}

/** `intent_topics` only for a caller whose setting is on (the spec's answer is unchanged otherwise); [] without a company. */
function topics(company: CompanyRow | null, ctx: AnswerContext): { intent_topics?: IntentTopicAnswer[] } {
  if (!ctx.settings.intent_topics) return {};
  return { intent_topics: company && ctx.topics ? ctx.topics(company.company_id) : [] };
}

/** Company Firmographics v3 (`/v1/enrichment/company`) and v2 (`/v2/people/enrichment`). */
export function firmographicsAnswer(version: 'v3' | 'v2', facts: LeadFacts, ctx: AnswerContext): RouteResult {
  const company = found(facts.resolution);
  const payload = (c: CompanyRow | null) => ({
    company: version === 'v3' ? companyV3(c, facts.title, ctx.customer.excluded_accounts) : companyV2(c, facts.title, ctx.customer.excluded_accounts),
    segments: segments(c, ctx, facts.account),
    ...topics(c, ctx),
  });
  if (!company) return { status: 404, body: { status: 'error', message: notFoundMessage(facts.resolution), ...payload(null), code: 'not_found' } };
  return {
    status: 200,
    body: payload(company),
    charge: { api: version === 'v3' ? 'company-firmographics-v3' : 'company-firmographics-v2', record: company.company_id },
  };
}

/** Whether the combined answer carries scores: only with the customer's `advanced` package. */
export const combinedHasScores = (customer: Pick<CustomerRecord, 'packages'>): boolean => customer.packages.includes('advanced');

/** Lead Scoring and Firmographics (`/v2/people/full`): scores only with the customer's `advanced` package. */
export function combinedAnswer(facts: LeadFacts, ctx: AnswerContext): RouteResult {
  const company = found(facts.resolution);
  if (!company) {
    return {
      status: 404,
      body: {
        status: 'error',
        message: notFoundMessage(facts.resolution),
        company: companyV3(null, facts.title, ctx.customer.excluded_accounts),
        scores: [],
        segments: segments(null, ctx),
        ...topics(null, ctx),
        code: 'not_found',
      },
    };
  }
  return {
    status: 200,
    body: {
      company: companyV3(company, facts.title, ctx.customer.excluded_accounts),
      scores: combinedHasScores(ctx.customer) ? scoresFor(company, facts, ctx) : [],
      segments: segments(company, ctx, facts.account),
      ...topics(company, ctx),
    },
    charge: { api: 'lead-scoring-firmographics', record: company.company_id },
  };
}

/**
 * Lead Scoring (`/v2/people/score`): 404 only for a malformed email. An email identifying no company
 * still gets contact scores (title, engagement) with company scores 0 / Target / 0 / Weak. Never charged.
 */
export function leadScoringAnswer(facts: LeadFacts, ctx: AnswerContext): RouteResult {
  if (facts.resolution.outcome === 'invalid-email')
    return { status: 404, body: { status: 'error', message: MESSAGES.invalidEmail, scores: [], code: 'not_found' } };
  return { status: 200, body: { scores: scoresFor(found(facts.resolution), facts, ctx) } };
}

function scoresFor(company: CompanyRow | null, facts: LeadFacts, ctx: AnswerContext) {
  return personScores({
    company,
    signals: company ? facts.signals : [],
    products: ctx.customer.products,
    title: facts.title,
    engagement: facts.engagement,
    pageViews: company ? facts.pageViews : [],
    now: ctx.now,
  });
}
