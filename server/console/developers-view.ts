/**
 * What the console's Developers page shows, built from the sources the tag and the server run, so it
 * cannot drift from them:
 * - `window.svc`, the DOM events and their `detail` types: declarations cut out of the tag's public types
 *   as served at /tag/v1/svc.d.ts (a copy of tag/src/types.ts), fetched by the page;
 * - the `dataLayer` pushes: the tag's own `flatten()` (tag/src/datalayer.ts) run on a real answer of the
 *   sample data (the OpenAPI example, server/openapi/examples.json);
 * - the webhook events: the server's own `plannedEvents()` (server/webhooks/events.ts) run on a page view,
 *   and the list of every event and version with its JSON Schema as the server serves it (`GET /schemas`);
 * What cannot be bundled into the browser (the delivery headers, the verification code of docs/webhooks.md) is
 * copied here and pinned to its source by developers-view.test.ts. Pure.
 */

import { flatten } from '../../tag/src/datalayer.ts';
import type { SvcData, SvcEventMap, SvcScore } from '../../tag/src/types.ts';
import examples from '../openapi/examples.json' with { type: 'json' };
import { type EnrichedFacts, type PageViewForWebhooks, plannedEvents } from '../webhooks/events.ts';
import type { WebhookEvent } from '../webhooks/payloads.ts';
import type { WebhookEventType } from '../webhooks/schema.ts';

/** Where the tag's public types are served (server/tag/assets.ts). */
export const TYPES_URL = '/tag/v1/svc.d.ts';

/**
 * The top-level declaration `name` of a TypeScript source (interface or type alias), with the doc comment
 * right above it; null when the source has none. Braces and brackets are counted to find its end, so a
 * nested object type or a multi-line union stays whole.
 */
export function declarationOf(source: string, name: string): string | null {
  const head = new RegExp(`^export (?:interface ${name}\\b|type ${name}\\b)[^\\n]*`, 'm').exec(source);
  if (!head) return null;
  let start = head.index;
  const before = source.slice(0, start).replace(/\s+$/, '');
  if (before.endsWith('*/')) start = before.lastIndexOf('/**');
  let depth = 0;
  for (let i = head.index; i < source.length; i++) {
    const c = source[i];
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
    else if (c === ';' && depth === 0) return source.slice(start, i + 1);
    if (c === '}' && depth === 0 && source.startsWith('export interface', head.index)) return source.slice(start, i + 1);
  }
  return null;
}

