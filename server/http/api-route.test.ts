/** apiRoute's direct write of a POST answer sends exactly what res.status().json() sends. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Caller } from '../auth/authenticate.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type ApiResult, apiRoute } from './api-route.ts';

let server: Server;
let url: string;
const BODIES: Record<string, ApiResult> = {
  found: {
    status: 200,
    body: { company: { name: 'Nörthwind ✓', n: 1, list: [1, 'two', null], nested: { a: true } } },
    headers: { Deprecation: 'true', Link: '<https://x.example>; rel="successor-version"' },
  },
  missing: { status: 404, body: { status: 'no data found', company: {} } },
  // Express converts a body of 1,000 characters or more to a Buffer before writing it.
  long: { status: 200, body: { text: 'é'.repeat(1500) } },
};

beforeAll(async () => {
  const app = express();
  app.set('etag', false);
  const caller = { customer: { ...TEST_CUSTOMER, id: 'acme' }, corsOrigin: null } as unknown as Caller;
  const pipeline = { rateLimit: async () => undefined, charge: async () => undefined };
  app.all(
    '/api/:name',
    apiRoute(
      pipeline,
      async () => caller,
      (req) => BODIES[req.params.name as string]!,
    ),
  );
  // What apiRoute sent before its direct write, for the same results.
  app.all('/json/:name', (req, res) => {
    const result = BODIES[req.params.name as string]!;
    res.set('Cache-Control', 'private, no-store');
    if (result.headers) res.set(result.headers);
    res.status(result.status).json(result.body);
  });
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const raw = (method: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: string[]; body: Buffer }>((resolve, reject) => {
    request(`${url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      // Header names and values in the order sent, without the date.
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.rawHeaders.filter((_, i, all) => all[i - (i % 2)] !== 'Date'), body: Buffer.concat(chunks) }),
      );
    })
      .on('error', reject)
      .end();
  });

it.each(Object.keys(BODIES))('answers a POST (%s) with the bytes and headers of res.json()', async (name) => {
  const direct = await raw('POST', `/api/${name}`);
  expect(direct).toEqual(await raw('POST', `/json/${name}`));
  expect(direct.headers).toContain('application/json; charset=utf-8');
});

it.each([
  ['GET', {}],
  ['HEAD', {}],
  ['GET', { 'if-none-match': '*' }],
])('keeps res.json() for %s %j (HEAD without a body, conditional requests 304)', async (method, headers) => {
  const direct = await raw(method, '/api/found', headers);
  expect(direct).toEqual(await raw(method, '/json/found', headers));
  if (method === 'HEAD') expect(direct.body.length).toBe(0);
  if ('if-none-match' in headers) expect(direct.status).toBe(304);
});
