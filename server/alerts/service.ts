/**
 * The alerts' rules, once for the API (./routes.ts) and the CLI (server/cli/alert-commands.ts): what a
 * destination needs of who asks (a raw JSON webhook is an admin's), whose URL a chat destination may be
 * (./hosts.ts), the customer's segments, lists and products named, and how an alert becomes an outbox
 * endpoint (its format its destination's) and a "send test" an outbox delivery labelled as a test.
 */
import { randomBytes } from 'node:crypto';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { AlertDestination, StoredAlert } from '../../core/alert-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import type { WebhookStore } from '../state/outbox/store.ts';
import { destinationProblem } from '../webhooks/destination.ts';
import type { AlertEvent } from '../webhooks/events.ts';
import { sampleEvent } from '../webhooks/samples.ts';
import type { EndpointSettings, OutboxEndpoint, OutboxFormat } from '../webhooks/schema.ts';
import { generateSigningSecret } from '../webhooks/signature.ts';
import { maskedSlackUrl } from '../webhooks/slack.ts';
import { chatUrlProblem } from './hosts.ts';
import { type AlertView, type NewAlert, routing } from './schema.ts';

/** Alerts per customer: each is an outbox endpoint and a stream of outbound messages. */
export const MAX_ALERTS_PER_CUSTOMER = 50;

export type AlertEndpoint = OutboxEndpoint & { alert: StoredAlert };

export const FORMAT: Record<AlertDestination['type'], OutboxFormat> = { slack: 'slack', teams: 'teams', email: 'email', webhook: 'json' };

export const unknownAlert = (customerId: string, alertId: string) => new ApiError('not_found', `unknown alert ${alertId} for customer ${customerId}`);

export async function alertOr404(store: WebhookStore, customerId: string, alertId: string): Promise<AlertEndpoint> {
  const endpoint = await store.getEndpoint(customerId, alertId);
  if (!endpoint?.alert) throw unknownAlert(customerId, alertId);
  return endpoint as AlertEndpoint;
}

export async function listAlerts(store: WebhookStore, customerId: string): Promise<AlertEndpoint[]> {
  return (await store.listEndpoints(customerId)).filter((e): e is AlertEndpoint => e.alert !== undefined);
}

/** An alert as answered: the destination rebuilt from the endpoint, a chat URL masked. */
export function alertView(e: AlertEndpoint): AlertView {
  const a = e.alert;
  // A Slack or Teams URL is the channel's credential (Teams': its `sig` query): shown masked, as Slack webhooks are.
  const url = a.destination_type === 'slack' || a.destination_type === 'teams' ? maskedSlackUrl(e.url) : e.url;
  return {
    id: e.id,
    customer_id: e.customer_id,
    name: a.name,
    trigger: a.trigger,
    filter: a.filter,
    destination: a.destination_type === 'email' ? { type: 'email', to: a.to } : { type: a.destination_type, url },
    route_to_owner: a.route_to_owner,
    paused: a.paused,
    created_at: e.created_at,
    created_by: a.created_by,
  };
}

/** Who asks: whether they may post raw JSON webhooks (webhooks:write), and their name for `created_by`. */
export interface Asker {
  mayWebhook: boolean;
  name: string | null;
}

/**
 * What the destination needs of who asks and of the server: a raw JSON webhook is an admin's (403);
 * a Slack/Teams URL the service's (422 naming the hosts); any URL a public address unless allowPrivate.
 */
