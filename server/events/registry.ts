/**
 * Every event the product emits, with a versioned JSON Schema (2020-12) generated from the zod schema the
 * code builds or reads it with: the tag's DOM events and `dataLayer` pushes, the page-view beacon, and the
 * webhook events. Served at `/schemas` and `/schemas/<event>/<version>.json` (./routes.ts); the webhook
 * events are also the OpenAPI document's `webhooks`. Versions only grow: a shipped version's schema is
 * never changed in a way that removes or retypes a field (registry.test.ts pins each one's fields).
 *
 * The tag carries no zod (its size budget): its events are described here from the identification
 * answer's schema, and a browser test validates what a real tag dispatched and pushed against them.
 */
import { z } from 'zod';
import { COMPANY_MATCHES, CONFIDENCES } from '../../core/vocabulary.ts';
import { IdentificationResponse, IdentifiedCompany } from '../identification/schema.ts';
import { schema as jsonSchemaOf } from '../openapi/kit.ts';
import { CustomEventBeacon, EngagementBeacon, PageViewBeacon } from '../visits/beacon.ts';
import { AccountEventV1, AccountEventV2, AccountEventV3, SegmentEnteredV1, TagInstalledV1 } from '../webhooks/payloads.ts';

export type EventChannel = 'dom' | 'dataLayer' | 'beacon' | 'webhook';

export interface EventSchema {
  name: string;
  version: number;
  channel: EventChannel;
  description: string;
  schema: z.ZodType;
}

// ---------------------------------------------------------------------------------------------------
// The tag

/** `window.svc.data`: the answer, or below the minimum confidence `{company: {company_match: "No Match"}}`. */
const SvcData = z.union([IdentificationResponse, z.object({ company: z.object({ company_match: z.literal('No Match') }).strict() }).strict()]);

const SvcReady = z.object({
  data: SvcData,
  cached: z.boolean().describe('The answer came from the local cache (no request was made)'),
  hidden: z.number().min(0).describe('Milliseconds the anti-flicker rule kept personalised elements hidden'),
});

const SvcError = z.object({
  status: z.number().int().min(0).describe('The HTTP status, or 0 when no answer came (network error, opted out, GPC, consent denied)'),
  message: z.string(),
});

const SvcPersonalized = z.object({
  elements: z.array(
    z.object({
      element: z.unknown().describe('The DOM Element (not serialisable)'),
      shown: z.boolean(),
      show: z.string().optional(),
      hide: z.string().optional(),
      text: z.string().optional(),
      attr: z.string().optional(),
      fill: z.string().optional(),
    }),
  ),
});

/** A `dataLayer` key as the tag names an answer field (tag/src/datalayer.ts `flatten`). */
export function dataLayerKey(field: string): string {
  const renamed: Record<string, string> = { companyId: 'company_id', name: 'company_name', domain: 'company_domain' };
  return `svc_${(renamed[field] ?? field).replace(/\W+/g, '_').toLowerCase()}`;
}

const nullableScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const companyKeys = Object.fromEntries(
  Object.keys(IdentifiedCompany.shape)
    .filter((f) => f !== 'company_match')
    .map((f) => [dataLayerKey(f), f === 'industry_v2' ? z.unknown().optional() : nullableScalar.optional()]),
);

const DetailsLoaded = z
  .object({
    event: z.literal('svc_company_details_loaded'),
    svc_company_match: z.literal('Match'),
    ...companyKeys,
    svc_confidence: z.enum(CONFIDENCES).nullable().optional(),
    svc_segment_ids: z.string().nullable().optional().describe('Segment ids joined by commas ("12,15")'),
    svc_segment_names: z.string().nullable().optional(),
  })
  // Per scored product P: svc_P_buying_stage, svc_P_intent_score, svc_P_profile_fit, svc_P_profile_score, svc_P_is_svcqa.
  .catchall(nullableScalar);

const NotIdentified = z
  .object({
    event: z.literal('svc_company_not_identified'),
    svc_company_match: z.enum(COMPANY_MATCHES.filter((m) => m !== 'Match') as [string, ...string[]]),
  })
  .strict();

// ---------------------------------------------------------------------------------------------------

