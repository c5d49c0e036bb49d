/**
 * Signed webhooks: what a customer registers and what we deliver. One zod schema each is the
 * validation, the type and the admin API's documentation.
 */
import { z } from 'zod';

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

/** What an endpoint receives beyond ids (enriched payloads, v2 and later). */
export const EndpointSettings = z.object({
  event_versions: EventVersions.default({}),
  /** Segment names in payloads (ids always): names can say more than a receiver should learn. */
  segment_names: z.boolean().default(false),
  /** Scores per product in account events (v2). */
  scores: z.boolean().default(false),
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
    segment_names: z.boolean().default(false),
    scores: z.boolean().default(false),
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
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

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
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;

/** The JSON body a receiver gets (its `id` is the idempotency key; also sent as `Svc-Event-Id`): ./payloads.ts. */
export type { WebhookEvent } from './payloads.ts';