export function checkDestination(asker: Asker, d: AlertDestination, allowPrivate: boolean): void {
  if (d.type === 'webhook' && !asker.mayWebhook)
    throw new ApiError('forbidden', 'a webhook destination (signed JSON) needs the webhooks:write permission (admins): use slack, teams or email');
  if (d.type === 'email') return;
  if (d.type === 'slack' || d.type === 'teams') {
    const problem = chatUrlProblem(d.type, d.url, allowPrivate);
    if (problem) throw new ApiError('invalid', `validation error: destination.url: ${problem}`);
  } else {
    let ok = false;
    try {
      const u = new URL(d.url);
      ok = (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password;
    } catch {}
    if (!ok) throw new ApiError('invalid', 'validation error: destination.url: must be an absolute http(s) URL without credentials');
  }
  const problem = destinationProblem(d.url, allowPrivate);
  if (problem) throw new ApiError('invalid', `validation error: destination.url: ${problem}`);
}

/** The trigger and filter name the customer's segments, lists and products. */
export function checkReferences(customer: CustomerRecord, a: Pick<StoredAlert, 'trigger' | 'filter'>): void {
  const segments = new Set(customer.segments.map((s) => s.id));
  const named = [...(a.trigger.type === 'segment_entered' ? [a.trigger.segment] : []), ...(a.filter.segments ?? [])];
  const unknown = named.find((id) => !segments.has(id));
  if (unknown !== undefined) throw new ApiError('invalid', `validation error: no segment ${unknown} (the customer's segments: GET …/segments)`);
  const lists = new Set(['hot', 'excluded', ...(customer.account_lists ?? []).map((l) => l.id)]);
  const list = a.filter.lists?.find((id) => !lists.has(id));
  if (list !== undefined) throw new ApiError('invalid', `validation error: filter.lists: no account list ${list}`);
  const trigger = a.trigger;
  if (trigger.type === 'stage_reached' && !customer.products.some((p) => p.name === trigger.product))
    throw new ApiError('invalid', `validation error: trigger.product: the customer has no product ${trigger.product}`);
}

/** The endpoint settings of an alert (its events are unused: alerts are planned from their trigger). */
export function settingsOf(alert: StoredAlert): EndpointSettings {
  return { event_versions: {}, segment_names: true, scores: false, format: FORMAT[alert.destination_type], filters: {}, alert };
}

/** Creates the alert as an outbox endpoint; a webhook destination's signing secret is answered (only) here. */
export async function createAlert(
  store: WebhookStore,
  customer: CustomerRecord,
  input: NewAlert,
  asker: Asker,
  allowPrivate: boolean,
): Promise<{ record: AlertEndpoint; secret: string | null }> {
  checkDestination(asker, input.destination, allowPrivate);
  const alert: StoredAlert = {
    name: input.name,
    trigger: input.trigger,
    filter: input.filter,
    destination_type: input.destination.type,
    to: input.destination.type === 'email' ? input.destination.to : [],
    route_to_owner: routing(input.route_to_owner),
    paused: input.paused,
    created_by: asker.name,
  };
  checkReferences(customer, alert);
  if ((await listAlerts(store, customer.id)).length >= MAX_ALERTS_PER_CUSTOMER)
    throw new ApiError('conflict', `a customer has at most ${MAX_ALERTS_PER_CUSTOMER} alerts: delete one first`);
  const secret = generateSigningSecret();
  const record = await store.createEndpoint({
    customer_id: customer.id,
    url: input.destination.type === 'email' ? '' : input.destination.url,
    events: ['account.visited'],
    hot_paths: [],
    description: `alert: ${input.name}`,
    secret,
    settings: settingsOf(alert),
  });
  return { record: record as AlertEndpoint, secret: input.destination.type === 'webhook' ? secret : null };
}

/**
 * Puts a "send test" of the alert in the outbox: a sample account's event (the catalog's `company`, else a
 * made-up one) with its route labelled `test`, so Slack, Teams, mail and the delivery log say so. A running
 * server's dispatcher sends it, retried as every delivery.
 */
export async function queueTest(
  store: WebhookStore,
  customer: CustomerRecord,
  endpoint: AlertEndpoint,
  sample: { company: CompanyRow | null; tag: { id: string; origin: string | null } | null },
): Promise<{ delivery_id: string | null; event_id: string; company_id: string }> {
  const a = endpoint.alert;
  const type = a.trigger.type === 'segment_entered' ? 'segment.entered' : a.trigger.type === 'hot' ? 'account.hot' : 'account.visited';
  const event = sampleEvent({
    type,
    version: type === 'segment.entered' ? 1 : 2,
    customer,
    endpoint: { id: endpoint.id, segment_names: true, scores: false, hot_paths: [] },
    company: sample.company,
    tag: sample.tag,
    now: new Date(),
  });
  const companyId = 'account' in event.data ? event.data.account.company_id : '';
  const body: AlertEvent = {
    ...event,
    alert: {
      alert_id: endpoint.id,
      name: a.name,
      trigger: a.trigger.type,
      happened: 'triggered a test of this alert',
      segments: customer.segments.slice(0, 1).map((s) => s.name),
      via: 'channel',
      to: a.destination_type === 'email' ? a.to : [],
      mention: null,
      owner_email: null,
      fallback: null,
      test: true,
    },
  };
  await store.enqueue([{ webhook_id: endpoint.id, customer_id: customer.id, dedupe_key: `test|${randomBytes(8).toString('hex')}`, event: body }], Date.now());
  const delivery = (await store.listDeliveries(customer.id, endpoint.id, 20)).find((d) => d.event_id === event.id);
  return { delivery_id: delivery?.id ?? null, event_id: event.id, company_id: companyId };
}
