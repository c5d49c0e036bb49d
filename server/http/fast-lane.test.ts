/** The fast lane answers GET /v3/company/details exactly as Express's router does, and nothing else. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import { fastLane } from './fast-lane.ts';

describe('routing', () => {
  let server: Server;
  let url: string;
  const hits: string[] = [];
  beforeAll(async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use((req, res) => void res.json({ via: 'express', path: req.path }));
    const hot: RequestHandler = async (req, res) => {
      hits.push(req.originalUrl);
      if (req.query.fail) throw Object.assign(new Error('boom'), { status: 418 });
      res.set('X-Query', String(req.query.ip)).json({ via: 'fast', ip: req.ip, app: req.app === app });
    };
    const onError: ErrorRequestHandler = (err, _req, res, _next) => void res.status(err.status).json({ error: err.message });
    server = createServer(fastLane(app, new Map([['/v3/company/details', hot]]), onError));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('runs the hot handler with Express request and response helpers', async () => {
    const res = await fetch(`${url}/v3/company/details?ip=1.2.3.4`, { headers: { 'x-forwarded-for': '9.9.9.9' } });
    expect(await res.json()).toEqual({ via: 'fast', ip: '9.9.9.9', app: true });
    expect(res.headers.get('x-query')).toBe('1.2.3.4');
    expect(hits.at(-1)).toBe('/v3/company/details?ip=1.2.3.4');
  });

  it('sends rejections to the error handler', async () => {
    const res = await fetch(`${url}/v3/company/details?fail=1`);
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ error: 'boom' });
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
    expect(hits.length).toBe(before);
  });
});

describe('answers like the router on the real app', () => {
  let srv: TestServer;
  let token: string;
  let otherGroup: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback' } });
    token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', rate_limit: 10_000 })).secret;
    otherGroup = (await srv.store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm' })).secret;
  });
  afterAll(() => srv?.close());

  const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  const cases: [string, string, () => Record<string, string>][] = [
    ['token, Match', `?ip=${IPS.northwind}`, () => ({ authorization: `Token ${token}` })],
    ['token, Non-actionable Match', `?ip=${IPS.isp}`, () => ({ authorization: `Token ${token}` })],
    ['token, No Match', `?ip=${IPS.nowhere}`, () => ({ authorization: `Token ${token}` })],
    ['token, bot user agent', `?ip=${IPS.northwind}`, () => ({ authorization: `Token ${token}`, 'user-agent': 'Googlebot/2.1' })],
    ['token, repeated parameter (400)', '?ip=a&ip=b', () => ({ authorization: `Token ${token}` })],
    ['no credentials (401)', '', () => ({})],
    ['unknown token (401)', `?ip=${IPS.northwind}`, () => ({ authorization: `Token ${'A'.repeat(40)}` })],
    ['token of another group (403)', '', () => ({ authorization: `Token ${otherGroup}` })],
    ['tag, allowed origin', '?tag=acme-tag', () => ({ origin: 'http://localhost:3000', 'x-forwarded-for': IPS.northwind })],
    ['tag, foreign origin (403)', '?tag=acme-tag', () => ({ origin: 'https://evil.example' })],
    ['unknown tag (401)', '?tag=nope-nope', () => ({ origin: 'http://localhost' })],
  ];
  const VARYING = new Set(['date', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'keep-alive', 'connection', 'x-request-id']);
  const snapshot = async (res: Response) => ({
    status: res.status,
    headers: Object.fromEntries([...res.headers].filter(([k]) => !VARYING.has(k))),
    body: await res.json(),
  });

  it.each(cases)('%s', async (_name, query, headers) => {
    const h = { 'user-agent': UA, ...headers() };
    const fast = await snapshot(await fetch(`${srv.url}/v3/company/details${query}`, { headers: h }));
    // A trailing slash is the same route to Express's (non-strict) router, and not the fast lane's path.
    const routed = await snapshot(await fetch(`${srv.url}/v3/company/details/${query}`, { headers: h }));
    expect(fast).toEqual(routed);
  });
});
