/**
 * Webhook URLs that would reach our own network are refused at registration (and at every delivery:
 * destination.test.ts, service.test.ts), and a customer's endpoints are capped. Real server, private
 * destinations not allowed (the production default); nothing is sent anywhere.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { MAX_ENDPOINTS_PER_CUSTOMER } from './routes.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_WEBHOOK_ALLOW_PRIVATE: '0' } });
});
afterAll(() => srv?.close());

const register = (url: string) =>
  fetch(`${srv.url}/admin/api/customers/acme/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
    body: JSON.stringify({ url, events: ['account.visited'] }),
  });
const endpoints = async () =>
  (await (await fetch(`${srv.url}/admin/api/customers/acme/webhooks`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json()) as unknown[];

it('refuses loopback, "this host", link-local, private and internal destinations in every spelling, and stores none', async () => {
  const urls = [
    'http://127.0.0.1:6379/',
    'http://localhost/',
    'http://0.0.0.0:8080/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://127.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.5/',
    'http://172.16.3.4/',
    'http://192.168.1.10/',
    'http://redis:6379/',
    'http://metadata.google.internal/',
    'http://printer.local/',
  ];
  for (const url of urls) {
    const res = await register(url);
    expect([url, res.status]).toEqual([url, 422]);
    expect(await res.json()).toEqual({ status: 'error', code: 'invalid', message: expect.stringMatching(/public internet address/) });
  }
  expect(await endpoints()).toEqual([]);
});

it(`accepts a public destination, and at most ${MAX_ENDPOINTS_PER_CUSTOMER} endpoints per customer (409 past it)`, async () => {
  for (let i = 0; i < MAX_ENDPOINTS_PER_CUSTOMER; i++) expect((await register(`https://hooks.example.com/svc/${i}`)).status).toBe(201);
  const over = await register('https://hooks.example.com/svc/one-more');
  expect(over.status).toBe(409);
  expect(((await over.json()) as { code: string }).code).toBe('conflict');
  expect(await endpoints()).toHaveLength(MAX_ENDPOINTS_PER_CUSTOMER);
});
