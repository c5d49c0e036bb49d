/**
 * The account page's I/O: what one account's page is built from, read from the catalog and the visit store
 * (and the webhook log and the CRM store when given), then built by account.ts. The CRM records read for
 * the page are the ones its segments are evaluated on (one read, never a cached one). The route answers it; the CRM sync writes
 * its values (server/crm/values.ts), so a CRM record holds exactly what the account page shows.
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { CrmAccountRecord } from '../../core/crm-records.ts';
import type { AccountSession } from '../../core/visit-records.ts';
import type { Catalog } from '../data/catalog.ts';
import { NO_TOPICS } from '../data/catalog-topics.ts';
import { type FirstPartySource, recentPageViews } from '../scoring/first-party.ts';
import { gatherAccountFacts, readCrmRecords } from '../segments/account-facts.ts';
import { needsAccountFacts } from '../segments/evaluate.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { readEngagementSummary } from '../visits/engagement-summary.ts';
import type { DeliveryRecord } from '../webhooks/schema.ts';
import { type AccountPage, buildAccountPage, explainedScores } from './account.ts';
import { accountTopics } from './topics.ts';

export interface AccountSources {
  /** `topics`: the page's intent topics and what `topic` rules read; absent: none. */
  catalog: Pick<Catalog, 'intent'> & Partial<Pick<Catalog, 'topics'>>;
  recorder: FirstPartySource & {
    readonly visits: Pick<VisitStore, 'accountPages' | 'accountSessions'>;
    /** Engaged time and custom events (the page's journey shows them, `engaged` and `event` rules read them); absent: none. */
    readonly engagement?: Pick<EngagementStore, 'accountEngagement' | 'recentEvents'>;
    reportError?(e: unknown): void;
  };
  /** The account's webhook deliveries (the page lists them); absent: none. */
  deliveries?: (customerId: string, companyId: string) => Promise<DeliveryRecord[]>;
  /** The CRM store: the account's CRM side (shown, and read by `crm_owner` / `crm_stage` rules); absent: none. */
  crm?: Pick<CrmStore, 'getAccounts'>;
  /**
   * Read the CRM side only when the customer's segment rules read it (the CRM sync's values: they need the
   * page's segments, not its CRM side, and a backfill would read the store twice per account for nothing).
   */
  crmForRulesOnly?: boolean;
}

export interface GatheredAccount {
  page: AccountPage;
  /** The account's latest sessions, those outside the page's range too (its last visit). */
  sessions: AccountSession[];
}

/** The account page of `company` for the days `from`–`to` (UTC), scored at `now`. */
export async function gatherAccountPage(
  sources: AccountSources,
  customer: CustomerRecord,
  company: CompanyRow,
  range: { from: string; to: string },
  now: Date,
): Promise<GatheredAccount> {
  const { visits } = sources.recorder;
  const id = company.company_id;
  const readCrm = sources.crm !== undefined && (!sources.crmForRulesOnly || needsAccountFacts(customer.segments)?.crm === true);
  const crmRead: Promise<CrmAccountRecord[]> = readCrm ? readCrmRecords(sources.crm!, customer.id, id) : Promise.resolve([]);
  const { engagement } = sources.recorder;
  const engagementRead = readEngagementSummary(engagement, customer.id, id, range, (e) => sources.recorder.reportError?.(e));
  const [pages, sessions, recent, deliveries, crm, facts] = await Promise.all([
    visits.accountPages(customer.id, id, range.from, range.to),
    visits.accountSessions(customer.id, id),
    customer.products.length > 0 ? recentPageViews(sources.recorder, customer.id, id, now) : Promise.resolve([]),
    sources.deliveries ? sources.deliveries(customer.id, id) : Promise.resolve([]),
    crmRead,
    crmRead.then((crmRecords) => gatherAccountFacts({ catalog: sources.catalog, visits, engagement, crmRecords }, customer, id, now)),
  ]);
  const scores = explainedScores({ customer, company, signals: sources.catalog.intent(id), pageViews: recent, now });
  const page = buildAccountPage({ customer, company, from: range.from, to: range.to, pages, sessions, deliveries, scores, facts, crm });
  page.topics = accountTopics(sources.catalog.topics ?? NO_TOPICS, customer.topics, id);
  page.engagement = await engagementRead;
  return { page, sessions };
}
