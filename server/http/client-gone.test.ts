/** An answer the client never received is never charged: a client that gave up before the charge step. */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expect, it } from 'vitest';
import type { Caller } from '../auth/authenticate.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { apiRoute } from './api-route.ts';

it('does not charge a lookup whose client disconnected while it was being answered, and charges one that waited', async () => {
  const charged: string[] = [];
  const caller = { customer: { ...TEST_CUSTOMER, id: 'acme' }, corsOrigin: null } as unknown as Caller;
  const steps = { rateLimit: async () => undefined, charge: async (_c: Caller, ch: { record: string }) => void charged.push(ch.record) };
  const app = express();
  // The handler takes a while, as a lookup does behind a store that has stopped answering.
  app.get(
    '/slow/:id',
    apiRoute(
      steps,
      async () => caller,
      async (req) => {
        await new Promise((r) => setTimeout(r, 300));
        return { status: 200, body: { ok: true }, charge: { api: 'identification', record: req.params.id as string } };
      },
    ),
  );
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const gaveUp = request(`${url}/slow/gone`);
    gaveUp.on('error', () => {});
    gaveUp.end();
    setTimeout(() => gaveUp.destroy(), 50);
    const waited = await fetch(`${url}/slow/kept`);
    expect(waited.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    expect(charged).toEqual(['kept']);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
