/**
 * One sync run of a CRM connection: which accounts to look at, their values (the account page's), which
 * CRM records they match, what to write, and the run's log. Durable and single-runner across nodes:
 *
 * - a run first adds its accounts to the connection's pending set in the state store (full: every account
 *   svc knows of the customer, written even if unchanged; incremental: those that visited in the last 31
 *   days — the 30-day counts move — and, when the customer's segments, lists or products changed since the
 *   last run, every account written before), then drains the set in chunks, acknowledging each chunk once
 *   written. A node that dies mid-run leaves the rest pending; the next run (on any node) finishes it;
 * - one lease per connection in the state store: a second node (or a second click) finds it held;
 * - an account whose values hash as last written is not written again (incremental), so a run resumed
 *   after a crash does not write twice what was acknowledged.
 *
 * A refused credential pauses the connection ("needs attention", with the provider's message) and stops
 * the run; the provider down (past the client's bounded retries) fails the run and keeps its accounts
 * pending for the next scheduled run — nothing is retried in a tight loop.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import {
  CRM_RUN_ERRORS_KEPT,
  type CrmAccountRecord,
  type CrmConnectionRecord,
  type CrmPendingItem,
  type CrmRunCounts,
  type CrmRunError,
  type CrmRunKind,
  type CrmRunRecord,
  type CrmValue,
} from '../../core/crm-records.ts';
import type { AccountSources } from '../accounts/gather.ts';
import type { Catalog } from '../data/catalog.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { normaliseDomain } from './domain.ts';
import { fieldValues, resolvedFields, valuesHash } from './mapping.ts';
import { CrmAuthError, type CrmClient, type CrmRecordRef, type CrmWrite } from './provider.ts';
import { type AccountValues, accountValuesOf } from './values.ts';

/**
 * Accounts read, matched, written and acknowledged per chunk: one write request of the provider (HubSpot's
 * batch update takes 100 records, Salesforce's sObject collections 200), so a node that dies mid-run
 * leaves at most the one request under way to be written again by the node that takes over.
 */
export const CHUNK: Record<CrmConnectionRecord['provider'], number> = { hubspot: 100, salesforce: 200 };
/** Visits in this many days make an account a candidate of the day's first incremental run (its 30-day counts move). */
export const ACTIVE_DAYS = 31;
/** Days a full run looks back for visiting accounts (the visit store's retention). */
export const FULL_DAYS = 400;
/** How old the CRM side of a known record may get before a run reads it again (owner, stage). */
export const READ_BACK_MS = 24 * 3600_000;
/** Accounts marked pending per atomic step of the store. */
export const MARK_STEP = 5000;
/** Accounts a dry run lists (its counts cover them all). */
export const PREVIEW_LIMIT = 1000;

export interface SyncLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface SyncDeps {
  crm: CrmStore;
  customers: { getCustomer(id: string): Promise<CustomerRecord | null> };
  dataset: { readonly current: { readonly catalog: Catalog } };
  recorder: AccountSources['recorder'] & { readonly visits: Pick<VisitStore, 'accountVisits' | 'accountPages' | 'accountSessions'> };
  /** The client of a connection (server/crm/clients.ts). */
  client(conn: CrmConnectionRecord, secret: string): CrmClient;
  now(): number;
  /** This node, as lease owner. */
  nodeId: string;
  leaseMs: number;
  log: SyncLog;
  /**
   * Connections (`customer/provider`) with a run under way on this node: the lease is per node, so a
   * second start on the node that holds it (the schedule while a clicked run drains) is refused here.
   */
  active: Set<string>;
  /** Set when the node stops: a run ends after its chunk under way, leaving the rest pending. */
  halt: { stopped: boolean };
}

/** A dry run's account: what would be written, and where. */
export interface PreviewAccount {
  company_id: string;
  name: string | null;
  domain: string | null;
  /** The CRM records it matches (empty: none; with create_missing one would be created). */
  crm_ids: string[];
  /** By CRM field. */
  values: Record<string, CrmValue>;
}

