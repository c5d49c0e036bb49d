/**
 * Admin API for a customer's alerts and owners list, under /admin/api (Bearer or a console session, JSON
 * writes and same-origin checks: server/http/admin-route.ts). Marketers manage alerts (`alerts:write`),
 * viewers read them (`alerts:read`); a raw JSON webhook destination also needs `webhooks:write` (admins):
 *
 *   GET    /customers/:id/alerts                     the alerts
 *   POST   /customers/:id/alerts                     {name, trigger, filter?, destination, route_to_owner?, paused?} → 201
 *   GET    /customers/:id/alerts/:alertId            one alert
 *   PATCH  /customers/:id/alerts/:alertId            any of the fields above (`paused: true` pauses it)
 *   DELETE /customers/:id/alerts/:alertId            204; its undelivered alerts are dropped
 *   POST   /customers/:id/alerts/:alertId/test       a labelled sample through the outbox → 202 (in the delivery log)
 *   GET    /customers/:id/alerts/:alertId/deliveries the delivery log, newest first
 *   PUT    /customers/:id/owners                     the owners list and territory rules (text/csv), replaced whole
 *   GET    /customers/:id/owners                     what was uploaded
 *
 * Design: an alert IS an outbox endpoint (server/webhooks/schema.ts EndpointSettings.alert) whose format is
 * its destination's (slack, teams, email; webhook → json), so it is delivered, leased, retried, logged and
 * deduplicated by the one dispatcher (server/webhooks/service.ts) — no second delivery mechanism. Its
 * trigger is planned on every recorded page view beside the webhook events (events.ts plannedAlertEvents),
 * each delivery keyed per trigger, account and UTC day. The webhook API neither lists nor changes alerts.
 *
 * The customer and the alert are looked up before the body is judged: an unknown one is a 404 whatever
 * else the request carries. Slack/Teams URLs are checked against the services' hosts (./hosts.ts: 422
 * naming the expected hosts), then against the public-address rule webhooks follow.
 */
import { z } from 'zod';
import type { StoredAlert } from '../../core/alert-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { may, type Principal } from '../auth/principal.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { BodySpec, RouteDef } from '../http/route-def.ts';
import type { Services } from '../services.ts';
import { alertDeliveriesDocs, alertDocs, alertsDocs, alertTestDocs, ownersDocs } from './docs.ts';
import { readOwnersCsv } from './owners.ts';
import { AlertPatch, NewAlert, routing } from './schema.ts';
import {
  type AlertEndpoint,
  type Asker,
  alertOr404,
  alertView,
  checkDestination,
  checkReferences,
  createAlert,
  listAlerts,
  queueTest,
  settingsOf,
  unknownAlert,
} from './service.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
const DeliveryQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });
/** The owners CSV: text, read by the handler (as the account lists' upload). */
const CSV_BODY: BodySpec<string> = { types: 'text', limit: 5 * 1024 * 1024, media: ['text/csv'] };

const outbox = (services: Services) => services.webhooks!;
const enabled = (services: Services) => services.webhooks !== undefined && services.alertState !== undefined;

const askerOf = (ctx: { principal: Principal | null }): Asker => ({
  // No principal: the admin API always has one; a route without would be the operator's tooling.
  mayWebhook: ctx.principal === null || may(ctx.principal, 'webhooks:write'),
  name: ctx.principal === null ? null : ctx.principal.kind === 'operator' ? 'operator' : ctx.principal.user.email,
});

/** The account of a test alert: the customer's first hot account the catalog knows, else the catalog's first. */
function sampleCompany(services: Services, hot: string | undefined): CompanyRow | null {
  const { catalog } = services.dataset.current;
  const first = hot ?? catalog.companyColumns(['company_id'], '', 1)[0]?.[0];
  return (first !== undefined ? catalog.company(first) : null) ?? (hot ? sampleCompany(services, undefined) : null);
}

