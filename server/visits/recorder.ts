/**
 * Records page views: counts them in the visit store, appends the raw event to the NDJSON log and hands
 * each recorded view to the registered listeners (webhooks build on this seam). Also remembers where each
 * tag was last seen (page views and lookups), for the console's "installed?" display.
 */
import type { CompanyRow } from '../../data/sources/schema.ts';
import { matchingSegments } from '../segments/evaluate.ts';
import type { CustomerRecord } from '../state/store.ts';
import type { VisitStore } from '../state/visits.ts';
import type { EventLog } from './event-log.ts';

/** What listeners receive and what each NDJSON line holds. */
export interface RecordedPageView {
  customer_id: string;
  tag_id: string;
  /** ISO date-time of the view; `day` is its UTC date. */
  at: string;
  day: string;
  /** The visiting account on a `Match`; null for anonymous visitors (Non-actionable Match, No Match). */
  company_id: string | null;
  path: string;
  referrer_host: string | null;
  session_id: string;
  origin: string | null;
  /** The account's first page view of the UTC day (false for anonymous views). */
  first_of_day_for_account: boolean;
  segment_ids: number[];
  hot_account: boolean;
  excluded: boolean;
}

export type PageViewListener = (view: RecordedPageView) => void | Promise<void>;

export interface PageViewInput {
  customer: CustomerRecord;
  tag_id: string;
  company: CompanyRow | null;
  path: string;
  referrer_host: string | null;
  session_id: string;
  origin: string | null;
  at: Date;
}

export interface PageViewRecorder {
  record(input: PageViewInput): Promise<RecordedPageView>;
  /** Registers a listener for every recorded page view; returns its removal. */
  onPageView(listener: PageViewListener): () => void;
  /** Notes that a tag was used from `origin` (written at most once a minute per tag, origin and process). */
  tagSeen(tagId: string, origin: string | null, at?: Date): void;
  readonly visits: VisitStore;
  readonly events: EventLog;
  /** Logs a failure of page-view work that must not fail the request it happened in. */
  reportError(error: unknown): void;
  close(): Promise<void>;
}

const SIGHTING_RESOLUTION_MS = 60_000;
const SIGHTING_CACHE_LIMIT = 10_000;

/** The account-level facts of a view, from the customer's configuration (pure). */
export function accountFacts(customer: CustomerRecord, company: CompanyRow | null): Pick<RecordedPageView, 'segment_ids' | 'hot_account' | 'excluded'> {
  if (!company) return { segment_ids: [], hot_account: false, excluded: false };
  return {
    segment_ids: matchingSegments(customer.segments, company).map((s) => s.id),
    hot_account: customer.hot_accounts.some((h) => h.company_id === company.company_id),
    excluded: customer.excluded_accounts.includes(company.company_id),
  };
}

export function createRecorder(deps: { visits: VisitStore; events: EventLog; onError?: (e: Error) => void }): PageViewRecorder {
  const listeners = new Set<PageViewListener>();
  /** When each (tag, origin) was last written, per tag; `sightings` counts the pairs (bounded). */
  const lastSighting = new Map<string, Map<string, number>>();
  let sightings = 0;
  const onError = deps.onError ?? (() => {});

  return {
    visits: deps.visits,
    events: deps.events,
    reportError: (e) => onError(e instanceof Error ? e : new Error(String(e))),

    async record(input) {
      const at = input.at.toISOString();
      const day = at.slice(0, 10);
      const company_id = input.company?.company_id ?? null;
      const { first_of_day_for_account } = await deps.visits.recordPageView({
        customer_id: input.customer.id, day, company_id, path: input.path, session_id: input.session_id, at,
      });
      const view: RecordedPageView = {
        customer_id: input.customer.id,
        tag_id: input.tag_id,
        at,
        day,
        company_id,
        path: input.path,
        referrer_host: input.referrer_host,
        session_id: input.session_id,
        origin: input.origin,
        first_of_day_for_account,
        ...accountFacts(input.customer, input.company),
      };
      deps.events.append(view.customer_id, day, view);
      for (const listener of listeners) {
        // A failing listener must neither lose the view for the others nor reach the request.
        try {
          const out = listener(view);
          if (out instanceof Promise) out.catch((e: unknown) => onError(e instanceof Error ? e : new Error(String(e))));
        } catch (e) {
          onError(e instanceof Error ? e : new Error(String(e)));
        }
      }
      return view;
    },

    onPageView(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    tagSeen(tagId, origin, at) {
      if (!origin) return;
      // Every tag-mode lookup passes here: per tag, then per origin (no key string built per request), and
      // the clock read as a number (a Date is made only for the write, at most once a minute per pair).
      // Was 0.6–1.7% of a tag-mode lookup's CPU (--cpu-prof under `npm run bench -- identification`).
      const t = at === undefined ? Date.now() : at.getTime();
      let byOrigin = lastSighting.get(tagId);
      const last = byOrigin?.get(origin);
      if (last !== undefined && t - last < SIGHTING_RESOLUTION_MS) return;
      if (sightings >= SIGHTING_CACHE_LIMIT) {
        lastSighting.clear();
        sightings = 0;
        byOrigin = undefined;
      }
      if (byOrigin === undefined) {
        byOrigin = new Map();
        lastSighting.set(tagId, byOrigin);
      }
      if (last === undefined) sightings++;
      byOrigin.set(origin, t);
      deps.visits.recordTagSighting(tagId, origin, new Date(t).toISOString()).catch((e: Error) => onError(e));
    },

    async close() {
      listeners.clear();
      await deps.events.close();
      await deps.visits.close();
    },
  };
}
