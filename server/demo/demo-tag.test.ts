/** Demo mode honours `test_ip` only for tags marked `demo` (the seeded one), never for a customer's tag. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({
    env: { SVC_DEMO: '1' },
    customers: [
      {
        ...TEST_CUSTOMER,
        tags: [TEST_CUSTOMER.tags[0], { tag_id: 'acme-demo', allowed_domains: ['localhost'], scores: true, segment_names: true, demo: true }],
      },
    ],
  });
});
afterAll(() => srv?.close());

const ask = async (tag: string) =>
  (
    await (
      await fetch(`${srv.url}/v3/company/details?tag=${tag}&test_ip=${IPS.northwind}`, { headers: { origin: 'http://localhost', 'user-agent': BROWSER_UA } })
    ).json()
  ).company.company_match;

it('answers as the test address for a demo tag', async () => {
  expect(await ask('acme-demo')).toBe('Match');
});

it("ignores test_ip for a customer's tag on a demo-mode server (the visitor is the caller)", async () => {
  expect(await ask('acme-tag')).toBe('No Match');
});

it('marks the seeded sample demo tag as a demo tag', async () => {
  expect(await srv.store.getTag('demo-web-tag')).toMatchObject({ demo: true });
  expect(await srv.store.getTag('globex-web-tag')).toMatchObject({ demo: false });
});
