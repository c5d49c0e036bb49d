/**
 * The console's home page (workspace API, `reports:read`, the customer's own ids only):
 *   GET /admin/api/customers/:id/home?from&to   this period against the one before it (summary.ts)
 *
 * Reads only precomputed aggregates, never raw views nor every account of a period: per period the visit
 * store's periodSummary — the per-day rollup of its days (daily totals, distinct accounts, accounts first
 * seen, segment entries) and its STAGE_ACCOUNTS most active accounts from each day's accounts ranked by
 * views (server/state/visits/rollup.ts, top-accounts.ts); then, for those accounts, each one's page views
 * over the scoring window and its intent signals (in memory). What it reads is bounded by the period's
 * days and STAGE_ACCOUNTS, not by the catalog, the accounts that visited or the page views.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import { hashForAccount } from '../../core/console-links.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteContext, RouteDef } from '../http/route-def.ts';
import { needsEnrichment } from '../webhooks/events.ts';
import { homeDocs } from './docs.ts';
import { buildHome, HomeQuery, type Period, type PeriodReads, STAGE_ACCOUNTS, type StageMove, scoredAccounts, scoringWindow, stageMove } from './summary.ts';

/**
 * Segment entries are counted where the account's segments are remembered: on the webhook path, for a
 * customer with an endpoint that needs segment facts (server/webhooks/enrich.ts). Without one, none are
 * counted, and the figure says so (null) rather than 0.
 */
async function countsSegmentEntries(ctx: RouteContext, customerId: string): Promise<boolean> {
  const outbox = ctx.services.webhooks?.webhookStore;
  if (!outbox) return false;
  return (await outbox.listEndpoints(customerId)).some(needsEnrichment);
}

/** Accounts scored between two turns of the event loop. */
const SCORED_PER_TURN = 50;
/**
 * The next turn of the event loop. A SQLite store answers in the same turn, so without it one call would
 * hold the loop for all of its reads and scoring; with it, requests and I/O run between its steps.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function readPeriod(ctx: RouteContext, customer: CustomerRecord, period: Period, segmentsCounted: boolean, now: Date): Promise<PeriodReads> {
  const { visits } = ctx.services.recorder;
  const { catalog } = ctx.services.dataset.current;
  const summary = await visits.periodSummary(customer.id, period.from, period.to, STAGE_ACCOUNTS);
  const accounts = summary.top;
  const window = scoringWindow(period);
  const stages = new Map<string, StageMove | null>();
  const scored = scoredAccounts(accounts);
  for (let i = 0; i < scored.length; i += SCORED_PER_TURN) {
    await nextTurn();
    await Promise.all(
      scored.slice(i, i + SCORED_PER_TURN).map(async (a) => {
        const company = catalog.company(a.company_id);
        // A company the catalog no longer holds has no stage; it still counts as a visiting account.
        if (!company) return;
        const views = customer.products.length > 0 ? await visits.accountPages(customer.id, a.company_id, window.from, window.to) : [];
        stages.set(a.company_id, stageMove({ customer, company, signals: catalog.intent(a.company_id), views, period, now }));
      }),
    );
  }
  return {
    period,
    identifiedAccounts: summary.accounts,
    accounts,
    daily: summary.daily,
    newAccounts: summary.new_accounts,
    segmentEntries: segmentsCounted ? summary.segment_entries : null,
    stages,
  };
}

export const homeRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/home',
    access: { permission: 'reports:read', customer: { from: 'param', name: 'id' } },
    doc: homeDocs.get,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const query = parseRecord(HomeQuery, { from: ctx.req.query.from, to: ctx.req.query.to });
      const now = new Date();
      const segmentsCounted = await countsSegmentEntries(ctx, customer.id);
      const [current, previous] = await Promise.all([
        readPeriod(ctx, customer, query.current, segmentsCounted, now),
        readPeriod(ctx, customer, query.previous, segmentsCounted, now),
      ]);
      const scored = [...current.stages.keys()];
      const days = await ctx.services.recorder.visits.firstSeenDays(customer.id, scored);
      const { catalog } = ctx.services.dataset.current;
      const body = buildHome({
        customer,
        current,
        previous,
        firstSeen: new Map(scored.map((id, i) => [id, days[i] ?? null])),
        company: (id) => catalog.company(id),
        link: (companyId) => `/console/${hashForAccount(customer.id, companyId)}`,
      });
      return { status: 200, body };
    },
  }),
];
