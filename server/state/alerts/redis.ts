/**
 * The alerts' state on Redis (several nodes), on the state store's command client (backend.ts): it never
 * opens or closes a connection. Every key of a customer carries its hash tag, so each write below is one
 * MULTI or one script in one slot (Redis Cluster too):
 *
 *   svc:{cust:<id>}:alerts:owners        hash    owners list key → the row's JSON
 *   svc:{cust:<id>}:alerts:territories   string  {rules, updated_at} as JSON
 *   svc:{cust:<id>}:alerts:stages        hash    "<company>|<product>|<stage>" → when set (epoch ms)
 *   svc:{cust:<id>}:alerts:mail:<day>    hash    "<recipient>|<company>" → the delivery holding the day's mail; expires after 2 days
 *
 * Every command has a deadline (as the CRM store's): a stalled Redis answers 503, not never.
 */
import type { RedisClientType } from '@redis/client';
import { OwnerRow, TerritoryRule } from '../../../core/alert-records.ts';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { withinDeadline } from '../redis/commands.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, scanKeys } from '../redis/connection.ts';
import { AlertEntry } from '../transfer/transfer.ts';
import { type AlertStateStore, type OwnersDocument, STAGE_MARK_KEEP_MS, type StageMark } from './store.ts';

export const alertKeys = {
  owners: (c: string) => `svc:{cust:${c}}:alerts:owners`,
  territories: (c: string) => `svc:{cust:${c}}:alerts:territories`,
  stages: (c: string) => `svc:{cust:${c}}:alerts:stages`,
  mail: (c: string, day: string) => `svc:{cust:${c}}:alerts:mail:${day}`,
};
const ALERT_KEYS = 'svc:{cust:*}:alerts:*';
const customerOf = (key: string) => /^svc:\{cust:([^}]+)\}:alerts:/.exec(key)?.[1] ?? null;

// KEYS[1] the stages hash; ARGV[1] now, ARGV[2] keep ms, then fields: each set unless set within keep; the fields set.
const MARK_STAGES = `
local now = tonumber(ARGV[1])
local keep = tonumber(ARGV[2])
local set = {}
for i = 3, #ARGV do
  local at = redis.call('HGET', KEYS[1], ARGV[i])
  if not at or tonumber(at) < now - keep then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
    table.insert(set, ARGV[i])
  end
end
return set`;

// KEYS[1] the day's mail hash; ARGV[1] field, ARGV[2] holder, ARGV[3] expiry ms: 1 when the holder has the mark.
const CLAIM_MAIL = `
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
if held == ARGV[2] then return 1 end
return 0`;

const MAIL_KEEP_MS = 2 * 86_400_000;

export interface RedisAlertStateOptions {
  commandTimeoutMs?: number;
}

export class RedisAlertStateStore implements AlertStateStore {
  private readonly commandTimeoutMs: number;
  private closed = false;