export class SyncBusyError extends Error {
  override name = 'SyncBusyError';
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();
const emptyCounts = (): CrmRunCounts => ({
  accounts: 0,
  matched: 0,
  written: 0,
  created: 0,
  unchanged: 0,
  not_found: 0,
  invalid_domain: 0,
  multiple_matches: 0,
  failed: 0,
  requests: 0,
});

/** What of the customer's record changes every account's values: a change re-checks the accounts written before. */
export function configHash(customer: CustomerRecord, conn: Pick<CrmConnectionRecord, 'mapping'>): string {
  const { segments, products, account_lists, hot_accounts, excluded_accounts, kept_query_params } = customer;
  return createHash('sha256')
    .update(JSON.stringify([segments, products, account_lists, hot_accounts, excluded_accounts, kept_query_params, conn.mapping]))
    .digest('base64url')
    .slice(0, 22);
}

async function connectionOf(deps: SyncDeps, customerId: string, provider: CrmConnectionRecord['provider']) {
  const conn = await deps.crm.getConnection(customerId, provider);
  const secret = conn && (await deps.crm.connectionSecret(customerId, provider));
  const customer = await deps.customers.getCustomer(customerId);
  if (!conn || !secret || !customer) return null;
  return { conn, secret, customer };
}

/** Company ids of the accounts a run looks at (see the module comment). */
async function candidates(deps: SyncDeps, customer: CustomerRecord, conn: CrmConnectionRecord, kind: CrmRunKind | 'full', now: number): Promise<string[]> {
  // An incremental run's first of the day looks at every account active in ACTIVE_DAYS (their 30-day counts
  // and scores move with the date); the day's later runs only at accounts that visited since the last run's day.
  const lastDay = conn.last_run_at === null ? null : conn.last_run_at.slice(0, 10);
  const from =
    kind === 'full' ? day(now - FULL_DAYS * 86_400_000) : lastDay === day(now) && kind === 'incremental' ? lastDay : day(now - ACTIVE_DAYS * 86_400_000);
  const visited = await deps.recorder.visits.accountVisits(customer.id, from, day(now));
  const ids = new Set(visited.map((v) => v.company_id));
  const recheck = kind === 'full' || conn.config_hash !== configHash(customer, conn);
  if (kind === 'full') {
    for (const h of customer.hot_accounts) ids.add(h.company_id);
    for (const l of customer.account_lists ?? []) for (const id of l.company_ids) ids.add(id);
  }
  if (recheck) {
    let after: string | undefined;
    for (;;) {
      const page = await deps.crm.listAccounts(customer.id, conn.provider, 1000, after);
      for (const a of page) if (a.written_hash !== null) ids.add(a.company_id);
      if (page.length < 1000) break;
      after = page[page.length - 1]!.company_id;
    }
  }
  return [...ids].sort();
}

/** A chunk's accounts: their values, their stored records, the CRM records their domains match. */
interface ChunkAccount {
  item: Pick<CrmPendingItem, 'company_id' | 'at' | 'force'>;
  company: CompanyRow | null;
  domain: string | null;
  written: Record<string, CrmValue> | null;
  hash: string | null;
  stored: CrmAccountRecord | undefined;
  refs: CrmRecordRef[] | undefined;
}

class RunLog {
  readonly counts = emptyCounts();
  readonly errors: CrmRunError[] = [];
  error(e: CrmRunError): void {
    if (this.errors.length < CRM_RUN_ERRORS_KEPT) this.errors.push(e);
  }
}

/**
 * Reads a chunk: values, stored records, and matches — by search for accounts never looked up, or looked up
 * more than READ_BACK_MS ago without a match (on a full run: with one too); known records whose CRM side is
 * older than that are read again (owner, stage).
 */
async function readChunk(
  deps: SyncDeps,
  client: CrmClient,
  customer: CustomerRecord,
  conn: CrmConnectionRecord,
  fields: readonly { key: string; name: string }[],
  items: readonly Pick<CrmPendingItem, 'company_id' | 'at' | 'force'>[],
  full: boolean,
  now: number,
): Promise<ChunkAccount[]> {
  const ids = items.map((i) => i.company_id);
  const [values, stored] = await Promise.all([
    accountValuesOf(deps, customer, ids, new Date(now)),
    deps.crm.getAccounts(customer.id, conn.provider, ids).then((rows) => new Map(rows.map((r) => [r.company_id, r]))),
  ]);
  const accounts: ChunkAccount[] = items.map((item) => {
    const v: AccountValues | undefined = values.get(item.company_id);
    const written = v ? fieldValues(fields, v.values) : null;
    return {
      item,
      company: v?.company ?? null,
      domain: v ? normaliseDomain(v.company.domain) : null,
      written,
      hash: written ? valuesHash(written) : null,
      stored: stored.get(item.company_id),
      refs: undefined,
    };
  });
  const stale = (r: CrmAccountRecord) => r.read_at === null || now - Date.parse(r.read_at) >= READ_BACK_MS;
  // Looked up by domain: accounts never looked up, and those looked up more than a day ago that matched
  // nothing (or, on a full run, anything: new records of the domain are found). A match read within the day
  // is reused — a full backfill of matched accounts costs its writes, not a search per 50 domains again.
  const search = accounts.filter((a) => a.domain !== null && a.written && (!a.stored || ((full || a.stored.crm_ids.length === 0) && stale(a.stored))));
  if (search.length > 0) {
    const found = await client.findByDomains([...new Set(search.map((a) => a.domain!))]);
    for (const a of search) a.refs = found.get(a.domain!) ?? [];
  }
  const reread = accounts.filter((a) => a.refs === undefined && a.stored && a.stored.crm_ids.length > 0 && stale(a.stored));
  if (reread.length > 0) {
    const byId = new Map((await client.readRecords(reread.flatMap((a) => a.stored!.crm_ids))).map((r) => [r.crm_id, r]));
    for (const a of reread) a.refs = a.stored!.crm_ids.flatMap((id) => byId.get(id) ?? []);
  }
  return accounts;
}

const withoutFields = (values: Record<string, CrmValue>, fields: ReadonlySet<string>) =>
  Object.fromEntries(Object.entries(values).filter(([f]) => !fields.has(f)));

/**
 * Writes what a chunk needs; returns the records to store and the items done (acknowledged) — not those
 * whose writes are to be retried at a later run.
 */
async function writeChunk(
  client: CrmClient,
  conn: CrmConnectionRecord,
  accounts: ChunkAccount[],
  log: RunLog,
  now: number,
): Promise<{ rows: CrmAccountRecord[]; done: ChunkAccount[] }> {
  const writes: CrmWrite[] = [];
  const owner = new Map<string, ChunkAccount>();
  const creates: ChunkAccount[] = [];
  const done: ChunkAccount[] = [];
  const rows = new Map<string, CrmAccountRecord>();
  const rowOf = (a: ChunkAccount): CrmAccountRecord => {
    let row = rows.get(a.item.company_id);
    if (!row) {
      const refs = a.refs;
      const first = refs?.[0];
      row = {
        customer_id: conn.customer_id,
        provider: conn.provider,
        company_id: a.item.company_id,
        crm_ids: refs ? refs.map((r) => r.crm_id) : (a.stored?.crm_ids ?? []),
        owner_email: refs ? (first?.owner_email ?? null) : (a.stored?.owner_email ?? null),
        owner_name: refs ? (first?.owner_name ?? null) : (a.stored?.owner_name ?? null),
        stage: refs ? (first?.stage ?? null) : (a.stored?.stage ?? null),
        type: refs ? (first?.type ?? null) : (a.stored?.type ?? null),
        written_hash: a.stored?.written_hash ?? null,
        read_at: refs ? iso(now) : (a.stored?.read_at ?? null),
        written_at: a.stored?.written_at ?? null,
      };
      rows.set(a.item.company_id, row);
    }
    return row;
  };
  for (const a of accounts) {
    log.counts.accounts++;
    if (!a.company || !a.written) {
      // A company the catalog no longer has: nothing to write (its pending entry is dropped).
      log.counts.not_found++;
      done.push(a);
      continue;
    }
    if (a.domain === null) {
      log.counts.invalid_domain++;
      done.push(a);
      continue;
    }
    const row = rowOf(a);
    if (row.crm_ids.length === 0) {
      if (conn.create_missing) creates.push(a);
      else {
        log.counts.not_found++;
        done.push(a);
      }
      continue;
    }
    log.counts.matched++;
    if (row.crm_ids.length > 1) log.counts.multiple_matches++;
    if (!a.item.force && a.stored?.written_hash === a.hash && sameIds(a.stored.crm_ids, row.crm_ids)) {
      log.counts.unchanged++;
      done.push(a);
      continue;
    }
    for (const id of row.crm_ids) {
      writes.push({ crm_id: id, values: a.written });
      owner.set(id, a);
    }
  }
  const failed = new Set<ChunkAccount>();
  const retry = new Set<ChunkAccount>();
  if (writes.length > 0) {
    let result = await client.update(writes);
    // A field the CRM no longer has (deleted, renamed): named in the run's errors; the other fields are written.
    const badFields = new Set(result.errors.flatMap((e) => (e.field ? [e.field] : [])));
    if (badFields.size > 0) {
      const refused = new Set(result.errors.filter((e) => e.field && e.crm_id).map((e) => e.crm_id!));
      for (const e of result.errors.filter((e) => e.field))
        log.error({
          company_id: owner.get(e.crm_id ?? '')?.item.company_id ?? null,
          domain: owner.get(e.crm_id ?? '')?.domain ?? null,
          crm_id: e.crm_id,
          field: e.field,
          message: e.message,
        });
      const again = writes.filter((w) => refused.has(w.crm_id)).map((w) => ({ crm_id: w.crm_id, values: withoutFields(w.values, badFields) }));
      const second = again.length > 0 ? await client.update(again) : { written: [], errors: [], retry: [] };
      result = {
        written: [...result.written, ...second.written],
        errors: [...result.errors.filter((e) => !e.field), ...second.errors],
        retry: [...result.retry, ...second.retry],
      };
      // The record holds only part of the values: not the hash of the whole, so a later run writes it again.
      for (const id of refused) {
        const a = owner.get(id);
        if (a) failed.add(a);
      }
    }
    for (const e of result.errors) {
      const a = e.crm_id ? owner.get(e.crm_id) : undefined;
      if (a) failed.add(a);
      log.error({ company_id: a?.item.company_id ?? null, domain: a?.domain ?? null, crm_id: e.crm_id, field: e.field, message: e.message });
    }
    for (const id of result.retry) {
      const a = owner.get(id);
      if (a) retry.add(a);
    }
    log.counts.written += result.written.length;
    log.counts.failed += result.errors.length;
  }
  if (creates.length > 0) {
    const result = await client.create(creates.map((a) => ({ domain: a.domain!, name: a.company!.name || a.domain!, values: a.written! })));
    const byDomain = new Map<string, ChunkAccount[]>();
    for (const a of creates) byDomain.set(a.domain!, [...(byDomain.get(a.domain!) ?? []), a]);
    for (const c of result.created) {
      for (const a of byDomain.get(c.domain) ?? []) {
        const row = rowOf(a);
        row.crm_ids = [c.crm_id];
        row.written_hash = a.hash;
        row.written_at = iso(now);
        log.counts.created++;
        done.push(a);
      }
    }
    for (const e of result.errors) {
      for (const a of byDomain.get(e.domain) ?? []) {
        failed.add(a);
        done.push(a);
      }
      log.counts.failed++;
      log.error({ company_id: byDomain.get(e.domain)?.[0]?.item.company_id ?? null, domain: e.domain, crm_id: null, field: e.field, message: e.message });
    }
    for (const d of result.retry) for (const a of byDomain.get(d) ?? []) retry.add(a);
  }
  for (const a of new Set(owner.values())) {
    if (retry.has(a)) continue;
    const row = rowOf(a);
    if (!failed.has(a)) {
      row.written_hash = a.hash;
      row.written_at = iso(now);
    }
    done.push(a);
  }
  return { rows: [...rows.values()], done: [...new Set(done)].filter((a) => !retry.has(a)) };
}

/**
 * The fields a run writes: those of the mapping the CRM has and lets svc write (HubSpot: created in svc's
 * property group when missing, unless `ensure` is off — a dry run changes nothing). A missing one is named
 * in the run's errors and left out; the others are written.
 */
async function writableFields(client: CrmClient, conn: CrmConnectionRecord, customer: CustomerRecord, log: RunLog, ensure = true) {
  const fields = resolvedFields(conn.provider, customer, conn.mapping);
  const check = await client.check(fields, { ensure: ensure && conn.provider === 'hubspot' });
  const writable = new Set(check.writable_fields);
  for (const f of fields) {
    if (!writable.has(f.name))
      log.error({
        company_id: null,
        domain: null,
        crm_id: null,
        field: f.name,
        message:
          conn.provider === 'salesforce'
            ? `the Account field ${f.name} does not exist or svc may not write it: your Salesforce admin creates it (${f.type})`
            : `the company property ${f.name} does not exist in svc's property group`,
      });
  }
  // A dry run without the property group yet still shows what would be written once it is created.
  return ensure || conn.provider === 'salesforce' ? fields.filter((f) => writable.has(f.name)) : fields;
}

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The CRM records an account is written to: those just matched, else those stored. */
const recordIds = (a: ChunkAccount): string[] => (a.refs ? a.refs.map((r) => r.crm_id) : (a.stored?.crm_ids ?? []));

/** Whether settling the account takes a provider request (a write or a create): writeChunk's own rules. */
function needsRequest(a: ChunkAccount, conn: CrmConnectionRecord): boolean {
  if (!a.company || !a.written || a.domain === null) return false;
  const ids = recordIds(a);
  if (ids.length === 0) return conn.create_missing;
  return a.item.force || a.stored?.written_hash !== a.hash || !sameIds(a.stored.crm_ids, ids);
}

export interface StartedRun {
  run: CrmRunRecord;
  /** Settles when the run ends (never rejects: the run record says how it went). */
  done: Promise<CrmRunRecord>;
}

/**
 * Starts a run of (customer, provider) on this node: takes the connection's lease (SyncBusyError when
 * another holds it), records the run as running and drains in the background; `done` settles at its end.
 */
export async function startSync(
  deps: SyncDeps,
  customerId: string,
  provider: CrmConnectionRecord['provider'],
  kind: 'incremental' | 'full',
): Promise<StartedRun> {
  const found = await connectionOf(deps, customerId, provider);
  if (!found) throw new Error(`no ${provider} connection for customer ${customerId}`);
  const { conn, secret, customer } = found;
  const key = `${customerId}/${provider}`;
  const busy = () => new SyncBusyError(`a ${provider} sync of customer ${customerId} is running`);
  if (deps.active.has(key)) throw busy();
  deps.active.add(key);
  let leased = false;
  try {
    leased = await deps.crm.acquireLease(customerId, provider, deps.nodeId, deps.now(), deps.leaseMs);
  } finally {
    if (!leased) deps.active.delete(key);
  }
  if (!leased) throw busy();
  const startedAt = deps.now();
  const run: CrmRunRecord = {
    id: `run_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    customer_id: customerId,
    provider,
    kind,
    status: 'running',
    started_at: iso(startedAt),
    finished_at: null,
    counts: emptyCounts(),
    errors: [],
    message: null,
  };
  try {
    // A run left running by a node that died: its accounts are still pending, and this run takes them on.
    for (const old of await deps.crm.listRuns(customerId, provider, 5)) {
      if (old.status === 'running' && old.kind !== 'dry_run')
        await deps.crm.putRun({ ...old, status: 'failed', finished_at: iso(startedAt), message: `stopped mid-run; ${run.id} resumed what was left` });
    }
    await deps.crm.putRun(run);
    const hash = configHash(customer, conn);
    const ids = await candidates(deps, customer, conn, kind, startedAt);
    // In steps of MARK_STEP: one step is one transaction / script, kept well inside Redis's command deadline.
    for (let i = 0; i < ids.length; i += MARK_STEP) await deps.crm.markPending(customerId, provider, ids.slice(i, i + MARK_STEP), startedAt, kind === 'full');
    await deps.crm.updateConnection(customerId, provider, {
      last_run_at: run.started_at,
      ...(kind === 'full' ? { last_full_at: run.started_at } : {}),
      config_hash: hash,
    });
  } catch (e) {
    deps.active.delete(key);
    await deps.crm.releaseLease(customerId, provider, deps.nodeId).catch(() => {});
    throw e;
  }
  const done = drain(deps, conn, secret, customer, run).finally(async () => {
    deps.active.delete(key);
    await deps.crm.releaseLease(customerId, provider, deps.nodeId).catch(() => {});
  });
  return { run, done };
}

/** Drains the pending set in chunks, renewing the lease before each; records the run as it goes. */
async function drain(deps: SyncDeps, conn: CrmConnectionRecord, secret: string, customer: CustomerRecord, run: CrmRunRecord): Promise<CrmRunRecord> {
  const log = new RunLog();
  const client = deps.client(conn, secret);
  const save = (status: CrmRunRecord['status'], message: string | null, finished: boolean) => {
    const record: CrmRunRecord = {
      ...run,
      status,
      message,
      finished_at: finished ? iso(deps.now()) : null,
      counts: { ...log.counts, requests: client.requests() },
      errors: [...log.errors],
    };
    return deps.crm.putRun(record).then(() => record);
  };
  let after: Pick<CrmPendingItem, 'company_id' | 'at'> | undefined;
  /** Accounts read and waiting for a write: acknowledged only once written (a crash leaves them pending). */
  let buffer: ChunkAccount[] = [];
  let buffered = 0;
  const settle = async (accounts: ChunkAccount[]) => {
    if (accounts.length === 0) return;
    const { rows, done } = await writeChunk(client, conn, accounts, log, deps.now());
    await deps.crm.putAccounts(rows);
    await deps.crm.ackPending(
      conn.customer_id,
      conn.provider,
      done.map((a) => a.item),
    );
  };
  const flush = async () => {
    const accounts = buffer;
    buffer = [];
    buffered = 0;
    await settle(accounts);
  };
  /** Writes the buffer's first accounts whose records fill one provider batch (never splitting a batch in two requests). */
  const flushBatch = async () => {
    let n = 0;
    let records = 0;
    while (n < buffer.length) {
      const size = Math.max(1, recordIds(buffer[n]!).length);
      if (n > 0 && records + size > CHUNK[conn.provider]) break;
      records += size;
      n++;
    }
    const accounts = buffer.slice(0, n);
    buffer = buffer.slice(n);
    buffered -= records;
    await settle(accounts);
  };
  try {
    const fields = await writableFields(client, conn, customer, log);
    for (;;) {
      if (deps.halt.stopped) return await save('partial', 'the node stopped: what is left stays pending for the next run', true);
      if (!(await deps.crm.acquireLease(conn.customer_id, conn.provider, deps.nodeId, deps.now(), deps.leaseMs)))
        return await save('failed', 'another node took the sync over (this node was too slow to renew its lease)', true);
      const items = await deps.crm.pending(conn.customer_id, conn.provider, CHUNK[conn.provider], after);
      if (items.length === 0) break;
      after = items[items.length - 1];
      const accounts = await readChunk(deps, client, customer, conn, fields, items, run.kind === 'full', deps.now());
      // What needs no request is settled now; what does waits until a provider batch is full, so 1,000
      // changed accounts spread over 100,000 unchanged ones cost 10 writes, not one per chunk they fall in.
      await settle(accounts.filter((a) => !needsRequest(a, conn)));
      for (const a of accounts.filter((a) => needsRequest(a, conn))) {
        buffer.push(a);
        buffered += Math.max(1, recordIds(a).length);
      }
      while (buffered >= CHUNK[conn.provider]) await flushBatch();
      await save('running', null, false);
    }
    await flush();
    const left = await deps.crm.pendingCount(conn.customer_id, conn.provider);
    const status = log.errors.length > 0 || log.counts.failed > 0 || left > 0 ? 'partial' : 'succeeded';
    const message = left > 0 ? `${left} accounts left pending for the next run (the CRM did not take them in time)` : null;
    const record = await save(status, message, true);
    deps.log.info({ customer_id: conn.customer_id, provider: conn.provider, run_id: run.id, ...record.counts }, 'crm sync finished');
    return record;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof CrmAuthError) {
      await deps.crm
        .updateConnection(conn.customer_id, conn.provider, { status: 'needs_attention', attention: message, updated_at: iso(deps.now()) })
        .catch(() => {});
    }
    deps.log.warn({ customer_id: conn.customer_id, provider: conn.provider, run_id: run.id, err: message }, 'crm sync failed');
    return save('failed', message, true).catch(() => ({ ...run, status: 'failed' as const, message }));
  }
}

/**
 * A dry run: what a run of `kind` would write, without writing or changing what is pending (the CRM is
 * read to match). Lists at most PREVIEW_LIMIT accounts; its counts cover all of them.
 */
export async function previewSync(
  deps: SyncDeps,
  customerId: string,
  provider: CrmConnectionRecord['provider'],
  kind: 'incremental' | 'full',
): Promise<{ run: CrmRunRecord; accounts: PreviewAccount[] }> {
  const found = await connectionOf(deps, customerId, provider);
  if (!found) throw new Error(`no ${provider} connection for customer ${customerId}`);
  const { conn, secret, customer } = found;
  const startedAt = deps.now();
  const client = deps.client(conn, secret);
  const log = new RunLog();
  const preview: PreviewAccount[] = [];
  const ids = await candidates(deps, customer, conn, kind, startedAt);
  const pending = await deps.crm.pending(customerId, provider, 100_000);
  const all = [...new Set([...ids, ...pending.map((p) => p.company_id)])].sort();
  let message: string | null = null;
  let fields: Awaited<ReturnType<typeof writableFields>> | undefined;
  try {
    fields = await writableFields(client, conn, customer, log, false);
    const chunk = CHUNK[provider];
    for (let i = 0; i < all.length; i += chunk) {
      const items = all.slice(i, i + chunk).map((company_id) => ({ company_id, at: startedAt, force: kind === 'full' }));
      for (const a of await readChunk(deps, client, customer, conn, fields!, items, kind === 'full', startedAt)) {
        log.counts.accounts++;
        if (!a.company || !a.written) continue;
        if (a.domain === null) {
          log.counts.invalid_domain++;
          continue;
        }
        const crmIds = a.refs ? a.refs.map((r) => r.crm_id) : (a.stored?.crm_ids ?? []);
        if (crmIds.length === 0) log.counts.not_found++;
        else log.counts.matched++;
        if (crmIds.length > 1) log.counts.multiple_matches++;
        if (kind === 'incremental' && a.stored?.written_hash === a.hash && crmIds.length > 0) {
          log.counts.unchanged++;
          continue;
        }
        if (crmIds.length === 0 && !conn.create_missing) continue;
        if (preview.length < PREVIEW_LIMIT)
          preview.push({ company_id: a.item.company_id, name: a.company.name || null, domain: a.domain, crm_ids: crmIds, values: a.written });
      }
    }
  } catch (e) {
    message = e instanceof Error ? e.message : String(e);
    if (e instanceof CrmAuthError)
      await deps.crm.updateConnection(customerId, provider, { status: 'needs_attention', attention: message, updated_at: iso(deps.now()) }).catch(() => {});
  }
  const run: CrmRunRecord = {
    id: `run_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    customer_id: customerId,
    provider,
    kind: 'dry_run',
    status: message ? 'failed' : 'succeeded',
    started_at: iso(startedAt),
    finished_at: iso(deps.now()),
    counts: { ...log.counts, requests: client.requests() },
    errors: log.errors,
    message,
  };
  await deps.crm.putRun(run);
  return { run, accounts: preview };
}
