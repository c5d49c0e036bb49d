/**
 * IPv6 visitors on every path (docs/api.md "IPv6", our extension to the spec's IPv4): token mode `?ip=` in any
 * form, tag mode from an IPv6 socket and through X-Forwarded-For, page views, and the per-visitor rate
 * limit counted per /64. Every IPv4 answer stays as it was; an IPv6 answer has the same shape.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { awayFromWindowEdge } from '../testing/rate-window.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import type { RecordedPageView } from '../visits/recorder.ts';

const ORIGIN = 'https://www.acme.test';

let srv: TestServer;
let v6srv: TestServer;
let token: string;
const recorded: RecordedPageView[] = [];

type Answer = { company: Record<string, unknown>; scores: unknown; segments: unknown; confidence: unknown };

beforeAll(async () => {
  srv = await startTestServer({
    env: { SVC_TRUST_PROXY: 'loopback' },
    customers: [{ ...TEST_CUSTOMER, tags: [{ ...TEST_CUSTOMER.tags![0], visitor_rate_limit: 3 }] }],
  });
  token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'v6' })).secret;
  srv.recorder.onPageView((v) => void recorded.push(v));
  // Listening on the IPv6 loopback, trusting no proxy: the socket's address is the visitor.
  v6srv = await startTestServer({ env: { HOST: '::1' } });
});
afterAll(async () => {
  await srv?.close();
  await v6srv?.close();
});

const byToken = async (ip: string) => {
  const res = await fetch(`${srv.url}/v3/company/details?ip=${encodeURIComponent(ip)}`, {
    headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA },
  });
  return { status: res.status, body: (await res.json()) as Answer };
};
const byTag = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/v3/company/details?tag=acme-tag`, { headers: { origin: ORIGIN, 'user-agent': BROWSER_UA, ...headers } });

/** Keys of every level of an answer: the shape, without the values. */
function shape(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return typeof v;
  if (Array.isArray(v)) return v.length > 0 ? [shape(v[0])] : [];
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x === null ? 'nullable' : shape(x)]));
}

describe('token mode ?ip= with IPv6', () => {
  it('matches an IPv6 company network in any text form, with the shape of an IPv4 answer', async () => {
    const v4 = await byToken(IPS.northwind);
    expect(v4.body.company.company_match).toBe('Match');
    for (const ip of [IPS.northwind6, '2001:DB8:100:1:0:0:0:20', '2001:0db8:0100:0001:0000:0000:0000:0020']) {
      const v6 = await byToken(ip);
      expect(v6.status, ip).toBe(200);
      expect(v6.body.company).toMatchObject({ company_match: 'Match', companyId: v4.body.company.companyId, name: v4.body.company.name });
      expect(shape(v6.body), ip).toEqual(shape(v4.body));
    }
  });

  it('answers an IPv6 ISP network Non-actionable and an unknown IPv6 address No Match', async () => {
    expect((await byToken(IPS.isp6)).body.company.company_match).toBe('Non-actionable Match');
    expect((await byToken(IPS.nowhere6)).body.company.company_match).toBe('No Match');
  });

  it('treats IPv4-mapped IPv6 as the IPv4 address, and 6to4 through the index alias', async () => {
    const v4 = (await byToken(IPS.northwind)).body;
    expect((await byToken(`::ffff:${IPS.northwind}`)).body).toEqual(v4);
    expect((await byToken('::FFFF:170a:114')).body).toEqual(v4); // 23.10.1.20 in hex
    expect((await byToken('2002:170a:114::1')).body.company).toMatchObject({ company_match: 'Match', companyId: '900001' });
  });

  it('refuses a malformed address with 422 invalid (server/identification/client-address.test.ts has the rule)', async () => {
    for (const ip of ['2001:db8:::1', '[2001:db8::1]', '2001:db8::/32']) {
      const r = await byToken(ip);
      expect(r.status, ip).toBe(422);
      expect(r.body, ip).toMatchObject({ status: 'error', code: 'invalid' });
    }
  });
});

describe('tag mode from IPv6 visitors', () => {
  it('identifies the visitor from an IPv6 X-Forwarded-For behind a trusted proxy', async () => {
    const res = await byTag(srv.url, { 'x-forwarded-for': `${IPS.northwind6}, 127.0.0.1` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Answer).company).toMatchObject({ company_match: 'Match', companyId: '900001' });
  });

  it('answers a browser connected over IPv6 ([::1]) from its socket address', async () => {
    const { address, port } = v6srv.server.address() as AddressInfo;
    expect(address).toBe('::1');
    const base = `http://[::1]:${port}`;
    const res = await fetch(`${base}/v3/company/details?tag=acme-tag`, { headers: { origin: 'http://localhost', 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(200);
    // ::1 is in no network: a blank answer, not an error.
    expect(((await res.json()) as Answer).company.company_match).toBe('No Match');
  });

  it('counts the per-visitor limit per /64: other hosts of the /64 share it, another /64 does not', async () => {
    await awayFromWindowEdge();
    const from = (ip: string) => byTag(srv.url, { 'x-forwarded-for': ip });
    for (const ip of ['2001:db8:100:7::1', '2001:db8:100:7::2', '2001:db8:100:7:ffff:ffff:ffff:fff0']) expect((await from(ip)).status, ip).toBe(200);
    const limited = await from('2001:db8:100:7::99');
    expect(limited.status).toBe(429);
    expect((await from('2001:db8:100:8::1')).status).toBe(200);
  });
});

describe('page views from IPv6 visitors', () => {
  it('records the account of an IPv6 visitor', async () => {
    const res = await fetch(`${srv.url}/v1/events?tag=acme-tag`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': BROWSER_UA, 'x-forwarded-for': '2001:db8:100:1::abcd' },
      body: JSON.stringify({ type: 'pageview', path: '/v6', session: 'ipv6-session' }),
    });
    expect(res.status).toBe(204);
    for (let i = 0; i < 300 && !recorded.some((v) => v.path === '/v6'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(recorded.find((v) => v.path === '/v6')).toMatchObject({ company_id: '900001', hot_account: true });
  });
});
