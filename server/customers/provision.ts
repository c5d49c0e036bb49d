/**
 * Creating, changing or importing a customer, with what follows from its packages: the Lead Scoring token
 * is generated automatically (spec "Authentication" 4) the first time a customer has `advanced`.
 *
 * Three explicit paths, so a typo can never wipe a customer:
 *   create — a new id only (an existing one is a 409 and changes nothing);
 *   update — only the fields given;
 *   import — the replace path of `customer import FILE`: the file is the truth. (Demo seeding is not:
 *            it only creates what is missing, server/demo/seed.ts.)
 */

import type { CustomerRecord } from '../../core/access-records.ts';
import type { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import type { AccessRecords } from '../state/access/service.ts';

export const LEAD_SCORING_TOKEN_NAME = 'lead-scoring (generated)';

export interface Provisioned {
  customer: CustomerRecord;
  /** The generated Lead Scoring token, secret shown once; absent when none was created now. */
  leadScoringToken?: { id: string; token: string };
}

/** Creates or replaces the customer (and upserts the tags of the seed). */
export async function provisionCustomer(store: AccessRecords, seed: CustomerSeed): Promise<Provisioned> {
  return withLeadScoringToken(store, await store.importCustomer(seed));
}

/** Creates a new customer; StateError 409 when the id exists. */
export async function createCustomer(store: AccessRecords, seed: CustomerSeed): Promise<Provisioned> {
  return withLeadScoringToken(store, await store.createCustomer(seed));
}

/** Changes only the fields given; StateError 404 for an unknown id. */
export async function updateCustomer(store: AccessRecords, id: string, patch: CustomerPatch): Promise<Provisioned> {
  return withLeadScoringToken(store, await store.updateCustomer(id, patch));
}

async function withLeadScoringToken(store: AccessRecords, customer: CustomerRecord): Promise<Provisioned> {
  if (!customer.packages.includes('advanced')) return { customer };
  const existing = (await store.listTokens(customer.id)).some((t) => t.api_group === 'lead-scoring');
  if (existing) return { customer };
  const { record, secret } = await store.createToken({ customer_id: customer.id, api_group: 'lead-scoring', name: LEAD_SCORING_TOKEN_NAME, integrations: [] });
  return { customer, leadScoringToken: { id: record.id, token: secret } };
}
