/**
 * Signed webhooks: what a customer registers and what we deliver. One zod schema each is the
 * validation, the type and the admin API's documentation.
 */
import { z } from 'zod';
import { StoredAlert } from '../../core/alert-records.ts';

export const WEBHOOK_EVENTS = ['account.visited', 'account.hot', 'segment.entered', 'tag.installed'] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENTS);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/**
 * The payload version each event is sent in (server/webhooks/payloads.ts; the versions that exist:
 * server/events/registry.ts). A new endpoint gets the newest of each event it subscribes to unless it
 * names one; an endpoint stored before versions existed has none named and gets v1.
 */
export const EventVersions = z.partialRecord(WebhookEventType, z.number().int().min(1).max(1000));
export type EventVersions = z.infer<typeof EventVersions>;

/**
 * How deliveries reach the endpoint: `json` the signed event bodies (one POST per event), `slack` a Slack
 * incoming webhook (Block Kit messages built from the same events, ./slack.ts: one per account visit, a
 * digest when several are due at once, at most one a second per node).
 */
export const WEBHOOK_FORMATS = ['json', 'slack'] as const;
export const WebhookFormat = z.enum(WEBHOOK_FORMATS);
export type WebhookFormat = z.infer<typeof WebhookFormat>;

/**
 * How the outbox sends an endpoint's deliveries: the webhook formats, and two only alerts have
 * (server/alerts/): `teams` (an Adaptive Card to a Teams Workflows URL, batched and paced as Slack is) and
 * `email` (a mail to the alert's addresses, no URL).
 */
export const OUTBOX_FORMATS = ['json', 'slack', 'teams', 'email'] as const;
export const OutboxFormat = z.enum(OUTBOX_FORMATS);
export type OutboxFormat = z.infer<typeof OutboxFormat>;
/** Formats whose due deliveries are claimed together and sent as one message (a digest of the overflow). */
export const BATCHED_FORMATS: readonly OutboxFormat[] = ['slack', 'teams'];

/** The events a Slack endpoint may subscribe to: those about an account (a Slack message is about one). */
export const SLACK_EVENTS = ['account.visited', 'account.hot', 'segment.entered'] as const satisfies readonly WebhookEventType[];

/** Page views of one visit a filter may ask for at most (a visit's pages are kept up to 50). */
export const MAX_FILTER_PAGE_VIEWS = 50;

/**
 * Which accounts' events an endpoint gets (every format; tag.installed is about no account and always
 * passes). All given conditions must hold; none given: every account.
 */
export const EndpointFilters = z
  .object({
    /** The account is in any of these segments (segment.entered: the segment entered is one of them). */
    segments: z.array(z.number().int().min(0)).min(1).max(50).optional(),
    /** The account is hot with this view: one of the customer's hot accounts, or a view of one of the endpoint's hot pages. */
    hot_only: z.boolean().optional(),
    /** The account's page views in this visit (its session, this view included) reach this many. */
    min_page_views: z.number().int().min(1).max(MAX_FILTER_PAGE_VIEWS).optional(),
  })
  .strict();
export type EndpointFilters = z.infer<typeof EndpointFilters>;

/** What an endpoint receives beyond ids (enriched payloads, v2 and later), in which format, for which accounts. */
export const EndpointSettings = z.object({
  event_versions: EventVersions.default({}),
  /** Segment names in payloads (ids always): names can say more than a receiver should learn. */
  segment_names: z.boolean().default(false),
  /** Scores per product in account events (v2). */
  scores: z.boolean().default(false),
  format: OutboxFormat.default('json'),
  filters: EndpointFilters.default({}),
  /** Present on an alert's endpoint (server/alerts/): the webhook API neither lists nor changes those. */
  alert: StoredAlert.optional(),
});
export type EndpointSettings = z.infer<typeof EndpointSettings>;

