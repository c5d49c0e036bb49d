import { afterEach, describe, expect, it } from 'vitest';
import type { CrmValue } from '../../core/crm-records.ts';
import { type HubSpotStandIn, type HubSpotStandInOptions, STAND_IN_SCOPES, startHubSpotStandIn } from '../testing/hubspot-stand-in.ts';
import { createHubSpotClient, type HubSpotClientOptions } from './hubspot.ts';
import { CrmAuthError, type CrmFieldSpec, CrmUnavailableError } from './provider.ts';

const FIELDS: CrmFieldSpec[] = [
  { name: 'svc_company_id', label: 'svc: company id', type: 'string' },
  { name: 'svc_intent_score', label: 'svc: intent score', type: 'number' },
  { name: 'svc_last_visit_at', label: 'svc: last visit', type: 'datetime' },
  { name: 'svc_hot', label: 'svc: hot', type: 'bool' },
];

const OWNERS = [
  { id: '101', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  { id: '102', email: 'gone@example.com', firstName: 'Grace', lastName: 'Hopper', archived: true },
];

let hs: HubSpotStandIn | undefined;
afterEach(async () => {
  await hs?.close();
  hs = undefined;
});

async function standIn(opts: HubSpotStandInOptions = {}): Promise<HubSpotStandIn> {
  hs = await startHubSpotStandIn({ owners: OWNERS, ...opts });
  return hs;
}

/** A client of the stand-in whose backoff and 429 waits are recorded, not slept. */
function clientOf(s: HubSpotStandIn, opts: Partial<HubSpotClientOptions> = {}) {
  const waits: number[] = [];
  const client = createHubSpotClient({
    accessToken: s.token,
    baseUrl: s.url,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...opts,
  });
  return { client, waits };
}

/** The stand-in's svc group and FIELDS, as a check with `ensure` leaves them. */
async function ensured(s: HubSpotStandIn, opts: Partial<HubSpotClientOptions> = {}) {
  await clientOf(s, opts).client.check(FIELDS, { ensure: true });
}

const calls = (s: HubSpotStandIn, method: string, path: string) => s.requests.filter((r) => r.method === method && r.path === path);

describe('check', () => {
  it('with ensure creates svc’s group and the missing properties once; a second check creates nothing', async () => {
    const s = await standIn();
    const { client } = clientOf(s);
    const first = await client.check(FIELDS, { ensure: true });
    expect(first.created_fields).toEqual(['svc', ...FIELDS.map((f) => f.name)]);
    expect(first.writable_fields).toEqual(FIELDS.map((f) => f.name));
    expect(first.missing_fields).toEqual([]);
    expect(first.scopes).toEqual(STAND_IN_SCOPES);
    expect(first.objects).toEqual(['companies', 'owners']);
    expect(s.properties.groups().map((g) => g.name)).toContain('svc');
    expect(s.properties.get('svc_hot')).toMatchObject({ groupName: 'svc', type: 'enumeration', fieldType: 'booleancheckbox' });
    expect(s.properties.get('svc_hot')!.options.map((o) => o.value)).toEqual(['true', 'false']);
    expect(s.properties.get('svc_intent_score')).toMatchObject({ type: 'number', fieldType: 'number' });
    expect(s.properties.get('svc_last_visit_at')).toMatchObject({ type: 'datetime', fieldType: 'date' });
    expect(calls(s, 'POST', '/oauth/v2/private-apps/get/access-token-info')[0]!.body).toEqual({ tokenKey: s.token });

    const writesBefore = s.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/crm/v3/properties')).length;
    const second = await client.check(FIELDS, { ensure: true });
    expect(second.created_fields).toEqual([]);
    expect(second.writable_fields).toEqual(FIELDS.map((f) => f.name));
    expect(s.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/crm/v3/properties')).length).toBe(writesBefore);
  });

  it('without ensure creates nothing and lists every field missing', async () => {
    const s = await standIn();
    const result = await clientOf(s).client.check(FIELDS, { ensure: false });
    expect(result).toMatchObject({ writable_fields: [], created_fields: [], missing_fields: FIELDS.map((f) => f.name) });
    expect(s.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/crm/v3/properties'))).toEqual([]);
  });

  it('counts a same-named property of another group as missing and leaves it alone', async () => {
    const s = await standIn();
    s.properties.add({ name: 'svc_hot', label: 'Hot (ours)', type: 'string', fieldType: 'text', groupName: 'companyinformation' });
    const result = await clientOf(s).client.check(FIELDS, { ensure: true });
    expect(result.missing_fields).toEqual(['svc_hot']);
    expect(result.created_fields).not.toContain('svc_hot');
    expect(s.properties.get('svc_hot')).toMatchObject({ groupName: 'companyinformation', label: 'Hot (ours)' });
  });

  it('reports what the scopes allow and creates nothing without the schema write scope', async () => {
    const s = await standIn({ scopes: ['crm.objects.companies.read', 'crm.objects.companies.write', 'crm.schemas.companies.read'] });
    const result = await clientOf(s).client.check(FIELDS, { ensure: true });
    expect(result.objects).toEqual(['companies']);
    expect(result.created_fields).toEqual([]);
    expect(result.missing_fields).toEqual(FIELDS.map((f) => f.name));
  });

  it('throws CrmAuthError with HubSpot’s message for a revoked token, after one request', async () => {
    const s = await standIn();
    s.faults.revokeToken();
    const { client, waits } = clientOf(s);
    const err = await client.check(FIELDS, { ensure: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrmAuthError);
    expect((err as Error).message).toMatch(/^Authentication credentials not found\./);
    expect(s.requests).toHaveLength(1);
    expect(client.requests()).toBe(1);
    expect(waits).toEqual([]);
    await expect(client.update([{ crm_id: '1', values: { svc_hot: true } }])).rejects.toBeInstanceOf(CrmAuthError);
    expect(s.requests).toHaveLength(2);
  });
});

describe('findByDomains', () => {
  it('groups every record of a domain under its normalised domain, with owners read back', async () => {
    const s = await standIn();
    const plain = s.companies.add({ name: 'Acme', domain: 'acme.com', hubspot_owner_id: '101', lifecyclestage: 'customer', type: 'PROSPECT' });
    const url = s.companies.add({ name: 'Acme EU', domain: 'https://www.Acme.com/x', hubspot_owner_id: '102' });
    const upper = s.companies.add({ name: 'Acme US', domain: 'WWW.ACME.COM' });
    const globex = s.companies.add({ name: 'Globex', domain: 'globex.com', lifecyclestage: 'lead' });
    s.companies.add({ name: 'Other', domain: 'other.com' });
    const { client } = clientOf(s);

    const found = await client.findByDomains(['acme.com', 'globex.com', 'initech.com']);
    expect([...found.keys()].sort()).toEqual(['acme.com', 'globex.com']);
    expect(
      found
        .get('acme.com')!
        .map((r) => r.crm_id)
        .sort(),
    ).toEqual([plain, url, upper].sort());
    expect(found.get('acme.com')!.find((r) => r.crm_id === plain)).toEqual({
      crm_id: plain,
      domain: 'acme.com',
      owner_email: 'ada@example.com',
      owner_name: 'Ada Lovelace',
      stage: 'customer',
      type: 'PROSPECT',
    });
    // A deactivated owner is still named.
    expect(found.get('acme.com')!.find((r) => r.crm_id === url)).toMatchObject({ owner_email: 'gone@example.com', owner_name: 'Grace Hopper' });
    expect(found.get('globex.com')).toEqual([{ crm_id: globex, domain: 'globex.com', owner_email: null, owner_name: null, stage: 'lead', type: null }]);

    const [search] = calls(s, 'POST', '/crm/v3/objects/companies/search');
    expect(search!.body).toMatchObject({
      filterGroups: [
        { filters: [{ propertyName: 'domain', operator: 'IN', values: expect.arrayContaining(['acme.com']) }] },
        { filters: [{ propertyName: 'domain', operator: 'IN', values: expect.arrayContaining(['www.acme.com']) }] },
      ],
      properties: expect.arrayContaining(['domain', 'hubspot_owner_id', 'lifecyclestage', 'type']),
      limit: 200,
    });
    // Owners are read once per client.
    const ownerReads = calls(s, 'GET', '/crm/v3/owners/').length;
    expect(ownerReads).toBeGreaterThan(0);
    await client.findByDomains(['acme.com']);
    expect(calls(s, 'GET', '/crm/v3/owners/')).toHaveLength(ownerReads);
  });

  it('follows paging.next.after and sends at most 100 IN values a search', async () => {
    const s = await standIn();
    const big = Array.from({ length: 450 }, (_, i) => s.companies.add({ name: `Big ${i}`, domain: 'big.com' }));
    const domains = Array.from({ length: 120 }, (_, i) => `d${i}.example.com`);
    for (const d of domains) s.companies.add({ name: d, domain: d });
    const { client } = clientOf(s);

    const found = await client.findByDomains(['big.com', ...domains]);
    expect(
      found
        .get('big.com')!
        .map((r) => r.crm_id)
        .sort(),
    ).toEqual([...big].sort());
    expect(domains.every((d) => found.get(d)?.length === 1)).toBe(true);
    const searches = calls(s, 'POST', '/crm/v3/objects/companies/search');
    for (const r of searches) {
      const body = r.body as { filterGroups: { filters: { values: string[] }[] }[] };
      // Two groups (bare and www.), each one IN filter of at most 100 values.
      expect(body.filterGroups).toHaveLength(2);
      for (const g of body.filterGroups) expect(g.filters[0]!.values.length).toBeLessThanOrEqual(100);
    }
    // 121 domains in 2 searches; the first (big.com and 99 others: 549 records) takes 3 pages.
    expect(searches.map((r) => (r.body as { after?: string }).after)).toEqual([undefined, '200', '400', undefined]);
  });

  it('looks up 100,000 companies by index', async () => {
    const s = await standIn();
    for (let i = 0; i < 100_000; i++) s.companies.add({ name: `C${i}`, domain: `c${i}.example.com` });
    const wanted = Array.from({ length: 100 }, (_, i) => `c${i * 997}.example.com`);
    const found = await clientOf(s).client.findByDomains(wanted);
    expect(found.size).toBe(100);
    expect(calls(s, 'POST', '/crm/v3/objects/companies/search')).toHaveLength(1);
  });
});

describe('readRecords', () => {
  it('reads the records again in batches of 100; ids HubSpot no longer has are absent', async () => {
    const s = await standIn();
    const ids = Array.from({ length: 150 }, (_, i) =>
      s.companies.add({ name: `R${i}`, domain: `r${i}.com`, hubspot_owner_id: '101', lifecyclestage: 'opportunity' }),
    );
    s.companies.delete(ids[3]!);
    const records = await clientOf(s).client.readRecords(ids);
    expect(records).toHaveLength(149);
    expect(records.find((r) => r.crm_id === ids[0])).toEqual({
      crm_id: ids[0],
      domain: 'r0.com',
      owner_email: 'ada@example.com',
      owner_name: 'Ada Lovelace',
      stage: 'opportunity',
      type: null,
    });
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/read')).toHaveLength(2);
  });
});

describe('update', () => {
  const seed = (s: HubSpotStandIn, n: number) =>
    Array.from({ length: n }, (_, i) => s.companies.add({ name: `U${i}`, domain: `u${i}.com`, svc_company_id: 'old' }));

  it('writes 250 records in 3 batch calls, values as HubSpot takes them', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 250);
    const { client } = clientOf(s);
    const result = await client.update(
      ids.map((id, i) => ({
        crm_id: id,
        values: { svc_intent_score: i, svc_hot: i % 2 === 0, svc_last_visit_at: '2024-05-01T10:00:00.000Z', svc_company_id: null },
      })),
    );
    expect(result.written.sort()).toEqual([...ids].sort());
    expect(result).toMatchObject({ errors: [], retry: [] });
    const batches = calls(s, 'POST', '/crm/v3/objects/companies/batch/update');
    expect(batches.map((r) => (r.body as { inputs: unknown[] }).inputs.length)).toEqual([100, 100, 50]);
    expect((batches[0]!.body as { inputs: unknown[] }).inputs[1]).toEqual({
      id: ids[1],
      properties: { svc_intent_score: '1', svc_hot: 'false', svc_last_visit_at: '2024-05-01T10:00:00.000Z', svc_company_id: '' },
    });
    expect(s.companies.get(ids[2]!)!.properties).toMatchObject({ svc_intent_score: '2', svc_hot: 'true', svc_company_id: null });
  });

  it('lists the records of a 207 and writes the rest, sending nothing again', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 20);
    const bad = [ids[2]!, ids[7]!, ids[11]!];
    s.faults.failRecords(bad, { message: 'Property "svc_intent_score" value refused', category: 'VALIDATION_ERROR' });
    const result = await clientOf(s).client.update(ids.map((id) => ({ crm_id: id, values: { svc_intent_score: 5 } })));
    expect(result.errors.map((e) => e.crm_id).sort()).toEqual([...bad].sort());
    expect(result.errors[0]).toMatchObject({ field: 'svc_intent_score', message: 'Property "svc_intent_score" value refused' });
    expect(result.written.sort()).toEqual(ids.filter((id) => !bad.includes(id)).sort());
    expect(result.retry).toEqual([]);
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/update')).toHaveLength(1);
    expect(s.companies.get(ids[0]!)!.properties.svc_intent_score).toBe('5');
    expect(s.companies.get(ids[2]!)!.properties.svc_intent_score).toBeUndefined();
  });

  it('sends the rest again when HubSpot refuses a whole batch naming its bad records', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 100);
    s.faults.failRecords([ids[40]!], { message: 'Object is locked', category: 'VALIDATION_ERROR', wholeBatch: true });
    const result = await clientOf(s).client.update(ids.map((id) => ({ crm_id: id, values: { svc_hot: true } })));
    expect(result.errors).toEqual([{ crm_id: ids[40], field: null, message: 'Object is locked' }]);
    expect(result.written).toHaveLength(99);
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/update')).toHaveLength(2);
  });

  it('finds the one record whose value HubSpot refuses by halving, and writes the other 99', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 100);
    const result = await clientOf(s).client.update(ids.map((id, i) => ({ crm_id: id, values: { svc_intent_score: i === 63 ? 'lots' : i } })));
    expect(result.errors).toEqual([{ crm_id: ids[63], field: 'svc_intent_score', message: 'lots was not a valid number.' }]);
    expect(result.written).toHaveLength(99);
    // Halving 100 down to one: 1 + 2 per level, 7 levels.
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/update').length).toBeLessThanOrEqual(15);
  });

  it('names a deleted property in the errors of the records carrying it and writes the others', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 10);
    s.faults.deleteProperty('svc_intent_score');
    const result = await clientOf(s).client.update(
      ids.map((id, i) => ({ crm_id: id, values: i < 4 ? { svc_intent_score: 3, svc_hot: true } : ({ svc_hot: false } as Record<string, CrmValue>) })),
    );
    expect(result.errors.sort((a, b) => a.crm_id!.localeCompare(b.crm_id!))).toEqual(
      ids.slice(0, 4).map((id) => ({ crm_id: id, field: 'svc_intent_score', message: 'Property "svc_intent_score" does not exist' })),
    );
    expect(result.written.sort()).toEqual(ids.slice(4).sort());
  });

  it('waits out an injected 429 as its headers say, then writes', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 5);
    s.faults.rateLimitNext(1);
    const { client, waits } = clientOf(s);
    const result = await client.update(ids.map((id) => ({ crm_id: id, values: { svc_hot: true } })));
    expect(result.written).toHaveLength(5);
    // No Retry-After: the window HubSpot names (X-HubSpot-RateLimit-Interval-Milliseconds).
    expect(waits).toEqual([10_000]);
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/update').map((r) => r.status)).toEqual([429, 200]);

    s.faults.rateLimitNext(1, { retryAfterSeconds: 3 });
    await client.update(ids.map((id) => ({ crm_id: id, values: { svc_hot: false } })));
    expect(waits).toEqual([10_000, 3_000]);
  });

  it('keeps to the rate: never more requests in a window than allowed, as HubSpot sees them', async () => {
    // The stand-in enforces the same limit: a request over it would be answered 429.
    const rate = { requests: 5, perMs: 500 };
    const s = await standIn({ rate });
    const ids = seed(s, 1_500);
    const { client } = clientOf(s, { rate });
    await client.check(FIELDS, { ensure: true });
    const result = await client.update(ids.map((id) => ({ crm_id: id, values: { svc_hot: true } })));
    expect(result.written).toHaveLength(1_500);
    const at = s.requests.map((r) => r.at);
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/update')).toHaveLength(15);
    for (let i = rate.requests; i < at.length; i++) expect(at[i]! - at[i - rate.requests]!).toBeGreaterThanOrEqual(rate.perMs);
    expect(s.requests.filter((r) => r.status === 429)).toEqual([]);
  });

  it('retries a stall past timeoutMs, then leaves the records to a later run', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 10);
    const stall = s.faults.stallNext({ count: 2 });
    const { client, waits } = clientOf(s, { timeoutMs: 300, maxRetries: 1 });
    const result = await client.update(ids.map((id) => ({ crm_id: id, values: { svc_hot: true } })));
    expect(result).toEqual({ written: [], errors: [], retry: ids });
    expect(client.requests()).toBe(2);
    expect(waits).toEqual([500]);
    stall.release();
  });

  it('retries a malformed answer, and gives up with CrmUnavailableError past the retries', async () => {
    const s = await standIn();
    await ensured(s);
    const ids = seed(s, 3);
    const { client } = clientOf(s, { maxRetries: 2 });
    s.faults.malformedNext(1);
    expect((await client.update(ids.map((id) => ({ crm_id: id, values: { svc_hot: true } })))).written).toHaveLength(3);
    s.faults.malformedNext(3);
    await expect(client.readRecords(ids)).rejects.toBeInstanceOf(CrmUnavailableError);
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/read')).toHaveLength(3);
  });
});

