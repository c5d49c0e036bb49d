/**
 * The CRM sync's workspace API (`integrations:read` to look, `integrations:write` — owner and admin — to
 * change), under /admin/api/customers/:id/crm:
 *
 *   GET    /crm                                  both providers' connections (never a secret)
 *   PUT    /crm/:provider                        connect (the credential tested first): 201 new, 200 replaced
 *   GET    /crm/:provider                        one connection with its last runs
 *   PATCH  /crm/:provider                        {mapping?, create_missing?, status?: active | paused}
 *   DELETE /crm/:provider                        204: the connection, what waited and its runs go
 *   POST   /crm/:provider/test                   what the credential may do (ok: false with the provider's message)
 *   POST   /crm/:provider/sync                   {full?, dry_run?} (no body: incremental) → 202 {run}; dry run → 200 {run, accounts}
 *   GET    /crm/:provider/runs, /runs/:runId     the runs' log, newest first
 *
 * The customer and the connection are looked up before the body is judged: an unknown one is a 404.
 */
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import { CRM_PROVIDERS, type CrmConnectionRecord, CrmProvider } from '../../core/crm-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteContext, RouteDef } from '../http/route-def.ts';
import type { Services } from '../services.ts';
import { crmConnectionDocs, crmDocs, crmRunDocs, crmRunsDocs, crmSyncDocs, crmTestDocs } from './docs.ts';
import { ConnectHubSpot, ConnectSalesforce, CrmPatch, SyncBody } from './schema.ts';
import { PROVIDER_NAMES } from './service.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
const READ = { permission: 'integrations:read', customer: CUSTOMER } as const;
const WRITE = { permission: 'integrations:write', customer: CUSTOMER } as const;
const RunsQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(20) });

const enabled = (services: Services) => services.crm !== undefined;
const crm = (ctx: RouteContext) => ctx.services.crm!;

function providerOf(ctx: RouteContext): CrmProvider {
  const p = CrmProvider.safeParse(ctx.req.params.provider);
  if (!p.success) throw new ApiError('not_found', `unknown CRM ${ctx.req.params.provider} (one of ${CRM_PROVIDERS.join(', ')})`);
  return p.data;
}

async function connectionOf(ctx: RouteContext): Promise<{ customer: CustomerRecord; conn: CrmConnectionRecord }> {
  const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
  const conn = await crm(ctx).connectionOr404(customer.id, providerOf(ctx));
  return { customer, conn };
}

/** What the audit log keeps of a connection: never its secret (only its first characters, as shown). */
const audited = (c: CrmConnectionRecord) => ({
  provider: c.provider,
  base_url: c.base_url,
  client_id: c.client_id,
  secret_prefix: c.secret_prefix,
  status: c.status,
  mapping: c.mapping,
  create_missing: c.create_missing,
});

export const crmRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/crm',
    access: READ,
    enabled,
    doc: crmDocs.get,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const conns = await ctx.services.crm!.deps.crm.listConnections(customer.id);
      return {
        status: 200,
        body: { customer_id: customer.id, providers: [...CRM_PROVIDERS], connections: await Promise.all(conns.map((c) => crm(ctx).view(customer, c))) },
      };
    },
  }),
  adminRoute({
    method: 'PUT',
    path: '/admin/api/customers/:id/crm/:provider',
    access: WRITE,
    enabled,
    body: ADMIN_JSON_BODY,
    doc: crmConnectionDocs.put,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const provider = providerOf(ctx);
      const body = provider === 'hubspot' ? parseRecord(ConnectHubSpot, ctx.body ?? {}) : parseRecord(ConnectSalesforce, ctx.body ?? {});
      const { created, connection, check } = await crm(ctx).connect(customer, provider, body);
      await ctx.audit({ customer: customer.id, action: created ? 'crm.connect' : 'crm.reconnect', target: provider, after: audited(connection) });
      return { status: created ? 201 : 200, body: { connection: await crm(ctx).view(customer, connection), check } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/crm/:provider',
    access: READ,
    enabled,
    doc: crmConnectionDocs.get,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      const runs = await crm(ctx).deps.crm.listRuns(customer.id, conn.provider, 10);
      return { status: 200, body: { ...(await crm(ctx).view(customer, conn)), runs } };
    },
  }),
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/customers/:id/crm/:provider',
    access: WRITE,
    enabled,
    body: ADMIN_JSON_BODY,
    doc: crmConnectionDocs.patch,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      const patch = parseRecord(CrmPatch, ctx.body ?? {});
      const after = await crm(ctx).patch(customer, conn, patch);
      await ctx.audit({ customer: customer.id, action: 'crm.update', target: conn.provider, before: audited(conn), after: audited(after) });
      return { status: 200, body: await crm(ctx).view(customer, after) };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/crm/:provider',
    access: WRITE,
    enabled,
    doc: crmConnectionDocs.delete,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      await crm(ctx).remove(customer.id, conn.provider);
      await ctx.audit({ customer: customer.id, action: 'crm.disconnect', target: conn.provider, before: audited(conn) });
      return { status: 204 };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/crm/:provider/test',
    access: WRITE,
    enabled,
    body: ADMIN_JSON_BODY,
    doc: crmTestDocs.post,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      const result = await crm(ctx).test(customer, conn);
      await ctx.audit({ customer: customer.id, action: 'crm.test', target: conn.provider, after: { ok: result.ok, message: result.message } });
      return { status: 200, body: result };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/crm/:provider/sync',
    access: WRITE,
    enabled,
    body: ADMIN_JSON_BODY,
    doc: crmSyncDocs.post,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      const { full, dry_run } = parseRecord(SyncBody, ctx.body ?? {});
      const kind = full ? 'full' : 'incremental';
      if (dry_run) return { status: 200, body: await crm(ctx).preview(conn, kind) };
      const { run } = await crm(ctx).start(conn, kind);
      await ctx.audit({ customer: customer.id, action: 'crm.sync', target: conn.provider, after: { run_id: run.id, kind } });
      return { status: 202, body: { run }, headers: { Location: `/admin/api/customers/${customer.id}/crm/${conn.provider}/runs/${run.id}` } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/crm/:provider/runs',
    access: READ,
    enabled,
    query: RunsQuery,
    doc: crmRunsDocs.get,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      const { limit } = ctx.query as z.infer<typeof RunsQuery>;
      return { status: 200, body: { runs: await crm(ctx).deps.crm.listRuns(customer.id, conn.provider, limit) } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/crm/:provider/runs/:runId',
    access: READ,
    enabled,
    doc: crmRunDocs.get,
    async handler(ctx) {
      const { customer, conn } = await connectionOf(ctx);
      const run = await crm(ctx).deps.crm.getRun(customer.id, conn.provider, ctx.req.params.runId!);
      if (!run) throw new ApiError('not_found', `unknown ${PROVIDER_NAMES[conn.provider]} sync run ${ctx.req.params.runId}`);
      return { status: 200, body: run };
    },
  }),
];
