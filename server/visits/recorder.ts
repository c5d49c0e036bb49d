/**
 * Records page views: counts them in the visit store, appends the raw event to the NDJSON log and hands
 * each recorded view to the registered listeners (webhooks build on this seam). Also remembers where each
 * tag was last seen (page views and lookups), for the console's "installed?" display.
 *
 * The raw view is also kept in the visit store (the export of every node's views, server/visits/export.ts):
 * in the count's own atomic step when the view is complete before it (no second write on the hot path),
 * else — segment rules on behaviour or intent, known only once this view is counted — in a write of its own.
 *
 * The three outputs of a view do not depend on one another: the NDJSON line is local and is the analytics
 * team's raw record, so a visit store that cannot count (Redis down or stalled, the state file locked past
 * its deadline) must not take it along, nor may a failing listener. What the store could not write is
 * counted and reported at most once a minute (./store-failures.ts); tag sightings are written at most once
 * a minute per tag and origin (./tag-sightings.ts).
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { UnidentifiedReason } from '../../core/vocabulary.ts';
import type { Catalog } from '../data/catalog.ts';
import { gatherAccountFacts } from '../segments/account-facts.ts';
import { type AccountFacts, matchingSegments, needsAccountFacts } from '../segments/evaluate.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import type { EventLog } from './event-log.ts';
import { collapsePath } from './page-path.ts';
import { StoreFailures } from './store-failures.ts';
import { SightingThrottle } from './tag-sightings.ts';

export { STORE_FAILURE_REPORT_MS } from './store-failures.ts';

/** What listeners receive and what each NDJSON line holds. */
export interface RecordedPageView {
  customer_id: string;
  tag_id: string;
  /** ISO date-time of the view; `day` is its UTC date. */
  at: string;
  day: string;
  /** The visiting account on a `Match`; null for anonymous visitors (Non-actionable Match, No Match). */
  company_id: string | null;
  /**
   * Why an anonymous visitor matched no company (server/data/network-company.ts), null on a `Match`. Optional only for the
   * NDJSON lines and kept views written before it existed: the recorder always sets it.
   */
  unidentified_reason?: UnidentifiedReason | null;
  /** As the tag sent it (its `utm_*` kept); the visit store counts the view under its page (./page-path.ts). */
  path: string;
  referrer_host: string | null;
  session_id: string;
  origin: string | null;
  /**
   * The account's first page view of the UTC day (false for anonymous views, and for a view the visit
   * store could not count: the first view it counts that day is the first).
   */
  first_of_day_for_account: boolean;
  segment_ids: number[];
  hot_account: boolean;
  excluded: boolean;
}

export type PageViewListener = (view: RecordedPageView) => void | Promise<void>;
/** Told when a tag is seen on an origin the visit store did not hold for it (tag.installed). */
export type TagInstalledListener = (sighting: { tag_id: string; origin: string; at: string }) => void | Promise<void>;

export interface PageViewInput {
  customer: CustomerRecord;
  tag_id: string;
  company: CompanyRow | null;
  /** Why `company` is null (server/data/network-company.ts networkVisitor); absent for an anonymous view: `no_data`. */
  unidentified_reason?: UnidentifiedReason | null;
  path: string;
  referrer_host: string | null;
  session_id: string;
  origin: string | null;
  at: Date;
  /** The snapshot's catalog: the intent signals of segment rules with an `intent` condition (absent: none). */
  catalog?: Pick<Catalog, 'intent'>;
  /** The CRM store: the CRM side of segment rules with a `crm_owner` or `crm_stage` condition (absent: none). */
  crm?: Pick<CrmStore, 'getAccounts'>;
}

export interface PageViewRecorder {
  record(input: PageViewInput): Promise<RecordedPageView>;
  /** Registers a listener for every recorded page view; returns its removal. */
  onPageView(listener: PageViewListener): () => void;
  /** Registers a listener for first sightings of a tag on an origin; returns its removal. */
  onTagInstalled(listener: TagInstalledListener): () => void;
  /** Notes that a tag was used from `origin` (written at most once a minute per tag, origin and process). */
  tagSeen(tagId: string, origin: string | null, at?: Date): void;
  readonly visits: VisitStore;
  /** Engaged time and custom events of identified accounts (./engagement-beacons.ts records them); absent: not kept. */
  readonly engagement: EngagementStore | undefined;
  readonly events: EventLog;
  /** Logs a failure of page-view work that must not fail the request it happened in. */
  reportError(error: unknown): void;
  /** What the visit store failed to write since the start (each also reported, at most once a minute). */
  readonly storeFailures: { readonly page_views: number; readonly tag_sightings: number };
  close(): Promise<void>;
}

/**
 * The account-level facts of a view, from the customer's configuration (pure); `facts`: what the account
 * did, when the customer's segment rules read it (without them, behaviour and intent conditions do not hold).
 */
export function accountFacts(
  customer: CustomerRecord,
  company: CompanyRow | null,
  facts?: AccountFacts,
): Pick<RecordedPageView, 'segment_ids' | 'hot_account' | 'excluded'> {
  if (!company) return { segment_ids: [], hot_account: false, excluded: false };
  return {
    segment_ids: matchingSegments(customer, company, facts).map((s) => s.id),
    hot_account: customer.hot_accounts.some((h) => h.company_id === company.company_id),
    excluded: customer.excluded_accounts.includes(company.company_id),
  };
}

