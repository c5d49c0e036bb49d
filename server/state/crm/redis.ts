/**
 * The CRM store on Redis (several nodes), on the state store's command client (backend.ts): it never opens
 * or closes a connection. Storage only: the rules are service.ts; the keys and the Lua scripts are
 * redis-scripts.ts. Each write is one script (or one MULTI) in the customer's slot, so two nodes never both
 * take a lease or both keep a later time; pages of pending accounts, runs and account records are read by
 * one script each, so a page is never half of an ack.
 *
 * The global set of connections (`svc:crm:connections`) is written apart from the connection's own keys,
 * so it is ordered to never hide one: added before a connection is written, removed after it is deleted
 * (and added back if a put came in between); a member whose record is gone is skipped by its readers.
 *
 * Every command has a deadline (as the user store's): a stalled Redis keeps the connection "ready" and
 * node-redis would wait for ever; the deadline answers 503. Other Redis failures are 503 too.
 */
import type { RedisClientType } from '@redis/client';
import { CrmAccountRecord, CrmConnectionRecord, type CrmPendingItem, CrmProvider, CrmRunRecord } from '../../../core/crm-records.ts';
import { runScript, withinDeadline } from '../redis/commands.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, scanKeys } from '../redis/connection.ts';
import { fromHash, toHash } from '../redis/keys.ts';
import type { CrmConnectionChange, CrmImportWriter, CrmPort } from './port.ts';
import {
  ACCOUNTS_PAGE,
  ACK_PENDING,
  ACQUIRE_LEASE,
  CRM_KEYS,
  connectionKeys,
  crmKeys,
  DELETE_CONNECTION,
  MARK_PENDING,
  PENDING_PAGE,
  PUT_ACCOUNTS,
  PUT_RUN,
  padAt,
  RELEASE_LEASE,
  RUNS_PAGE,
  UPDATE_CONNECTION,
} from './redis-scripts.ts';
import { CrmService } from './service.ts';

export { crmKeys } from './redis-scripts.ts';

const member = (c: string, p: CrmProvider) => `${c}/${p}`;

/** A stored record hash (JSON values) as the record; null when the hash is empty (no such connection). */
function connectionOf(h: Record<string, string>): CrmConnectionRecord | null {
  return Object.keys(h).length === 0 ? null : CrmConnectionRecord.parse(fromHash(h));
}

export interface RedisCrmStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
}

/** Storage only (port.ts). */
export class RedisCrmStorage implements CrmPort {
  private readonly commandTimeoutMs: number;

