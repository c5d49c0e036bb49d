/**
 * Enrichment items answered one by one as `POST /v1/enrichment/company` answers each (`firmographicsAnswer('v3', …)`
 * on the same lookups), with its HTTP status as `status`:
 *   200 {status, company, segments}                             found: charged as the single route
 *   404 {status, message, code: not_found, company, segments}   the single route's 404 body (every field null)
 *   422 {status, message, code: invalid}                        the item is not {email} or {domain}
 *   402 {status, message, code: quota_exhausted}                found, but no credit left for it
 *   503 {status, message, code: unavailable}                    found, but the state store could not charge it now
 * What `POST /v3/batch/enrichment` (./batch-route.ts) answers, and what `svc enrich` (server/cli/enrich-job.ts)
 * writes per row: both charge through the pipeline's credit step, and read the account's facts (page views,
 * intent, the CRM side) as the single route does (./account-sources.ts), so a file row answers — its
 * segments included — and costs exactly what an API item does.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import type { ChargeableApi } from '../credits/rules.ts';
import { parseFields } from '../http/body.ts';
import { codeOfStatus } from '../http/errors.ts';
import type { RouteResult } from '../http/route-def.ts';
import { classifyTitle } from '../scoring/title-classifier.ts';
import type { GatheredFacts } from '../segments/account-facts.ts';
import { type AccountSources, batchAccountFacts } from './account-sources.ts';
import { type AnswerContext, firmographicsAnswer, type LeadFacts, leadTitle } from './answers.ts';
import { BatchItem, type BatchResult } from './batch-schema.ts';
import { type CompanyLookups, type CompanyResolution, resolveCompany } from './resolve-company.ts';

type Charge = { api: ChargeableApi; record: string };

export interface BatchDeps {
  /** The data snapshot of the whole batch. */
  catalog: CompanyLookups;
  /** The customer, the caller's settings (segment names) and the time: what the single route's answer reads. */
  context: AnswerContext & { customer: Pick<CustomerRecord, 'id'> };
  /** Where the accounts' facts are read, as the single route reads them (./account-sources.ts). */
  accounts: AccountSources;
  /** The pipeline's credit step for one record; rejects with ApiError `quota_exhausted` or `unavailable`. */
  charge(charge: Charge): Promise<void>;
}

/** Hints the single route passes when the body carries none (items carry none). */
const NO_HINTS = { country: '', company: '', industry: '' };

/** The single route's lookups for a firmographics answer (no scores: no intent, engagement or page views), its account's facts apart. */
function facts(resolution: CompanyResolution, account: GatheredFacts | undefined): LeadFacts {
  const person = resolution.outcome === 'invalid-email' ? null : resolution.person;
  return { resolution, title: classifyTitle(leadTitle(person, '')), signals: [], engagement: [], pageViews: [], account };
}

/** An item's company resolved as the single route resolves it, or the item's own 422 answer. */
function resolveItem(item: unknown, catalog: CompanyLookups): CompanyResolution | RouteResult {
  let parsed: BatchItem;
  try {
    parsed = parseFields(BatchItem, item);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    // BatchItem marks no issue `blank`: a blank item is 422 `invalid` here, not the single route's 400.
    return { status: 422, body: { status: 'error', message: e.message, code: 'invalid' } };
  }
  return resolveCompany({ email: parsed.email, domain: parsed.domain, hints: NO_HINTS }, catalog);
}

const isAnswer = (r: CompanyResolution | RouteResult): r is RouteResult => 'status' in r;

/** What the single route answers for each item (before its charge): the found companies' facts read first, each once. */
async function answersOf(items: readonly unknown[], deps: BatchDeps): Promise<RouteResult[]> {
  const resolved = items.map((item) => resolveItem(item, deps.catalog));
  const found = resolved.flatMap((r) => (!isAnswer(r) && r.outcome === 'found' ? [r.company.company_id] : []));
  const { customer, now } = deps.context;
  const accounts = await batchAccountFacts(deps.accounts, customer, found, now);
  return resolved.map((r) => {
    if (isAnswer(r)) return r;
    return firmographicsAnswer('v3', facts(r, r.outcome === 'found' ? accounts.get(r.company.company_id) : undefined), deps.context);
  });
}

/**
 * One result per item, in order. Every charge of the batch is asked for in the same turn, in item order:
 * the store meters a turn's charges in arrival order (one SQLite transaction, one Redis script per
 * customer), so when the credits run out mid-batch the earlier items are charged and answered and the later
 * found ones are 402 — and a company twice in the batch is charged once (the month's dedup, as for single calls).
 */
export async function enrichItems(items: readonly unknown[], deps: BatchDeps): Promise<BatchResult[]> {
  const answers = await answersOf(items, deps);
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
