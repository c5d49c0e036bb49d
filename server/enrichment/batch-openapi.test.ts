/**
 * What a validating gateway in front of the server does with batches: every body the real server accepts
 * (200, bad items answered as their own 422) validates against the request schema of the /openapi.json it
 * serves (ajv), and so does its answer against the 200's schema. A document stricter than the server
 * would have the gateway refuse whole batches the server answers item by item.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { plainCustomer } from '../testing/fixtures.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { batchSources } from './batch-test-leads.ts';

const PATH = '/v3/batch/enrichment';

let srv: TestServer;
let token: string;
beforeAll(async () => {
  srv = await startTestServer({ ...batchSources(new Date()), customers: [plainCustomer('gw', { enrichment_credits: 100 })] });
  ({ secret: token } = await srv.store.createToken({
    customer_id: 'gw',
    api_group: 'company-firmographics',
    name: 'crm',
    segment_names: true,
    rate_limit: 10_000,
  }));
}, 60_000);
afterAll(() => srv?.close());

/** Items the server answers with a per-item 422 inside its 200 (docs/api.md "Bulk enrichment"). */
const BAD_ITEMS: unknown[] = [
  'lead1@co1.example',
  42,
  null,
  true,
  ['lead1@co1.example'],
  {},
  { email: 5 },
  { domain: { host: 'co1.example' } },
  { email: `${'x'.repeat(300)}@co1.example` },
  { domain: `${'d'.repeat(250)}.example` },
  { email: 'lead1@co1.example', domain: 'co1.example' },
];

it('every batch the server accepts, bad items included, validates against the served document (request and answer)', async () => {
  const doc = (await (await fetch(`${srv.url}/openapi.json`)).json()) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(doc, 'openapi');
  const at = (...parts: string[]) => ajv.getSchema(`openapi#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`)!;
  const request = at('paths', PATH, 'post', 'requestBody', 'content', 'application/json', 'schema');
  const answer = at('paths', PATH, 'post', 'responses', '200', 'content', 'application/json', 'schema');

  const bodies = [
    { items: BAD_ITEMS },
    { items: [{ email: 'lead1@co1.example' }, ...BAD_ITEMS.slice(0, 4), { domain: 'unknown.example' }] },
    ...BAD_ITEMS.map((item) => ({ items: [item] })),
  ];
  for (const body of bodies) {
    const res = await fetch(`${srv.url}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(200);
    const { results } = (await res.json()) as { results: { status: number; code?: string }[] };
    expect(results).toHaveLength(body.items.length);
    body.items.forEach((item, i) => {
      if (BAD_ITEMS.includes(item)) expect(results[i], JSON.stringify(item).slice(0, 80)).toMatchObject({ status: 422, code: 'invalid' });
    });
    expect(request(body), `${JSON.stringify(body).slice(0, 200)}: ${JSON.stringify(request.errors?.slice(0, 3))}`).toBe(true);
    expect(answer({ results }), JSON.stringify(answer.errors?.slice(0, 3))).toBe(true);
  }

  // What the server refuses whole stays refused by the document: the envelope is still checked.
  for (const refused of [{}, { items: [] }, { items: 'x' }, { items: Array(101).fill({ domain: 'co1.example' }) }]) {
    const res = await fetch(`${srv.url}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(refused),
    });
    expect(res.status).toBe(422);
    expect(request(refused)).toBe(false);
  }
});
