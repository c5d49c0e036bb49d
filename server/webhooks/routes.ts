/**
 * Admin API for a customer's webhook endpoints, mounted inside /admin/api (same Bearer auth, JSON-only
 * writes and same-origin checks as the rest of the admin API):
 *
 *   POST   /customers/:id/webhooks                      {url, events, hot_paths?, description?} → 201, secret shown once
 *   GET    /customers/:id/webhooks                      endpoints (never the secret)
 *   GET    /customers/:id/webhooks/:webhookId           one endpoint
 *   DELETE /customers/:id/webhooks/:webhookId           204; its undelivered events are dropped
 *   GET    /customers/:id/webhooks/:webhookId/deliveries?limit=N   the delivery log, newest first
 */
import type { Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../../core/error-codes.ts';
import type { AccessRecords } from '../state/store.ts';
import type { WebhookStore } from '../state/webhooks.ts';
import { destinationProblem } from './destination.ts';
import { NewWebhook } from './schema.ts';
import type { WebhookService } from './service.ts';
import { generateSigningSecret } from './signature.ts';

export interface WebhookAdminDeps {
  store: Pick<AccessRecords, 'getCustomer'>;
  webhookStore: WebhookStore;
  webhooks: WebhookService;
}

/** Endpoints per customer: each one is an outbox and a stream of outbound requests of ours. */
export const MAX_ENDPOINTS_PER_CUSTOMER = 20;

const DeliveryQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

export function mountWebhookAdmin(admin: Router, deps: WebhookAdminDeps): void {
  const customerOr404 = async (id: string) => {
    if (!(await deps.store.getCustomer(id))) throw new ApiError('not_found', `unknown customer ${id}`);
    return id;
  };
  const endpointOr404 = async (customerId: string, webhookId: string) => {
    const endpoint = await deps.webhookStore.getEndpoint(customerId, webhookId);
    if (!endpoint) throw new ApiError('not_found', `unknown webhook ${webhookId} for customer ${customerId}`);
    return endpoint;
  };

  admin.post('/customers/:id/webhooks', async (req, res) => {
    const customerId = await customerOr404(req.params.id);
    const input = NewWebhook.parse(req.body ?? {});
    // Checked again at every delivery (the name may resolve elsewhere later): this refuses what is internal on its face.
    const problem = destinationProblem(input.url, deps.webhooks.allowPrivate);
    if (problem) throw new ApiError('invalid', `validation error: url: ${problem}`);
    if ((await deps.webhookStore.listEndpoints(customerId)).length >= MAX_ENDPOINTS_PER_CUSTOMER) {
      throw new ApiError('conflict', `a customer has at most ${MAX_ENDPOINTS_PER_CUSTOMER} webhook endpoints: delete one first`);
    }
    const secret = generateSigningSecret();
    const record = await deps.webhookStore.createEndpoint({ customer_id: customerId, ...input, secret });
    deps.webhooks.endpointsChanged(customerId);
    res.status(201).json({ ...record, secret });
  });
  admin.get('/customers/:id/webhooks', async (req, res) => {
    res.json(await deps.webhookStore.listEndpoints(await customerOr404(req.params.id)));
  });
  admin.get('/customers/:id/webhooks/:webhookId', async (req, res) => {
    res.json(await endpointOr404(await customerOr404(req.params.id), req.params.webhookId));
  });
  admin.delete('/customers/:id/webhooks/:webhookId', async (req, res) => {
    const customerId = await customerOr404(req.params.id);
    if (!(await deps.webhookStore.deleteEndpoint(customerId, req.params.webhookId)))
      throw new ApiError('not_found', `unknown webhook ${req.params.webhookId} for customer ${customerId}`);
    deps.webhooks.endpointsChanged(customerId);
    res.status(204).end();
  });
  admin.get('/customers/:id/webhooks/:webhookId/deliveries', async (req, res) => {
    const customerId = await customerOr404(req.params.id);
    await endpointOr404(customerId, req.params.webhookId);
    const { limit } = DeliveryQuery.parse(req.query);
    res.json(await deps.webhookStore.listDeliveries(customerId, req.params.webhookId, limit));
  });
}
