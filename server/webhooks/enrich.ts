/**
 * The facts enriched payloads carry (EnrichedFacts, ./events.ts), gathered for one page view: the company
 * as identification answers it, its segments, its scores per product, the visit's pages and the account's
 * session count, and (v3) its engaged time and custom events. Gathered only for a customer with an endpoint that needs them (./service.ts), after the
 * page view was answered: this is the webhook path, not the request path.
 *
 * The visit store may fail (Redis down): the payload then carries the view alone (one page, one session)
 * and scores without first-party intent, rather than no event.
 *
 * `segment.entered`: the account's segments are remembered per view (VisitStore.swapAccountSegments, one
 * atomic step); a segment in this view's and not in the previous view's was entered. An account with no
 * remembered view (its first since an endpoint needed enrichment) enters every segment it is in.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { Catalog } from '../data/catalog.ts';
import { firmographics } from '../identification/identify.ts';
import { recentPageViews } from '../scoring/first-party.ts';
import { companyScores } from '../scoring/model.ts';
import { readEngagementSummary, type SummaryLimits } from '../visits/engagement-summary.ts';
import type { PageViewRecorder } from '../visits/recorder.ts';
import type { EnrichedFacts, PageViewForWebhooks } from './events.ts';
import { ENGAGEMENT_DAYS } from './payloads.ts';

/** What a v3 payload lists of the account's engagement at most (payloads.ts documents the same). */
const WEBHOOK_LIMITS: SummaryLimits = { pages: 10, events: 10, recent: 5 };

export interface EnrichDeps {
  catalog: () => Catalog;
  recorder: PageViewRecorder;
}

/** The facts of the view's account, or undefined when the catalog no longer knows the company. */
export async function enrichedFacts(deps: EnrichDeps, customer: CustomerRecord, view: PageViewForWebhooks): Promise<EnrichedFacts | undefined> {
  if (!view.company_id) return undefined;
  const catalog = deps.catalog();
  const company = catalog.company(view.company_id);
  if (!company) return undefined;
  const now = new Date(view.at);
  const to = view.day;
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (ENGAGEMENT_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const [pageViews, sessions, before, engagement] = await Promise.all([
    customer.products.length > 0 ? recentPageViews(deps.recorder, customer.id, company.company_id, now) : Promise.resolve([]),
    deps.recorder.visits.accountSessions(customer.id, company.company_id).catch((e: unknown) => {
      deps.recorder.reportError(e);
      return [];
    }),
    // The account's segments at its previous view: those it is in now and was not then, it entered. A store
    // that cannot answer enters nothing (rather than everything: no burst of events after an outage).
    deps.recorder.visits.swapAccountSegments(customer.id, company.company_id, view.segment_ids, view.at).catch((e: unknown) => {
      deps.recorder.reportError(e);
      return view.segment_ids;
    }),
    // v3's engagement (a store that cannot answer: none, reported).
    readEngagementSummary(deps.recorder.engagement, customer.id, company.company_id, { from, to }, deps.recorder.reportError, WEBHOOK_LIMITS),
  ]);
  const session = sessions.find((s) => s.session_id === view.session_id);
  // The view's segments are the recorder's (evaluated with the account's intent and behaviour facts).
  const byId = new Map(customer.segments.map((s) => [s.id, s.name]));
  const was = new Set(before ?? []);
  return {
    company: firmographics(company),
    segments: view.segment_ids.map((id) => ({ id, name: byId.get(id) ?? String(id) })),
    entered_segment_ids: view.segment_ids.filter((id) => !was.has(id)),
    scores: scoresOf(customer, company, catalog, pageViews, now),
    visit: {
      session_id: view.session_id,
      pages: session ? session.pages.map((p) => ({ path: p.path, at: p.at })) : [{ path: view.path, at: view.at }],
      session_count: Math.max(1, sessions.length),
    },
    engagement,
  };
}

function scoresOf(customer: CustomerRecord, company: CompanyRow, catalog: Catalog, pageViews: Awaited<ReturnType<typeof recentPageViews>>, now: Date) {
  if (customer.products.length === 0) return [];
  const hotAccount = customer.hot_accounts.find((h) => h.company_id === company.company_id);
  return companyScores({ company, signals: catalog.intent(company.company_id), pageViews, products: customer.products, hotAccount, now });
}
