/**
 * An address a client writes — `?ip=` in token mode, the demo's `test_ip` on lookups and page views — is
 * read by one rule (server/net/visitor-ip.ts `clientIp`): a canonical dotted quad or an IPv6 address, else
 * 422 `invalid` (spec "Errors": validation error) with the error body. NAT64 (64:ff9b::/96) answers as the
 * IPv4 address it embeds. Real HTTP against a real server.
 */
import net from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import { IdentificationResponse } from './schema.ts';

let srv: TestServer;
let token: string;
let ajv: Ajv2020;
const PAGE = 'http://localhost';

beforeAll(async () => {
  srv = await startTestServer({
    env: { SVC_DEMO: '1' },
    customers: [
      {
        ...TEST_CUSTOMER,
        identification_credits: 1_000_000,
        tags: [
          {
            tag_id: 'acme-demo',
            allowed_domains: ['localhost'],
            scores: false,
            segment_names: false,
            demo: true,
            rate_limit: 100_000,
            visitor_rate_limit: 100_000,
          },
        ],
      },
    ],
  });
  token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', rate_limit: 100_000 })).secret;
  ajv = new Ajv2020({ strict: false });
  ajv.addSchema(await (await fetch(`${srv.url}/openapi.json`)).json(), 'served');
});

/** Whether `body` is what the served document says `method path` answers with a 422. */
function documented422(method: string, path: string, body: unknown): boolean {
  const validate = ajv.getSchema(`served#/paths/${path.replace(/\//g, '~1')}/${method}/responses/422/content/application~1json/schema`);
  expect(validate, `${method} ${path} lists no 422`).toBeDefined();
  return validate!(body) as boolean;
}
afterAll(() => srv?.close());

const byToken = (ip: string, method = 'GET') =>
  fetch(`${srv.url}/v3/company/details?ip=${encodeURIComponent(ip)}`, { method, headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA } });
const byDemoTag = (ip: string) =>
  fetch(`${srv.url}/v3/company/details?tag=acme-demo&test_ip=${encodeURIComponent(ip)}`, { headers: { origin: PAGE, 'user-agent': BROWSER_UA } });
const pageView = (ip: string) =>
  fetch(`${srv.url}/v1/events?tag=acme-demo&test_ip=${encodeURIComponent(ip)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', origin: PAGE, 'user-agent': BROWSER_UA },
    body: JSON.stringify({ type: 'pageview', path: '/', session: 'client-address-test' }),
  });

/** The inputs issue 33 found answered 200 No Match, and their kin. */
const NOT_ADDRESSES = [
  '[2600:1f18:4fc:5f00::1]',
  '[2600:1f18:4fc:5f00::1]:443',
  '49.153.0.5:8080',
  '1:2:3:4:5:6:7:8:9',
  '049.153.0.5',
  '822673413',
  '0x31.0x99.0.5',
  '49.153.5',
  '1.2.3.4/24',
  ' 1.2.3.4',
  '',
];

const invalidBody = (param: string) => ({ status: 'error', message: expect.stringMatching(new RegExp(`^validation error: ${param} `)), code: 'invalid' });

describe('an address a client writes that is not one: 422 invalid', () => {
  it.each(NOT_ADDRESSES)('?ip=%j', async (ip) => {
    const res = await byToken(ip);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body).toEqual(invalidBody('ip'));
    expect(documented422('get', '/v3/company/details', body)).toBe(true);
  });

  it('answers HEAD the same status, without a body', async () => {
    const res = await byToken('049.153.0.5', 'HEAD');
    expect(res.status).toBe(422);
    expect(await res.text()).toBe('');
  });

  it.each(NOT_ADDRESSES.filter((ip) => ip !== ''))('test_ip=%j of a demo tag, on a lookup and on a page view', async (ip) => {
    const lookup = await byDemoTag(ip);
    expect(lookup.status).toBe(422);
    expect(await lookup.json()).toEqual(invalidBody('test_ip'));
    const view = await pageView(ip);
    expect(view.status).toBe(422);
    const body = await view.json();
    expect(body).toEqual(invalidBody('test_ip'));
    expect(documented422('post', '/v1/events', body)).toBe(true);
  });

  it('still answers a well-formed address that matches nothing blank (the spec\'s "invalid IP": blank company variables)', async () => {
    // Plainly no address at all is the spec's invalid IP: blank company variables, not a 422.
    for (const ip of [IPS.nowhere, '0.0.0.0', '2001:db8:ffff::9', 'garbage', 'not-an-ip', '999.1.1.1']) {
      const res = await byToken(ip);
      expect(res.status, ip).toBe(200);
      expect(IdentificationResponse.parse(await res.json()).company).toMatchObject({ company_match: 'No Match', companyId: null });
    }
  });
});

describe('NAT64', () => {
  it('answers 64:ff9b::/96 as the IPv4 address it embeds, in any text form, as IPv4-mapped IPv6 does', async () => {
    const v4 = await (await byToken(IPS.northwind)).json();
    expect(v4.company).toMatchObject({ company_match: 'Match', companyId: '900001' });
    for (const ip of [`64:ff9b::${IPS.northwind}`, '64:ff9b::170a:114', '0064:FF9B:0000:0000:0000:0000:170A:0114']) {
      const res = await byToken(ip);
      expect(res.status, ip).toBe(200);
      expect(await res.json(), ip).toEqual(v4);
    }
    const demo = await byDemoTag(`64:ff9b::${IPS.northwind}`);
    expect((await demo.json()).company.companyId).toBe('900001');
  });
});

describe('every address Node accepts still answers', () => {
  /** Node's own parser is the oracle: whatever net.isIP takes (bar a zone id, never an Internet address) is an address. */
  const nodeAddresses = fc
    .oneof(
      fc.ipV4(),
      fc.ipV4Extended(),
      fc.ipV6(),
      fc.ipV6().map((s) => s.toUpperCase()),
    )
    .filter((s) => net.isIP(s) !== 0 && !s.includes('%'));

  it('answers 200 with the spec shape for each (token ?ip= and the demo tag test_ip)', async () => {
    await fc.assert(
      fc.asyncProperty(nodeAddresses, async (ip) => {
        const res = await byToken(ip);
        expect(res.status, ip).toBe(200);
        IdentificationResponse.parse(await res.json());
        expect((await byDemoTag(ip)).status, ip).toBe(200);
      }),
      { numRuns: 150 },
    );
  });
});
