/**
 * The account facts an enrichment answer's segments read (visits, intent, the CRM side: ../segments/
 * account-facts.ts), gathered the same way on every surface that answers a lead: the single routes
 * (./route.ts), `POST /v3/batch/enrichment` (./batch.ts) and the file jobs of `svc enrich` and the console
 * upload (./jobs/file-job.ts). One function, so a segment that reads page views or intent holds for an
 * account on a file row exactly when it holds in the API's answer — the batch and the files once evaluated
 * the rules without the facts, and answered only the catalog-field segments.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import { type FactsSources, type GatheredFacts, gatherAccountFacts } from '../segments/account-facts.ts';
import type { Services } from '../services.ts';

export type AccountSources = FactsSources;

/** Where the app's routes read the facts: its visit, engagement and CRM stores, and the request's data snapshot (intent signals, topics). */
export function accountSources(services: Pick<Services, 'recorder' | 'crm'>, catalog: AccountSources['catalog']): AccountSources {
  const { recorder, crm } = services;
  return { catalog, visits: recorder?.visits, engagement: recorder?.engagement, crm: crm?.deps.crm, onError: (e) => recorder?.reportError(e) };
}

/**
 * The facts of a found company's account for its answer, or undefined without a company or when none of
 * the customer's rules reads any (`gatherAccountFacts` reads nothing then).
 */
export function leadAccountFacts(
  sources: AccountSources,
  customer: Pick<CustomerRecord, 'id' | 'segments' | 'products'>,
  companyId: string | null,
  now: Date,
): Promise<GatheredFacts | undefined> {
  return companyId === null ? Promise.resolve(undefined) : gatherAccountFacts(sources, customer, companyId, now);
}

/** The facts of each distinct company of a batch, read at once (a company twice in a batch is read once). */
export async function batchAccountFacts(
  sources: AccountSources,
  customer: Pick<CustomerRecord, 'id' | 'segments' | 'products'>,
  companyIds: Iterable<string>,
  now: Date,
): Promise<ReadonlyMap<string, GatheredFacts | undefined>> {
  const ids = [...new Set(companyIds)];
  const facts = await Promise.all(ids.map((id) => leadAccountFacts(sources, customer, id, now)));
  return new Map(ids.map((id, i) => [id, facts[i]]));
}
