/**
 * Enrichment items answered one by one as `POST /v1/enrichment/company` answers each (`firmographicsAnswer('v3', …)`
 * on the same lookups), with its HTTP status as `status`:
 *   200 {status, company, segments}                             found: charged as the single route
 *   404 {status, message, code: not_found, company, segments}   the single route's 404 body (every field null)
 *   422 {status, message, code: invalid}                        the item is not {email} or {domain}
 *   402 {status, message, code: quota_exhausted}                found, but no credit left for it
 *   503 {status, message, code: unavailable}                    found, but the state store could not charge it now
 * What `POST /v3/batch/enrichment` (./batch-route.ts) answers, and what `svc enrich` (server/cli/enrich-job.ts)
 * writes per row: both charge through the pipeline's credit step, so a file row answers and costs exactly
 * what an API item does.
 */
import { ApiError } from '../../core/error-codes.ts';
import type { ChargeableApi } from '../credits/rules.ts';
import { parseFields } from '../http/body.ts';
import { codeOfStatus } from '../http/errors.ts';
import type { RouteResult } from '../http/route-def.ts';
import { classifyTitle } from '../scoring/title-classifier.ts';
import { type AnswerContext, firmographicsAnswer, type LeadFacts, leadTitle } from './answers.ts';
import { BatchItem, type BatchResult } from './batch-schema.ts';
import { type CompanyLookups, resolveCompany } from './resolve-company.ts';

type Charge = { api: ChargeableApi; record: string };

export interface BatchDeps {
  /** The data snapshot of the whole batch. */
  catalog: CompanyLookups;
  /** The customer, the caller's settings (segment names) and the time: what the single route's answer reads. */
  context: AnswerContext;
  /** The pipeline's credit step for one record; rejects with ApiError `quota_exhausted` or `unavailable`. */
  charge(charge: Charge): Promise<void>;
}

/** Hints the single route passes when the body carries none (items carry none). */
const NO_HINTS = { country: '', company: '', industry: '' };

/** The single route's lookups for a firmographics answer (no scores: no intent, engagement or page views). */
function facts(item: BatchItem, catalog: CompanyLookups): LeadFacts {
  const resolution = resolveCompany({ email: item.email, domain: item.domain, hints: NO_HINTS }, catalog);
  const person = resolution.outcome === 'invalid-email' ? null : resolution.person;
  return { resolution, title: classifyTitle(leadTitle(person, '')), signals: [], engagement: [], pageViews: [] };
}

/** What the single route answers for one item (before its charge), or the item's own 422. */
function answerOf(item: unknown, deps: BatchDeps): RouteResult {
  let parsed: BatchItem;
  try {
    parsed = parseFields(BatchItem, item);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    // BatchItem marks no issue `blank`: a blank item is 422 `invalid` here, not the single route's 400.
    return { status: 422, body: { status: 'error', message: e.message, code: 'invalid' } };
  }
  return firmographicsAnswer('v3', facts(parsed, deps.catalog), deps.context);
}

/**
 * One result per item, in order. Every charge of the batch is asked for in the same turn, in item order:
 * the store meters a turn's charges in arrival order (one SQLite transaction, one Redis script per
 * customer), so when the credits run out mid-batch the earlier items are charged and answered and the later
 * found ones are 402 — and a company twice in the batch is charged once (the month's dedup, as for single calls).
 */
export async function enrichItems(items: readonly unknown[], deps: BatchDeps): Promise<BatchResult[]> {
  const answers = items.map((item) => answerOf(item, deps));
  const charged = await Promise.allSettled(answers.map((a) => (a.status === 200 && a.charge ? deps.charge(a.charge) : undefined)));
  return answers.map((a, i) => {
    const body = a.body as Record<string, unknown>;
    if (a.status !== 200) return { ...body, status: a.status, code: (body.code as string | undefined) ?? codeOfStatus(a.status) } as BatchResult;
    const outcome = charged[i]!;
    if (outcome.status === 'fulfilled') return { status: 200, ...body } as BatchResult;
    const err = outcome.reason;
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, message: err.message, code: err.code } as BatchResult;
  });
}
