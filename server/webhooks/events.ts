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
 *   thousands of alerts and outbox rows.
 */
import { boundedMemo } from '../cache/bounded-cache.ts';
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
  /** At most `max` dedupe keys under `key` per endpoint (the outbox counts; see OutboxItem.cap). */
  cap?: { key: string; max: number };
  event: WebhookEvent;
}

/** Distinct paths of one account per UTC day that raise account.hot at one endpoint; later paths raise nothing. */
export const HOT_PATHS_PER_ACCOUNT_DAY = 10;

/** `*` matches any run of characters; everything else literally. Query strings never take part. */
export function pathMatches(pattern: string, path: string): boolean {
  return compiledPattern(pattern)(path.split(/[?#]/, 1)[0]!);
}

/**
 * A glob compiled to its literal pieces and matched by plain string search. A regex with one `.*` per
 * `*` backtracks: a few `/`-separated `*` ending in `.pdf`, against a crafted path of many segments,
 * blocked the event loop for most of a minute on one page view. Here each piece is searched for once,
 * left to right, so no path can make a pattern expensive. The leftmost occurrence of each middle piece is
 * enough: it leaves the most room for the pieces after it, and a `*` accepts any gap. Patterns are
 * endpoint data, so they are compiled once each into a bounded cache.
 */
const compiledPattern = boundedMemo((pattern: string): ((path: string) => boolean) => {
  const pieces = pattern.split('*');
  if (pieces.length === 1) return (path) => path === pattern;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const fixed = first.length + last.length;
  return (path) => {
    // The prefix and the suffix may not overlap: each character of the path is matched once.
    if (path.length < fixed || !path.startsWith(first) || !path.endsWith(last)) return false;
    const end = path.length - last.length;
    let at = first.length;
    for (const piece of middle) {
      const found = path.indexOf(piece, at);
      if (found === -1 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}, 1000);

export function plannedEvents(
  view: PageViewForWebhooks,
  endpoint: { id: string; events: readonly WebhookEventType[]; hot_paths: readonly string[] },
  newEventId: () => string,
): PlannedEvent[] {
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
    const cap = { key: `account.hot|${view.company_id}|${view.day}`, max: HOT_PATHS_PER_ACCOUNT_DAY };
    planned.push({ dedupe_key: `${cap.key}|${pathOnly}`, cap, event: make('account.hot') });
  }
  return planned;
}
