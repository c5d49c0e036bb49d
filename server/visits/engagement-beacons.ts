/**
 * Engaged time and custom events from the web tag (`POST /v1/events`, the beacons of ./beacon.ts besides
 * page views), recorded after the 204 like a page view: the visitor's company by the page views' own rule
 * (./coverage.ts: a Match only; bots, privacy networks, ISPs, hosting and no data are anonymous, and an
 * anonymous visitor's engagement is not kept: there is no account to attribute it to), the path as the
 * account page shows pages (./page-path.ts: query parameters collapsed but the customer's kept ones), a
 * custom event's properties scrubbed by the privacy rules (./custom-event.ts). Nothing here may throw: the
 * answer is gone, so a failure is reported, never a crash.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { Services } from '../services.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import { type CustomEventBeacon, cleanPath, type EngagementBeacon } from './beacon.ts';
import { visitorAt } from './coverage.ts';
import { scrubProperties } from './custom-event.ts';
import { collapsePath } from './page-path.ts';

export interface EngagementBeaconInput {
  customer: Pick<CustomerRecord, 'id' | 'kept_query_params'>;
  /** The visitor's company on a Match, else null (nothing is kept). */
  company: CompanyRow | null;
  beacon: EngagementBeacon | CustomEventBeacon;
  at: Date;
}

/** The page a beacon's path counts under: its query collapsed but the kept parameters (as the account page's pages). */
export function engagementPath(raw: string, kept: readonly string[] = []): string {
  return collapsePath(cleanPath(raw, kept), kept);
}

/** Records one beacon of an identified visitor in the engagement store (absent: nothing is kept). */
export async function recordEngagementBeacon(store: EngagementStore | undefined, input: EngagementBeaconInput): Promise<void> {
  const { customer, company, beacon, at } = input;
  if (!store || !company) return;
  const kept = customer.kept_query_params ?? [];
  const path = engagementPath(beacon.path, kept);
  if (beacon.type === 'engagement') {
    await store.addEngagedTime({ customer_id: customer.id, company_id: company.company_id, day: at.toISOString().slice(0, 10), path, ms: beacon.engaged_ms });
    return;
  }
  await store.addEvent({
    customer_id: customer.id,
    company_id: company.company_id,
    at: at.toISOString(),
    name: beacon.name,
    path,
    properties: scrubProperties(beacon.properties, kept).kept,
  });
}

/**
 * After the 204 (./events-route.ts): the tag's sighting, then on the next turn of the event loop the
 * visitor's company and the record. A tag whose settings turn page views off records none of these either
 * (engaged time and custom events are part of the page-views feature).
 */
export function recordEngagementAfter(
  services: Pick<Services, 'recorder' | 'dataset' | 'log'>,
  caller: Caller,
  beacon: EngagementBeacon | CustomEventBeacon,
  request: { at: Date; ip: string | null; bot: boolean; origin: string | null },
): void {
  const tag = caller.tag!;
  const fail = (e: unknown) =>
    services.log.error(`${beacon.type} not recorded (tag ${tag.tag_id}): ${(e as Error)?.stack ?? (e as Error)?.message ?? String(e)}`);
  try {
    services.recorder.tagSeen(tag.tag_id, request.origin, request.at);
  } catch (e) {
    fail(e);
  }
  if (tag.settings.features?.page_views === false) return;
  setImmediate(() => {
    try {
      const { company } = visitorAt(services.dataset.current, request.ip, request.bot);
      recordEngagementBeacon(services.recorder.engagement, { customer: caller.customer, company, beacon, at: request.at }).catch(fail);
    } catch (e) {
      fail(e);
    }
  });
}
