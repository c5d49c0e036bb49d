/**
 * Which webhook events a recorded page view raises, for one endpoint: pure, so the rules are tested
 * without a server.
 *
 * - `account.visited`: an identified account's first page view of the UTC day (once per account, day and
 *   endpoint — the outbox dedupes, so two nodes racing on the first view still send one).
 * - `account.hot`: a page view by one of the customer's hot accounts, or on a path matching one of the
 *   endpoint's `hot_paths`; once per account, day, path and endpoint, so a reload is not a new alert; and
 *   for at most HOT_PATHS_PER_ACCOUNT_DAY paths per account, day and endpoint (counted by the outbox,
 *   across nodes): a crawler-like visitor walking thousands of paths is one account's interest, not
 *   thousands of alerts and outbox rows. At a Slack endpoint: once per account and day (one message, not one per hot page).
 * - Filters (EndpointFilters, any endpoint): an account's events pass only when all of the endpoint's
 *   conditions hold; a filtered `account.visited` comes at the first view of the day that passes.
 */
import type { z } from 'zod';
import { compilePathGlob } from '../../core/glob.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';
import type { CompanyScore } from '../identification/schema.ts';
import type { AccountEventV1, AccountEventV2, EventCompany, SegmentEnteredV1, TagInstalledV1, WebhookEvent } from './payloads.ts';
import type { EndpointFilters, EventVersions, WebhookEventType, WebhookFormat } from './schema.ts';

/**
 * What v2 payloads and `segment.entered` carry beyond the view (./enrich.ts gathers it, only for a
 * customer with an endpoint that needs it).
 */
export interface EnrichedFacts {
  company: z.infer<typeof EventCompany>;
  /** The account's segments now (ids and names; names go out only where the endpoint allows). */
  segments: readonly { id: number; name: string }[];
  /** Per product; [] when the customer has none. */
  scores: readonly z.infer<typeof CompanyScore>[];
  /** The segments the account is in with this view and was not in with its previous one (segment.entered). */
  entered_segment_ids: readonly number[];
  visit: { session_id: string | null; pages: { path: string; at: string }[]; session_count: number };
}

/** An endpoint as the planner reads it. */
export interface PlanningEndpoint {
  id: string;
  events: readonly WebhookEventType[];
  hot_paths: readonly string[];
  event_versions?: EventVersions;
  segment_names?: boolean;
  scores?: boolean;
  format?: WebhookFormat;
  filters?: EndpointFilters;
}

/**
 * The payload version an endpoint gets for an event: the one it named, else v1 — endpoints stored before
 * versions existed name none, and their receivers parse v1 (new endpoints are created naming the newest).
 */
export const versionOf = (endpoint: PlanningEndpoint, type: WebhookEventType): number => endpoint.event_versions?.[type] ?? 1;

/**
 * Whether planning for this endpoint needs EnrichedFacts: an enriched version, segment.entered, a Slack
 * message (company, segments, pages), or a filter on the visit's page views or on segments (the segments
 * an account entered with a view say when a filtered account.visited is due).
 */
export function needsEnrichment(endpoint: PlanningEndpoint): boolean {
  if (endpoint.format === 'slack') return true;
  if (endpoint.filters?.min_page_views !== undefined || endpoint.filters?.segments !== undefined) return true;
  return endpoint.events.some((t) => t === 'segment.entered' || ((t === 'account.visited' || t === 'account.hot') && versionOf(endpoint, t) >= 2));
}

/** The account's page views in this visit: its session's pages, this view included (1 when the visit store could not say). */
export const visitPageViews = (view: PageViewForWebhooks): number => view.enriched?.visit.pages.length ?? 1;

/** Whether the account is hot with this view: a hot account, or a view of one of the endpoint's hot pages. */
const isHotView = (view: PageViewForWebhooks, endpoint: PlanningEndpoint): boolean =>
  view.hot_account || endpoint.hot_paths.some((p) => pathMatches(p, view.path));

