/**
 * `svc crm …`: a customer's CRM sync from the operator's shell — connect HubSpot or Salesforce (the
 * credential tested first, as the API does), run a sync (incremental, full or dry) in this process and
 * wait for it, and show the connections' status. The same rules as the API (server/crm/); every change is
 * in the customer's audit log (actor `operator`). Reads the data (SVC_DATA) and the state store directly:
 * no server needs to run, and a server's nodes see the run's lease (one run per connection at a time).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CRM_PROVIDERS, CrmProvider, type CrmRunRecord } from '../../core/crm-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { CATALOG_FILE } from '../../data/catalog/schema.ts';
import type { Config } from '../config.ts';
import type { CrmSync } from '../crm/service.ts';
import type { Backend } from '../state/backend.ts';
import type { Command } from './commands.ts';
import { type CommandContext, emit, requireOption, UsageError } from './output.ts';
import { auditAsOperator, withStore } from './with-store.ts';

/** The CRM sync on the CLI's backend and a catalog of SVC_DATA; ApiErrors become usage errors (exit 2). */
async function withCrm<T>(ctx: CommandContext, fn: (crm: CrmSync, backend: Backend, config: Config) => Promise<T>): Promise<T> {
  return withStore(ctx.io, async (store, config, backend) => {
    const file = join(config.SVC_DATA, CATALOG_FILE);
    if (!existsSync(file))
      throw new UsageError(`${file} not found: build the data first (npm run svc -- data build --in data/sample --out ${config.SVC_DATA})`);
    const [{ openCatalog }, { CrmSync }] = await Promise.all([import('../data/catalog.ts'), import('../crm/service.ts')]);
    const catalog = openCatalog(file);
    const crm = new CrmSync({
      crm: backend.crm,
      customers: store,
      dataset: { current: { catalog } },
      recorder: { visits: backend.visits, reportError: (e) => ctx.io.stderr.write(`svc crm: page views not read: ${(e as Error).message}\n`) },
      now: Date.now,
      leaseMs: config.SVC_CRM_LEASE_SECONDS * 1000,
      log: { info: () => {}, warn: (o, m) => ctx.io.stderr.write(`svc crm: ${m} ${JSON.stringify(o)}\n`) },
    });
    try {
      return await fn(crm, backend, config);
    } catch (e) {
      if (e instanceof ApiError) throw new UsageError(e.message);
      throw e;
    } finally {
      catalog.close();
    }
  });
}

async function customerOf(backend: Backend, v: Record<string, unknown>) {
  const id = requireOption(v, 'customer');
  const customer = await backend.state.getCustomer(id);
  if (!customer) throw new UsageError(`unknown customer ${id}`);
  return customer;
}

function providerOption(value: unknown): CrmProvider {
  const p = CrmProvider.safeParse(value);
  if (!p.success) throw new UsageError(`the CRM must be one of ${CRM_PROVIDERS.join(', ')}`);
  return p.data;
}

const runLine = (r: CrmRunRecord) =>
  `${r.provider} ${r.kind} run ${r.id}: ${r.status}${r.message ? ` (${r.message})` : ''} — ${r.counts.accounts} accounts, ${r.counts.matched} matched, ` +
  `${r.counts.written} records written, ${r.counts.created} created, ${r.counts.unchanged} unchanged, ${r.counts.not_found} not in the CRM, ` +
  `${r.counts.invalid_domain} invalid domains, ${r.counts.failed} failed, ${r.counts.requests} requests` +
  r.errors
    .slice(0, 20)
    .map((e) => `\n  ${e.company_id ?? '-'} ${e.domain ?? ''} ${e.crm_id ?? ''} ${e.field ?? ''}: ${e.message}`)
    .join('');