describe('create', () => {
  it('creates a record per domain with name, domain and the values', async () => {
    const s = await standIn();
    await ensured(s);
    const result = await clientOf(s).client.create([
      { domain: 'new-one.com', name: 'New One', values: { svc_intent_score: 7 } },
      { domain: 'new-two.com', name: 'New Two', values: { svc_hot: true } },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.created.map((c) => c.domain).sort()).toEqual(['new-one.com', 'new-two.com']);
    const one = s.companies.get(result.created.find((c) => c.domain === 'new-one.com')!.crm_id)!;
    expect(one.properties).toMatchObject({ name: 'New One', domain: 'new-one.com', svc_intent_score: '7' });
  });

  it('does not send a create again after a 5xx (it may have been applied): the domains wait for a later run', async () => {
    const s = await standIn();
    await ensured(s);
    s.faults.serverErrorNext(1, 503);
    const { client } = clientOf(s);
    const result = await client.create([{ domain: 'maybe.com', name: 'Maybe', values: {} }]);
    expect(result).toEqual({ created: [], errors: [], retry: ['maybe.com'] });
    expect(calls(s, 'POST', '/crm/v3/objects/companies/batch/create')).toHaveLength(1);
  });
});

it('counts every HTTP request it sends, retries included', async () => {
  const s = await standIn();
  const { client } = clientOf(s);
  await client.check(FIELDS, { ensure: true });
  const id = s.companies.add({ name: 'Acme', domain: 'acme.com', hubspot_owner_id: '101' });
  s.faults.rateLimitNext(1);
  s.faults.serverErrorNext(1);
  await client.findByDomains(['acme.com']);
  await client.update([{ crm_id: id, values: { svc_hot: true } }]);
  expect(client.requests()).toBe(s.requests.length);
});
