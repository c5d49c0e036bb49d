/**
 * Which of a period's visiting accounts a digest scoped to segments is about. Each account's facts are
 * gathered through the one path identification, the enrichment answers and files, the account page and
 * the recorder use (../segments/account-facts.ts `gatherAccountFacts`), so a segment on engaged time,
 * custom events, topics, lookalikes, the CRM side, visits or intent holds for an account in a digest
 * exactly when it holds in an API answer: digests once built the facts themselves from pages, intent and
 * the CRM only, and such segments matched no account there.
 *
 * What a bulk read answers is read once for all the accounts and handed over per account (the pages the
 * period read already, the CRM records in one read per CRM, every account's engagement in one read); the
 * rest is gathered per account as on every other surface (topics from the catalog, lookalike scores
 * against seeds ../segments/lookalike-seeds.ts resolves and keeps).
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import { CRM_PROVIDERS, type CrmAccountRecord } from '../../core/crm-records.ts';
import type { Segment } from '../../core/customer-records.ts';
import type { Catalog } from '../data/catalog.ts';
import { firstPartyWindow } from '../scoring/first-party.ts';
import { type FactsSources, gatherAccountFacts } from '../segments/account-facts.ts';
import { type EngagementFacts, NO_ENGAGEMENT } from '../segments/engagement-rule.ts';
import { type ListMembers, needsAccountFacts, segmentMatches, windowStart } from '../segments/evaluate.ts';
import type { CrmStore } from '../state/crm/store.ts';
import { type EngagementRow, type EngagementStore, engagementOf } from '../state/engagement/store.ts';
import type { PagePerDay, VisitStore } from '../state/visits/store.ts';

export interface ScopeSources {
  /** `accountsPages`: what segment-seeded lookalike conditions resolve their seeds from. */
  visits: Pick<VisitStore, 'accountPages' | 'accountsPages'>;
  /** The data snapshot: intent signals, topics, and the companies lookalike seeds are scored over (`companyColumns`). */
  catalog: Pick<Catalog, 'company' | 'companyColumns'> & FactsSources['catalog'];
  /**
   * The CRM sync's read-back (each account's owner and stage; `listAccounts`: seeds of segments on the CRM
   * side); absent: no CRM owners or stages.
   */
  crm?: Pick<CrmStore, 'getAccounts' | 'listAccounts'>;
  /** Engaged time and custom events; absent: none known (`engaged` and `event` conditions hold for nobody). */
  engagement?: Pick<EngagementStore, 'accountsEngagement'>;
}

/** The CRM records of these accounts in every CRM: one read per CRM. */
export async function crmRecordsByAccount(crm: Pick<CrmStore, 'getAccounts'>, customerId: string, ids: string[]): Promise<Map<string, CrmAccountRecord[]>> {
  const records = (await Promise.all(CRM_PROVIDERS.map((p) => crm.getAccounts(customerId, p, ids)))).flat();
  const byAccount = new Map<string, CrmAccountRecord[]>();
  for (const r of records) {
    const list = byAccount.get(r.company_id);
    if (list) list.push(r);
    else byAccount.set(r.company_id, [r]);
  }
  return byAccount;
}

/** Every account's engagement of the last `days` UTC days to `today`: one read, split per account. */
async function engagementByAccount(
  store: Pick<EngagementStore, 'accountsEngagement'>,
  customerId: string,
  days: number,
  today: string,
): Promise<Map<string, EngagementFacts>> {
  const rows = await store.accountsEngagement(customerId, windowStart(today, days), today);
  const byAccount = new Map<string, EngagementRow[]>();
  for (const r of rows) {
    const list = byAccount.get(r.company_id);
    if (list) list.push(r);
    else byAccount.set(r.company_id, [r]);
  }
  return new Map([...byAccount].map(([id, rs]) => [id, engagementOf(rs)]));
}

/**
 * The accounts of `ids` at least one of `segments` (the scope's, of the customer's) holds at `now`.
 * `pages`: each account's pages from at least `factsPagesFrom` of the segments' need, or null when
 * they read none. A store that cannot answer fails the digest (it is retried as a mail server that is
 * down is) rather than leave accounts out of it.
 */
export async function segmentScopeMembers(
  sources: ScopeSources,
  input: {
    customer: CustomerRecord;
    segments: readonly Segment[];
    lists: ListMembers;
    ids: readonly string[];
    pages: ReadonlyMap<string, readonly PagePerDay[]> | null;
    now: Date;
  },
): Promise<Set<string>> {
  const { customer, segments, lists, now } = input;
  // An account the catalog does not hold is in no segment.
  const companies = input.ids.flatMap((id) => sources.catalog.company(id) ?? []);
  const ids = companies.map((c) => c.company_id);
  const out = new Set<string>();
  if (segments.length === 0 || ids.length === 0) return out;
  const need = needsAccountFacts(segments);
  const [crm, engagement] = await Promise.all([
    need?.crm && sources.crm ? crmRecordsByAccount(sources.crm, customer.id, ids) : null,
    need?.engagement && sources.engagement ? engagementByAccount(sources.engagement, customer.id, need.engagement, firstPartyWindow(now).to) : null,
  ]);
  const failures: unknown[] = [];
  const facts = await Promise.all(
    ids.map((id) =>
      need === null
        ? undefined
        : // The whole customer: a lookalike seed may name any of its segments or lists.
          gatherAccountFacts(
            {
              catalog: sources.catalog,
              visits: sources.visits,
              crm: sources.crm,
              pages: input.pages?.get(id) ?? [],
              crmRecords: crm?.get(id) ?? [],
              ...(engagement ? { accountEngagement: engagement.get(id) ?? NO_ENGAGEMENT } : {}),
              onError: (e) => failures.push(e),
            },
            customer,
            id,
            now,
            need,
          ),
    ),
  );
  if (failures.length > 0) throw failures[0];
  companies.forEach((company, i) => {
    if (segments.some((s) => segmentMatches(s.match, company, lists, facts[i]))) out.add(company.company_id);
  });
  return out;
}
