/**
 * Admin API for a customer's webhook endpoints, under /admin/api (same Bearer auth, JSON-only writes and
 * same-origin checks as the rest of the admin API: server/admin/routes.ts `adminRoute`). They exist only
 * when the server runs the webhook outbox:
 *
 *   POST   /customers/:id/webhooks                      {url, events, hot_paths?, description?, event_versions?, segment_names?, scores?,
 *                                                        format?: 'json' | 'slack', filters?: {segments?, hot_only?, min_page_views?}}
 *                                                        → 201, secret shown once
 *   GET    /customers/:id/webhooks                      endpoints (never the secret; a Slack URL masked)
 *   GET    /customers/:id/webhooks/:webhookId           one endpoint
 *   PATCH  /customers/:id/webhooks/:webhookId           change any of the fields above (the secret stays)
 *   POST   /customers/:id/webhooks/:webhookId/test      {type?, version?} → a signed sample sent now: the receiver's answer
 *   DELETE /customers/:id/webhooks/:webhookId           204; its undelivered events are dropped
 *   GET    /customers/:id/webhooks/:webhookId/deliveries?limit=N   the delivery log, newest first
 *
 * The customer and the endpoint are looked up before the body or the query is judged: an unknown one is a
 * 404 whatever else the request carries.
 */
import { z } from 'zod';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { eventSchema, latestVersion } from '../events/registry.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteDef } from '../http/route-def.ts';
import type { Services } from '../services.ts';
import type { WebhookStore } from '../state/outbox/store.ts';
import { destinationProblem } from './destination.ts';
import { webhookDeliveriesDocs, webhookDocs, webhookPatchDocs, webhooksDocs, webhookTestDocs } from './docs.ts';
import { versionOf } from './events.ts';
import { sampleEvent } from './samples.ts';
import {
  type EndpointFilters,
  type EndpointSettings,
  type EventVersions,
  isWebhook,
  NewWebhook,
  type OutboxFormat,
  SLACK_EVENTS,
  TestEventBody,
  type WebhookEventType,
  WebhookPatch,
} from './schema.ts';
import { generateSigningSecret } from './signature.ts';
import { maskedSlackUrl } from './slack.ts';

/** Endpoints per customer: each one is an outbox and a stream of outbound requests of ours. */
export const MAX_ENDPOINTS_PER_CUSTOMER = 20;

const CUSTOMER = { from: 'param', name: 'id' } as const;
const DeliveryQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) });

/** The outbox and its dispatcher: the routes are enabled only when they exist. */
const outbox = (services: Services) => services.webhooks!;

const unknownWebhook = (customerId: string, webhookId: string) => new ApiError('not_found', `unknown webhook ${webhookId} for customer ${customerId}`);

/** A webhook of the customer: an alert's endpoint (server/alerts/) is not one here. */
async function endpointOr404(webhookStore: WebhookStore, customerId: string, webhookId: string) {
  const endpoint = await webhookStore.getEndpoint(customerId, webhookId);
  if (!endpoint || !isWebhook(endpoint)) throw unknownWebhook(customerId, webhookId);
  return endpoint;
}

const webhooksOf = async (webhookStore: WebhookStore, customerId: string) => (await webhookStore.listEndpoints(customerId)).filter(isWebhook);

/** Checked again at every delivery (the name may resolve elsewhere later): this refuses what is internal on its face. */
function checkDestination(url: string, allowPrivate: boolean): void {
  const problem = destinationProblem(url, allowPrivate);
  if (problem) throw new ApiError('invalid', `validation error: url: ${problem}`);
}

const enabled = (services: Services) => services.webhooks !== undefined;

/**
 * An endpoint as it is answered and audited: a Slack endpoint's URL masked (slack.ts `maskedSlackUrl`:
 * the URL is the channel's credential). Only the 201 of its creation shows it whole, as it was sent.
 */
export function shownEndpoint<T extends { url: string; format: OutboxFormat }>(endpoint: T): T {
  return endpoint.format === 'slack' ? { ...endpoint, url: maskedSlackUrl(endpoint.url) } : endpoint;
}

/** The account of a test event: the customer's first hot account when the catalog knows it, else its first company. */
function sampleCompany(services: Services, hotAccount: string | undefined): CompanyRow | null {
  const { catalog } = services.dataset.current;
  const first = hotAccount ?? catalog.companyColumns(['company_id'], '', 1)[0]?.[0];
  return (first !== undefined ? catalog.company(first) : null) ?? (hotAccount ? sampleCompany(services, undefined) : null);
}