const NO_SIGNALS: Pick<Catalog, 'intent'> = { intent: () => [] };

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

export interface RecorderDeps {
  visits: VisitStore;
  engagement?: EngagementStore;
  events: EventLog;
  onError?: (e: Error) => void;
  now?: () => number;
}

export function createRecorder(deps: RecorderDeps): PageViewRecorder {
  return new Recorder(deps);
}

class Recorder implements PageViewRecorder {
  readonly visits: VisitStore;
  readonly engagement: EngagementStore | undefined;
  readonly events: EventLog;
  private readonly listeners = new Set<PageViewListener>();
  private readonly installListeners = new Set<TagInstalledListener>();
  private readonly sightings = new SightingThrottle();
  private readonly failures: StoreFailures;
  private readonly onError: (e: Error) => void;

  constructor(deps: RecorderDeps) {
    this.visits = deps.visits;
    this.engagement = deps.engagement;
    this.events = deps.events;
    this.onError = deps.onError ?? (() => {});
    this.failures = new StoreFailures(this.onError, deps.now ?? Date.now);
  }

  get storeFailures(): { readonly page_views: number; readonly tag_sightings: number } {
    return this.failures.counts;
  }

  // A property, not a method: handed around as a callback.
  readonly reportError = (e: unknown): void => this.onError(asError(e));

  async record(input: PageViewInput): Promise<RecordedPageView> {
    const at = input.at.toISOString();
    const day = at.slice(0, 10);
    const company_id = input.company?.company_id ?? null;
    const unidentified_reason = company_id === null ? (input.unidentified_reason ?? 'no_data') : null;
    const base = {
      customer_id: input.customer.id,
      tag_id: input.tag_id,
      at,
      day,
      company_id,
      unidentified_reason,
      path: input.path,
      referrer_host: input.referrer_host,
      session_id: input.session_id,
      origin: input.origin,
    };
    const need = company_id !== null ? needsAccountFacts(input.customer.segments) : null;
    // Without rules on what the account did, its facts come from the configuration alone: the raw view is
    // complete before the count and is kept in the same step.
    const known = need ? undefined : accountFacts(input.customer, input.company);
    let first_of_day_for_account = false;
    let counted = false;
    try {
      ({ first_of_day_for_account } = await this.visits.recordPageView({
        customer_id: input.customer.id,
        day,
        company_id,
        // Counted under its page: `/` and `/?utm_source=x` are one row of the reports.
        path: collapsePath(input.path, input.customer.kept_query_params),
        session_id: input.session_id,
        at,
        ...(unidentified_reason === null ? {} : { unidentified_reason }),
        raw: known && { ...base, ...known },
      }));
      counted = true;
    } catch (e) {
      this.failures.failed('page_views', asError(e));
    }
    // Read after the view is counted, so a rule on behaviour sees this view too.
    const facts =
      need && company_id !== null
        ? await gatherAccountFacts(
            { catalog: input.catalog ?? NO_SIGNALS, visits: this.visits, engagement: this.engagement, crm: input.crm, onError: this.reportError },
            input.customer,
            company_id,
            input.at,
            need,
          )
        : undefined;
    const view: RecordedPageView = { ...base, first_of_day_for_account, ...(known ?? accountFacts(input.customer, input.company, facts)) };
    // As in the count's step: a view the store could not count is not kept there either (the NDJSON file has it).
    if (known === undefined && counted) {
      try {
        await this.visits.keepRawPageView(view);
      } catch (e) {
        this.failures.failed('page_views', asError(e));
      }
    }
    try {
      this.events.append(view.customer_id, day, view);
    } catch (e) {
      this.onError(asError(e));
    }
    this.tell(view);
    return view;
  }

  /**
   * Listeners hear a view the store could not count as well: a hot account's view still alerts, and
   * `account.visited` comes with the first view the store does count that day (lost only when a write
   * that missed its deadline ran after all: a stalled Redis answering late).
   */
  private tell(view: RecordedPageView): void {
    for (const listener of this.listeners) {
      // A failing listener must neither lose the view for the others nor reach the request.
      try {
        const out = listener(view);
        if (out instanceof Promise) out.catch(this.reportError);
      } catch (e) {
        this.onError(asError(e));
      }
    }
  }

  onPageView(listener: PageViewListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  tagSeen(tagId: string, origin: string | null, at?: Date): void {
    if (!origin) return;
    // A Date is made only for the write, at most once a minute per pair.
    const t = at === undefined ? Date.now() : at.getTime();
    if (!this.sightings.due(tagId, origin, t)) return;
    const seenAt = new Date(t).toISOString();
    this.visits
      .recordTagSighting(tagId, origin, seenAt)
      .then((written) => {
        if (!written?.first) return;
        for (const listener of this.installListeners) {
          Promise.resolve()
            .then(() => listener({ tag_id: tagId, origin, at: seenAt }))
            .catch(this.reportError);
        }
      })
      .catch((e: unknown) => this.failures.failed('tag_sightings', asError(e)));
  }

  onTagInstalled(listener: TagInstalledListener): () => void {
    this.installListeners.add(listener);
    return () => void this.installListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.failures.report();
    this.listeners.clear();
    this.installListeners.clear();
    await this.events.close();
    await this.visits.close();
  }
}
