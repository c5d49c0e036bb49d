/**
 * The CRM sync as the API, the console and the CLI use it: connect a CRM (the credential tested first),
 * change the mapping, pause and resume, test, remove; start runs and dry runs (sync.ts); and the schedule
 * every node keeps (scheduler.ts). Errors are domain errors (ApiError) the pipeline turns into statuses.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CrmConnectionRecord, CrmMapping, CrmProvider, CrmRunRecord } from '../../core/crm-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { type ClientTuning, crmClient, secretText } from './clients.ts';
import { mappingProblems, resolvedFields } from './mapping.ts';
import { CrmAuthError, type CrmCheck } from './provider.ts';
import type { ConnectHubSpot, ConnectSalesforce, CrmConnectionView, CrmPatch } from './schema.ts';
import { type PreviewAccount, previewSync, type StartedRun, SyncBusyError, type SyncDeps, startSync } from './sync.ts';

export const PROVIDER_NAMES: Record<CrmProvider, string> = { hubspot: 'HubSpot', salesforce: 'Salesforce' };

export type CrmSyncDeps = Omit<SyncDeps, 'client' | 'nodeId' | 'active' | 'halt'> & { nodeId?: string; tuning?: ClientTuning };

/** Characters of a secret shown to tell secrets apart. */
const PREFIX = 6;

export class CrmSync {
  readonly deps: SyncDeps;
  /** Runs started here (API, CLI) not yet ended: a stopping node waits for them (each ends after its chunk). */
  private readonly underway = new Set<Promise<CrmRunRecord>>();

  constructor(deps: CrmSyncDeps) {
    const tuning = deps.tuning ?? {};
    this.deps = {
      ...deps,
      nodeId: deps.nodeId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
      client: (conn, secret) => crmClient(conn, secret, tuning),
      active: new Set(),
      halt: { stopped: false },
    };
  }

  private get store() {
    return this.deps.crm;
  }

  async connectionOr404(customerId: string, provider: CrmProvider): Promise<CrmConnectionRecord> {
    const conn = await this.store.getConnection(customerId, provider);
    if (!conn) throw new ApiError('not_found', `no ${PROVIDER_NAMES[provider]} connection for customer ${customerId}`);
    return conn;
  }

  /** The connection as answered: the fields written, what waits, the last run. */
  async view(customer: CustomerRecord, conn: CrmConnectionRecord): Promise<CrmConnectionView> {
    const [pending, runs] = await Promise.all([
      this.store.pendingCount(conn.customer_id, conn.provider),
      this.store.listRuns(conn.customer_id, conn.provider, 1),
    ]);
    return {
      ...conn,
      fields: resolvedFields(conn.provider, customer, conn.mapping).map((f) => ({ key: f.key, field: f.name, type: f.type })),
      pending,
      last_run: runs[0] ?? null,
    };
  }

  private checkMapping(provider: CrmProvider, customer: CustomerRecord, mapping: CrmMapping): void {
    const problems = mappingProblems(provider, customer, mapping);
    if (problems.length > 0) throw new ApiError('invalid', `validation error: ${problems.join('; ')}`);
  }

