/**
 * A proxy's retry (same X-Request-Id on a second attempt) is not charged twice — but only when the proxy
 * is trusted; a client naming its own id gets no free answers. Real server, real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

async function lookupsWithId(trustProxy: string | undefined, ids: string[]): Promise<{ statuses: number[]; charges: number }> {
  srv = await startTestServer({
    customers: [{ ...TEST_CUSTOMER, id: 'tiny', name: 'Tiny Co', identification_credits: 10, tags: [] }],
    env: trustProxy ? { SVC_TRUST_PROXY: trustProxy } : {},
  });
  const { secret } = await srv.store.createToken({ customer_id: 'tiny', api_group: 'identification', name: 'crm', rate_limit: 1000 });
  const statuses: number[] = [];
  for (const id of ids) {
    const res = await fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, {
      headers: { authorization: `Token ${secret}`, 'user-agent': BROWSER_UA, 'x-request-id': id },
    });
    expect((await res.json()).company.company_match).toBe('Match');
    statuses.push(res.status);
  }
  const charges = (await srv.store.usage('tiny')).reduce((n, u) => n + u.charges, 0);
  return { statuses, charges };
}

// A Match needs a human visitor's User-Agent (as a token used client-side sends).
const ID = 'f3a1c0de9b8e4d2f8a7c6b5e4d3c2b1a';
const OTHER = '0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e';

describe('X-Request-Id from a trusted proxy', () => {
  it('charges one client request once, however many nodes it was tried on', async () => {
    const r = await lookupsWithId('loopback', [ID, ID, ID, OTHER]);
    expect(r.statuses).toEqual([200, 200, 200, 200]);
    expect(r.charges).toBe(2);
  });

  it('is ignored from an untrusted peer: every Match is charged', async () => {
    const r = await lookupsWithId(undefined, [ID, ID, ID]);
    expect(r.charges).toBe(3);
  });

  it('is ignored when it does not look like a proxy id', async () => {
    const r = await lookupsWithId('loopback', ['x', 'x']);
    expect(r.charges).toBe(2);
  });
});
