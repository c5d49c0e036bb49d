/**
 * The values svc writes for accounts: each account's page over the last 30 days (server/accounts/gather.ts,
 * what the console's account page shows), turned into value keys (mapping.ts `accountValues`).
 */
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { CrmValue } from '../../core/crm-records.ts';
import { type AccountSources, gatherAccountPage } from '../accounts/gather.ts';
import type { Catalog } from '../data/catalog.ts';
import { accountValues } from './mapping.ts';

/** Days of the page views counted in `page_views_30d` (today included). */
export const VALUE_DAYS = 30;

export interface AccountValues {
  company: CompanyRow;
  /** By value key (mapping.ts `valueKeys`). */
  values: Record<string, CrmValue>;
}

/** Accounts gathered at once (each reads the visit store a few times). */
const PARALLEL = 50;

/** The values of these accounts at `now`; companies the catalog does not know are absent. */
export async function accountValuesOf(
  sources: { dataset: { readonly current: { readonly catalog: Catalog } }; recorder: AccountSources['recorder']; crm?: AccountSources['crm'] },
  customer: CustomerRecord,
  companyIds: readonly string[],
  now: Date,
): Promise<Map<string, AccountValues>> {
  const { catalog } = sources.dataset.current;
  const to = now.toISOString().slice(0, 10);
  const from = new Date(now.getTime() - (VALUE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const out = new Map<string, AccountValues>();
  for (let i = 0; i < companyIds.length; i += PARALLEL) {
    await Promise.all(
      companyIds.slice(i, i + PARALLEL).map(async (id) => {
        const company = catalog.company(id);
        if (!company) return;
        // The CRM side as segment rules read it (`crm_owner`, `crm_stage`), so the segments written are the page's.
        const { page, sessions } = await gatherAccountPage(
          { catalog, recorder: sources.recorder, crm: sources.crm, crmForRulesOnly: true },
          customer,
          company,
          { from, to },
          now,
        );
        const last = sessions.reduce<string | null>((m, s) => (m === null || s.last_seen > m ? s.last_seen : m), null);
        out.set(id, { company, values: accountValues(page, last) });
      }),
    );
  }
  return out;
}
