/**
 * A web tag's per-visitor limit and its tag-wide ceiling, driven the way an abuser drives them: beacons
 * from one address with a forged (allowed) Origin, far past that address's limit. Refused requests must
 * not count against the tag-wide budget, or one address locks every real visitor of the site out.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { awayFromWindowEdge } from '../testing/rate-window.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';

const VISITOR_LIMIT = 3;
const TAG_LIMIT = 5;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({
    env: { SVC_TRUST_PROXY: 'loopback' },
    customers: [{ ...TEST_CUSTOMER, tags: [{ ...TEST_CUSTOMER.tags[0], rate_limit: TAG_LIMIT, visitor_rate_limit: VISITOR_LIMIT }] }],
  });
});
afterAll(() => srv?.close());

const beacon = (ip: string) =>
  fetch(`${srv.url}/v1/events?tag=acme-tag`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://www.acme.test', 'x-forwarded-for': ip },
    body: JSON.stringify({ type: 'pageview', path: '/', session: 'forged-session' }),
  });

it('one address posting beacons past its own limit leaves the tag-wide budget to the other visitors', { timeout: 60_000 }, async () => {
  await awayFromWindowEdge();
  const attacker: number[] = [];
  for (let i = 0; i < 4 * TAG_LIMIT; i++) attacker.push((await beacon(IPS.hosting)).status);
  expect(attacker.slice(0, VISITOR_LIMIT)).toEqual(Array(VISITOR_LIMIT).fill(204));
  expect(new Set(attacker.slice(VISITOR_LIMIT))).toEqual(new Set([429]));
  // The attacker's 3 admitted beacons are all the tag counted: room for 2 more, from anyone else.
  expect((await beacon(IPS.northwind)).status).toBe(204);
  expect((await beacon(IPS.bluepeak)).status).toBe(204);
  expect((await beacon(IPS.isp)).status).toBe(429);
});
