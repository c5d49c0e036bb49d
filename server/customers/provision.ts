/**
 * Creating or updating a customer, with what follows from its packages: the Lead Scoring token is
 * generated automatically (spec "Authentication" 4) the first time a customer has `advanced`.
 */
import type { CustomerSeed } from '../../data/sources/schema.ts';
import type { CustomerRecord, AccessRecords } from '../state/store.ts';

export const LEAD_SCORING_TOKEN_NAME = 'lead-scoring (generated)';

export interface Provisioned {
  customer: CustomerRecord;
  /** The generated Lead Scoring token, secret shown once; absent when none was created now. */
  leadScoringToken?: { id: string; token: string };
}

export async function provisionCustomer(store: AccessRecords, seed: CustomerSeed): Promise<Provisioned> {
  const customer = await store.importCustomer(seed);
  if (!customer.packages.includes('advanced')) return { customer };
  const existing = (await store.listTokens(customer.id)).some((t) => t.api_group === 'lead-scoring');
  if (existing) return { customer };
  const { record, secret } = await store.createToken({ customer_id: customer.id, api_group: 'lead-scoring', name: LEAD_SCORING_TOKEN_NAME, integrations: [] });
  return { customer, leadScoringToken: { id: record.id, token: secret } };
}