  /** Tests a credential (HubSpot: creating svc's property group and properties when missing). */
  private async check(
    conn: Pick<CrmConnectionRecord, 'provider' | 'base_url' | 'client_id' | 'mapping'>,
    secret: string,
    customer: CustomerRecord,
  ): Promise<CrmCheck> {
    const client = this.deps.client({ ...(conn as CrmConnectionRecord) }, secret);
    try {
      return await client.check(resolvedFields(conn.provider, customer, conn.mapping), { ensure: conn.provider === 'hubspot' });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof CrmAuthError) throw new ApiError('invalid', `validation error: ${PROVIDER_NAMES[conn.provider]} refused the credential: ${message}`);
      throw new ApiError('unavailable', `${PROVIDER_NAMES[conn.provider]} did not answer the connection test: ${message}`);
    }
  }

  /** Creates or replaces the connection after its credential passed the test; 201 when new. */
  async connect(
    customer: CustomerRecord,
    provider: CrmProvider,
    body: z.infer<typeof ConnectHubSpot> | z.infer<typeof ConnectSalesforce>,
  ): Promise<{ created: boolean; connection: CrmConnectionRecord; check: CrmCheck }> {
    this.checkMapping(provider, customer, body.mapping);
    const secretValue = 'access_token' in body ? body.access_token : body.client_secret;
    const secret = secretText('access_token' in body ? { access_token: body.access_token } : { client_secret: body.client_secret });
    const baseUrl = 'access_token' in body ? body.base_url : (body.url ?? body.base_url)!;
    const clientId = 'client_id' in body ? body.client_id : null;
    const draft = { provider, base_url: baseUrl, client_id: clientId, mapping: body.mapping };
    const check = await this.check(draft, secret, customer);
    const before = await this.store.getConnection(customer.id, provider);
    const now = new Date(this.deps.now()).toISOString();
    const record: CrmConnectionRecord = {
      customer_id: customer.id,
      provider,
      base_url: baseUrl,
      client_id: clientId,
      secret_prefix: secretValue.slice(0, PREFIX),
      status: 'active',
      attention: null,
      mapping: body.mapping,
      create_missing: body.create_missing,
      created_at: before?.created_at ?? now,
      updated_at: now,
      last_run_at: before?.last_run_at ?? null,
      last_full_at: before?.last_full_at ?? null,
      config_hash: null,
    };
    const connection = await this.store.putConnection({ record, secret });
    return { created: before === null, connection, check };
  }

  async patch(customer: CustomerRecord, conn: CrmConnectionRecord, patch: z.infer<typeof CrmPatch>): Promise<CrmConnectionRecord> {
    if (patch.mapping !== undefined) this.checkMapping(conn.provider, customer, patch.mapping);
    const change: Partial<CrmConnectionRecord> = { updated_at: new Date(this.deps.now()).toISOString() };
    if (patch.mapping !== undefined) change.mapping = patch.mapping;
    if (patch.create_missing !== undefined) change.create_missing = patch.create_missing;
    if (patch.status === 'paused') change.status = 'paused';
    if (patch.status === 'active') Object.assign(change, { status: 'active', attention: null });
    if (patch.mapping !== undefined && conn.provider === 'hubspot') {
      const secret = await this.secretOf(conn);
      await this.check({ ...conn, mapping: patch.mapping }, secret, customer);
    }
    const after = await this.store.updateConnection(conn.customer_id, conn.provider, change);
    if (!after) throw new ApiError('not_found', `no ${PROVIDER_NAMES[conn.provider]} connection for customer ${conn.customer_id}`);
    return after;
  }

  private async secretOf(conn: CrmConnectionRecord): Promise<string> {
    const secret = await this.store.connectionSecret(conn.customer_id, conn.provider);
    if (secret === null) throw new ApiError('not_found', `no ${PROVIDER_NAMES[conn.provider]} connection for customer ${conn.customer_id}`);
    return secret;
  }

  /**
   * "Test connection": what the credential may do. A refused credential is an answer here (ok: false, the
   * provider's message), and puts the connection in "needs attention"; a passing test on a connection that
   * needed attention makes it active again.
   */
  async test(customer: CustomerRecord, conn: CrmConnectionRecord): Promise<{ ok: boolean; message: string | null; check: CrmCheck | null }> {
    const secret = await this.secretOf(conn);
    const now = new Date(this.deps.now()).toISOString();
    try {
      const check = await this.deps.client(conn, secret).check(resolvedFields(conn.provider, customer, conn.mapping), { ensure: conn.provider === 'hubspot' });
      if (conn.status === 'needs_attention')
        await this.store.updateConnection(conn.customer_id, conn.provider, { status: 'active', attention: null, updated_at: now });
      return { ok: true, message: null, check };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof CrmAuthError)
        await this.store.updateConnection(conn.customer_id, conn.provider, { status: 'needs_attention', attention: message, updated_at: now });
      return { ok: false, message, check: null };
    }
  }

  remove(customerId: string, provider: CrmProvider): Promise<boolean> {
    return this.store.deleteConnection(customerId, provider);
  }

  /** Starts a run now; 409 while one runs, or while the connection is paused or needs attention. */
  async start(conn: CrmConnectionRecord, kind: 'incremental' | 'full'): Promise<StartedRun> {
    if (conn.status !== 'active')
      throw new ApiError(
        'conflict',
        conn.status === 'paused'
          ? `the ${PROVIDER_NAMES[conn.provider]} sync is paused: resume it first`
          : `the ${PROVIDER_NAMES[conn.provider]} connection needs attention (${conn.attention ?? 'credential refused'}): connect again or test it`,
      );
    try {
      const started = await startSync(this.deps, conn.customer_id, conn.provider, kind);
      this.underway.add(started.done);
      void started.done.finally(() => this.underway.delete(started.done));
      return started;
    } catch (e) {
      if (e instanceof SyncBusyError) throw new ApiError('conflict', `${e.message}: wait for it to finish (GET …/runs)`);
      throw e;
    }
  }

  /** Stops runs at their next chunk and waits for them to end (a stopping node). */
  async stop(): Promise<void> {
    this.deps.halt.stopped = true;
    await Promise.allSettled([...this.underway]);
  }

  async preview(conn: CrmConnectionRecord, kind: 'incremental' | 'full'): Promise<{ run: CrmRunRecord; accounts: PreviewAccount[] }> {
    return previewSync(this.deps, conn.customer_id, conn.provider, kind);
  }
}
