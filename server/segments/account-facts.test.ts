import { describe, expect, it } from 'vitest';
import type { CrmAccountRecord, CrmProvider } from '../../core/crm-records.ts';
import type { Segment } from '../../core/customer-records.ts';
import type { CrmStore } from '../state/crm/store.ts';
import { CRM_FACTS_TTL_MS, cachedCrmFacts, crmFactsOf, gatherAccountFacts } from './account-facts.ts';
import { NO_CRM_FACTS } from './evaluate.ts';

const record = (provider: CrmProvider, companyId: string, o: Partial<CrmAccountRecord> = {}): CrmAccountRecord => ({
  customer_id: 'acme',
  provider,
  company_id: companyId,
  crm_ids: ['c1'],
  owner_email: null,
  owner_name: null,
  stage: null,
  type: null,
  written_hash: null,
  read_at: null,
  written_at: null,
  ...o,
});

/** A CRM store of these records that counts its reads (and fails while `failing`). */
function store(records: CrmAccountRecord[]) {
  const s = {
    reads: 0,
    failing: false,
    records,
    async getAccounts(customerId: string, provider: CrmProvider, companyIds: readonly string[]) {
      s.reads++;
      if (s.failing) throw new Error('redis down');
      return s.records.filter((r) => r.customer_id === customerId && r.provider === provider && companyIds.includes(r.company_id));
    },
  };
  return s satisfies Pick<CrmStore, 'getAccounts'>;
}

const customer = (segments: Segment['match'][]) => ({ id: 'acme', products: [], segments: segments.map((match, i) => ({ id: i + 1, name: `s${i}`, match })) });
const catalog = { intent: () => [] };
const NOW = new Date('2026-11-20T12:00:00Z');

describe('the CRM side of an account', () => {
  it('is every matched record’s owner and stage and type, lower-cased, over both CRMs; an unmatched record says nothing', () => {
    expect(
      crmFactsOf([
        record('hubspot', '1', { owner_email: 'Jane@Acme.com', stage: 'Opportunity', type: 'PROSPECT' }),
        record('salesforce', '1', { owner_email: 'joe@acme.com', type: 'Customer - Direct' }),
      ]),
    ).toEqual({ owners: ['jane@acme.com', 'joe@acme.com'], stages: ['opportunity', 'prospect', 'customer - direct'] });
    expect(crmFactsOf([record('hubspot', '1', { crm_ids: [], owner_email: 'old@acme.com', stage: 'customer' })])).toBe(NO_CRM_FACTS);
    expect(crmFactsOf([])).toBe(NO_CRM_FACTS);
  });

  it('is read only for a customer whose rules read it, from both CRMs', async () => {
    const crm = store([record('hubspot', '1', { owner_email: 'jane@acme.com' }), record('salesforce', '1', { type: 'Customer' })]);
    const plain = await gatherAccountFacts({ catalog, crm }, customer([{ page_views: { min: 1, days: 7 } }]), '1', NOW);
    expect(plain?.crm).toBeUndefined();
    expect(await gatherAccountFacts({ catalog, crm }, customer([{ industry: ['x'] }]), '1', NOW)).toBeUndefined();
    expect(crm.reads).toBe(0);
    const facts = await gatherAccountFacts({ catalog, crm }, customer([{ crm_owner: ['any'] }]), '1', NOW);
    expect(facts?.crm).toEqual({ owners: ['jane@acme.com'], stages: ['customer'] });
    expect(crm.reads).toBe(2);
  });

  it('without a store, or with one that cannot answer (reported), the account has no owner and no stage', async () => {
    const rules = customer([{ crm_stage: { in: ['customer'] } }]);
    expect((await gatherAccountFacts({ catalog }, rules, '1', NOW))?.crm).toBe(NO_CRM_FACTS);
    const crm = store([record('hubspot', 'failing', { stage: 'customer' })]);
    crm.failing = true;
    const errors: unknown[] = [];
    expect((await gatherAccountFacts({ catalog, crm, onError: (e) => errors.push(e) }, rules, 'failing', NOW))?.crm).toBe(NO_CRM_FACTS);
    expect(errors).toEqual([new Error('redis down')]);
  });

  it('records the caller read already are used as they are (the account page: no second, cached read)', async () => {
    const crm = store([]);
    const crmRecords = [record('hubspot', '1', { stage: 'customer' })];
    const facts = await gatherAccountFacts({ catalog, crm, crmRecords }, customer([{ crm_stage: { in: ['customer'] } }]), '1', NOW);
    expect(facts?.crm).toEqual({ owners: [], stages: ['customer'] });
    expect(crm.reads).toBe(0);
  });

  it('is kept a few seconds per store and account, so the hot path reads the store at most that often', async () => {
    const crm = store([record('hubspot', '7', { owner_email: 'jane@acme.com' })]);
    const t = 1_000_000;
    expect(await cachedCrmFacts(crm, 'acme', '7', t)).toEqual({ owners: ['jane@acme.com'], stages: [] });
    crm.records = [record('hubspot', '7', { owner_email: 'joe@acme.com' })];
    expect(await cachedCrmFacts(crm, 'acme', '7', t + CRM_FACTS_TTL_MS - 1)).toEqual({ owners: ['jane@acme.com'], stages: [] });
    expect(crm.reads).toBe(2);
    // Another account, another store: read on their own.
    expect(await cachedCrmFacts(crm, 'acme', '8', t)).toBe(NO_CRM_FACTS);
    const other = store(crm.records);
    expect(await cachedCrmFacts(other, 'acme', '7', t)).toEqual({ owners: ['joe@acme.com'], stages: [] });
    // Past the few seconds, read again.
    expect(await cachedCrmFacts(crm, 'acme', '7', t + CRM_FACTS_TTL_MS)).toEqual({ owners: ['joe@acme.com'], stages: [] });
  });
});