const hasFilters = (f: EndpointFilters | undefined): f is EndpointFilters =>
  f !== undefined && (f.segments !== undefined || f.hot_only === true || f.min_page_views !== undefined);

/**
 * Whether the account's events at this view pass the endpoint's filters (see EndpointFilters). `segments`
 * narrows what is checked against the filter's segments: segment.entered checks the segment entered.
 */
export function passesFilters(view: PageViewForWebhooks, endpoint: PlanningEndpoint, segments: readonly number[] = view.segment_ids): boolean {
  const f = endpoint.filters;
  if (!hasFilters(f)) return true;
  if (f.segments && !f.segments.some((id) => segments.includes(id))) return false;
  if (f.hot_only && !isHotView(view, endpoint)) return false;
  if (f.min_page_views !== undefined && visitPageViews(view) < f.min_page_views) return false;
  return true;
}

/**
 * Whether this view may be the one at which a filtered account first passes today: its first view of the
 * day, or a view that changed one of the filtered facts (the visit reached the page views asked for, a hot
 * page, a segment of the filter entered). account.visited at a filtered endpoint is raised at the first
 * view of the day that passes (the outbox's dedupe key keeps it once a day); only such views try, so an
 * account that passed does not enqueue (and dedupe) on every later view.
 */
function mayHaveJustPassed(view: PageViewForWebhooks, endpoint: PlanningEndpoint, f: EndpointFilters): boolean {
  if (view.first_of_day_for_account) return true;
  if (f.min_page_views !== undefined && visitPageViews(view) === f.min_page_views) return true;
  if (f.hot_only && endpoint.hot_paths.some((p) => pathMatches(p, view.path))) return true;
  return f.segments !== undefined && (view.enriched?.entered_segment_ids ?? []).some((id) => f.segments!.includes(id));
}

/** What the page-view recorder tells webhooks about each page view it recorded. */
export interface PageViewForWebhooks {
  customer_id: string;
  tag_id: string;
  at: string;
  /** UTC day `YYYY-MM-DD` of `at`. */
  day: string;
  /** Null for anonymous views (Non-actionable or No Match): they raise no event. */
  company_id: string | null;
  company?: { name: string | null; domain: string | null } | null;
  path: string;
  referrer_host: string | null;
  session_id: string | null;
  origin: string | null;
  first_of_day_for_account: boolean;
  segment_ids: number[];
  hot_account: boolean;
  excluded: boolean;
  /** Present when an endpoint of the customer needs it (needsEnrichment). */
  enriched?: EnrichedFacts;
}

export interface PlannedEvent {
  /** Same key, same endpoint → enqueued once. */
  dedupe_key: string;
  /** At most `max` dedupe keys under `key` per endpoint (the outbox counts; see OutboxItem.cap). */
  cap?: { key: string; max: number };
  event: WebhookEvent;
}

/** Distinct paths of one account per UTC day that raise account.hot at one endpoint; later paths raise nothing. */
export const HOT_PATHS_PER_ACCOUNT_DAY = 10;

/**
 * Whether a page path matches a `hot_paths` pattern: `*` any run of characters, the rest literally, case
 * included; the query string never takes part (core/glob.ts, the product's one matcher, linear in the
 * path). Patterns are endpoint data, compiled once each into a bounded cache.
 */
export function pathMatches(pattern: string, path: string): boolean {
  return hotPathGlob(pattern)(path);
}

const hotPathGlob = boundedMemo((pattern: string) => compilePathGlob(pattern), 1000);

