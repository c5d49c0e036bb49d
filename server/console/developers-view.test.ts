import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRIVATE } from '../../tag/src/datalayer.ts';
import { EVENT_SCHEMAS, eventSchema, schemaPath } from '../events/registry.ts';
import { IdentifiedCompany } from '../identification/schema.ts';
import { WEBHOOK_EVENTS } from '../webhooks/schema.ts';
import { USER_AGENT } from '../webhooks/service.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../webhooks/signature.ts';
import {
  DATALAYER_FIELDS,
  DELIVERY_HEADERS,
  dataLayerExamples,
  dataLayerKeys,
  declarationOf,
  eventListenerExample,
  membersOf,
  tagEvents,
  typeBlocks,
  VERIFY_SIGNATURE_JS,
  webhookCatalog,
  webhookExamples,
} from './developers-view.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
/** What /tag/v1/svc.d.ts serves: the tag build copies tag/src/types.ts there unchanged. */
const TYPES = read('tag/src/types.ts');

describe('the Developers page: the tag', () => {
  it('lists every DOM event the tag dispatches, each with its detail type', () => {
    const dispatched = [...read('tag/src/tag.ts').matchAll(/\bemit\('([a-z]+)'/g)].map((m) => `svc:${m[1]}`);
    expect(dispatched.length).toBeGreaterThan(0);
    const listed = tagEvents(TYPES);
    expect(new Set(listed.map((e) => e.event))).toEqual(new Set(dispatched));
    expect(listed).toEqual([
      { event: 'svc:ready', detail: 'SvcReadyDetail' },
      { event: 'svc:error', detail: 'SvcErrorDetail' },
      { event: 'svc:personalized', detail: 'SvcPersonalizedDetail' },
    ]);
    for (const { event } of listed) expect(eventListenerExample(listed)).toContain(`'${event}'`);
  });

  it('shows window.svc and every event detail type in full, doc comments included', () => {
    const blocks = typeBlocks(TYPES);
    expect(blocks.map((b) => b.name)).toEqual([
      'Svc',
      'SvcReadyDetail',
      'SvcErrorDetail',
      'SvcPersonalizedDetail',
      'SvcPersonalizedElement',
      'SvcDataLayerEvent',
    ]);
    for (const { name, text } of blocks) {
      expect(TYPES).toContain(text);
      expect(text).toMatch(new RegExp(`^/\\*\\*[\\s\\S]*export (interface|type) ${name}\\b`));
      expect(text).toMatch(/[};]$/);
    }
    expect(membersOf(declarationOf(TYPES, 'Svc')!)).toEqual(['data', 'error', 'push', 'on', 'ready']);
    expect(membersOf(declarationOf(TYPES, 'SvcReadyDetail')!)).toEqual(['data', 'cached', 'hidden']);
  });

  it('cuts a declaration at its own end: nested braces, unions over several lines, none at all', () => {
    const src =
      '/** A. */\nexport interface A {\n  b: { c: number };\n  d(e: string): void;\n}\n\nexport type U =\n  | { x: 1 }\n  | [2];\nexport type V = 1;\n';
    expect(declarationOf(src, 'A')).toBe('/** A. */\nexport interface A {\n  b: { c: number };\n  d(e: string): void;\n}');
    expect(declarationOf(src, 'U')).toBe('export type U =\n  | { x: 1 }\n  | [2];');
    expect(declarationOf(src, 'Missing')).toBeNull();
    expect(membersOf(declarationOf(src, 'A')!)).toEqual(['b', 'd']);
    expect(tagEvents(src)).toEqual([]);
  });

  it('lists a dataLayer key for every field of the answer, flagging what the default leaves out', () => {
    for (const field of Object.keys(IdentifiedCompany.shape)) expect(DATALAYER_FIELDS).toContain(field);
    const keys = dataLayerKeys();
    const names = keys.map((k) => k.key);
    expect(names.slice(0, 2)).toEqual(['event', 'svc_company_match']);
    for (const key of [
      'svc_company_id',
      'svc_company_name',
      'svc_company_domain',
      'svc_confidence',
      'svc_segment_ids',
      'svc_segment_names',
      'svc_cdp_intent_score',
      'svc_geoip_city',
    ])
      expect(names).toContain(key);
    for (const k of keys) expect(k.byDefault).toBe(!PRIVATE.test(k.key.replace(/^svc_/, '')));
    const { match, notIdentified } = dataLayerExamples();
    expect(match).toMatchObject({ event: 'svc_company_details_loaded', svc_company_match: 'Match' });
    expect(notIdentified).toEqual({ event: 'svc_company_not_identified', svc_company_match: 'No Match' });
  });
});

describe('the Developers page: webhooks', () => {
  it('shows the bodies a page view raises as the server plans them, each valid against its served schema', () => {
    const shown = webhookExamples('acme', 'acme-tag', 'https://www.acme.example');
    expect(shown.map((e) => `${e.type} v${e.version}`)).toEqual([
      'account.visited v1',
      'account.visited v2',
      'account.visited v3',
      'account.hot v1',
      'account.hot v2',
      'account.hot v3',
      'segment.entered v1',
    ]);
    for (const { type, version, event } of shown) {
      const registered = eventSchema(type, version);
      expect(registered?.channel).toBe('webhook');
      expect(registered!.schema.safeParse(event).error).toBeUndefined();
      expect(event).toMatchObject({ type, customer_id: 'acme', data: { page: { tag_id: 'acme-tag', path: '/pricing' } } });
    }
    // Every event a webhook can subscribe to is in the served list the page links (tag.installed: schema only).
    const catalog = webhookCatalog({ events: EVENT_SCHEMAS.map((e) => ({ ...e, url: `http://x${schemaPath(e.name, e.version)}` })) });
    expect(catalog.map((c) => c.name).sort()).toEqual([...WEBHOOK_EVENTS].sort());
    expect(catalog.find((c) => c.name === 'account.visited')!.versions.map((v) => v.version)).toEqual([1, 2, 3]);
  });

  it('lists every header a delivery carries, with the server’s names and user agent', () => {
    const names = DELIVERY_HEADERS.map((h) => h.name.toLowerCase());
    expect(names).toContain(SIGNATURE_HEADER.toLowerCase());
    expect(names).toContain(EVENT_ID_HEADER.toLowerCase());
    expect(DELIVERY_HEADERS.find((h) => h.name === 'User-Agent')?.value).toBe(USER_AGENT);
    // Every header the dispatcher sets (service.ts attempt()): literal names and the imported constants.
    const sent = read('server/webhooks/service.ts').match(/this\.send\(delivery, \{([\s\S]*?)\}\);/)![1]!;
    const literal = [...sent.matchAll(/^\s*'([\w-]+)':/gm)].map((m) => m[1]!.toLowerCase());
    expect(literal.length).toBeGreaterThan(2);
    expect(new Set(names)).toEqual(new Set([...literal, SIGNATURE_HEADER.toLowerCase(), EVENT_ID_HEADER.toLowerCase()]));
  });

  it('verifies signatures with the code of docs/webhooks.md, word for word', () => {
    expect(read('docs/webhooks.md')).toContain(VERIFY_SIGNATURE_JS);
  });
});