/**
 * The versions an endpoint gets: those it names (each must exist), the newest for the other events it
 * subscribes to. Versions named for events it does not subscribe to are kept (a later subscription uses them).
 */
export function chosenVersions(events: readonly WebhookEventType[], named: EventVersions = {}): EventVersions {
  for (const [event, version] of Object.entries(named)) {
    if (version !== undefined && !eventSchema(event, version))
      throw new ApiError('invalid', `validation error: event_versions.${event}: no version ${version} of ${event} (GET /schemas lists them)`);
  }
  return { ...Object.fromEntries(events.map((e) => [e, latestVersion(e)])), ...named };
}

/**
 * What a format allows, checked on the endpoint as it will be: a Slack endpoint subscribes to account
 * events only (a message is about an account) and gets enriched payloads (v2: the company, segments and
 * pages its message shows); filters name the customer's segments.
 */
function checkEndpoint(
  customer: { segments: readonly { id: number }[] },
  endpoint: { format: OutboxFormat; events: readonly WebhookEventType[]; event_versions: EventVersions; filters: EndpointFilters },
): void {
  if (endpoint.format === 'slack') {
    const other = endpoint.events.find((e) => !(SLACK_EVENTS as readonly string[]).includes(e));
    if (other) throw new ApiError('invalid', `validation error: events: a Slack endpoint gets ${SLACK_EVENTS.join(', ')}; not ${other}`);
    for (const e of ['account.visited', 'account.hot'] as const) {
      const version = endpoint.event_versions[e];
      if (endpoint.events.includes(e) && version !== undefined && version < 2)
        throw new ApiError('invalid', `validation error: event_versions.${e}: a Slack endpoint needs version 2 or later (its message shows the company)`);
    }
  }
  const known = new Set(customer.segments.map((s) => s.id));
  const unknown = endpoint.filters.segments?.find((id) => !known.has(id));
  if (unknown !== undefined)
    throw new ApiError('invalid', `validation error: filters.segments: no segment ${unknown} (the customer's segments: GET …/segments)`);
}