export function plannedEvents(view: PageViewForWebhooks, endpoint: PlanningEndpoint, newEventId: () => string): PlannedEvent[] {
  if (!view.company_id) return [];
  const companyId = view.company_id;
  const planned: PlannedEvent[] = [];
  const page = { path: view.path, referrer_host: view.referrer_host, tag_id: view.tag_id, origin: view.origin, session_id: view.session_id };
  const flags = { company_id: companyId, hot_account: view.hot_account, excluded: view.excluded };
  const names = endpoint.segment_names === true;
  const v1 = (type: 'account.visited' | 'account.hot'): AccountEventV1 => ({
    id: newEventId(),
    type,
    created_at: view.at,
    customer_id: view.customer_id,
    data: {
      day: view.day,
      account: { ...flags, name: view.company?.name ?? null, domain: view.company?.domain ?? null, segment_ids: view.segment_ids },
      page,
    },
  });
  const v2 = (type: 'account.visited' | 'account.hot', facts: EnrichedFacts): AccountEventV2 => ({
    id: newEventId(),
    type,
    version: 2,
    created_at: view.at,
    customer_id: view.customer_id,
    data: {
      day: view.day,
      account: flags,
      company: facts.company,
      segments: {
        ids: facts.segments.map((s) => s.id),
        names: names ? facts.segments.map((s) => s.name) : [],
        list: facts.segments.map((s) => ({ name: names ? s.name : null, id: s.id })),
      },
      scores: endpoint.scores === true ? [...facts.scores] : [],
      visit: facts.visit,
      page,
    },
  });
  // An enriched version without its facts (gathering them failed) is not sent as another version: the
  // receiver parses the one it chose. It is skipped, and the failure was reported where it happened.
  const make = (type: 'account.visited' | 'account.hot'): WebhookEvent | null =>
    versionOf(endpoint, type) >= 2 ? (view.enriched ? v2(type, view.enriched) : null) : v1(type);
  const push = (p: Omit<PlannedEvent, 'event'> & { event: WebhookEvent | null }) => {
    if (p.event) planned.push(p as PlannedEvent);
  };
  const filters = endpoint.filters;
  const visitedNow = hasFilters(filters) ? mayHaveJustPassed(view, endpoint, filters) : view.first_of_day_for_account;
  if (endpoint.events.includes('account.visited') && visitedNow && passesFilters(view, endpoint)) {
    push({ dedupe_key: `account.visited|${companyId}|${view.day}`, event: make('account.visited') });
  }
  if (endpoint.events.includes('account.hot') && isHotView(view, endpoint) && passesFilters(view, endpoint)) {
    const cap = { key: `account.hot|${companyId}|${view.day}`, max: HOT_PATHS_PER_ACCOUNT_DAY };
    // A Slack channel hears of a hot account once a day (one message per account, not one per hot page).
    if (endpoint.format === 'slack') push({ dedupe_key: cap.key, event: make('account.hot') });
    else push({ dedupe_key: `${cap.key}|${view.path.split(/[?#]/, 1)[0]}`, cap, event: make('account.hot') });
  }
  if (endpoint.events.includes('segment.entered') && view.enriched) {
    for (const id of view.enriched.entered_segment_ids) {
      const segment = view.enriched.segments.find((s) => s.id === id);
      if (!segment || !passesFilters(view, endpoint, [id])) continue;
      const event: SegmentEnteredV1 = {
        id: newEventId(),
        type: 'segment.entered',
        version: 1,
        created_at: view.at,
        customer_id: view.customer_id,
        data: { day: view.day, segment: { id, name: names ? segment.name : null }, account: flags, company: view.enriched.company, page },
      };
      // Keyed by the view's instant too: entering, leaving and entering again is two events; two nodes
      // racing on the same view (they never do: one view is recorded once) would still send one.
      push({ dedupe_key: `segment.entered|${companyId}|${id}|${view.at}`, event });
    }
  }
  return planned;
}

/** tag.installed (v1, its only version): a tag seen on an origin the visit store did not hold for it. */
export function tagInstalledEvent(sighting: { customer_id: string; tag_id: string; origin: string; at: string }, newEventId: () => string): TagInstalledV1 {
  return {
    id: newEventId(),
    type: 'tag.installed',
    version: 1,
    created_at: sighting.at,
    customer_id: sighting.customer_id,
    data: { tag_id: sighting.tag_id, origin: sighting.origin, first_seen_at: sighting.at },
  };
}
