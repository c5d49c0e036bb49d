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
import type { AlertRoute, AlertTrigger, StoredAlert } from '../../core/alert-records.ts';
import type { EngagementSummary } from '../../core/engagement-records.ts';
import { compilePathGlob } from '../../core/glob.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';
import type { CompanyScore } from '../identification/schema.ts';
import type { AccountEventV1, AccountEventV2, AccountEventV3, EventCompany, SegmentEnteredV1, TagInstalledV1, WebhookEvent } from './payloads.ts';
import type { EndpointFilters, EventVersions, OutboxFormat, WebhookEventType } from './schema.ts';

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
  /** The account's engaged time and custom events of the last ENGAGEMENT_DAYS days (v3); absent: none known. */
  engagement?: EngagementSummary;
}

/** An endpoint as the planner reads it. */
export interface PlanningEndpoint {
  id: string;
  events: readonly WebhookEventType[];
  hot_paths: readonly string[];
  event_versions?: EventVersions;
  segment_names?: boolean;
  scores?: boolean;
  format?: OutboxFormat;
  filters?: EndpointFilters;
  /** An alert's endpoint (server/alerts/): planned by plannedAlertEvents, not by its events. */
  alert?: StoredAlert;
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
  if (endpoint.format === 'slack' || endpoint.alert) return true;
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

export function plannedEvents(view: PageViewForWebhooks, endpoint: PlanningEndpoint, newEventId: () => string, alertFacts?: AlertFacts): PlannedEvent[] {
  if (!view.company_id) return [];
  if (endpoint.alert) return alertFacts ? plannedAlertEvents(view, { ...endpoint, alert: endpoint.alert }, alertFacts, newEventId) : [];
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
  // v3: v2 and the account's engagement (none known: zeros and empty lists, the shape the receiver parses).
  const v3 = (type: 'account.visited' | 'account.hot', facts: EnrichedFacts): AccountEventV3 => {
    const base = v2(type, facts);
    const engagement = facts.engagement ?? { from: view.day, to: view.day, engaged_seconds: 0, pages: [], events: [], recent_events: [] };
    return { ...base, version: 3, data: { ...base.data, engagement } };
  };
  // An enriched version without its facts (gathering them failed) is not sent as another version: the
  // receiver parses the one it chose. It is skipped, and the failure was reported where it happened.
  const make = (type: 'account.visited' | 'account.hot'): WebhookEvent | null => {
    const version = versionOf(endpoint, type);
    if (version < 2) return v1(type);
    if (!view.enriched) return null;
    return version >= 3 ? v3(type, view.enriched) : v2(type, view.enriched);
  };
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

// ---------------------------------------------------------------------------------------------------
// Alerts (server/alerts/): an alert is an outbox endpoint whose settings carry it (EndpointSettings.alert).
// Its trigger is planned here, beside the webhook events, on the same recorded view and the same facts.

/** An account's owner as the owner routing found it (server/alerts/owners.ts). */
export interface AlertOwner {
  email: string;
  /** A user of the customer's workspace: only those are mailed. */
  is_user: boolean;
  slack_member_id: string | null;
  teams_mention: string | null;
  source: 'crm' | 'owners_list' | 'territory';
}

/** What alert planning reads beyond the view and its EnrichedFacts, gathered once per view (server/alerts/facts.ts). */
export interface AlertFacts {
  /** Stage marks this view set (the account's first time at or past the stage for the product): stage_reached. */
  reached: readonly { product: string; stage: string }[];
  /** The latest UTC day before this view's with a view of the account within the lookback, null when none: first_visit. */
  previous_visit_day: string | null;
  /** The account lists the account is on. */
  lists: readonly string[];
  owner: AlertOwner | null;
}

const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** Days before a view the first_visit trigger may look back at most (its `days` at most). */
export const FIRST_VISIT_MAX_DAYS = 90;

/** What the trigger says happened with this view, or null when it did not fire. */
export function alertFired(trigger: AlertTrigger, view: PageViewForWebhooks, facts: AlertFacts): string | null {
  switch (trigger.type) {
    case 'segment_entered': {
      if (!(view.enriched?.entered_segment_ids ?? []).includes(trigger.segment)) return null;
      const name = view.enriched?.segments.find((s) => s.id === trigger.segment)?.name;
      return `entered ${name ?? `segment #${trigger.segment}`}`;
    }
    case 'hot':
      return view.hot_account || trigger.hot_paths.some((p) => pathMatches(p, view.path)) ? 'is hot' : null;
    case 'stage_reached':
      return facts.reached.some((r) => r.product === trigger.product && r.stage === trigger.stage) ? `reached ${trigger.stage} for ${trigger.product}` : null;
    case 'first_visit': {
      if (!view.first_of_day_for_account) return null;
      const quiet = facts.previous_visit_day === null || daysBetween(facts.previous_visit_day, view.day) > trigger.days;
      return quiet ? `visited for the first time in ${trigger.days} days` : null;
    }
    case 'visited':
      return pathMatches(trigger.path, view.path) ? `visited ${view.path.split(/[?#]/, 1)[0]}` : null;
  }
}

/** Whether the account passes the alert's filter with this view. */
export function passesAlertFilter(alert: StoredAlert, view: PageViewForWebhooks, facts: AlertFacts): boolean {
  const f = alert.filter;
  if (f.segments && !f.segments.some((id) => view.segment_ids.includes(id))) return false;
  if (f.lists && !f.lists.some((id) => facts.lists.includes(id))) return false;
  if (f.min_page_views !== undefined && visitPageViews(view) < f.min_page_views) return false;
  if (f.owner === 'with' && facts.owner === null) return false;
  if (f.owner === 'without' && facts.owner !== null) return false;
  return true;
}

/** An alert's event: the body receivers of signed JSON get, and the account facts every message is built from. */
export type AlertEvent = WebhookEvent & { alert: AlertRoute };

/**
 * The deliveries an alert's trigger raises with this view: none when paused, not fired or filtered out;
 * else the channel's and, with owner routing, a mail to the owner (a user of the workspace) or to the
 * fallback addresses. Each keyed per trigger, account and UTC day (`<trigger>|<company>|<day>|<route>`):
 * the outbox stores a key once per endpoint, so two nodes planning the same view, or a hot account's
 * every view, enqueue one delivery a day.
 */
export function plannedAlertEvents(
  view: PageViewForWebhooks,
  endpoint: PlanningEndpoint & { alert: StoredAlert },
  facts: AlertFacts,
  newEventId: () => string,
): PlannedEvent[] {
  const { alert } = endpoint;
  if (alert.paused || !view.company_id || !view.enriched) return [];
  const happened = alertFired(alert.trigger, view, facts);
  if (happened === null || !passesAlertFilter(alert, view, facts)) return [];
  const enriched = view.enriched;
  const companyId = view.company_id;
  const page = { path: view.path, referrer_host: view.referrer_host, tag_id: view.tag_id, origin: view.origin, session_id: view.session_id };
  const flags = { company_id: companyId, hot_account: view.hot_account, excluded: view.excluded };
  const base = (): WebhookEvent => {
    if (alert.trigger.type === 'segment_entered') {
      const id = alert.trigger.segment;
      const name = enriched.segments.find((s) => s.id === id)?.name ?? null;
      return {
        id: newEventId(),
        type: 'segment.entered',
        version: 1,
        created_at: view.at,
        customer_id: view.customer_id,
        data: { day: view.day, segment: { id, name }, account: flags, company: enriched.company, page },
      };
    }
    return {
      id: newEventId(),
      type: alert.trigger.type === 'hot' ? 'account.hot' : 'account.visited',
      version: 2,
      created_at: view.at,
      customer_id: view.customer_id,
      data: {
        day: view.day,
        account: flags,
        company: enriched.company,
        segments: {
          ids: enriched.segments.map((s) => s.id),
          names: enriched.segments.map((s) => s.name),
          list: enriched.segments.map((s) => ({ name: s.name, id: s.id })),
        },
        scores: [...enriched.scores],
        visit: enriched.visit,
        page,
      },
    };
  };
  const owner = facts.owner;
  const routing = alert.route_to_owner;
  const reachable = owner?.is_user === true;
  const route = (via: AlertRoute['via'], extra: Partial<AlertRoute>): AlertRoute => ({
    alert_id: endpoint.id,
    name: alert.name,
    trigger: alert.trigger.type,
    happened,
    segments: enriched.segments.map((s) => s.name),
    via,
    to: [],
    mention: null,
    owner_email: owner?.email ?? null,
    fallback: null,
    test: false,
    ...extra,
  });
  const key = `${alert.trigger.type}|${companyId}|${view.day}`;
  const planned: PlannedEvent[] = [];
  if (!routing?.instead_of_channel || !reachable) {
    const mention =
      routing && owner ? { slack: owner.slack_member_id, teams: owner.teams_mention ? { id: owner.teams_mention, name: owner.email } : null } : null;
    // An email alert's channel is its addresses (fixed at planning: a node sending it needs nothing else).
    const to = alert.destination_type === 'email' ? alert.to : [];
    planned.push({ dedupe_key: `${key}|channel`, event: { ...base(), alert: route('channel', { mention, to }) } as AlertEvent });
  }
  if (routing) {
    if (reachable) planned.push({ dedupe_key: `${key}|owner`, event: { ...base(), alert: route('mail', { to: [owner.email] }) } as AlertEvent });
    else {
      const fallback = owner === null ? 'no_owner' : 'not_a_user';
      const to = routing.fallback?.to ?? [];
      // No fallback addresses: the channel has it (above); the fallback is still counted, by the dispatcher.
      const via = to.length > 0 ? 'mail' : 'channel';
      if (via === 'mail') planned.push({ dedupe_key: `${key}|fallback`, event: { ...base(), alert: route('mail', { to, fallback }) } as AlertEvent });
      else if (planned[0]) (planned[0].event as AlertEvent).alert.fallback = fallback;
    }
  }
  return planned;
}
