/** An answer the client never received is never charged: a client that gave up before the charge step. */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServices } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/logger.ts';
import { createObserver } from '../observability/request-observer.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { apiRoute } from './route-def.ts';
import { createRouter } from './router.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

it('does not charge a lookup whose client disconnected while it was being answered, and charges one that waited', async () => {
  const charged: string[] = [];
  const log = createLogger('silent');
  const services = createServices({
    config: loadConfig({}, {}),
    store: srv.store,
    dataset: srv.dataset,
    log,
    adminAuth: { verify: () => false },
    recorder: srv.recorder,
    users: srv.users,
  });
  services.pipeline = {
    rateLimit: async () => undefined,
    charge: async (_caller, ch) => void charged.push(ch.record),
    rateLimitAndCharge: async (_caller, _ip, _report, ch) => void (ch && charged.push(ch.record)),
  };
  // The handler takes a while, as a lookup does behind a store that has stopped answering.
  const slow = apiRoute({
    method: 'GET',
    path: '/slow/:id',
    auth: { kind: 'token', group: 'identification' },
    doc: null,
    async handler(ctx) {
      await new Promise((r) => setTimeout(r, 300));
      return { status: 200, body: { ok: true }, charge: { api: 'identification', record: ctx.req.params.id! } };
    },
  });
  const { secret } = await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'gone' });
  const server = createServer(createRouter([slow], services, (_req, res) => res.writeHead(404).end(), createObserver(log)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const gaveUp = request(`${url}/slow/gone`, { headers: { authorization: `Token ${secret}` } });
    gaveUp.on('error', () => {});
    gaveUp.end();
    setTimeout(() => gaveUp.destroy(), 50);
    const waited = await fetch(`${url}/slow/kept`, { headers: { authorization: `Token ${secret}` } });
    expect(waited.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect(charged).toEqual(['kept']);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
