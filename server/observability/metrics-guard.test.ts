/** /metrics on the service port is guarded like the admin API, throttle included, and its own port stays on loopback. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback' } });
});
afterAll(() => srv?.close());

const get = (path: string, from: string, token: string) =>
  fetch(`${srv.url}${path}`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from, 'user-agent': 'curl/8.5.0' } });

it('counts wrong admin tokens on /metrics in the admin throttle: after 10 a minute the address gets 429 there and on the admin API', async () => {
  const guesser = '198.51.100.7';
  for (let i = 0; i < 10; i++) expect((await get('/metrics', guesser, `wrong-token-${i}-xxxxxxxxxxxxxxxx`)).status).toBe(401);
  const blocked = await get('/metrics', guesser, TEST_ADMIN_TOKEN);
  expect(blocked.status).toBe(429);
  expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  // One throttle for one credential: the admin API is closed to that address too, whatever it presents.
  expect((await get('/admin/api/customers', guesser, TEST_ADMIN_TOKEN)).status).toBe(429);
  // Another address is not affected.
  expect((await get('/metrics', '198.51.100.8', TEST_ADMIN_TOKEN)).status).toBe(200);
});

it('listens for the unauthenticated metrics port on loopback by default, not on HOST', () => {
  const config = loadConfig({}, { HOST: '0.0.0.0', SVC_METRICS_PORT: '9464' });
  expect(config.SVC_METRICS_HOST).toBe('127.0.0.1');
});
