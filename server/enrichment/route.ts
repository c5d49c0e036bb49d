/**
 * The company-level server-to-server routes (spec endpoints 2–5), each on the shared pipeline
 * (auth → 403 → 429 → input → lookup → 402 → 200/404):
 *   POST /v1/enrichment/company  Company Firmographics v3         group company-firmographics
 *   POST /v2/people/enrichment   Company Firmographics v2         group company-firmographics (deprecated)
 *   POST /v2/people/full         Lead Scoring and Firmographics   group lead-scoring-firmographics
 *   POST /v2/people/score        Lead Scoring                     group lead-scoring
 * Bodies: form-encoded or JSON (`request-body.ts`); shapes: `schema.ts`; decisions: `answers.ts`.
 */
import type { ApiGroup } from '../../core/customer-records.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { ChargeableApi } from '../credits/rules.ts';
import type { Catalog } from '../data/catalog.ts';
import { followedTopics } from '../data/catalog-topics.ts';
import { apiRoute, type OperationDoc, type RouteDef, type RouteResult } from '../http/route-def.ts';
import { recentPageViews } from '../scoring/first-party.ts';
import { classifyTitle } from '../scoring/title-classifier.ts';
import type { Services } from '../services.ts';
import { accountSources, leadAccountFacts } from './account-sources.ts';
import {
  type AnswerContext,
  combinedAnswer,
  combinedHasScores,
  firmographicsAnswer,
  type LeadFacts,
  leadScoringAnswer,
  leadTitle,
  V2_DEPRECATION_HEADERS,
} from './answers.ts';
import { enrichCompanyDoc, enrichCompanyV2Doc, scoreAndEnrichLeadDoc, scoreLeadDoc } from './docs.ts';
import { LEAD_BODY_LIMIT, type TextBody } from './request-body.ts';
import { resolveCompany } from './resolve-company.ts';
import { Combined, FirmographicsV2, FirmographicsV3, type LeadBody, LeadScoring } from './schema.ts';

/** One company-level route: its group, body schema, whether its answer carries scores, and the answer. */
function leadRoute(o: {
  path: string;
  group: ApiGroup;
  body: TextBody<LeadBody>;
  charges?: ChargeableApi;
  /** Whether this route's answer for this customer carries scores (and so needs their facts). */
  scores: (caller: Caller) => boolean;
  /** Whether this route's answer carries segments (and so the account's facts when the customer's rules read them). */
  segments: boolean;
  answer: (facts: LeadFacts, ctx: AnswerContext) => RouteResult;
  doc: OperationDoc;
  headers?: Readonly<Record<string, string>>;
}): RouteDef {
  return apiRoute<LeadBody>({
    method: 'POST',
    path: o.path,
    auth: { kind: 'token', group: o.group },
    headers: o.headers,
    body: { types: 'fields', limit: LEAD_BODY_LIMIT, schema: o.body.schema, fast: o.body.fast, validation: 'fields' },
    charges: o.charges,
    // A lookup: its rate-limit hit and charge go to the store as one operation (one Redis round trip).
    meterAfterHandler: true,
    doc: o.doc,
    async handler(ctx) {
      const caller = ctx.caller!;
      const answerCtx = context(caller, ctx.services.dataset.current.catalog);
      return o.answer(await lookupLead(ctx.services, ctx.body, caller, answerCtx.now, o.scores(caller), o.segments), answerCtx);
    },
  });
}

const never = () => false;
const always = () => true;

export const enrichmentRoutes: RouteDef[] = [
  leadRoute({
    path: '/v1/enrichment/company',
    group: 'company-firmographics',
    body: FirmographicsV3,
    charges: 'company-firmographics-v3',
    scores: never,
    segments: true,
    answer: (f, c) => firmographicsAnswer('v3', f, c),
    doc: enrichCompanyDoc.post,
  }),
  // v2 is superseded by v3: every answer (errors included) says so.
  leadRoute({
    path: '/v2/people/enrichment',
    group: 'company-firmographics',
    body: FirmographicsV2,
    charges: 'company-firmographics-v2',
    scores: never,
    segments: true,
    answer: (f, c) => firmographicsAnswer('v2', f, c),
    doc: enrichCompanyV2Doc.post,
    headers: V2_DEPRECATION_HEADERS,
  }),
  leadRoute({
    path: '/v2/people/full',
    group: 'lead-scoring-firmographics',
    body: Combined,
    charges: 'lead-scoring-firmographics',
    scores: (caller) => combinedHasScores(caller.customer),
    segments: true,
    answer: combinedAnswer,
    doc: scoreAndEnrichLeadDoc.post,
  }),
  leadRoute({
    path: '/v2/people/score',
    group: 'lead-scoring',
    body: LeadScoring,
    scores: always,
    segments: false,
    answer: leadScoringAnswer,
    doc: scoreLeadDoc.post,
  }),
];

function context(caller: Caller, catalog: Pick<Catalog, 'topics'>): AnswerContext {
  return { customer: caller.customer, settings: caller.settings, now: new Date(), topics: (id) => followedTopics(catalog.topics, caller.customer.topics, id) };
}

/**
 * The catalog lookups of one request, on one data snapshot. The facts only scores read (intent signals,
 * engagement, the company's page views) are looked up only when the answer carries scores: a
 * firmographics answer never does, and skipping them saved a catalog query and a visit-store query per
 * request (measured with `npm run bench -- enrichment`, see bench/RESULTS.md).
 */
async function lookupLead(deps: Services, body: LeadBody, caller: Caller, now: Date, scores: boolean, segments: boolean): Promise<LeadFacts> {
  const { catalog } = deps.dataset.current;
  const resolution = resolveCompany(
    { email: body.email, domain: body.domain || body.website, hints: { country: body.country, company: body.company, industry: body.industry } },
    catalog,
  );
  const person = resolution.outcome === 'invalid-email' ? null : resolution.person;
  const company = resolution.outcome === 'found' ? resolution.company : null;
  // The account's facts only for a customer whose segment rules read them; they hold the scores' page views too.
  const account = segments ? await leadAccountFacts(accountSources(deps, catalog), caller.customer, company?.company_id ?? null, now) : undefined;
  return {
    resolution,
    title: classifyTitle(leadTitle(person, body.title)),
    signals: scores && resolution.outcome === 'found' ? catalog.intent(resolution.company.company_id) : [],
    engagement: scores && person ? catalog.engagement(person.people_id) : [],
    pageViews:
      scores && resolution.outcome === 'found' && deps.recorder && caller.customer.products.length > 0
        ? (account?.scoringPages ?? (await recentPageViews(deps.recorder, caller.customer.id, resolution.company.company_id, now)))
        : [],
    account,
  };
}
