/**
 * `POST /v1/events?tag=<tagId>` — page views from the web tag (`navigator.sendBeacon`, a `text/plain` JSON
 * body, so no preflight). The same checks as a tag lookup, in the documented order: 401 unknown tag →
 * 403 page not on an allowed domain (no CORS header then) → 429 the tag's rate limits (page views and
 * lookups of a tag share its counters) → 400 bad body / 413 over BEACON_LIMIT_BYTES. Then 204 at once;
 * the visitor's company is resolved and the view recorded after the answer has gone. Never charged.
 * A tag whose settings turn page views off (`features.page_views: false`) records nothing.
 */
import { isbot } from 'isbot';
import { ApiError } from '../../core/error-codes.ts';
import { isHostAllowed } from '../auth/allowed-origin.ts';
import type { Caller, HeaderSource } from '../auth/authenticate.ts';
import { visitorAt } from '../data/network-company.ts';
import { apiRoute, type RouteDef } from '../http/route-def.ts';
import { corsPreflight, type PreflightRule, tagVisitorAddress } from '../http/tag-mode.ts';
import type { Services } from '../services.ts';
import { BEACON_LIMIT_BYTES, cleanPath, type PageViewBeacon, parseBeacon, referrerHost } from './beacon.ts';
import { pageViewDocs } from './docs.ts';
import { recordEngagementAfter } from './engagement-beacons.ts';

const VARY_ORIGIN = { Vary: 'Origin' } as const;
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

export const pageViewRoutes: RouteDef[] = [
  apiRoute<string>({
    method: 'POST',
    path: '/v1/events',
    auth: { kind: 'tag' },
    headers: VARY_ORIGIN,
    // Any Content-Type: sendBeacon sends text/plain, a hand-written client may send application/json.
    body: { types: 'text', limit: BEACON_LIMIT_BYTES },
    doc: pageViewDocs.post,
    handler(ctx) {
      const caller = ctx.caller!;
      const parsed = parseBeacon(ctx.body);
      if (!parsed.ok) throw new ApiError('invalid', parsed.message, {}, 400);
      const view: ViewFacts = {
        at: new Date(),
        // As a lookup in tag mode; a bad `test_ip` is its 422, before the 204.
        ip: tagVisitorAddress(ctx.services.config, caller, ctx.req.ip, ctx.req.query.test_ip),
        bot: isbot(ctx.req.get('user-agent') ?? ''),
        origin: pageOrigin(ctx.req),
      };
      const { beacon } = parsed;
      // Engaged time and custom events (./engagement-beacons.ts) come the same way, after the same checks.
      const after =
        beacon.type === 'pageview' ? () => recordView(ctx.services, caller, beacon, view) : () => recordEngagementAfter(ctx.services, caller, beacon, view);
      return { status: 204, headers: NO_STORE, after };
    },
  }),
  apiRoute({
    method: 'OPTIONS',
    path: '/v1/events',
    auth: { kind: 'public' },
    headers: VARY_ORIGIN,
    doc: pageViewDocs.options,
    handler: (ctx) => corsPreflight(ctx, PREFLIGHT),
  }),
];

/** What the answer knew of the request, for the view recorded after it. */
interface ViewFacts {
  at: Date;
  ip: string | null;
  bot: boolean;
  origin: string | null;
}

/**
 * After the 204: the tag's sighting, then (on the next turn of the event loop) the visitor's company and the
 * recorded view. Nothing here may throw: the answer is gone, so a failure is logged, never a crash.
 */
function recordView(services: Services, caller: Caller, beacon: PageViewBeacon, view: ViewFacts): void {
  const tag = caller.tag!;
  const fail = (e: unknown) => services.log.error(`page view not recorded (tag ${tag.tag_id}): ${(e as Error)?.stack ?? (e as Error)?.message ?? String(e)}`);
  try {
    services.recorder.tagSeen(tag.tag_id, view.origin, view.at);
  } catch (e) {
    fail(e);
  }
  // The tag's setting turned page views off: a beacon from a page still holding an older bundle is dropped.
  if (tag.settings.features?.page_views === false) return;
  setImmediate(async () => {
    try {
      await services.recorder.record({
        customer: caller.customer,
        tag_id: tag.tag_id,
        // Match only: a company network's company; a bot user agent, a privacy network, ISP, hosting and bot
        // networks and no match are anonymous, each with its reason (the Visitors report's coverage).
        ...visitorAt(services.dataset.current, view.ip, view.bot),
        path: cleanPath(beacon.path, caller.customer.kept_query_params),
        referrer_host: referrerHost(beacon.referrer),
        session_id: beacon.session,
        origin: view.origin,
        at: view.at,
        catalog: services.dataset.current.catalog,
        crm: services.crm?.deps.crm,
      });
    } catch (e) {
      fail(e);
    }
  });
}

/** The page's origin (Origin, else the Referer's), for the "installed on" display. */
function pageOrigin(req: HeaderSource): string | null {
  for (const candidate of [req.get('origin'), req.get('referer')]) {
    if (!candidate || candidate === 'null') continue;
    try {
      const o = new URL(candidate).origin;
      if (o !== 'null') return o;
    } catch {
      // unreadable: try the next
    }
  }
  return null;
}

/**
 * A beacon never needs a preflight, but a client posting `application/json` from a page does; it is
 * allowed exactly when the tag named in ?tag= allows the page. A refusal is the JSON error of its sibling
 * on /v3/company/details, and a store that cannot answer is a 503 there as here, not a refusal.
 */
const PREFLIGHT: PreflightRule = {
  methods: 'POST',
  headers: 'Content-Type',
  allowed: async (host, ctx) => {
    const tagId = ctx.req.query.tag;
    const tag = typeof tagId === 'string' ? await ctx.services.store.getTag(tagId) : null;
    return tag !== null && isHostAllowed(host, tag.allowed_domains);
  },
  refusal: (host) => `${host} is not an allowed domain of the web tag named in ?tag=`,
};