export const CRM_COMMANDS: Record<string, Command> = {
  'crm connect': {
    usage:
      'crm connect hubspot --customer ID --token T [--base-url URL] | crm connect salesforce --customer ID --client-id ID --client-secret S --url https://….my.salesforce.com',
    summary: "connect a customer's HubSpot (private-app token) or Salesforce (connected app, client credentials); the credential is tested first",
    help: '\nHubSpot: svc creates its property group and properties when missing. Salesforce: svc names the Account fields your admin must create.\n--create-missing creates CRM accounts for svc accounts no record matches (off by default).\n',
    options: {
      customer: { type: 'string' },
      token: { type: 'string' },
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      url: { type: 'string' },
      'create-missing': { type: 'boolean' },
    },
    async run(v, positionals, ctx) {
      const provider = providerOption(positionals[0]);
      const create_missing = v['create-missing'] === true;
      const result = await withCrm(ctx, async (crm, backend) => {
        const customer = await customerOf(backend, v);
        const body =
          provider === 'hubspot'
            ? {
                access_token: requireOption(v, 'token'),
                base_url: ((v['base-url'] as string | undefined) ?? 'https://api.hubapi.com').replace(/\/+$/, ''),
                mapping: {},
                create_missing,
              }
            : {
                client_id: requireOption(v, 'client-id'),
                client_secret: requireOption(v, 'client-secret'),
                url: requireOption(v, 'url').replace(/\/+$/, ''),
                mapping: {},
                create_missing,
              };
        const { created, connection, check } = await crm.connect(customer, provider, body);
        await auditAsOperator(backend.users, {
          customer: customer.id,
          action: created ? 'crm.connect' : 'crm.reconnect',
          target: provider,
          after: { provider, base_url: connection.base_url, client_id: connection.client_id, secret_prefix: connection.secret_prefix },
        });
        return { connection, check };
      });
      emit(
        ctx,
        result,
        () =>
          `${provider} connected for ${result.connection.customer_id} (${result.connection.base_url})\n` +
          `writes: ${result.check.writable_fields.join(', ') || 'nothing yet'}` +
          (result.check.created_fields.length ? `\ncreated: ${result.check.created_fields.join(', ')}` : '') +
          (result.check.missing_fields.length ? `\nmissing (create them in ${provider}): ${result.check.missing_fields.join(', ')}` : ''),
      );
    },
  },
  'crm sync': {
    usage: 'crm sync --customer ID [--provider hubspot|salesforce] [--full] [--dry-run]',
    summary: "sync a customer's accounts to its CRM now and wait for the run (incremental; --full: every account; --dry-run: only say what would be written)",
    options: { customer: { type: 'string' }, provider: { type: 'string' }, full: { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
    async run(v, _p, ctx) {
      const kind = v.full === true ? 'full' : 'incremental';
      const out = await withCrm(ctx, async (crm, backend) => {
        const customer = await customerOf(backend, v);
        let conns = await backend.crm.listConnections(customer.id);
        if (v.provider !== undefined) {
          const p = providerOption(v.provider);
          conns = conns.filter((c) => c.provider === p);
        }
        if (conns.length === 0) throw new UsageError(`customer ${customer.id} has no ${v.provider ?? 'CRM'} connection: svc crm connect first`);
        const runs: { run: CrmRunRecord; accounts?: unknown[] }[] = [];
        for (const conn of conns) {
          if (v['dry-run'] === true) runs.push(await crm.preview(conn, kind));
          else {
            const started = await crm.start(conn, kind);
            runs.push({ run: await started.done });
            await auditAsOperator(backend.users, { customer: customer.id, action: 'crm.sync', target: conn.provider, after: { run_id: started.run.id, kind } });
          }
        }
        return runs;
      });
      emit(ctx, out.length === 1 ? out[0] : out, () =>
        out.map((r) => runLine(r.run) + (r.accounts ? `\n  ${r.accounts.length} accounts would be written (--json lists them)` : '')).join('\n'),
      );
      return out.some((r) => r.run.status === 'failed') ? 1 : 0;
    },
  },
  'crm status': {
    usage: 'crm status --customer ID',
    summary: "a customer's CRM connections: status, what waits to be synced, the last runs",
    options: { customer: { type: 'string' } },
    async run(v, _p, ctx) {
      const out = await withCrm(ctx, async (crm, backend) => {
        const customer = await customerOf(backend, v);
        const conns = await backend.crm.listConnections(customer.id);
        return Promise.all(conns.map(async (c) => ({ ...(await crm.view(customer, c)), runs: await backend.crm.listRuns(customer.id, c.provider, 5) })));
      });
      emit(ctx, { connections: out }, () =>
        out.length === 0
          ? 'no CRM connection'
          : out
              .map(
                (c) =>
                  `${c.provider} ${c.status}${c.attention ? ` (${c.attention})` : ''} ${c.base_url}, ${c.pending} accounts pending, last run ${c.last_run_at ?? 'never'}` +
                  c.runs.map((r) => `\n  ${runLine(r)}`).join(''),
              )
              .join('\n'),
      );
    },
  },
};
