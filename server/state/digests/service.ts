/**
 * The digest store's rules, once for both backends: ids that name keys, settings that are valid digest
 * settings, periods in their one spelling, times as whole epoch ms, and the import's checks. Storage is a
 * DigestPort (port.ts): SQLite (sqlite.ts) or Redis (redis.ts) on the state store's connection.
 */
import { z } from 'zod';
import { CustomerId } from '../../../core/customer-records.ts';
import { DigestSettings } from '../../../core/digest-records.ts';
import { UserId } from '../../../core/user-records.ts';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { importInPages } from '../transfer/import.ts';
import { DigestEntry, DigestPeriod } from '../transfer/transfer.ts';
import type { DigestPort } from './port.ts';
import type { ClaimFinish, ClaimOutcome, ClaimRequest, DigestClaim, DigestStore, StoredDigestSettings } from './store.ts';

function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StateError(`${[what, ...(issue?.path ?? [])].join('.')}: ${issue?.message}`);
}

const Ms = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Owner = z.string().min(1).max(200);
const Settings = z.object({
  customer_id: CustomerId,
  user_id: UserId,
  settings: DigestSettings,
  updated_at: z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'an ISO time'),
});
const Request = z.object({
  customer_id: CustomerId,
  user_id: UserId,
  period: DigestPeriod,
  owner: Owner,
  nowMs: Ms,
  leaseMs: Ms.min(1),
  keepUntilMs: Ms,
});
const Finish = z.discriminatedUnion('status', [
  z.object({ status: z.enum(['sent', 'empty', 'failed']) }),
  z.object({ status: z.literal('retry'), nextMs: Ms }),
]);

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const NOT_EMPTY = 'the target already holds digest settings: import into an empty state';
const valid = (customerId: string, userId: string) => CustomerId.safeParse(customerId).success && UserId.safeParse(userId).success;

export class DigestService implements DigestStore {
  private closed = false;

  constructor(private readonly storage: DigestPort) {}

  private get port(): DigestPort {
    if (this.closed) throw new StoreUnavailableError('the digest store is closed');
    return this.storage;
  }

  async getSettings(customerId: string, userId: string): Promise<StoredDigestSettings | null> {
    return valid(customerId, userId) ? this.port.getSettings(customerId, userId) : null;
  }

  async putSettings(settings: StoredDigestSettings): Promise<void> {
    const s = checked(Settings, settings, 'settings');
    await this.port.putSettings({ ...s, updated_at: new Date(Date.parse(s.updated_at)).toISOString() });
  }

  async deleteSettings(customerId: string, userId: string): Promise<boolean> {
    return valid(customerId, userId) ? this.port.deleteSettings(customerId, userId) : false;
  }

  async allSettings(): Promise<StoredDigestSettings[]> {
    return (await this.port.allSettings()).sort((a, b) => byText(a.customer_id, b.customer_id) || byText(a.user_id, b.user_id));
  }

  async claim(request: ClaimRequest): Promise<ClaimOutcome> {
    return this.port.claim(checked(Request, request, 'claim'));
  }

  async finish(customerId: string, userId: string, period: string, owner: string, atMs: number, end: ClaimFinish, error = ''): Promise<boolean> {
    const r = checked(
      Request.pick({ customer_id: true, user_id: true, period: true, owner: true }),
      { customer_id: customerId, user_id: userId, period, owner },
      'claim',
    );
    // A message from a mail server: one line, bounded.
    const message = error.replace(/\s+/g, ' ').slice(0, 500);
    return this.port.finish(r.customer_id, r.user_id, r.period, r.owner, checked(Ms, atMs, 'at'), checked(Finish, end, 'end'), message);
  }

  async getClaim(customerId: string, userId: string, period: string): Promise<DigestClaim | null> {
    if (!valid(customerId, userId) || !DigestPeriod.safeParse(period).success) return null;
    return this.port.getClaim(customerId, userId, period);
  }

  async *exportEntries(): AsyncIterable<DigestEntry> {
    for await (const e of this.port.exportEntries()) yield DigestEntry.parse(e);
  }

  isEmpty(): Promise<boolean> {
    return this.port.isEmpty();
  }

  importEntries(entries: AsyncIterable<DigestEntry> | Iterable<DigestEntry>): Promise<number> {
    return importInPages(entries, { schema: DigestEntry, isEmpty: () => this.isEmpty(), notEmpty: NOT_EMPTY, write: (page) => this.port.importPage(page) });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.storage.close();
  }
}