export const EVENT_SCHEMAS: readonly EventSchema[] = [
  { name: 'svc:ready', version: 1, channel: 'dom', description: 'DOM event on `document` when an answer is there: its `detail`.', schema: SvcReady },
  { name: 'svc:error', version: 1, channel: 'dom', description: 'DOM event on `document` when no answer came: its `detail`.', schema: SvcError },
  {
    name: 'svc:personalized',
    version: 1,
    channel: 'dom',
    description: 'DOM event on `document` after a personalisation pass: its `detail`.',
    schema: SvcPersonalized,
  },
  {
    name: 'svc_company_details_loaded',
    version: 1,
    channel: 'dataLayer',
    description: 'Pushed to `dataLayer` for a Match (keys per the tag’s `fields` setting).',
    schema: DetailsLoaded,
  },
  {
    name: 'svc_company_not_identified',
    version: 1,
    channel: 'dataLayer',
    description: 'Pushed to `dataLayer` for any other answer.',
    schema: NotIdentified,
  },
  { name: 'pageview', version: 1, channel: 'beacon', description: 'The page-view beacon the tag sends to `POST /v1/events`.', schema: PageViewBeacon },
  {
    name: 'engagement',
    version: 1,
    channel: 'beacon',
    description: 'Engaged time: how long the page was visible, sent to `POST /v1/events` when the page is hidden or left.',
    schema: EngagementBeacon,
  },
  {
    name: 'event',
    version: 1,
    channel: 'beacon',
    description: "A custom event (`svc('track', name, properties)`) sent to `POST /v1/events`: a name, at most 10 flat properties.",
    schema: CustomEventBeacon,
  },
  {
    name: 'account.visited',
    version: 1,
    channel: 'webhook',
    description: 'An identified account’s first page view of the UTC day: ids and the page.',
    schema: AccountEventV1,
  },
  {
    name: 'account.visited',
    version: 2,
    channel: 'webhook',
    description: 'An identified account’s first page view of the UTC day, enriched: company, segments, scores, the visit’s pages and session count.',
    schema: AccountEventV2,
  },
  {
    name: 'account.hot',
    version: 1,
    channel: 'webhook',
    description: 'A hot account’s page view, or a view of one of the endpoint’s hot paths: ids and the page.',
    schema: AccountEventV1,
  },
  {
    name: 'account.hot',
    version: 2,
    channel: 'webhook',
    description: 'A hot account’s page view, or a view of one of the endpoint’s hot paths, enriched as account.visited v2.',
    schema: AccountEventV2,
  },
  {
    name: 'account.visited',
    version: 3,
    channel: 'webhook',
    description: 'As account.visited v2, with the account’s engaged time and custom events over the last 30 days.',
    schema: AccountEventV3,
  },
  {
    name: 'account.hot',
    version: 3,
    channel: 'webhook',
    description: 'As account.hot v2, with the account’s engaged time and custom events over the last 30 days.',
    schema: AccountEventV3,
  },
  {
    name: 'segment.entered',
    version: 1,
    channel: 'webhook',
    description: 'An account newly matches one of the customer’s segments (seen on its page view).',
    schema: SegmentEnteredV1,
  },
  { name: 'tag.installed', version: 1, channel: 'webhook', description: 'A web tag was seen on a site for the first time.', schema: TagInstalledV1 },
];

export function eventSchema(name: string, version: number): EventSchema | undefined {
  return EVENT_SCHEMAS.find((e) => e.name === name && e.version === version);
}

/** The newest version of an event (what a new endpoint gets unless it asks otherwise). */
export function latestVersion(name: string): number {
  return Math.max(0, ...EVENT_SCHEMAS.filter((e) => e.name === name).map((e) => e.version));
}

export const schemaPath = (name: string, version: number) => `/schemas/${name}/${version}.json`;

/** The served JSON Schema: 2020-12, its `$id` the absolute URL it is served at (`base` without a trailing slash). */
export function eventJsonSchema(e: EventSchema, base: string): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${base}${schemaPath(e.name, e.version)}`,
    title: `${e.name} v${e.version}`,
    description: e.description,
    ...jsonSchemaOf(e.schema),
  };
}
