/**
 * The scoring input of first-party intent: an account's page views inside the model's window. Beside the
 * model (identification, enrichment, segments, webhooks and the account page all read it), over the
 * little of the page-view recorder (server/visits/recorder.ts) it needs.
 */
import { FIRST_PARTY_WINDOW_DAYS, type PageViewSummary } from './model.ts';

/** Where the window's page views are read: a page-view recorder's visit store, and where a failure is reported. */
export interface FirstPartySource {
  readonly visits: { accountPages(customerId: string, companyId: string, from: string, to: string): Promise<PageViewSummary[]> };
  reportError(error: unknown): void;
}

/**
 * Scores without first-party intent when the visit store cannot answer (Redis down): page views only add
 * to a score, so an outage must not turn lookups (which continue on their allowance) into errors (it is logged).
 */
export async function recentPageViews(recorder: FirstPartySource, customerId: string, companyId: string, now: Date): Promise<PageViewSummary[]> {
  const { from, to } = firstPartyWindow(now);
  try {
    return await recorder.visits.accountPages(customerId, companyId, from, to);
  } catch (e) {
    recorder.reportError(e);
    return [];
  }
}

/**
 * The window's first and last UTC day, formatted once per day: two Date objects and two toISOString on
 * every scored Match were ~0.4% of a tag-mode lookup (--cpu-prof), for a value that changes daily.
 */
let window = { dayNumber: Number.NaN, from: '', to: '' };

export function firstPartyWindow(now: Date): { from: string; to: string } {
  const t = now.getTime();
  const dayNumber = Math.floor(t / 86_400_000);
  if (dayNumber !== window.dayNumber) {
    window = {
      dayNumber,
      from: new Date(t - FIRST_PARTY_WINDOW_DAYS * 86_400_000).toISOString().slice(0, 10),
      to: now.toISOString().slice(0, 10),
    };
  }
  return window;
}
