/**
 * The CRM store's rules, once for both backends: what a connection, a pending account, a run and an
 * account record must look like (the core records, with ids that name keys), the secret kept apart from
 * every record handed back, the runs kept per connection and the errors kept per run, the lease's end,
 * the orders lists come in, and the export's order and the import's checks. It keeps nothing itself:
 * storage is a CrmPort (port.ts) — SQLite (sqlite.ts) or Redis (redis.ts) on the state store's connection
 * (backend.ts) — which runs each step atomically. The interface callers see is store.ts; one contract test
 * for both (crm.contract.test.ts).
 */
import { z } from 'zod';
import {
  CRM_RUN_ERRORS_KEPT,
  CRM_RUNS_KEPT,
  type CrmAccountRecord,
  CrmConnectionRecord,
  type CrmPendingItem,
  CrmProvider,
  type CrmRunRecord,
} from '../../../core/crm-records.ts';
import { CustomerId } from '../../../core/customer-records.ts';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { importInPages, TRANSFER_PAGE } from '../transfer/import.ts';
import { CrmAccountChecked, CrmConnectionChecked, CrmEntry, CrmRunChecked } from '../transfer/transfer.ts';
import type { CrmConnectionChange, CrmImportStep, CrmPort } from './port.ts';
import type { CrmConnectionToStore, CrmStore } from './store.ts';

/** The value if the schema takes it, else StateError `invalid` naming the field. */
function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StateError(`${[what, ...(issue?.path ?? [])].join('.')}: ${issue?.message}`);
}

const CompanyId = z.string().min(1);
/** Epoch ms, as both backends order them (Redis as zero-padded text: at most the largest safe integer). */
const Ms = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Limit = z.number().int().min(0);
const Secret = z.string().min(1);
const Owner = z.string().min(1);
const LeaseMs = z.number().int().min(1);
const Mark = z.object({ at: Ms, force: z.boolean(), companyIds: z.array(CompanyId) });
const Position = z.object({ company_id: CompanyId, at: Ms });
/** What updateConnection may change: never the owner, provider, creation or secret (putConnection replaces the secret). */
const Change = CrmConnectionRecord.omit({ customer_id: true, provider: true, created_at: true, secret_prefix: true }).partial().strict();

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byConnection = (a: CrmConnectionRecord, b: CrmConnectionRecord) => byText(a.customer_id, b.customer_id) || byText(a.provider, b.provider);

/** A run as stored: at most CRM_RUN_ERRORS_KEPT errors (the first), started_at in its one spelling (runs are ordered by it as text). */
function checkedRun(run: CrmRunRecord): CrmRunRecord {
  const capped = Array.isArray(run?.errors) ? { ...run, errors: run.errors.slice(0, CRM_RUN_ERRORS_KEPT) } : run;
  const r = checked(CrmRunChecked, capped, 'run');
  return { ...r, started_at: new Date(Date.parse(r.started_at)).toISOString() };
}

const NOT_EMPTY = 'the target already holds CRM connections: import into an empty state';

/** The CrmStore over a backend's storage: every rule here, every byte there. */
export class CrmService implements CrmStore {
  private closed = false;

  constructor(private readonly storage: CrmPort) {}

  /** The storage while open: a closed store refuses, even while the shared connection still serves the others. */
  private get port(): CrmPort {
    if (this.closed) throw new StoreUnavailableError('the CRM store is closed');
    return this.storage;
  }

  /** The connection's key, checked: a customer id names Redis keys (its hash tag), a provider is one of CRM_PROVIDERS. */
  private key(customerId: string, provider: CrmProvider): [string, CrmProvider] {
    return [checked(CustomerId, customerId, 'customer_id'), checked(CrmProvider, provider, 'provider')];
  }

  async putConnection(conn: CrmConnectionToStore): Promise<CrmConnectionRecord> {
    // Parsed: a fresh record of the schema's fields only, so nothing the caller added (a secret) is kept in it.
    const record = checked(CrmConnectionChecked, conn?.record, 'record');
    const secret = checked(Secret, conn?.secret, 'secret');
    await this.port.putConnection(record, secret);
    return record;
  }

  async updateConnection(customerId: string, provider: CrmProvider, change: CrmConnectionChange): Promise<CrmConnectionRecord | null> {
    const key = this.key(customerId, provider);
    const given = checked(Change, change, 'change');
    const fields = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as CrmConnectionChange;
    if (Object.keys(fields).length === 0) return this.port.getConnection(...key);
    return this.port.updateConnection(...key, fields);
  }

  async getConnection(customerId: string, provider: CrmProvider): Promise<CrmConnectionRecord | null> {
    return this.port.getConnection(...this.key(customerId, provider));
  }

