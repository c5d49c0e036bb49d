import { afterEach, expect, it } from 'vitest';
import { type HubSpotStandIn, startHubSpotStandIn } from './hubspot-stand-in.ts';

let hs: HubSpotStandIn | undefined;
afterEach(async () => {
  await hs?.close();
  hs = undefined;
});

async function post(s: HubSpotStandIn, path: string, body: unknown, token = s.token) {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const inDomains = (values: string[], extra: Record<string, unknown> = {}) => ({
  filterGroups: [{ filters: [{ propertyName: 'domain', operator: 'IN', values }] }],
  properties: ['domain'],
  ...extra,
});

it('refuses searches past HubSpot’s limits with a 400 VALIDATION_ERROR', async () => {
  const s = (hs = await startHubSpotStandIn({ searchRate: { requests: 100, perMs: 1_000 } }));
  const group = { filters: [{ propertyName: 'domain', operator: 'EQ', value: 'a.com' }] };
  const refused = [
    inDomains(Array.from({ length: 101 }, (_, i) => `d${i}.com`)),
    { filterGroups: Array.from({ length: 6 }, () => group) },
    inDomains(['a.com'], { limit: 201 }),
    inDomains(['a.com'], { limit: 200, after: '9900' }),
  ];
  for (const body of refused) {
    const answer = await post(s, '/crm/v3/objects/companies/search', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR', correlationId: expect.any(String) });
  }
  expect((await post(s, '/crm/v3/objects/companies/search', inDomains(['a.com'], { limit: 200, after: '9800' }))).status).toBe(200);
});

it('answers a wrong token 401, a missing scope 403, and its rate limit 429 with HubSpot’s headers', async () => {
  const s = (hs = await startHubSpotStandIn({ scopes: ['crm.objects.companies.read'], rate: { requests: 2, perMs: 60_000 } }));
  expect(await post(s, '/crm/v3/objects/companies/batch/read', { inputs: [] }, 'pat-na1-wrong')).toMatchObject({
    status: 401,
    body: { status: 'error', category: 'INVALID_AUTHENTICATION' },
  });
  expect(await post(s, '/crm/v3/objects/companies/batch/update', { inputs: [] })).toMatchObject({ status: 403, body: { category: 'MISSING_SCOPES' } });
  const ok = await post(s, '/crm/v3/objects/companies/batch/read', { inputs: [], properties: [], propertiesWithHistory: [] });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('x-hubspot-ratelimit-max')).toBe('2');
  const limited = await post(s, '/crm/v3/objects/companies/batch/read', { inputs: [], properties: [], propertiesWithHistory: [] });
  expect(limited.status).toBe(429);
  expect(limited.body).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'TEN_SECONDLY_ROLLING' });
  expect(limited.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('60000');
  expect(limited.headers.get('x-hubspot-ratelimit-remaining')).toBe('0');
});

it('answers a batch update with unknown ids 207, the others written', async () => {
  const s = (hs = await startHubSpotStandIn());
  const id = s.companies.add({ name: 'Acme', domain: 'acme.com' });
  const answer = await post(s, '/crm/v3/objects/companies/batch/update', {
    inputs: [
      { id, properties: { name: 'Acme Inc' } },
      { id: '42', properties: { name: 'Nobody' } },
    ],
  });
  expect(answer.status).toBe(207);
  expect(answer.body).toMatchObject({ numErrors: 1, errors: [{ category: 'OBJECT_NOT_FOUND', context: { ids: ['42'] } }] });
  expect(s.companies.get(id)!.properties.name).toBe('Acme Inc');
});

it('holds the requests a stall matches, after letting `skip` of them through, until released', async () => {
  const s = (hs = await startHubSpotStandIn());
  const held = s.faults.stallNext({ match: (r) => r.path === '/crm/v3/objects/companies/search', skip: 1 });
  expect((await post(s, '/crm/v3/objects/companies/search', inDomains(['a.com']))).status).toBe(200);
  expect(held.reached()).toBe(false);
  const pending = post(s, '/crm/v3/objects/companies/search', inDomains(['a.com']));
  for (let i = 0; i < 100 && !held.reached(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(held.reached()).toBe(true);
  expect(s.requests.at(-1)!.status).toBe(0);
  held.release();
  expect((await pending).status).toBe(200);
  expect(s.requests.at(-1)!.status).toBe(200);
});
