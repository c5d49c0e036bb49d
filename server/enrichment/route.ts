/**
 * The company-level server-to-server routes (spec endpoints 2–5), each on the shared pipeline
 * (auth → 403 → 429 → input → lookup → 402 → 200/404):
 *   POST /v1/enrichment/company  Company Firmographics v3         group company-firmographics
 *   POST /v2/people/enrichment   Company Firmographics v2         group company-firmographics (deprecated)
 *   POST /v2/people/full         Lead Scoring and Firmographics   group lead-scoring-firmographics
 *   POST /v2/people/score        Lead Scoring                     group lead-scoring
 * Bodies: form-encoded or JSON (`request-body.ts`); shapes: `schema.ts`; decisions: `answers.ts`.
 */
import type { Request, Router } from 'express';
import type { z } from 'zod';
import type { ApiGroup } from '../../core/customer-records.ts';
import { authenticateToken, type Caller } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import type { Dataset } from '../data/dataset.ts';
import { type ApiResult, apiRoute } from '../http/api-route.ts';
import type { MeteringSteps } from '../http/pipeline.ts';
import { classifyTitle } from '../people/title-classifier.ts';
import type { AccessRecords } from '../state/store.ts';
import { recentPageViews } from '../visits/recent-page-views.ts';
import type { PageViewRecorder } from '../visits/recorder.ts';
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
import { parseInput, readBody } from './request-body.ts';
import { resolveCompany } from './resolve-company.ts';
import { CombinedBody, FirmographicsV2Body, FirmographicsV3Body, type LeadBody, LeadScoringBody } from './schema.ts';

export interface EnrichmentDeps {
  config: Config;
  store: AccessRecords;
  dataset: Dataset;
  pipeline: MeteringSteps;
  /** The company's page views on the customer's own site: first-party intent in the scores. */
  recorder?: PageViewRecorder;
}

export function mountEnrichment(router: Router, deps: EnrichmentDeps): void {
  /** `scores`: whether this route's answer for this customer carries scores (and so needs their facts). */
  const route = <S extends z.ZodType<LeadBody>>(
    group: ApiGroup,
    schema: S,
    scores: (caller: Caller) => boolean,
    answer: (facts: LeadFacts, ctx: AnswerContext) => ApiResult,
  ) =>
    apiRoute(
      deps.pipeline,
      (req) => authenticateToken(deps.store, req, group),
      async (req: Request, caller: Caller) => {
        const body = parseInput(schema, await readBody(req));
        const ctx = context(caller);
        return answer(await lookupLead(deps, body, caller, ctx.now, scores(caller)), ctx);
      },
    );
  const never = () => false;
  const always = () => true;

  router.post(
    '/v1/enrichment/company',
    route('company-firmographics', FirmographicsV3Body, never, (f, c) => firmographicsAnswer('v3', f, c)),
  );
  // v2 is superseded by v3: every answer (errors included) says so.
  router.post(
    '/v2/people/enrichment',
    (_req, res, next) => {
      res.set(V2_DEPRECATION_HEADERS);
      next();
    },
    route('company-firmographics', FirmographicsV2Body, never, (f, c) => firmographicsAnswer('v2', f, c)),
  );
  router.post(
    '/v2/people/full',
    route('lead-scoring-firmographics', CombinedBody, (caller) => combinedHasScores(caller.customer), combinedAnswer),
  );
  router.post('/v2/people/score', route('lead-scoring', LeadScoringBody, always, leadScoringAnswer));
}

function context(caller: Caller): AnswerContext {
  return { customer: caller.customer, settings: caller.settings, now: new Date() };
}

/**
 * The catalog lookups of one request, on one data snapshot. The facts only scores read (intent signals,
 * engagement, the company's page views) are looked up only when the answer carries scores: a
 * firmographics answer never does, and skipping them saved a catalog query and a visit-store query per
 * request (measured with `npm run bench -- enrichment`, see bench/RESULTS.md).
 */
async function lookupLead(deps: EnrichmentDeps, body: LeadBody, caller: Caller, now: Date, scores: boolean): Promise<LeadFacts> {
  const { catalog } = deps.dataset.current;
  const resolution = resolveCompany(
    { email: body.email, domain: body.domain || body.website, hints: { country: body.country, company: body.company, industry: body.industry } },
    catalog,
  );
  const person = resolution.outcome === 'invalid-email' ? null : resolution.person;
  return {
    resolution,
    title: classifyTitle(leadTitle(person, body.title)),
    signals: scores && resolution.outcome === 'found' ? catalog.intent(resolution.company.company_id) : [],
    engagement: scores && person ? catalog.engagement(person.people_id) : [],
    pageViews:
      scores && resolution.outcome === 'found' && deps.recorder && caller.customer.products.length > 0
        ? await recentPageViews(deps.recorder, caller.customer.id, resolution.company.company_id, now)
        : [],
  };
}