  constructor(
    private readonly connection: RedisClientType,
    options: RedisAlertStateOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  private get client(): RedisClientType {
    if (this.closed) throw new StoreUnavailableError('the alerts state is closed');
    return this.connection;
  }

  private io<T>(fn: () => Promise<T>): Promise<T> {
    return withinDeadline(this.commandTimeoutMs, fn);
  }

  async putOwners(customerId: string, doc: { owners: readonly OwnerRow[]; territories: readonly TerritoryRule[]; updated_at: string }): Promise<void> {
    // One MULTI in the customer's slot: the list replaced whole, never half old and half new.
    const m = this.client.multi().del(alertKeys.owners(customerId));
    if (doc.owners.length > 0) m.hSet(alertKeys.owners(customerId), Object.fromEntries(doc.owners.map((r) => [r.key, JSON.stringify(r)])));
    m.set(alertKeys.territories(customerId), JSON.stringify({ rules: doc.territories, updated_at: doc.updated_at }));
    await this.io(() => m.exec());
  }

  async getOwners(customerId: string): Promise<OwnersDocument> {
    const [rows, t] = await this.io(() => Promise.all([this.client.hVals(alertKeys.owners(customerId)), this.client.get(alertKeys.territories(customerId))]));
    const parsed = t ? (JSON.parse(t) as { rules: unknown; updated_at: string }) : null;
    return {
      owners: rows.map((r) => OwnerRow.parse(JSON.parse(r))).sort((a, b) => a.key.localeCompare(b.key)),
      territories: parsed ? TerritoryRule.array().parse(parsed.rules) : [],
      updated_at: parsed?.updated_at ?? null,
    };
  }

  async ownerRows(customerId: string, keys: readonly string[]): Promise<OwnerRow[]> {
    if (keys.length === 0) return [];
    const found = await this.io(() => this.client.hmGet(alertKeys.owners(customerId), [...keys]));
    return found.filter((r): r is string => typeof r === 'string').map((r) => OwnerRow.parse(JSON.parse(r)));
  }

  async territories(customerId: string): Promise<TerritoryRule[]> {
    const t = await this.io(() => this.client.get(alertKeys.territories(customerId)));
    return t ? TerritoryRule.array().parse((JSON.parse(t) as { rules: unknown }).rules) : [];
  }

  async markStages(customerId: string, companyId: string, marks: readonly StageMark[], atMs: number): Promise<StageMark[]> {
    if (marks.length === 0) return [];
    const fields = marks.map((m) => `${companyId}|${m.product}|${m.stage}`);
    const set = (await this.io(() =>
      this.client.eval(MARK_STAGES, { keys: [alertKeys.stages(customerId)], arguments: [String(atMs), String(STAGE_MARK_KEEP_MS), ...fields] }),
    )) as string[];
    return marks.filter((_, i) => set.includes(fields[i]!));
  }

  async claimMail(customerId: string, recipient: string, companyId: string, day: string, holder: string): Promise<boolean> {
    const reply = await this.io(() =>
      this.client.eval(CLAIM_MAIL, { keys: [alertKeys.mail(customerId, day)], arguments: [`${recipient}|${companyId}`, holder, String(MAIL_KEEP_MS)] }),
    );
    return Number(reply) === 1;
  }

  /** The customers with owners, rules or stage marks (mail marks are not moved). */
  private async customers(): Promise<string[]> {
    const found = new Set<string>();
    for await (const batch of scanKeys(this.client, ALERT_KEYS)) {
      for (const key of batch) {
        const c = customerOf(key);
        if (c !== null && !key.includes(':alerts:mail:')) found.add(c);
      }
    }
    return [...found].sort();
  }

  async *exportEntries(): AsyncIterable<AlertEntry> {
    for (const c of await this.customers()) {
      const doc = await this.getOwners(c);
      if (doc.updated_at !== null) yield AlertEntry.parse({ type: 'alert_territories', customer_id: c, rules: doc.territories, updated_at: doc.updated_at });
      for (const row of doc.owners) yield AlertEntry.parse({ type: 'alert_owner', customer_id: c, row });
      const stages = await this.io(() => this.client.hGetAll(alertKeys.stages(c)));
      for (const field of Object.keys(stages).sort()) {
        // "<company>|<product>|<stage>": a company id and a stage have no `|`, a product might.
        const company_id = field.slice(0, field.indexOf('|'));
        const product = field.slice(field.indexOf('|') + 1, field.lastIndexOf('|'));
        const stage = field.slice(field.lastIndexOf('|') + 1);
        yield AlertEntry.parse({ type: 'alert_stage', customer_id: c, company_id, product, stage, at: Number(stages[field]) });
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    return (await this.customers()).length === 0;
  }

  async importEntries(entries: AsyncIterable<AlertEntry> | Iterable<AlertEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds alert owners or stage marks: import into an empty state', 'conflict');
    let n = 0;
    for await (const raw of entries) {
      const e = AlertEntry.parse(raw);
      n++;
      if (e.type === 'alert_owner') await this.io(() => this.client.hSet(alertKeys.owners(e.customer_id), e.row.key, JSON.stringify(e.row)));
      else if (e.type === 'alert_territories')
        await this.io(() => this.client.set(alertKeys.territories(e.customer_id), JSON.stringify({ rules: e.rules, updated_at: e.updated_at })));
      else await this.io(() => this.client.hSet(alertKeys.stages(e.customer_id), `${e.company_id}|${e.product}|${e.stage}`, String(e.at)));
    }
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
