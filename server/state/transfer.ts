/**
 * Moving all state between backends (`svc state export FILE` / `svc state import FILE`): one JSON object
 * per line, each tagged with its `type`. Rate-limit counters are not moved: they expire within a window.
 * Tokens travel with their secret's hash (never a secret), so existing integrations keep working.
 */
import { z } from 'zod';
import { CustomerId } from '../../data/sources/schema.ts';
import { CHARGEABLE_APIS } from '../credits/rules.ts';
import { CustomerRecord, TagRecord, TokenRecord } from './store.ts';

const Pool = z.enum(['identification', 'enrichment']);

export const LedgerEntry = z.object({
  customer_id: CustomerId,
  api: z.enum(CHARGEABLE_APIS),
  pool: Pool,
  record: z.string(),
  month: z.string(),
  period: z.string(),
  dedupe_key: z.string().nullable(),
  token_id: z.string().nullable(),
  partner: z.string().nullable(),
  at: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const StateEntry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('customer'), record: CustomerRecord }),
  z.object({ type: z.literal('token'), record: TokenRecord, secret_hash: z.string().min(1) }),
  z.object({ type: z.literal('tag'), record: TagRecord }),
  z.object({ type: z.literal('setting'), key: z.string(), value: z.string() }),
  /** Credits used per customer, pool and quota period (what balances read). */
  z.object({ type: z.literal('credit_usage'), customer_id: CustomerId, pool: Pool, period: z.string(), used: z.number().int().min(0) }),
  /** One charge of the ledger (usage reports and the monthly dedup are rebuilt from these). */
  z.object({ type: z.literal('charge'), charge: LedgerEntry }),
]);
export type StateEntry = z.infer<typeof StateEntry>;

export interface StateTransfer {
  /** Every record, customers before what belongs to them. */
  exportState(): AsyncIterable<StateEntry>;
  /**
   * Writes exported entries into this store, which must hold no customer yet (an import never merges
   * into live state). Returns the number of entries written.
   */
  importState(entries: AsyncIterable<StateEntry> | Iterable<StateEntry>): Promise<number>;
}
