/**
 * GET /admin/api/customers/:id/onboarding (workspace API, `reports:read`, the customer's own id only): the
 * onboarding checklist (steps.ts) of the caller's role, computed from what the stores hold now — the customer's tags and their
 * sightings, the visit store's identified page views, its segments, its webhook endpoints and its CRM
 * connections that need attention.
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import { may } from '../auth/principal.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { adminRoute } from '../http/admin-route.ts';
import type { RouteDef } from '../http/route-def.ts';
import type { Services } from '../services.ts';
import { retainedFrom, type VisitStore } from '../state/visits/store.ts';
import { onboardingDocs } from './docs.ts';
import { type OnboardingFacts, onboardingSteps } from './steps.ts';

/**
 * Windows (days back from today) searched for an identified view, the retention last: a customer with
 * traffic answers from the first few days, and only one with none (new, or dormant) reads every day kept.
 */
const LOOKBACK_DAYS = [7, 60] as const;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Whether the store holds an identified page view of the customer from `today` back to the retention. */
export async function hasIdentifiedVisit(visits: Pick<VisitStore, 'dailyTotals'>, customerId: string, nowMs: number): Promise<boolean> {
  const today = dayOf(nowMs);
  const froms = [...LOOKBACK_DAYS.map((d) => dayOf(nowMs - (d - 1) * 86_400_000)), retainedFrom(today)];
  let to = today;
  for (const from of froms) {
    if (from > to) continue;
    const totals = await visits.dailyTotals(customerId, from, to);
    if (totals.some((t) => t.identified > 0)) return true;
    // The next window starts where this one ended: no day is read twice.
    to = dayOf(Date.parse(`${from}T00:00:00Z`) - 86_400_000);
  }
  return false;
}

export async function onboardingFacts(
  services: Pick<Services, 'store' | 'recorder' | 'webhooks' | 'crm'>,
  customer: CustomerRecord,
  nowMs = Date.now(),
): Promise<OnboardingFacts> {
  const { store, recorder, webhooks, crm } = services;
  const [tags, identified, endpoints, connections] = await Promise.all([
    store.listTags(customer.id),
    hasIdentifiedVisit(recorder.visits, customer.id, nowMs),
    webhooks ? webhooks.webhookStore.listEndpoints(customer.id) : Promise.resolve([]),
    crm ? crm.deps.crm.listConnections(customer.id) : Promise.resolve([]),
  ]);
  const sightings = tags.length > 0 ? await recorder.visits.tagSightings(tags.map((t) => t.tag_id)) : [];
  return {
    customer_id: customer.id,
    tags: tags.length,
    tag_seen: sightings.length > 0,
    identified_visit: identified,
    segments: customer.segments.length,
    webhooks: endpoints.length,
    crm_attention: connections
      .filter((c) => c.status === 'needs_attention')
      .sort((a, b) => (a.provider < b.provider ? -1 : 1))
      .map((c) => ({ provider: c.provider, message: c.attention })),
  };
}

export const onboardingRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/onboarding',
    access: { permission: 'reports:read', customer: { from: 'param', name: 'id' } },
    doc: onboardingDocs.get,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const principal = ctx.principal!;
      return { status: 200, body: onboardingSteps(await onboardingFacts(ctx.services, customer), (p) => may(principal, p)) };
    },
  }),
];
