/**
 * The bodies receivers get, one zod schema per event and version: the types the planner builds, the JSON
 * Schemas served at /schemas/<event>/<version>.json (server/events/registry.ts) and the OpenAPI
 * document's `webhooks`. A version is never changed once shipped: a change that removes or retypes a
 * field is a new version, and each endpoint chooses the version it gets (`event_versions`).
 *
 * - v1 of `account.visited` / `account.hot`: ids and the page (what receivers got before versions; its
 *   body carries no `version`, so it stays byte for byte what they parse).
 * - v2: enriched, so a receiver needs no second call — the company as identification answers it, the
 *   segments (names when the endpoint may see them), the scores per product (when the endpoint asks for
 *   them and the customer has products), the visit's pages in order and the account's session count.
 * - v3: v2 and the account's engagement — its engaged seconds, per page and in all, its custom events per
 *   name and its latest ones — over the last ENGAGEMENT_DAYS UTC days (the web tag's engaged time and
 *   `svc('track', …)` events).
 * - `segment.entered` v1: an account newly matches one of the customer's segments (seen on its visit).
 * - `tag.installed` v1: a web tag was seen on a site (an origin) for the first time.
 */
import { z } from 'zod';
import { CompanyScore, IdentifiedCompany, Segments } from '../identification/schema.ts';

export const ACCOUNT_EVENTS = ['account.visited', 'account.hot'] as const;

const EventId = z.string().describe('Unique per event: the idempotency key (also the `Svc-Event-Id` header)');
const Instant = z.string().describe('ISO 8601 date-time (UTC)');
const Day = z.string().describe('UTC day, YYYY-MM-DD');

const envelope = <T extends string, D extends z.ZodType>(types: readonly [T, ...T[]], data: D) =>
  z.object({ id: EventId, type: z.enum(types), created_at: Instant, customer_id: z.string(), data });

const Page = z.object({
  path: z.string().describe('The page path (query parameters only utm_* and the customer-kept ones)'),
  referrer_host: z.string().nullable(),
  tag_id: z.string(),
  origin: z.string().nullable().describe('The site the page is on (scheme://host[:port])'),
  session_id: z.string().nullable(),
});

/** v1 of account.visited and account.hot. */
export const AccountEventV1 = envelope(
  ACCOUNT_EVENTS,
  z.object({
    day: Day,
    account: z.object({
      company_id: z.string(),
      name: z.string().nullable(),
      domain: z.string().nullable(),
      segment_ids: z.array(z.number().int()),
      hot_account: z.boolean(),
      excluded: z.boolean().describe('The account is on the customer’s excluded list'),
    }),
    page: Page,
  }),
);
export type AccountEventV1 = z.infer<typeof AccountEventV1>;

/** The identification answer's company, without the verdict and the visitor's geoIP (not the company's). */
export const EventCompany = IdentifiedCompany.omit({
  company_match: true,
  additional_comment: true,
  is_blacklisted: true,
  is_svcqa: true,
  geoIP_country: true,
  geoIP_state: true,
  geoIP_city: true,
});

const AccountFlags = z.object({
  company_id: z.string(),
  hot_account: z.boolean(),
  excluded: z.boolean().describe('The account is on the customer’s excluded list'),
});

/** The visit this event comes from: its pages so far, in order. */
const Visit = z.object({
  session_id: z.string().nullable(),
  pages: z.array(z.object({ path: z.string(), at: Instant })).describe('The session’s pages in order, this one last (at most 50)'),
  session_count: z.number().int().min(1).describe('The account’s sessions on the customer’s sites in the journeys kept (at most the last 50)'),
});

/** v2 of account.visited and account.hot: everything a receiver needs about the account. */
export const AccountEventV2 = z.object({
  ...envelope(
    ACCOUNT_EVENTS,
    z.object({
      day: Day,
      account: AccountFlags,
      company: EventCompany,
      segments: Segments.describe('Names (and names in `list`) only when the endpoint’s segment_names setting is on'),
      scores: z.array(CompanyScore).describe('Per product, when the endpoint’s scores setting is on and the customer has products; else []'),
      visit: Visit,
      page: Page,
    }),
  ).shape,
  version: z.literal(2),
});
export type AccountEventV2 = z.infer<typeof AccountEventV2>;

/** Days of engagement v3 payloads sum (today and the days before it). */
export const ENGAGEMENT_DAYS = 30;

const Engagement = z
  .object({
    from: Day,
    to: Day,
    engaged_seconds: z.number().int().min(0).describe('Seconds the account’s visitors had the customer’s pages visible'),
    pages: z.array(z.object({ path: z.string(), engaged_seconds: z.number().int().min(0) })).describe('Per page, most engaged first (at most 10)'),
    events: z.array(z.object({ name: z.string(), count: z.number().int().min(1) })).describe('Custom events per name, most counted first (at most 10)'),
    recent_events: z
      .array(z.object({ at: Instant, name: z.string(), path: z.string(), properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) }))
      .describe('The latest custom events, newest first (at most 5), their properties as kept (nothing that looks like an email or a token)'),
  })
  .describe(`The account’s engaged time and custom events over the last ${ENGAGEMENT_DAYS} UTC days, from the web tag`);

/** v3 of account.visited and account.hot: v2 and the account's engagement. */
export const AccountEventV3 = AccountEventV2.extend({
  data: AccountEventV2.shape.data.extend({ engagement: Engagement }),
  version: z.literal(3),
});
export type AccountEventV3 = z.infer<typeof AccountEventV3>;

export const SegmentEnteredV1 = z.object({
  ...envelope(
    ['segment.entered'],
    z.object({
      day: Day,
      segment: z.object({ id: z.number().int(), name: z.string().nullable().describe('Only when the endpoint’s segment_names setting is on') }),
      account: AccountFlags,
      company: EventCompany,
      page: Page,
    }),
  ).shape,
  version: z.literal(1),
});
export type SegmentEnteredV1 = z.infer<typeof SegmentEnteredV1>;

export const TagInstalledV1 = z.object({
  ...envelope(
    ['tag.installed'],
    z.object({
      tag_id: z.string(),
      origin: z.string().describe('The site the tag was first seen on (scheme://host[:port])'),
      first_seen_at: Instant,
    }),
  ).shape,
  version: z.literal(1),
});
export type TagInstalledV1 = z.infer<typeof TagInstalledV1>;

/** Any body the outbox holds. */
export type WebhookEvent = AccountEventV1 | AccountEventV2 | AccountEventV3 | SegmentEnteredV1 | TagInstalledV1;
