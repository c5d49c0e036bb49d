/** The fast lane answers GET /v3/company/details exactly as Express's router does, and nothing else. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObserver } from '../observability/request-observer.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import { type FastHandler, fastLane } from './fast-lane.ts';
import { createLogger } from './logger.ts';

describe('routing', () => {
  let server: Server;
  let url: string;
  const hits: string[] = [];
  beforeAll(async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use((req, res) => void res.json({ via: 'express', path: req.path }));
    const hot: FastHandler = (req, res, trace, lane) => {
      hits.push(req.url!);
      if (req.url!.includes('fail')) return lane.fail(req, res, trace, Object.assign(new Error('boom'), { status: 418 }), ['X-Set-Before', 'yes']);
      if (req.url!.includes('express')) return lane.express(req, res, trace);
      if (req.url!.includes('midway')) {
        res.writeHead(200, ['Content-Type', 'application/json']);
        return lane.fail(req, res, trace, new Error('failed after the head was sent'), []);
      }
      res.writeHead(200, ['X-Request-Id', trace.id, 'Content-Type', 'application/json']).end(JSON.stringify({ via: 'fast', ip: lane.ip(req) }));
      lane.done(req, res, trace);
    };
    const onError: ErrorRequestHandler = (err, req, res, _next) => void res.status(err.status).json({ error: err.message, ip: req.ip });
    server = createServer(fastLane(app, new Map([['/v3/company/details', hot]]), onError, createObserver(createLogger('silent'))));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('runs the hot handler on the raw request, with the client address as Express computes it', async () => {
    const res = await fetch(`${url}/v3/company/details?ip=1.2.3.4`, { headers: { 'x-forwarded-for': '9.9.9.9', 'x-request-id': 'given-id-1' } });
    expect(await res.json()).toEqual({ via: 'fast', ip: '9.9.9.9' });
    expect(res.headers.get('x-request-id')).toBe('given-id-1');
    expect(hits.at(-1)).toBe('/v3/company/details?ip=1.2.3.4');
  });

  it('sends failures to the error handler on Express objects, with the headers set before', async () => {
    const res = await fetch(`${url}/v3/company/details?fail=1`, { headers: { 'x-forwarded-for': '9.9.9.9', 'x-request-id': 'given-id-2' } });
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ error: 'boom', ip: '9.9.9.9' });
    expect(res.headers.get('x-set-before')).toBe('yes');
    expect(res.headers.get('x-request-id')).toBe('given-id-2');
  });

  it('drops the connection of an answer that fails after its head was sent, and keeps serving', async () => {
    await expect(fetch(`${url}/v3/company/details?midway=1`).then((r) => r.text())).rejects.toThrow();
    expect((await fetch(`${url}/v3/company/details?ip=1.2.3.4`)).status).toBe(200);
  });

  it('hands a request back to Express when the route asks', async () => {
    const res = await fetch(`${url}/v3/company/details?express=1`, { headers: { 'x-request-id': 'given-id-3' } });
    expect(await res.json()).toEqual({ via: 'express', path: '/v3/company/details' });
    expect(res.headers.get('x-request-id')).toBe('given-id-3');
  });

  it.each([
    ['HEAD', '/v3/company/details'],
    ['OPTIONS', '/v3/company/details'],
    ['POST', '/v3/company/details'],
    ['GET', '/v3/company/details/'],
    ['GET', '/V3/company/details'],
    ['GET', '/v3/company/detailsx'],
    ['GET', '/v3/company'],
  ])('leaves %s %s to Express', async (method, path) => {
    const before = hits.length;
    const res = await fetch(url + path, { method });
    if (method !== 'HEAD') expect((await res.json()).via).toBe('express');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(hits.length).toBe(before);
  });
});

describe('answers like the router on the real app', () => {
  let srv: TestServer;
  let token: string;
  let otherGroup: string;
  let restricted: string;
  let limited: string;
  let broke: string;
  let demoTag: string;
  beforeAll(async () => {
    srv = await startTestServer({
      env: { SVC_TRUST_PROXY: 'loopback', SVC_DEMO: 'true' },
      customers: [TEST_CUSTOMER, { ...TEST_CUSTOMER, id: 'broke', name: 'Broke Test', identification_credits: 0, tags: [] }],
    });
    token = (
      await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', rate_limit: 10_000, scores: true, segment_names: true })
    ).secret;
    otherGroup = (await srv.store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm' })).secret;
    restricted = (
      await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'site', allowed_domains: ['localhost'], rate_limit: 10_000 })
    ).secret;
    limited = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'slow', rate_limit: 1 })).secret;
    broke = (await srv.store.createToken({ customer_id: 'broke', api_group: 'identification', name: 'crm', rate_limit: 10_000 })).secret;
    demoTag = (await srv.store.createTag({ customer_id: 'acme', allowed_domains: ['localhost'], demo: true, scores: true })).tag_id;
  });
  afterAll(() => srv?.close());

  const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  const auth = (secret: () => string) => () => ({ authorization: `Token ${secret()}` });
  const tok = auth(() => token);
  const site = { origin: 'http://localhost:3000', 'x-forwarded-for': IPS.northwind };
  const cases: [name: string, query: string, headers: () => Record<string, string>, method?: string][] = [
    ['token, Match', `?ip=${IPS.northwind}`, tok],
    ['token, Match (excluded account)', `?ip=${IPS.bluepeak}`, tok],
    ['token, Non-actionable Match (ISP)', `?ip=${IPS.isp}`, tok],
    ['token, Non-actionable Match (bot network)', `?ip=${IPS.bot}`, tok],
    ['token, No Match', `?ip=${IPS.nowhere}`, tok],
    ["token, without ?ip= (the caller's own address)", '', () => ({ ...tok(), 'x-forwarded-for': IPS.northwind })],
    ['token, bot user agent of the caller itself', '', () => ({ ...tok(), 'x-forwarded-for': IPS.northwind, 'user-agent': 'Googlebot/2.1' })],
    ['token, integrator user agent with ?ip= (not classified)', `?ip=${IPS.northwind}`, () => ({ ...tok(), 'user-agent': 'curl/8.5.0' })],
    ['token, X-svc-Visitor-User-Agent of a bot', `?ip=${IPS.northwind}`, () => ({ ...tok(), 'x-svc-visitor-user-agent': 'Googlebot/2.1' })],
    ['token, IPv4-mapped IPv6 address', `?ip=::ffff:${IPS.northwind}`, tok],
    ['token, bad address', '?ip=999.1.1.1', tok],
    ['token, IPv6 address', '?ip=2001:db8::1', tok],
    ['token, empty address', '?ip=', tok],
    ['token, encoded query', `?%69p=${encodeURIComponent(IPS.northwind)}&x=1+2`, tok],
    ['token, address too long (422)', `?ip=${'1'.repeat(65)}`, tok],
    ['token, address of exactly the longest length', `?ip=${'1'.repeat(64)}`, tok],
    ['token, IPv6 address with a zone', `?ip=${encodeURIComponent('fe80::1ff:fe23:4567:890a%eth0')}`, tok],
    ['token, repeated parameter (400)', '?ip=a&ip=b', tok],
    ['token, repeated tag means token mode (401)', '?tag=acme-tag&tag=acme-tag', () => site],
    [
      'token, proxied request id (echoed, charge keyed by it)',
      `?ip=${IPS.northwind}`,
      () => ({ ...tok(), 'x-request-id': '0123456789abcdef0123456789abcdef' }),
    ],
    ['token, caller request id that is not an id', `?ip=${IPS.northwind}`, () => ({ ...tok(), 'x-request-id': 'no spaces allowed' })],
    ['no credentials (401)', '', () => ({})],
    ['malformed Authorization (401)', '', () => ({ authorization: 'Bearer abc' })],
    ['unknown token (401)', `?ip=${IPS.northwind}`, () => ({ authorization: `Token ${'A'.repeat(40)}` })],
    ['token of another group (403)', '', auth(() => otherGroup)],
    ['domain-restricted token with ?ip= (403)', `?ip=${IPS.northwind}`, () => ({ ...auth(() => restricted)(), origin: 'http://localhost' })],
    ['domain-restricted token from its page (CORS)', '', () => ({ ...auth(() => restricted)(), ...site })],
    ['domain-restricted token from a foreign page (403)', '', () => ({ ...auth(() => restricted)(), origin: 'https://evil.example' })],
    ['rate limited (429)', `?ip=${IPS.northwind}`, auth(() => limited)],
    ['quota exhausted (402)', `?ip=${IPS.northwind}`, auth(() => broke)],
    ['quota exhausted, No Match is free (200)', `?ip=${IPS.nowhere}`, auth(() => broke)],
    ['tag, allowed origin', '?tag=acme-tag', () => site],
    ['tag, allowed origin, ISP visitor', '?tag=acme-tag', () => ({ ...site, 'x-forwarded-for': IPS.isp })],
    ['tag, visitor through two proxies', '?tag=acme-tag', () => ({ ...site, 'x-forwarded-for': `${IPS.northwind}, 127.0.0.1` })],
    ['tag, Referer instead of Origin', '?tag=acme-tag', () => ({ referer: 'http://localhost:3000/pricing', 'x-forwarded-for': IPS.northwind })],
    ['tag, bot user agent', '?tag=acme-tag', () => ({ ...site, 'user-agent': 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)' })],
    ['tag, test_ip on a customer tag (ignored)', `?tag=acme-tag&test_ip=${IPS.bluepeak}`, () => site],
    ['tag, test_ip on a demo tag', () => `?tag=${demoTag}&test_ip=${IPS.bluepeak}`, () => site] as never,
    ['tag, foreign origin (403)', '?tag=acme-tag', () => ({ origin: 'https://evil.example' })],
    ['tag, no page (403)', '?tag=acme-tag', () => ({})],
    ['unknown tag (401)', '?tag=nope-nope', () => ({ origin: 'http://localhost' })],
    ["conditional GET, Express's freshness answer (304)", `?ip=${IPS.northwind}`, () => ({ ...tok(), 'if-none-match': '*' })],
    ['HEAD', `?ip=${IPS.northwind}`, tok, 'HEAD'],
    ['HEAD, tag mode', '?tag=acme-tag', () => site, 'HEAD'],
    ['OPTIONS preflight (204)', '?tag=acme-tag', () => ({ origin: 'http://localhost:3000', 'access-control-request-method': 'GET' }), 'OPTIONS'],
  ];
  const VARYING = new Set(['date', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'keep-alive', 'connection']);
  // node:http rather than fetch: fetch hides a 304 from a caller that sent its own If-None-Match.
  const snapshot = (url: string, method: string, headers: Record<string, string>, ownId: boolean) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: unknown }>((resolve, reject) => {
      request(url, { method, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => !VARYING.has(k) && (ownId || k !== 'x-request-id'))),
            body: text === '' ? '' : JSON.parse(text),
          }),
        );
      })
        .on('error', reject)
        .end();
    });

  it.each(cases)('%s', async (name, q, headers, method = 'GET') => {
    const query = typeof q === 'function' ? (q as () => string)() : q;
    const h: Record<string, string> = { 'user-agent': UA, ...headers() };
    const ownId = h['x-request-id'] !== undefined && !h['x-request-id'].includes(' ');
    // A 429 case spends its token's one request of this minute right before the pair (spent in beforeAll,
    // a minute boundary in between would let the first of the pair through).
    if (name.includes('(429)')) await fetch(`${srv.url}/v3/company/details?ip=${IPS.nowhere}`, { headers: h });
    const fast = await snapshot(`${srv.url}/v3/company/details${query}`, method, h, ownId);
    // A trailing slash is the same route to Express's (non-strict) router, and not the fast lane's path.
    const routed = await snapshot(`${srv.url}/v3/company/details/${query}`, method, h, ownId);
    expect(fast).toEqual(routed);
    expect(fast.status).toBe(Number(/\((\d{3})\)/.exec(name)?.[1] ?? 200));
    if (fast.status >= 400) expect(Object.keys(fast.body as object).sort()).toEqual(['code', 'message', 'status']);
    if (ownId) expect(fast.headers['x-request-id']).toBe(h['x-request-id']);
    else expect(fast.headers['x-request-id']).toBeUndefined();
  });

  it('answers the headers that matter on a Match', async () => {
    const res = await fetch(`${srv.url}/v3/company/details?tag=acme-tag`, { headers: { 'user-agent': UA, ...site } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('ratelimit-limit')).toBe('300');
    expect(res.headers.get('etag')).toBeNull();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(await res.text()));
  });
});