  async connectionSecret(customerId: string, provider: CrmProvider): Promise<string | null> {
    return this.port.connectionSecret(...this.key(customerId, provider));
  }

  async listConnections(customerId: string): Promise<CrmConnectionRecord[]> {
    const conns = await this.port.listConnections(checked(CustomerId, customerId, 'customer_id'));
    return conns.sort(byConnection);
  }

  async allConnections(): Promise<CrmConnectionRecord[]> {
    return (await this.port.allConnections()).sort(byConnection);
  }

  async deleteConnection(customerId: string, provider: CrmProvider): Promise<boolean> {
    return this.port.deleteConnection(...this.key(customerId, provider));
  }

  async markPending(customerId: string, provider: CrmProvider, companyIds: readonly string[], atMs: number, force: boolean): Promise<void> {
    const key = this.key(customerId, provider);
    const mark = checked(Mark, { at: atMs, force, companyIds }, 'pending');
    const ids = [...new Set(mark.companyIds)];
    if (ids.length === 0) return;
    await this.port.markPending(
      ...key,
      ids.map((company_id) => ({ company_id, at: mark.at, force: mark.force })),
    );
  }

  async pending(customerId: string, provider: CrmProvider, limit: number, after?: Pick<CrmPendingItem, 'company_id' | 'at'>): Promise<CrmPendingItem[]> {
    const key = this.key(customerId, provider);
    const n = checked(Limit, limit, 'limit');
    const from = after === undefined ? undefined : checked(Position, after, 'after');
    return n === 0 ? [] : this.port.pending(...key, n, from);
  }

  async pendingCount(customerId: string, provider: CrmProvider): Promise<number> {
    return this.port.pendingCount(...this.key(customerId, provider));
  }

  async ackPending(customerId: string, provider: CrmProvider, items: readonly Pick<CrmPendingItem, 'company_id' | 'at'>[]): Promise<void> {
    const key = this.key(customerId, provider);
    const acked = checked(z.array(Position), items, 'items');
    if (acked.length > 0) await this.port.ackPending(...key, acked);
  }

  async acquireLease(customerId: string, provider: CrmProvider, owner: string, nowMs: number, leaseMs: number): Promise<boolean> {
    const key = this.key(customerId, provider);
    const who = checked(Owner, owner, 'owner');
    const now = checked(Ms, nowMs, 'nowMs');
    const until = checked(Ms, now + checked(LeaseMs, leaseMs, 'leaseMs'), 'leaseMs');
    return this.port.acquireLease(...key, who, now, until);
  }

  async releaseLease(customerId: string, provider: CrmProvider, owner: string): Promise<void> {
    return this.port.releaseLease(...this.key(customerId, provider), checked(Owner, owner, 'owner'));
  }

  async putRun(run: CrmRunRecord): Promise<void> {
    return this.port.putRun(checkedRun(run), CRM_RUNS_KEPT);
  }

  async listRuns(customerId: string, provider: CrmProvider, limit: number): Promise<CrmRunRecord[]> {
    const key = this.key(customerId, provider);
    const n = Math.min(checked(Limit, limit, 'limit'), CRM_RUNS_KEPT);
    return n === 0 ? [] : this.port.listRuns(...key, n);
  }

  async getRun(customerId: string, provider: CrmProvider, runId: string): Promise<CrmRunRecord | null> {
    return this.port.getRun(...this.key(customerId, provider), checked(z.string(), runId, 'runId'));
  }

  async putAccounts(rows: readonly CrmAccountRecord[]): Promise<void> {
    const all = checked(z.array(CrmAccountChecked), rows, 'rows');
    // One step per connection (a Redis script touches one customer's slot); a company given twice: the later row.
    const byConn = new Map<string, Map<string, CrmAccountRecord>>();
    for (const row of all) {
      const conn = `${row.customer_id}/${row.provider}`;
      let rowsOf = byConn.get(conn);
      if (rowsOf === undefined) byConn.set(conn, (rowsOf = new Map()));
      rowsOf.set(row.company_id, row);
    }
    for (const rowsOf of byConn.values()) {
      const list = [...rowsOf.values()];
      await this.port.putAccounts(list[0]!.customer_id, list[0]!.provider, list);
    }
  }

  async getAccounts(customerId: string, provider: CrmProvider, companyIds: readonly string[]): Promise<CrmAccountRecord[]> {
    const key = this.key(customerId, provider);
    const ids = [...new Set(checked(z.array(z.string()), companyIds, 'companyIds'))];
    return ids.length === 0 ? [] : this.port.getAccounts(...key, ids);
  }

