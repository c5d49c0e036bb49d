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
import type { ApiGroup } from '../../data/sources/schema.ts';
import { authenticateToken, type Caller } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import type { Dataset } from '../data/dataset.ts';
import { apiRoute, type ApiResult, type Pipeline } from '../http/api-route.ts';
import { classifyTitle } from '../people/title-classifier.ts';
import type { AccessRecords } from '../state/store.ts';
import { combinedAnswer, firmographicsAnswer, leadScoringAnswer, leadTitle, V2_DEPRECATION_HEADERS, type AnswerContext, type LeadFacts } from './answers.ts';
import { parseInput, readBody } from './request-body.ts';
import { resolveCompany } from './resolve-company.ts';
import { CombinedBody, FirmographicsV2Body, FirmographicsV3Body, LeadScoringBody, type LeadBody } from './schema.ts';

export interface EnrichmentDeps {
  config: Config;
  store: AccessRecords;
  dataset: Dataset;
  pipeline: Pipeline;
}

export function mountEnrichment(router: Router, deps: EnrichmentDeps): void {
  const route = <S extends z.ZodType<LeadBody>>(group: ApiGroup, schema: S, answer: (facts: LeadFacts, ctx: AnswerContext) => ApiResult) =>
    apiRoute(
      deps.pipeline,
      (req) => authenticateToken(deps.store, req, group),
      async (req: Request, caller: Caller) => {
        const body = parseInput(schema, await readBody(req));
        return answer(lookupLead(deps, body), context(caller));
      },
    );

  router.post('/v1/enrichment/company', route('company-firmographics', FirmographicsV3Body, (f, c) => firmographicsAnswer('v3', f, c)));
  // v2 is superseded by v3: every answer (errors included) says so.
  router.post('/v2/people/enrichment', (_req, res, next) => {
    res.set(V2_DEPRECATION_HEADERS);
    next();
  }, route('company-firmographics', FirmographicsV2Body, (f, c) => firmographicsAnswer('v2', f, c)));
  router.post('/v2/people/full', route('lead-scoring-firmographics', CombinedBody, combinedAnswer));
  router.post('/v2/people/score', route('lead-scoring', LeadScoringBody, leadScoringAnswer));
}

function context(caller: Caller): AnswerContext {
  return { customer: caller.customer, settings: caller.settings, now: new Date() };
}

/** The catalog lookups of one request, on one data snapshot. */
function lookupLead(deps: EnrichmentDeps, body: LeadBody): LeadFacts {
  const { catalog } = deps.dataset.current;
  const resolution = resolveCompany(
    { email: body.email, domain: body.domain || body.website, hints: { country: body.country, company: body.company, industry: body.industry } },
    catalog,
  );
  const person = resolution.outcome === 'invalid-email' ? null : resolution.person;
  return {
    resolution,
    title: classifyTitle(leadTitle(person, body.title)),
    signals: resolution.outcome === 'found' ? catalog.intent(resolution.company.company_id) : [],
    engagement: person ? catalog.engagement(person.people_id) : [],
  };
}