/** The members of an interface declaration (its own, one level deep): `data`, `push` … */
export function membersOf(declaration: string): string[] {
  const body = declaration.slice(declaration.indexOf('{') + 1, declaration.lastIndexOf('}'));
  const names: string[] = [];
  let depth = 0;
  for (const line of body.split('\n')) {
    const trimmed = line.trim();
    if (depth === 0 && !trimmed.startsWith('*') && !trimmed.startsWith('/')) {
      const m = /^([A-Za-z_$][\w$]*)\??\s*(?:[:(<])/.exec(trimmed);
      if (m) names.push(m[1]!);
    }
    for (const c of trimmed.replace(/\/\*.*?\*\/|\/\/.*$/g, '')) {
      if (c === '{') depth++;
      else if (c === '}') depth--;
    }
  }
  return names;
}

/** The DOM events the tag dispatches (`svc:<name>`), each with the name of its `detail` type: read from `SvcEventMap`. */
export function tagEvents(source: string): { event: string; detail: string }[] {
  const map = declarationOf(source, 'SvcEventMap');
  if (!map) return [];
  return [...map.matchAll(/^\s*([a-z]+)\??:\s*([A-Za-z]+);/gm)].map((m) => ({ event: `svc:${m[1]}`, detail: m[2]! }));
}

/** The types the page shows in full, in order: `window.svc`, then each event's detail (and what they name). */
export function typeBlocks(source: string): { name: string; text: string }[] {
  const names = ['Svc', ...tagEvents(source).map((e) => e.detail), 'SvcPersonalizedElement', 'SvcDataLayerEvent'];
  return [...new Set(names)].flatMap((name) => {
    const text = declarationOf(source, name);
    return text ? [{ name, text }] : [];
  });
}

/** An event handler per event, for copying. */
export function eventListenerExample(events: { event: string; detail: string }[]): string {
  return events.map(({ event, detail }) => `document.addEventListener('${event}', (e) => {\n  const detail = e.detail; // ${detail}\n});`).join('\n');
}

// ---------------------------------------------------------------------------------------------------
// dataLayer

/** A real answer of the sample data (the OpenAPI example), with scores and segment names as a tag with both on answers. */
const SAMPLE_SCORE: EnrichedFacts['scores'][number] & SvcScore = {
  is_svcqa: false,
  product: 'cdp',
  product_display_name: 'Customer Data Platform',
  intent_score: 72,
  buying_stage: 'Consideration',
  profile_score: 64,
  profile_fit: 'Moderate',
};

export const SAMPLE_ANSWER: SvcData = {
  ...(examples.identification as SvcData),
  scores: [SAMPLE_SCORE],
  segments: { ids: [101], names: ['Enterprise Software'], list: [{ id: 101, name: 'Enterprise Software' }] },
};

/** Every field the `fields` setting can name: the company's, then confidence, segments and scores (datalayer.ts). */
export const DATALAYER_FIELDS = [...Object.keys(SAMPLE_ANSWER.company), 'confidence', 'segments', 'scores'];

export interface DataLayerKey {
  key: string;
  /** Pushed without a `fields` setting (the default leaves out contact data and the visitor's location). */
  byDefault: boolean;
  example: unknown;
}

/** Each key the tag can push for a Match, with whether the default pushes it, as `flatten()` makes them. */
export function dataLayerKeys(answer: SvcData = SAMPLE_ANSWER): DataLayerKey[] {
  const all = flatten(answer, DATALAYER_FIELDS) as unknown as Record<string, unknown>;
  const byDefault = new Set(Object.keys(flatten(answer, null)));
  return Object.entries(all).map(([key, example]) => ({ key, byDefault: byDefault.has(key), example }));
}

/** The two pushes: a Match with the default fields, and any other answer. */
export function dataLayerExamples(answer: SvcData = SAMPLE_ANSWER): { match: unknown; notIdentified: unknown } {
  return { match: flatten(answer, null), notIdentified: flatten({ company: { company_match: 'No Match' } }, null) };
}

// ---------------------------------------------------------------------------------------------------
// Webhooks

/** The headers of every delivery (server/webhooks/service.ts, signature.ts). */
export const DELIVERY_HEADERS: readonly { name: string; value: string }[] = [
  { name: 'Content-Type', value: 'application/json' },
  { name: 'User-Agent', value: 'svc-webhooks/1.0' },
  { name: 'Svc-Event-Id', value: 'the event’s id (the body’s `id`): your idempotency key' },
  { name: 'Svc-Delivery-Attempt', value: '1 for the first attempt, then 2, 3 …' },
  { name: 'Svc-Signature', value: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed with the endpoint’s secret' },
];

/** Verifying `Svc-Signature` in Node (the code of docs/webhooks.md, word for word). */
export const VERIFY_SIGNATURE_JS = `import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifySvcSignature(header, rawBody, secret, toleranceSeconds = 300) {
  const fields = Object.fromEntries(header.split(',').map((kv) => kv.split('=', 2)));
  const t = Number(fields.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(\`\${t}.\${rawBody}\`).digest();
  const given = Buffer.from(fields.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}`;

/** The events a page view raises (server/webhooks/events.ts); `tag.installed` is raised by a tag sighting instead. */
const VIEW_EVENTS = ['account.visited', 'account.hot', 'segment.entered'] as const satisfies readonly WebhookEventType[];

export interface WebhookExample {
  type: WebhookEventType;
  version: number;
  event: WebhookEvent;
}

/**
 * One body of each event and payload version a page view raises, as the server's planner builds them for
 * a view of `tagId` on `origin` by the sample company (an endpoint with segment names and scores on).
 */
export function webhookExamples(customerId: string, tagId: string, origin: string, at = '2026-11-23T10:00:00.000Z'): WebhookExample[] {
  const {
    company_match: _m,
    additional_comment: _a,
    is_blacklisted: _b,
    is_svcqa: _q,
    geoIP_country: _gc,
    geoIP_state: _gs,
    geoIP_city: _gy,
    ...company
  } = examples.identification.company;
  const view: PageViewForWebhooks = {
    customer_id: customerId,
    tag_id: tagId,
    at,
    day: at.slice(0, 10),
    company_id: company.companyId,
    company: { name: company.name, domain: company.domain },
    path: '/pricing',
    referrer_host: 'news.example',
    session_id: 's_4f1c2a9d',
    origin,
    first_of_day_for_account: true,
    segment_ids: [101],
    hot_account: false,
    excluded: false,
    enriched: {
      company: company as EnrichedFacts['company'],
      segments: [{ id: 101, name: 'Enterprise Software' }],
      entered_segment_ids: [101],
      scores: [SAMPLE_SCORE],
      visit: {
        session_id: 's_4f1c2a9d',
        pages: [
          { path: '/', at: '2026-11-23T09:58:41.000Z' },
          { path: '/pricing', at },
        ],
        session_count: 3,
      },
      // What v3 adds: the account's month of engaged time and custom events from the web tag.
      engagement: {
        from: '2026-10-25',
        to: at.slice(0, 10),
        engaged_seconds: 312,
        pages: [
          { path: '/pricing', engaged_seconds: 254 },
          { path: '/', engaged_seconds: 58 },
        ],
        events: [{ name: 'demo_requested', count: 1 }],
        recent_events: [{ at, name: 'demo_requested', path: '/pricing', properties: { plan: 'pro' } }],
      },
    },
  };
  let n = 0;
  const id = () => `evt_example${++n}`;
  const out: WebhookExample[] = [];
  for (const version of [1, 2, 3]) {
    const endpoint = {
      id: 'wh_example',
      // segment.entered (v1 only) once, with the v2 account events.
      events: version === 2 ? VIEW_EVENTS : VIEW_EVENTS.slice(0, 2),
      hot_paths: ['/pricing*'],
      event_versions: { 'account.visited': version, 'account.hot': version },
      segment_names: true,
      scores: true,
    };
    for (const { event } of plannedEvents(view, endpoint, id)) {
      out.push({ type: event.type, version: 'version' in event ? event.version : 1, event });
    }
  }
  return out.sort((a, b) => VIEW_EVENTS.indexOf(a.type as never) - VIEW_EVENTS.indexOf(b.type as never) || a.version - b.version);
}

/** `GET /schemas` (server/events/routes.ts): every event the product emits, each version with its JSON Schema. */
export interface SchemaList {
  events: { name: string; version: number; channel: string; description: string; url: string }[];
}

/** The webhook events of the schema list, each with its versions (oldest first). */
export function webhookCatalog(list: SchemaList): { name: string; versions: { version: number; description: string; url: string }[] }[] {
  const byName = new Map<string, { version: number; description: string; url: string }[]>();
  for (const e of list.events) {
    if (e.channel !== 'webhook') continue;
    byName.set(e.name, [...(byName.get(e.name) ?? []), { version: e.version, description: e.description, url: e.url }]);
  }
  return [...byName].map(([name, versions]) => ({ name, versions: versions.sort((a, b) => a.version - b.version) }));
}

/** Pretty JSON for a code block. */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2);

/** The event names of a `SvcEventMap` as the type system sees them (the test compares them with tagEvents()). */
export type TagEventName = keyof SvcEventMap;