/** `/pricing*`: a path glob where `*` matches any run of characters (query strings never count). */
export const HotPathPattern = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^\/[^\s?#]*$/, 'a path pattern starts with "/" and has no spaces, query or fragment (e.g. /pricing*)');

const WebhookUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
    } catch {
      return false;
    }
  }, 'url must be an absolute http(s) URL without credentials');

export const NewWebhook = z
  .object({
    url: WebhookUrl,
    events: z.array(WebhookEventType).min(1, 'subscribe to at least one event').max(WEBHOOK_EVENTS.length),
    hot_paths: z.array(HotPathPattern).max(50).default([]),
    description: z.string().trim().max(200).default(''),
    event_versions: EventVersions.optional(),
    /** Default: off for JSON endpoints, on for Slack (the customer's own channel shows names, not ids). */
    segment_names: z.boolean().optional(),
    scores: z.boolean().default(false),
    format: WebhookFormat.default('json'),
    filters: EndpointFilters.default({}),
  })
  .strict();
export type NewWebhook = z.input<typeof NewWebhook>;

/** PATCH …/webhooks/:webhookId: only the fields given (the secret changes only by re-creating). */
export const WebhookPatch = z
  .object({
    url: WebhookUrl,
    events: NewWebhook.shape.events,
    hot_paths: z.array(HotPathPattern).max(50),
    description: z.string().trim().max(200),
    event_versions: EventVersions,
    segment_names: z.boolean(),
    scores: z.boolean(),
    format: WebhookFormat,
    filters: EndpointFilters,
  })
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: 'nothing to change: give at least one field' });
export type WebhookPatch = z.infer<typeof WebhookPatch>;

/** POST …/webhooks/:webhookId/test: which event, in which version (defaults: the endpoint's first event, its version). */
export const TestEventBody = z.object({ type: WebhookEventType.optional(), version: z.number().int().min(1).max(1000).optional() }).strict();
export type TestEventBody = z.infer<typeof TestEventBody>;

/** A registered endpoint as the admin API shows it: the signing secret is never shown again after creation. */
export const WebhookRecord = z.object({
  id: z.string(),
  customer_id: z.string(),
  url: z.string(),
  events: z.array(WebhookEventType),
  hot_paths: z.array(z.string()),
  description: z.string(),
  /** First characters of the signing secret, for telling secrets apart. */
  secret_prefix: z.string(),
  created_at: z.string(),
  event_versions: EventVersions,
  segment_names: z.boolean(),
  scores: z.boolean(),
  format: WebhookFormat,
  filters: EndpointFilters,
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/** An endpoint as the outbox keeps it: a webhook (WebhookRecord) or an alert's (`alert` set, any OutboxFormat). */
export const OutboxEndpoint = WebhookRecord.extend({ format: OutboxFormat, alert: StoredAlert.optional() });
export type OutboxEndpoint = z.infer<typeof OutboxEndpoint>;

/** Whether an endpoint is a webhook (the webhook API's), not an alert's. */
export const isWebhook = (e: OutboxEndpoint): e is OutboxEndpoint & WebhookRecord => e.alert === undefined && (e.format === 'json' || e.format === 'slack');

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One event on its way to one endpoint: the outbox row and the delivery log entry. */
export const DeliveryRecord = z.object({
  id: z.string(),
  event_id: z.string(),
  webhook_id: z.string(),
  customer_id: z.string(),
  type: WebhookEventType,
  /** The account the event is about (its `data.account.company_id`); null when unreadable. */
  company_id: z.string().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  created_at: z.string(),
  next_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  /** HTTP status of the last attempt (null: no answer — refused, timed out …). */
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  /** A "send test" of an alert (POST …/alerts/:alertId/test): not about a real visit. */
  test: z.boolean().optional(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;

/** The JSON body a receiver gets (its `id` is the idempotency key; also sent as `Svc-Event-Id`): ./payloads.ts. */
export type { WebhookEvent } from './payloads.ts';
