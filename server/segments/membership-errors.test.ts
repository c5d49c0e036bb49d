/**
 * `GET /v3/segments/membership` without a domain answers the spec's 400 for a blank required parameter with
 * `code: "blank"` (docs/api.md's error-code table, core/error-codes.ts), and the served OpenAPI document says so:
 * each error answer of the route validates against the document this server serves at /openapi.json.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';

const ROUTE = '/v3/segments/membership';
let srv: TestServer;
let token: string;
let ajv: Ajv2020;

beforeAll(async () => {
  srv = await startTestServer({ customers: [{ ...TEST_CUSTOMER, grants: ['segments'] }] });
  token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'segments', name: 'crm' })).secret;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(await (await fetch(`${srv.url}/openapi.json`)).json(), 'served');
});
afterAll(() => srv?.close());

/** The served document's schema of this route's JSON answer with `status`. */
function schemaOf(status: number) {
  const validate = ajv.getSchema(`served#/paths/${ROUTE.replace(/\//g, '~1')}/get/responses/${status}/content/application~1json/schema`);
  expect(validate, `the document lists no ${status} JSON answer for GET ${ROUTE}`).toBeDefined();
  return validate!;
}

const ask = (query: string) => srv.request(`${ROUTE}${query}`, { headers: { authorization: `Token ${token}` } });

it.each([
  ['no domain', '', 400, 'blank'],
  ['an empty domain', '?domain=', 400, 'blank'],
  ['a domain of spaces', '?domain=%20%20', 400, 'blank'],
  ['a value that is no domain name', '?domain=not%20a%20domain', 422, 'invalid'],
  ['a repeated domain', '?domain=a.example&domain=b.example', 422, 'invalid'],
  ['a domain no company has', '?domain=nobody.example', 404, 'not_found'],
])('answers %s (%j) with %i %s, as the served document describes it', async (_name, query, status, code) => {
  const res = await ask(query);
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(body).toEqual({ status: 'error', message: expect.any(String), code });
  const validate = schemaOf(status);
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
});
