/**
 * Demo mode's seed (`npm start`, SVC_DEMO): the customers of SVC_SEED are created when missing, and the web
 * tags of the file when missing; nothing that exists is written again. The state belongs to whoever uses
 * the console: a restart must never take back a segment, a list, a product, a tag setting or a credit
 * balance they changed (`customer import FILE` is the path that makes a file the truth).
 *
 * Every record the seed creates is in the customer's audit log, actor `system:demo-seed`.
 */
import { existsSync } from 'node:fs';
import type { CustomerSeed, TagSeed } from '../../core/customer-records.ts';
import type { NewAuditEvent } from '../../core/user-records.ts';
import { readCustomersFile } from '../../data/sources/read.ts';
import { createCustomer } from '../customers/provision.ts';
import type { Logger } from '../observability/logger.ts';
import { StateError } from '../state/errors.ts';
import type { StateStore } from '../state/store.ts';
import { auditedToken } from '../users/audit-fields.ts';

export const DEMO_SEED_ACTOR = 'system:demo-seed';

/** Where the seed records what it created (the user store's `appendAudit`). */
export type AppendAudit = (event: NewAuditEvent) => Promise<unknown>;

/** What one seeding created (ids); empty lists when the state already held everything. */
export interface SeedReport {
  customers: string[];
  tags: string[];
}

const seedEvent = (customer: string, action: string, target: string, after: object): NewAuditEvent => ({
  customer_id: customer,
  at: new Date().toISOString(),
  actor: DEMO_SEED_ACTOR,
  ip: null,
  action,
  target,
  before: null,
  after: after as Record<string, unknown>,
});

/** Another node (or process on the same state) created it first: it exists, which is all the seed wants. */
const createdElsewhere = (e: unknown) => e instanceof StateError && e.kind === 'conflict';

/** Creates the customers and web tags of `seeds` that the state lacks; never writes one that exists. */
export async function seedMissing(store: StateStore, audit: AppendAudit, seeds: CustomerSeed[], log?: Logger): Promise<SeedReport> {
  const report: SeedReport = { customers: [], tags: [] };
  for (const seed of seeds) {
    if ((await store.getCustomer(seed.id)) === null) {
      try {
        const { customer, leadScoringToken } = await createCustomer(store, seed);
        report.customers.push(customer.id);
        const { segment_seq: _, ...shown } = customer;
        await audit(seedEvent(customer.id, 'customer.create', customer.id, shown));
        for (const tag of await store.listTags(customer.id)) {
          report.tags.push(tag.tag_id);
          await audit(seedEvent(customer.id, 'tag.create', tag.tag_id, tag));
        }
        const token = leadScoringToken ? await store.getToken(leadScoringToken.id) : null;
        if (token) await audit(seedEvent(customer.id, 'token.create', token.id, auditedToken(token)));
        continue;
      } catch (e) {
        if (!createdElsewhere(e)) throw e;
        // A conflict is also a seed tag held by another customer: then nothing was created, and nothing is forced.
        if ((await store.getCustomer(seed.id)) === null) {
          log?.error(`demo mode: customer ${seed.id} not seeded: ${(e as Error).message}`);
          continue;
        }
      }
    }
    for (const tag of seed.tags) await seedTag(store, audit, seed.id, tag, report, log);
  }
  return report;
}

async function seedTag(store: StateStore, audit: AppendAudit, customerId: string, tag: TagSeed, report: SeedReport, log?: Logger): Promise<void> {
  if ((await store.getTag(tag.tag_id)) !== null) return;
  try {
    const created = await store.createTag({ customer_id: customerId, ...tag });
    report.tags.push(created.tag_id);
    await audit(seedEvent(customerId, 'tag.create', created.tag_id, created));
  } catch (e) {
    if (createdElsewhere(e)) return;
    // A customer changed in the console so that it may not have tags (no platform package): its choice stands.
    if (e instanceof StateError) log?.error(`demo mode: web tag ${tag.tag_id} of ${customerId} not seeded: ${e.message}`);
    else throw e;
  }
}

/** Seeds from the file (SVC_SEED); a missing file is said, not fatal (the server runs without the demo customer). */
export async function seedDemo(store: StateStore, audit: AppendAudit, seedFile: string, log: Logger): Promise<SeedReport | null> {
  if (!existsSync(seedFile)) {
    log.error(`demo mode: ${seedFile} not found, no demo customer seeded`);
    return null;
  }
  const report = await seedMissing(store, audit, readCustomersFile(seedFile).customers, log);
  const created = [...report.customers.map((c) => `customer ${c}`), ...report.tags.map((t) => `tag ${t}`)];
  log.info(`demo mode: seeded from ${seedFile}: ${created.length ? `created ${created.join(', ')}` : 'nothing missing, nothing changed'}`);
  return report;
}
