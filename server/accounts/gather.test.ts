import { describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CrmAccountRecord, CrmProvider } from '../../core/crm-records.ts';
import type { SegmentMatch } from '../../core/customer-records.ts';
import { ACME_SOFTWARE } from '../testing/fixtures.ts';
import { gatherAccountPage } from './gather.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const RANGE = { from: '2026-11-01', to: '2026-11-20' };

const customer = (segments: SegmentMatch[]): CustomerRecord => ({
  id: 'acme',
  name: 'Acme',
  packages: [],
  identification_credits: 0,
  enrichment_credits: 0,
  contract_start: '2026-01-01',
  products: [],
  segments: segments.map((match, i) => ({ id: i + 1, name: `s${i + 1}`, match })),
  excluded_accounts: [],
  hot_accounts: [],
  account_lists: [],
  grants: [],
  kept_query_params: [],
  topics: [],
  segment_seq: 0,
  created_at: '2026-01-01T00:00:00.000Z',
});

const record = (provider: CrmProvider, o: Partial<CrmAccountRecord>): CrmAccountRecord => ({
  customer_id: 'acme',
  provider,
  company_id: ACME_SOFTWARE.company_id,
  crm_ids: [`${provider}-1`],
  owner_email: null,
  owner_name: null,
  stage: null,
  type: null,
  written_hash: null,
  read_at: '2026-11-19T08:00:00.000Z',
  written_at: null,
  ...o,
});

/** Sources over no page views, and a CRM store of these records that counts its reads. */
function sources(records: CrmAccountRecord[]) {
  const crm = {
    reads: 0,
    async getAccounts(customerId: string, provider: CrmProvider, ids: readonly string[]) {
      crm.reads++;
      return records.filter((r) => r.customer_id === customerId && r.provider === provider && ids.includes(r.company_id));
    },
  };
  const visits = { accountPages: async () => [], accountSessions: async () => [] };
  return { catalog: { intent: () => [] }, recorder: { visits, reportError: () => {} }, crm };
}

describe('the account page’s CRM side', () => {
  const records = [
    record('salesforce', { owner_email: 'joe@acme.com', owner_name: 'Joe Roe', type: 'Customer - Direct' }),
    record('hubspot', { owner_email: 'jane@acme.com', owner_name: 'Jane Doe', stage: 'opportunity', crm_ids: ['h1', 'h2'] }),
  ];

  it('shows each CRM with a record of the account, HubSpot first, and evaluates CRM rules on the records it shows (one read)', async () => {
    const s = sources(records);
    const { page } = await gatherAccountPage(s, customer([{ crm_owner: ['jane@acme.com'] }, { crm_stage: { in: ['customer'] } }]), ACME_SOFTWARE, RANGE, NOW);
    expect(page.crm.map((c) => [c.provider, c.owner_email, c.stage, c.type, c.crm_ids])).toEqual([
      ['hubspot', 'jane@acme.com', 'opportunity', null, ['h1', 'h2']],
      ['salesforce', 'joe@acme.com', null, 'Customer - Direct', ['salesforce-1']],
    ]);
    expect(page.segments.map((x) => x.id)).toEqual([1]);
    expect(s.crm.reads).toBe(2);
  });

  it('is empty without a CRM store, or when no record matched the account', async () => {
    const { crm: _none, ...withoutStore } = sources(records);
    expect((await gatherAccountPage(withoutStore, customer([]), ACME_SOFTWARE, RANGE, NOW)).page.crm).toEqual([]);
    const unmatched = sources([record('hubspot', { crm_ids: [], owner_email: 'old@acme.com' })]);
    const { page } = await gatherAccountPage(unmatched, customer([{ crm_owner: ['none'] }]), ACME_SOFTWARE, RANGE, NOW);
    expect(page.crm).toEqual([]);
    expect(page.segments.map((x) => x.id)).toEqual([1]);
  });

  it('for the CRM sync’s values, reads the store only when a segment rule reads the CRM side', async () => {
    const s = sources(records);
    const plain = await gatherAccountPage({ ...s, crmForRulesOnly: true }, customer([{ industry: ['Software'] }]), ACME_SOFTWARE, RANGE, NOW);
    expect(s.crm.reads).toBe(0);
    expect(plain.page.segments.map((x) => x.id)).toEqual([1]);
    const ruled = await gatherAccountPage(
      { ...s, crmForRulesOnly: true },
      customer([{ crm_stage: { not_in: ['customer - direct'] } }]),
      ACME_SOFTWARE,
      RANGE,
      NOW,
    );
    expect(s.crm.reads).toBe(2);
    expect(ruled.page.segments).toEqual([]);
  });
});