  async listAccounts(customerId: string, provider: CrmProvider, limit: number, afterCompanyId?: string): Promise<CrmAccountRecord[]> {
    const key = this.key(customerId, provider);
    const n = checked(Limit, limit, 'limit');
    const after = afterCompanyId === undefined ? undefined : checked(z.string(), afterCompanyId, 'afterCompanyId');
    return n === 0 ? [] : this.port.listAccounts(...key, n, after);
  }

  /**
   * Per connection (by customer id, then provider): the connection with its secret, its pending accounts
   * (oldest first), its account records (by company id), its runs (newest first) — the same lines from
   * either backend, a bounded page read at a time.
   */
  async *exportEntries(): AsyncIterable<CrmEntry> {
    for (const record of await this.allConnections()) {
      const key: [string, CrmProvider] = [record.customer_id, record.provider];
      const secret = await this.port.connectionSecret(...key);
      // Deleted since the list was read: nothing of it is left to move.
      if (secret === null) continue;
      yield CrmEntry.parse({ type: 'crm_connection', record, secret });
      for (let after: CrmPendingItem | undefined; ; ) {
        const page = await this.port.pending(...key, TRANSFER_PAGE, after);
        for (const p of page) yield { type: 'crm_pending', customer_id: key[0], provider: key[1], ...p };
        if (page.length < TRANSFER_PAGE) break;
        after = page[page.length - 1];
      }
      for (let after: string | undefined; ; ) {
        const page = await this.port.listAccounts(...key, TRANSFER_PAGE, after);
        for (const account of page) yield CrmEntry.parse({ type: 'crm_account', record: account });
        if (page.length < TRANSFER_PAGE) break;
        after = page[page.length - 1]!.company_id;
      }
      for (const run of await this.port.listRuns(...key, CRM_RUNS_KEPT)) yield CrmEntry.parse({ type: 'crm_run', run });
    }
  }

  async isEmpty(): Promise<boolean> {
    return this.port.isEmpty();
  }

  /**
   * Into an empty store, a page at a time. What belongs to a connection comes after it in the file (as
   * exports write it): an entry of a connection not seen yet is refused, so nothing is silently dropped.
   * Runs are put as putRun puts them, so an edited file cannot keep more than CRM_RUNS_KEPT.
   */
  async importEntries(entries: AsyncIterable<CrmEntry> | Iterable<CrmEntry>): Promise<number> {
    const writer = this.port.importer();
    const seen = new Set<string>();
    return importInPages(entries, {
      schema: {
        parse: (raw) => {
          const e = CrmEntry.parse(raw);
          const [customerId, provider] =
            e.type === 'crm_connection'
              ? [e.record.customer_id, e.record.provider]
              : e.type === 'crm_pending'
                ? [e.customer_id, e.provider]
                : e.type === 'crm_account'
                  ? [e.record.customer_id, e.record.provider]
                  : [e.run.customer_id, e.run.provider];
          const conn = `${customerId}/${provider}`;
          if (e.type === 'crm_connection') seen.add(conn);
          else if (!seen.has(conn)) throw new StateError(`a ${e.type} entry of ${conn} comes before its connection (crm_connection)`);
          return e.type === 'crm_run' ? { ...e, run: checkedRun(e.run) } : e;
        },
      },
      isEmpty: () => this.isEmpty(),
      notEmpty: NOT_EMPTY,
      write: (page) => writer.write(importSteps(page)),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.storage.close();
  }
}

/** A page of entries as import steps: consecutive pending items and account records of one connection together. */
function importSteps(page: readonly CrmEntry[]): CrmImportStep[] {
  const steps: CrmImportStep[] = [];
  for (const e of page) {
    const last = steps[steps.length - 1];
    if (e.type === 'crm_connection') steps.push({ kind: 'connection', record: e.record, secret: e.secret });
    else if (e.type === 'crm_run') steps.push({ kind: 'run', run: e.run, keep: CRM_RUNS_KEPT });
    else if (e.type === 'crm_pending') {
      const item = { company_id: e.company_id, at: e.at, force: e.force };
      if (last?.kind === 'pending' && last.customerId === e.customer_id && last.provider === e.provider) last.items.push(item);
      else steps.push({ kind: 'pending', customerId: e.customer_id, provider: e.provider, items: [item] });
    } else {
      const r = e.record;
      if (last?.kind === 'accounts' && last.customerId === r.customer_id && last.provider === r.provider) last.rows.push(r);
      else steps.push({ kind: 'accounts', customerId: r.customer_id, provider: r.provider, rows: [r] });
    }
  }
  return steps;
}
