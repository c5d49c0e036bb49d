/**
 * Admin API for a customer's webhook endpoints, under /admin/api (same Bearer auth, JSON-only writes and
 * same-origin checks as the rest of the admin API: server/admin/routes.ts `adminRoute`). They exist only
 * when the server runs the webhook outbox:
 *
 *   POST   /customers/:id/webhooks                      {url, events, hot_paths?, description?} → 201, secret shown once
 *   GET    /customers/:id/webhooks                      endpoints (never the secret)
 *   GET    /customers/:id/webhooks/:webhookId           one endpoint
 *   DELETE /customers/:id/webhooks/:webhookId           204; its undelivered events are dropped
 *   GET    /customers/:id/webhooks/:webhookId/deliveries?limit=N   the delivery log, newest first
 *
 * The customer and the endpoint are looked up before the body or the query is judged: an unknown one is a
 * 404 whatever else the request carries.
 */
import { z } from 'zod';
import { ApiError } from '../../core/error-codes.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../admin/routes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteDef } from '../http/route-def.ts';
import { webhookDeliveriesDocs, webhookDocs, webhooksDocs } from '../openapi/route-docs.ts';
import type { Services } from '../services.ts';
import type { WebhookStore } from '../state/webhooks.ts';
import { destinationProblem } from './destination.ts';
import { NewWebhook } from './schema.ts';
import { generateSigningSecret } from './signature.ts';

/** Endpoints per customer: each one is an outbox and a stream of outbound requests of ours. */
export const MAX_ENDPOINTS_PER_CUSTOMER = 20;

const DeliveryQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

/** The outbox and its dispatcher: the routes are enabled only when they exist. */
const outbox = (services: Services) => services.webhooks!;

async function endpointOr404(webhookStore: WebhookStore, customerId: string, webhookId: string) {
  const endpoint = await webhookStore.getEndpoint(customerId, webhookId);
  if (!endpoint) throw new ApiError('not_found', `unknown webhook ${webhookId} for customer ${customerId}`);
  return endpoint;
}

const enabled = (services: Services) => services.webhooks !== undefined;

export const webhookAdminRoutes: RouteDef[] = [
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/webhooks',
    access: { permission: 'webhooks:write', customer: { from: 'param', name: 'id' } },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: webhooksDocs.post,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const input = parseRecord(NewWebhook, ctx.body ?? {});
      // Checked again at every delivery (the name may resolve elsewhere later): this refuses what is internal on its face.
      const problem = destinationProblem(input.url, webhooks.allowPrivate);
      if (problem) throw new ApiError('invalid', `validation error: url: ${problem}`);
      if ((await webhookStore.listEndpoints(customerId)).length >= MAX_ENDPOINTS_PER_CUSTOMER) {
        throw new ApiError('conflict', `a customer has at most ${MAX_ENDPOINTS_PER_CUSTOMER} webhook endpoints: delete one first`);
      }
      const secret = generateSigningSecret();
      const record = await webhookStore.createEndpoint({ customer_id: customerId, ...input, secret });
      webhooks.endpointsChanged(customerId);
      await ctx.audit({ customer: customerId, action: 'webhook.create', target: record.id, after: record });
      return { status: 201, body: { ...record, secret } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/webhooks',
    access: { permission: 'webhooks:read', customer: { from: 'param', name: 'id' } },
    enabled,
    doc: webhooksDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: await outbox(ctx.services).webhookStore.listEndpoints(customerId) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/webhooks/:webhookId',
    access: { permission: 'webhooks:read', customer: { from: 'param', name: 'id' } },
    enabled,
    doc: webhookDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: await endpointOr404(outbox(ctx.services).webhookStore, customerId, ctx.req.params.webhookId!) };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/webhooks/:webhookId',
    access: { permission: 'webhooks:write', customer: { from: 'param', name: 'id' } },
    enabled,
    doc: webhookDocs.delete,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const webhookId = ctx.req.params.webhookId!;
      if (!(await webhookStore.deleteEndpoint(customerId, webhookId)))
        throw new ApiError('not_found', `unknown webhook ${webhookId} for customer ${customerId}`);
      webhooks.endpointsChanged(customerId);
      await ctx.audit({ customer: customerId, action: 'webhook.delete', target: webhookId });
      return { status: 204 };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/webhooks/:webhookId/deliveries',
    access: { permission: 'webhooks:read', customer: { from: 'param', name: 'id' } },
    enabled,
    doc: webhookDeliveriesDocs.get,
    async handler(ctx) {
      const { webhookStore } = outbox(ctx.services);
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const webhookId = ctx.req.params.webhookId!;
      await endpointOr404(webhookStore, customerId, webhookId);
      const { limit } = parseRecord(DeliveryQuery, ctx.req.query);
      return { status: 200, body: await webhookStore.listDeliveries(customerId, webhookId, limit) };
    },
  }),
];
