import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import { sampleEvent } from '../webhooks/samples.ts';
import { WEBHOOK_EVENTS } from '../webhooks/schema.ts';
import { EVENT_SCHEMAS, eventJsonSchema, latestVersion } from './registry.ts';
import { fieldTypes, SHIPPED_FILE } from './shipped.ts';

const BASE = 'https://svc.example.com';

function validatorOf(name: string, version: number) {
  const e = EVENT_SCHEMAS.find((x) => x.name === name && x.version === version);
  if (!e) throw new Error(`no schema ${name} ${version}`);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv.compile(eventJsonSchema(e, BASE));
}

describe('every emitted event has a versioned JSON Schema', () => {
  it('each schema is 2020-12, names its own URL as $id and compiles', () => {
    for (const e of EVENT_SCHEMAS) {
      const js = eventJsonSchema(e, BASE);
      expect(js.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(js.$id).toBe(`${BASE}/schemas/${e.name}/${e.version}.json`);
      expect(() => validatorOf(e.name, e.version)).not.toThrow();
    }
  });

  it('names and versions are unique, versions count up from 1 without gaps', () => {
    const names = [...new Set(EVENT_SCHEMAS.map((e) => e.name))];
    for (const name of names) {
      const versions = EVENT_SCHEMAS.filter((e) => e.name === name).map((e) => e.version);
      expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
    }
  });

  it('every webhook event type has a schema', () => {
    for (const type of WEBHOOK_EVENTS) expect(latestVersion(type)).toBeGreaterThan(0);
  });

  it('no shipped version lost or retyped a field (server/events/shipped.json; add new versions with npx tsx server/events/shipped.ts)', () => {
    const shipped = JSON.parse(readFileSync(SHIPPED_FILE, 'utf8')) as Record<string, Record<string, string>>;
    for (const e of EVENT_SCHEMAS) {
      const key = `${e.name}@${e.version}`;
      const pinned = shipped[key];
      expect(pinned, `${key} is not in shipped.json: run npx tsx server/events/shipped.ts`).toBeDefined();
      const now = fieldTypes(eventJsonSchema(e, BASE));
      for (const [path, type] of Object.entries(pinned!)) expect({ key, path, type: now[path] }).toEqual({ key, path, type });
    }
  });
});

describe('payloads the planner builds validate against their schemas', () => {
  const company = {
    ...Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])),
    company_id: '900001',
    name: 'Acme Robotics Inc.',
    domain: 'acme.example',
    industry: 'Software',
  } as CompanyRow;
  const customer = {
    id: 'acme',
    segments: [{ id: 7, name: 'Robots', match: { industry: ['Software'] } }],
    hot_accounts: [],
    products: [],
  } as unknown as CustomerRecord;
  const endpoint = { id: 'wh_1', segment_names: true, scores: true, hot_paths: [] };
  for (const e of EVENT_SCHEMAS.filter((x) => x.channel === 'webhook')) {
    it(`${e.name} v${e.version}`, () => {
      const event = sampleEvent({
        type: e.name as (typeof WEBHOOK_EVENTS)[number],
        version: e.version,
        customer,
        endpoint,
        company,
        tag: null,
        now: new Date(),
      });
      const validate = validatorOf(e.name, e.version);
      expect(validate(JSON.parse(JSON.stringify(event))), JSON.stringify(validate.errors)).toBe(true);
      expect(event.type).toBe(e.name);
      if (e.version > 1 || e.name === 'segment.entered' || e.name === 'tag.installed') expect((event as { version?: number }).version).toBe(e.version);
      else expect(event).not.toHaveProperty('version');
    });
  }
});
