/** The scoring input of first-party intent: an account's page views inside the model's window. */
import { FIRST_PARTY_WINDOW_DAYS, type PageViewSummary } from '../scoring/model.ts';
import type { PageViewRecorder } from './recorder.ts';

/**
 * Scores without first-party intent when the visit store cannot answer (Redis down): page views only add
 * to a score, so an outage must not turn lookups (which continue on their allowance) into errors (it is logged).
 */
export async function recentPageViews(recorder: PageViewRecorder, customerId: string, companyId: string, now: Date): Promise<PageViewSummary[]> {
  const from = new Date(now.getTime() - FIRST_PARTY_WINDOW_DAYS * 86_400_000).toISOString().slice(0, 10);
  try {
    return await recorder.visits.accountPages(customerId, companyId, from, now.toISOString().slice(0, 10));
  } catch (e) {
    recorder.reportError(e);
    return [];
  }
}
