/**
 * Which webhook events a recorded page view raises, for one endpoint: pure, so the rules are tested
 * without a server.
 *
 * - `account.visited`: an identified account's first page view of the UTC day (once per account, day and
 *   endpoint — the outbox dedupes, so two nodes racing on the first view still send one).
 * - `account.hot`: a page view by one of the customer's hot accounts, or on a path matching one of the
 *   endpoint's `hot_paths`; once per account, day, path and endpoint, so a reload is not a new alert.
 */
import type { WebhookEvent, WebhookEventType } from './schema.ts';

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
}

export interface PlannedEvent {
  /** Same key, same endpoint → enqueued once. */
  dedupe_key: string;
  event: WebhookEvent;
}

/** `*` matches any run of characters; everything else literally. Query strings never take part. */
export function pathMatches(pattern: string, path: string): boolean {
  const pathOnly = path.split(/[?#]/, 1)[0]!;
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`);
  return regex.test(pathOnly);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function plannedEvents(view: PageViewForWebhooks, endpoint: { id: string; events: readonly WebhookEventType[]; hot_paths: readonly string[] }, newEventId: () => string): PlannedEvent[] {
  if (!view.company_id) return [];
  const planned: PlannedEvent[] = [];
  const make = (type: WebhookEventType): WebhookEvent => ({
    id: newEventId(),
    type,
    created_at: view.at,
    customer_id: view.customer_id,
    data: {
      day: view.day,
      account: {
        company_id: view.company_id!,
        name: view.company?.name ?? null,
        domain: view.company?.domain ?? null,
        segment_ids: view.segment_ids,
        hot_account: view.hot_account,
        excluded: view.excluded,
      },
      page: { path: view.path, referrer_host: view.referrer_host, tag_id: view.tag_id, origin: view.origin, session_id: view.session_id },
    },
  });
  if (endpoint.events.includes('account.visited') && view.first_of_day_for_account) {
    planned.push({ dedupe_key: `account.visited|${view.company_id}|${view.day}`, event: make('account.visited') });
  }
  if (endpoint.events.includes('account.hot') && (view.hot_account || endpoint.hot_paths.some((p) => pathMatches(p, view.path)))) {
    const pathOnly = view.path.split(/[?#]/, 1)[0];
    planned.push({ dedupe_key: `account.hot|${view.company_id}|${view.day}|${pathOnly}`, event: make('account.hot') });
  }
  return planned;
}