export const webhookAdminRoutes: RouteDef[] = [
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/webhooks',
    access: { permission: 'webhooks:write', customer: CUSTOMER },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: webhooksDocs.post,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const customerId = customer.id;
      const input = parseRecord(NewWebhook, ctx.body ?? {});
      checkDestination(input.url, webhooks.allowPrivate);
      if ((await webhooksOf(webhookStore, customerId)).length >= MAX_ENDPOINTS_PER_CUSTOMER) {
        throw new ApiError('conflict', `a customer has at most ${MAX_ENDPOINTS_PER_CUSTOMER} webhook endpoints: delete one first`);
      }
      const secret = generateSigningSecret();
      const { event_versions, segment_names, scores, format, filters, ...fields } = input;
      const settings: EndpointSettings = {
        event_versions: chosenVersions(fields.events, event_versions),
        // A Slack channel is the customer's own: its messages show segment names unless told otherwise.
        segment_names: segment_names ?? format === 'slack',
        scores,
        format,
        filters,
      };
      checkEndpoint(customer, { ...settings, events: fields.events });
      const record = await webhookStore.createEndpoint({ customer_id: customerId, ...fields, secret, settings });
      webhooks.endpointsChanged(customerId);
      await ctx.audit({ customer: customerId, action: 'webhook.create', target: record.id, after: shownEndpoint(record) });
      return { status: 201, body: { ...record, secret } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/webhooks',
    access: { permission: 'webhooks:read', customer: CUSTOMER },
    enabled,
    doc: webhooksDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: (await webhooksOf(outbox(ctx.services).webhookStore, customerId)).map(shownEndpoint) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/webhooks/:webhookId',
    access: { permission: 'webhooks:read', customer: CUSTOMER },
    enabled,
    doc: webhookDocs.get,
    async handler(ctx) {
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      return { status: 200, body: shownEndpoint(await endpointOr404(outbox(ctx.services).webhookStore, customerId, ctx.req.params.webhookId!)) };
    },
  }),
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/customers/:id/webhooks/:webhookId',
    access: { permission: 'webhooks:write', customer: CUSTOMER },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: webhookPatchDocs.patch,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const customerId = customer.id;
      const before = await endpointOr404(webhookStore, customerId, ctx.req.params.webhookId!);
      const patch = parseRecord(WebhookPatch, ctx.body ?? {});
      if (patch.url !== undefined) checkDestination(patch.url, webhooks.allowPrivate);
      const { event_versions, segment_names, scores, format, filters, ...fields } = patch;
      // What the endpoint gets now stays (an unnamed version of a stored endpoint is v1: versionOf); newly
      // subscribed events get their newest version; versions named in the body win.
      const kept = { ...Object.fromEntries(before.events.map((e) => [e, versionOf(before, e)])), ...before.event_versions };
      // Turning into a Slack endpoint moves v1 account events to the newest (its messages need the company).
      if (format === 'slack' && before.format !== 'slack')
        for (const e of ['account.visited', 'account.hot'] as const) if ((kept[e] ?? 2) < 2) kept[e] = latestVersion(e);
      const settings: EndpointSettings = {
        event_versions: chosenVersions(fields.events ?? before.events, { ...kept, ...event_versions }),
        segment_names: segment_names ?? before.segment_names,
        scores: scores ?? before.scores,
        format: format ?? before.format,
        filters: filters ?? before.filters,
      };
      checkEndpoint(customer, { ...settings, events: fields.events ?? before.events });
      const after = await webhookStore.updateEndpoint(customerId, before.id, { ...fields, settings });
      if (!after) throw unknownWebhook(customerId, before.id);
      webhooks.endpointsChanged(customerId);
      await ctx.audit({ customer: customerId, action: 'webhook.update', target: before.id, before: shownEndpoint(before), after: shownEndpoint(after) });
      return { status: 200, body: shownEndpoint(after) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/webhooks/:webhookId/test',
    access: { permission: 'webhooks:write', customer: CUSTOMER },
    enabled,
    body: ADMIN_JSON_BODY,
    doc: webhookTestDocs.post,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const endpoint = await endpointOr404(webhookStore, customer.id, ctx.req.params.webhookId!);
      const asked = parseRecord(TestEventBody, ctx.body ?? {});
      const type = asked.type ?? endpoint.events[0]!;
      if (endpoint.format === 'slack' && !(SLACK_EVENTS as readonly string[]).includes(type))
        throw new ApiError('invalid', `validation error: type: a Slack endpoint is sent ${SLACK_EVENTS.join(', ')}; not ${type}`);
      const version = asked.version ?? versionOf(endpoint, type);
      if (!eventSchema(type, version)) throw new ApiError('invalid', `validation error: version: no version ${version} of ${type} (GET /schemas lists them)`);
      const secret = await webhookStore.endpointSecret(customer.id, endpoint.id);
      if (secret === null) throw unknownWebhook(customer.id, endpoint.id);
      const [tag] = await ctx.services.store.listTags(customer.id);
      const event = sampleEvent({
        type,
        version,
        customer,
        // Its settings, not its filters: those could pass over the made-up visit, and a test is always sent.
        endpoint: { id: endpoint.id, segment_names: endpoint.segment_names, scores: endpoint.scores, hot_paths: endpoint.hot_paths },
        company: sampleCompany(ctx.services, customer.hot_accounts[0]?.company_id),
        tag: tag ? { id: tag.tag_id, origin: tag.allowed_domains[0] ? `https://${tag.allowed_domains[0].replace(/^\*\./, 'www.')}` : null } : null,
        now: new Date(),
      });
      const result = await webhooks.sendTest({ url: endpoint.url, secret, format: endpoint.format }, event);
      await ctx.audit({
        customer: customer.id,
        action: 'webhook.test',
        target: endpoint.id,
        after: { type, version, status: result.status, error: result.error },
      });
      return { status: 200, body: result };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/webhooks/:webhookId',
    access: { permission: 'webhooks:write', customer: CUSTOMER },
    enabled,
    doc: webhookDocs.delete,
    async handler(ctx) {
      const { webhookStore, webhooks } = outbox(ctx.services);
      const customerId = (await customerOr404(ctx.services.store, ctx.req.params.id!)).id;
      const webhookId = ctx.req.params.webhookId!;
      await endpointOr404(webhookStore, customerId, webhookId);
      if (!(await webhookStore.deleteEndpoint(customerId, webhookId))) throw unknownWebhook(customerId, webhookId);
      webhooks.endpointsChanged(customerId);
      await ctx.audit({ customer: customerId, action: 'webhook.delete', target: webhookId });
      return { status: 204 };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/webhooks/:webhookId/deliveries',
    access: { permission: 'webhooks:read', customer: CUSTOMER },
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