  /** On the state store's client (backend.ts), which stays open when this storage closes. */
  constructor(
    private readonly client: RedisClientType,
    options: RedisCrmStoreOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  /** The answer within the command deadline; a deadline missed or a Redis failure is StoreUnavailableError (503). */
  private io<T>(fn: () => Promise<T>): Promise<T> {
    return withinDeadline(this.commandTimeoutMs, fn);
  }

  /** One script call (EVALSHA, the source once per Redis that does not know it yet), within the deadline. */
  private run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.client, this.commandTimeoutMs, script, keys, args);
  }

  async putConnection(record: CrmConnectionRecord, secret: string): Promise<void> {
    const c = record.customer_id;
    const p = record.provider;
    await this.io(() => this.client.sAdd(crmKeys.connections, member(c, p)));
    // One MULTI in the customer's slot: the record replaced whole (no field of the old one left) with its secret.
    const m = this.client.multi().del(crmKeys.connection(c, p)).hSet(crmKeys.connection(c, p), toHash(record)).set(crmKeys.secret(c, p), secret);
    await this.io(() => m.exec());
  }

  async updateConnection(c: string, p: CrmProvider, change: CrmConnectionChange): Promise<CrmConnectionRecord | null> {
    const args = Object.entries(toHash(change)).flat();
    const reply = (await this.run(UPDATE_CONNECTION, [crmKeys.connection(c, p)], args)) as string[] | null;
    if (reply === null) return null;
    const h: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) h[reply[i]!] = reply[i + 1]!;
    return connectionOf(h);
  }

  async getConnection(c: string, p: CrmProvider): Promise<CrmConnectionRecord | null> {
    return connectionOf(await this.io(() => this.client.hGetAll(crmKeys.connection(c, p))));
  }

  async connectionSecret(c: string, p: CrmProvider): Promise<string | null> {
    return this.io(() => this.client.get(crmKeys.secret(c, p)));
  }

  async listConnections(c: string): Promise<CrmConnectionRecord[]> {
    const found = await this.io(() => Promise.all(CrmProvider.options.map((p) => this.client.hGetAll(crmKeys.connection(c, p)))));
    return found.map(connectionOf).filter((r): r is CrmConnectionRecord => r !== null);
  }

  async allConnections(): Promise<CrmConnectionRecord[]> {
    const members = await this.io(() => this.client.sMembers(crmKeys.connections));
    // One command per connection: each in its customer's slot.
    const found = await this.io(() =>
      Promise.all(
        members.map((m) => {
          const slash = m.indexOf('/');
          const p = CrmProvider.safeParse(m.slice(slash + 1));
          return slash > 0 && p.success ? this.client.hGetAll(crmKeys.connection(m.slice(0, slash), p.data)) : Promise.resolve({});
        }),
      ),
    );
    return found.map(connectionOf).filter((r): r is CrmConnectionRecord => r !== null);
  }

  async deleteConnection(c: string, p: CrmProvider): Promise<boolean> {
    const existed = Number(await this.run(DELETE_CONNECTION, connectionKeys(c, p), [])) === 1;
    await this.io(() => this.client.sRem(crmKeys.connections, member(c, p)));
    // A put between the script and the SREM added its member before writing: it stays listed.
    if ((await this.io(() => this.client.exists(crmKeys.connection(c, p)))) === 1) await this.io(() => this.client.sAdd(crmKeys.connections, member(c, p)));
    return existed;
  }

  async markPending(c: string, p: CrmProvider, items: readonly CrmPendingItem[]): Promise<void> {
    const args = items.flatMap((i) => [i.company_id, padAt(i.at), i.force ? '1' : '0']);
    await this.run(MARK_PENDING, [crmKeys.connection(c, p), crmKeys.pending(c, p), crmKeys.queue(c, p)], args);
  }

  async pending(c: string, p: CrmProvider, limit: number, after?: Pick<CrmPendingItem, 'company_id' | 'at'>): Promise<CrmPendingItem[]> {
    const start = after === undefined ? '-' : `(${padAt(after.at)}|${after.company_id}`;
    const flat = (await this.run(PENDING_PAGE, [crmKeys.pending(c, p), crmKeys.queue(c, p)], [start, String(limit)])) as string[];
    const items: CrmPendingItem[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const [m, v] = [flat[i]!, flat[i + 1]!];
      items.push({ company_id: m.slice(17), at: Number(m.slice(0, 16)), force: v.endsWith(':1') });
    }
    return items;
  }

  pendingCount(c: string, p: CrmProvider): Promise<number> {
    return this.io(() => this.client.hLen(crmKeys.pending(c, p)));
  }

  async ackPending(c: string, p: CrmProvider, items: readonly Pick<CrmPendingItem, 'company_id' | 'at'>[]): Promise<void> {
    const args = items.flatMap((i) => [i.company_id, padAt(i.at)]);
    await this.run(ACK_PENDING, [crmKeys.pending(c, p), crmKeys.queue(c, p)], args);
  }

  async acquireLease(c: string, p: CrmProvider, owner: string, nowMs: number, untilMs: number): Promise<boolean> {
    const taken = await this.run(ACQUIRE_LEASE, [crmKeys.connection(c, p), crmKeys.lease(c, p)], [owner, String(nowMs), String(untilMs)]);
    return Number(taken) === 1;
  }

  async releaseLease(c: string, p: CrmProvider, owner: string): Promise<void> {
    await this.run(RELEASE_LEASE, [crmKeys.lease(c, p)], [owner]);
  }

  async putRun(run: CrmRunRecord, keep: number): Promise<void> {
    const c = run.customer_id;
    const p = run.provider;
    await this.run(
      PUT_RUN,
      [crmKeys.connection(c, p), crmKeys.runs(c, p), crmKeys.runOrder(c, p)],
      [run.id, `${run.started_at}|${run.id}`, JSON.stringify(run), String(keep)],
    );
  }

  async listRuns(c: string, p: CrmProvider, limit: number): Promise<CrmRunRecord[]> {
    const rows = (await this.run(RUNS_PAGE, [crmKeys.runs(c, p), crmKeys.runOrder(c, p)], [String(limit)])) as string[];
    return rows.map((raw) => CrmRunRecord.parse(JSON.parse(raw)));
  }

  async getRun(c: string, p: CrmProvider, id: string): Promise<CrmRunRecord | null> {
    const raw = await this.io(() => this.client.hGet(crmKeys.runs(c, p), id));
    return raw ? CrmRunRecord.parse(JSON.parse(raw)) : null;
  }

  async putAccounts(c: string, p: CrmProvider, rows: readonly CrmAccountRecord[]): Promise<void> {
    const args = rows.flatMap((r) => [r.company_id, JSON.stringify(r)]);
    await this.run(PUT_ACCOUNTS, [crmKeys.connection(c, p), crmKeys.accounts(c, p), crmKeys.accountIds(c, p)], args);
  }

  async getAccounts(c: string, p: CrmProvider, companyIds: readonly string[]): Promise<CrmAccountRecord[]> {
    const rows = await this.io(() => this.client.hmGet(crmKeys.accounts(c, p), [...companyIds]));
    return rows.filter((raw): raw is string => typeof raw === 'string').map((raw) => CrmAccountRecord.parse(JSON.parse(raw)));
  }

  async listAccounts(c: string, p: CrmProvider, limit: number, afterCompanyId?: string): Promise<CrmAccountRecord[]> {
    const start = afterCompanyId === undefined ? '-' : `(${afterCompanyId}`;
    const rows = (await this.run(ACCOUNTS_PAGE, [crmKeys.accounts(c, p), crmKeys.accountIds(c, p)], [start, String(limit)])) as string[];
    return rows.map((raw) => CrmAccountRecord.parse(JSON.parse(raw)));
  }

  async isEmpty(): Promise<boolean> {
    if ((await this.io(() => this.client.sCard(crmKeys.connections))) > 0) return false;
    for await (const batch of scanKeys(this.client, CRM_KEYS)) if (batch.length > 0) return false;
    return true;
  }

  importer(): CrmImportWriter {
    // The steps in turn, each as the live write does it (a script or a MULTI in its customer's slot).
    return {
      write: async (steps) => {
        for (const s of steps) {
          if (s.kind === 'connection') await this.putConnection(s.record, s.secret);
          else if (s.kind === 'pending') await this.markPending(s.customerId, s.provider, s.items);
          else if (s.kind === 'accounts') await this.putAccounts(s.customerId, s.provider, s.rows);
          else await this.putRun(s.run, s.keep);
        }
      },
    };
  }

  async close(): Promise<void> {}
}

/** The CRM store on Redis: the rules (service.ts) over this storage. */
export class RedisCrmStore extends CrmService {
  /** On the state store's client (backend.ts), which stays open when this store closes. */
  constructor(client: RedisClientType, options: RedisCrmStoreOptions = {}) {
    super(new RedisCrmStorage(client, options));
  }
}