export const alertRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/alerts',
    access: { permission: 'alerts:read', customer: CUSTOMER },
    enabled,
    doc: alertsDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: (await listAlerts(outbox(ctx.services).webhookStore, customerId)).map(alertView) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/alerts',
    access: { permission: 'alerts:write', customer: CUSTOMER },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: alertsDocs.post,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const input = parseRecord(NewAlert, ctx.body ?? {});
      const { record, secret } = await createAlert(webhookStore, customer, input, askerOf(ctx), webhooks.allowPrivate);
      webhooks.endpointsChanged(customer.id);
      const view = alertView(record);
      await ctx.audit({ customer: customer.id, action: 'alert.create', target: record.id, after: view });
      // A JSON webhook's receiver verifies signatures: its secret is in this answer only (as the webhook API's).
      return { status: 201, body: secret !== null ? { ...view, secret } : view };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/alerts/:alertId',
    access: { permission: 'alerts:read', customer: CUSTOMER },
    enabled,
    doc: alertDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: alertView(await alertOr404(outbox(ctx.services).webhookStore, customerId, ctx.req.params.alertId!)) };
    },
  }),
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/customers/:id/alerts/:alertId',
    access: { permission: 'alerts:write', customer: CUSTOMER },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: alertDocs.patch,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const before = await alertOr404(webhookStore, customer.id, ctx.req.params.alertId!);
      const patch = parseRecord(AlertPatch, ctx.body ?? {});
      // Changing an admin's webhook alert is an admin's too (its receiver and secret are theirs).
      if (before.alert.destination_type === 'webhook' && ctx.principal && !may(ctx.principal, 'webhooks:write'))
        throw new ApiError('forbidden', 'this alert posts signed JSON to a webhook: changing it needs the webhooks:write permission (admins)');
      if (patch.destination) checkDestination(askerOf(ctx), patch.destination, webhooks.allowPrivate);
      const destination = patch.destination;
      const alert: StoredAlert = {
        ...before.alert,
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.trigger !== undefined ? { trigger: patch.trigger } : {}),
        ...(patch.filter !== undefined ? { filter: patch.filter } : {}),
        ...(patch.route_to_owner !== undefined ? { route_to_owner: routing(patch.route_to_owner) } : {}),
        ...(patch.paused !== undefined ? { paused: patch.paused } : {}),
        ...(destination ? { destination_type: destination.type, to: destination.type === 'email' ? destination.to : [] } : {}),
      };
      checkReferences(customer, alert);
      const after = await webhookStore.updateEndpoint(customer.id, before.id, {
        ...(destination ? { url: destination.type === 'email' ? '' : destination.url } : {}),
        ...(patch.name !== undefined ? { description: `alert: ${patch.name}` } : {}),
        settings: settingsOf(alert),
      });
      if (!after?.alert) throw unknownAlert(customer.id, before.id);
      webhooks.endpointsChanged(customer.id);
      const view = alertView(after as AlertEndpoint);
      await ctx.audit({ customer: customer.id, action: 'alert.update', target: before.id, before: alertView(before), after: view });
      return { status: 200, body: view };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/alerts/:alertId',
    access: { permission: 'alerts:write', customer: CUSTOMER },
    enabled,
    doc: alertDocs.delete,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const before = await alertOr404(webhookStore, customerId, ctx.req.params.alertId!);
      if (before.alert.destination_type === 'webhook' && ctx.principal && !may(ctx.principal, 'webhooks:write'))
        throw new ApiError('forbidden', 'this alert posts signed JSON to a webhook: removing it needs the webhooks:write permission (admins)');
      if (!(await webhookStore.deleteEndpoint(customerId, before.id))) throw unknownAlert(customerId, before.id);
      webhooks.endpointsChanged(customerId);
      await ctx.audit({ customer: customerId, action: 'alert.delete', target: before.id, before: alertView(before) });
      return { status: 204 };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/alerts/:alertId/test',
    access: { permission: 'alerts:write', customer: CUSTOMER },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: alertTestDocs.post,
    async handler(ctx) {
      const { webhookStore } = outbox(ctx.services);
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const endpoint = await alertOr404(webhookStore, customer.id, ctx.req.params.alertId!);
      const [tag] = await ctx.services.store.listTags(customer.id);
      const answer = await queueTest(webhookStore, customer, endpoint, {
        company: sampleCompany(ctx.services, customer.hot_accounts[0]?.company_id),
        tag: tag ? { id: tag.tag_id, origin: tag.allowed_domains[0] ? `https://${tag.allowed_domains[0].replace(/^\*\./, 'www.')}` : null } : null,
      });
      await ctx.audit({ customer: customer.id, action: 'alert.test', target: endpoint.id, after: { event_id: answer.event_id } });
      return { status: 202, body: answer };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/alerts/:alertId/deliveries',
    access: { permission: 'alerts:read', customer: CUSTOMER },
    enabled,
    doc: alertDeliveriesDocs.get,
    async handler(ctx) {
      const { webhookStore } = outbox(ctx.services);
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const alert = await alertOr404(webhookStore, customerId, ctx.req.params.alertId!);
      const { limit } = parseRecord(DeliveryQuery, ctx.req.query);
      return { status: 200, body: await webhookStore.listDeliveries(customerId, alert.id, limit) };
    },
  }),
  adminRoute({
    method: 'PUT',
    path: '/admin/api/customers/:id/owners',
    access: { permission: 'alerts:write', customer: CUSTOMER },
    enabled,
    body: CSV_BODY,
    doc: ownersDocs.put,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const media = (ctx.req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (media !== 'text/csv') throw new ApiError('unsupported_type', 'the owners list is a CSV file: send it as the body with Content-Type: text/csv');
      const upload = readOwnersCsv(ctx.body);
      const updated_at = new Date().toISOString();
      await ctx.services.alertState!.putOwners(customerId, { ...upload, updated_at });
      const report = { owners: upload.owners.length, territories: upload.territories.length, updated_at };
      await ctx.audit({ customer: customerId, action: 'alert.owners', target: customerId, after: report });
      return { status: 200, body: report };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/owners',
    access: { permission: 'alerts:read', customer: CUSTOMER },
    enabled,
    doc: ownersDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: { customer_id: customerId, ...(await ctx.services.alertState!.getOwners(customerId)) } };
    },
  }),
];
