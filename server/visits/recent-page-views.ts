/** The scoring input of first-party intent: an account's page views inside the model's window. */
import { FIRST_PARTY_WINDOW_DAYS, type PageViewSummary } from '../scoring/model.ts';
import type { PageViewRecorder } from './recorder.ts';

export function recentPageViews(recorder: PageViewRecorder, customerId: string, companyId: string, now: Date): Promise<PageViewSummary[]> {
  const from = new Date(now.getTime() - FIRST_PARTY_WINDOW_DAYS * 86_400_000).toISOString().slice(0, 10);
  return recorder.visits.accountPages(customerId, companyId, from, now.toISOString().slice(0, 10));
}
