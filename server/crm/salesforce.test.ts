import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SalesforceStandIn, type StandInRequest, startSalesforceStandIn } from '../testing/salesforce-stand-in.ts';
import { CrmAuthError, type CrmFieldSpec, CrmUnavailableError } from './provider.ts';
import { createSalesforceClient, SALESFORCE_MAX_QUERY_URL, type SalesforceClientOptions, soqlContains, soqlString } from './salesforce.ts';

let sf: SalesforceStandIn;
let sleeps: number[];

beforeEach(async () => {
  sf = await startSalesforceStandIn({
    scope: 'api',
    customFields: {
      Svc_Intent_Score__c: { type: 'double' },
      Svc_Segments__c: { type: 'string' },
      Svc_Hot__c: { type: 'boolean', updateable: false },
    },
  });
  sleeps = [];
});
afterEach(() => sf.close());

const client = (o: Partial<SalesforceClientOptions> = {}) =>
  createSalesforceClient({
    url: sf.url,
    clientId: sf.clientId,
    clientSecret: sf.clientSecret,
    timeoutMs: 5_000,
    sleep: async (ms) => void sleeps.push(ms),
    ...o,
  });

const isToken = (r: StandInRequest) => r.path === '/services/oauth2/token';
const isQuery = (r: StandInRequest) => /\/services\/data\/v[\d.]+\/query/.test(r.path);
const isCollection = (method: string) => (r: StandInRequest) => r.method === method && /\/composite\/sobjects$/.test(r.path);
const seedN = (n: number, website = (i: number) => `https://c${i}.example.com`) =>
  sf.accounts.seed(Array.from({ length: n }, (_, i) => ({ Name: `Company ${i}`, Website: website(i) })));

describe('check', () => {
  it('authenticates with client credentials and names the Svc_…__c fields the admin has not created', async () => {
    const c = client();
    const fields: CrmFieldSpec[] = [
      { name: 'Svc_Intent_Score__c', label: 'Intent score', type: 'number' },
      { name: 'Svc_Segments__c', label: 'Segments', type: 'string' },
      { name: 'Svc_Hot__c', label: 'Hot', type: 'bool' },
      { name: 'Svc_Top_Pages__c', label: 'Top pages', type: 'string' },
      { name: 'Industry', label: 'Industry', type: 'string' },
    ];
    const check = await c.check(fields, { ensure: true });
    expect(check).toEqual({
      scopes: ['api'],
      objects: ['Account', 'User'],
      writable_fields: ['Svc_Intent_Score__c', 'Svc_Segments__c'],
      // Read-only for the integration user, not created, and a standard field svc does not own.
      missing_fields: ['Svc_Hot__c', 'Svc_Top_Pages__c', 'Industry'],
      created_fields: [],
    });
    const [token, describe] = sf.requests;
    expect(token.method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: sf.clientId,
      client_secret: sf.clientSecret,
    });
    expect(describe.method).toBe('GET');
    expect(describe.path).toBe('/services/data/v62.0/sobjects/Account/describe');
    expect(describe.headers.authorization).toMatch(/^Bearer \S+!/);
    expect(c.requests()).toBe(2);
  });
});

describe('findByDomains', () => {
  it('matches Website by its host (scheme, www., path and case dropped): notacme.com is not acme.com', async () => {
    const alice = sf.users.add({ Email: 'alice@vendor.test', Name: 'Alice Adams' });
    const bob = sf.users.add({ Email: 'bob@vendor.test', Name: 'Bob Brown' });
    const [a, b, , , , f] = sf.accounts.seed([
      { Name: 'Acme', Website: 'https://www.Acme.com/about', Type: 'Customer', OwnerId: alice },
      { Name: 'Acme EMEA', Website: 'acme.com', Type: 'Prospect', OwnerId: bob },
      { Name: 'Not Acme', Website: 'notacme.com' },
      { Name: 'Acme AU', Website: 'http://acme.com.au' },
      { Name: 'No site', Website: null },
      { Name: 'Initech', Website: 'initech.io' },
    ]);
    const found = await client().findByDomains(['acme.com', 'initech.io', 'nothere.org']);
    expect([...found.keys()].sort()).toEqual(['acme.com', 'initech.io']);
    expect(found.get('acme.com')!.sort((x, y) => x.crm_id.localeCompare(y.crm_id))).toEqual(
      [
        { crm_id: a, domain: 'acme.com', owner_email: 'alice@vendor.test', owner_name: 'Alice Adams', stage: null, type: 'Customer' },
        { crm_id: b, domain: 'acme.com', owner_email: 'bob@vendor.test', owner_name: 'Bob Brown', stage: null, type: 'Prospect' },
      ].sort((x, y) => x.crm_id.localeCompare(y.crm_id)),
    );
    expect(found.get('initech.io')!.map((r) => r.crm_id)).toEqual([f]);
    const [q] = sf.requests.filter(isQuery);
    expect(q.query.get('q')).toBe(
      "SELECT Id, Website, Type, Owner.Email, Owner.Name FROM Account WHERE Website LIKE '%acme.com%' OR Website LIKE '%initech.io%' OR Website LIKE '%nothere.org%'",
    );
  });

  it('splits long OR-chains into queries under the URL limit and follows nextRecordsUrl past 2,000 records', async () => {
    seedN(2_100, (i) => `https://bigco.com/team/${i}`);
    const domains = Array.from({ length: 600 }, (_, i) => `d${i}-example.com`);
    sf.accounts.seed(domains.map((d) => ({ Name: d, Website: `www.${d}` })));
    const c = client();
    const found = await c.findByDomains(['bigco.com', ...domains]);
    expect(found.get('bigco.com')).toHaveLength(2_100);
    expect(domains.every((d) => found.get(d)?.length === 1)).toBe(true);
    const queries = sf.requests.filter(isQuery);
    const first = queries.filter((r) => r.query.has('q'));
    expect(first.length).toBeGreaterThan(1);
    for (const r of first) expect(sf.url.length + r.url.length).toBeLessThanOrEqual(SALESFORCE_MAX_QUERY_URL);
    expect(queries.some((r) => /\/query\/01g\w+-2000$/.test(r.path))).toBe(true);
    expect(c.requests()).toBe(sf.requests.length);
  });
});

describe('readRecords', () => {
  it('reads owners and Type again by Id; ids Salesforce does not have are absent', async () => {
    const carol = sf.users.add({ Email: 'carol@vendor.test', Name: 'Carol Chu' });
    const [a, b] = sf.accounts.seed([
      { Name: 'Acme', Website: 'acme.com', Type: 'Customer', OwnerId: carol },
      { Name: 'Globex', Website: 'https://globex.com', Type: null },
    ]);
    const refs = await client().readRecords([a, b, '001Dn00000zzzzzAAA', "x' OR Name != '"]);
    expect(refs.sort((x, y) => x.crm_id.localeCompare(y.crm_id))).toEqual(
      [
        { crm_id: a, domain: 'acme.com', owner_email: 'carol@vendor.test', owner_name: 'Carol Chu', stage: null, type: 'Customer' },
        { crm_id: b, domain: 'globex.com', owner_email: sf.integrationUser.Email, owner_name: sf.integrationUser.Name, stage: null, type: null },
      ].sort((x, y) => x.crm_id.localeCompare(y.crm_id)),
    );
    expect(sf.requests.filter(isQuery).map((r) => r.query.get('q'))).toEqual([
      `SELECT Id, Website, Type, Owner.Email, Owner.Name FROM Account WHERE Id IN ('${a}', '${b}', '001Dn00000zzzzzAAA')`,
    ]);
  });
});

describe('update', () => {
  it('writes 450 records in 3 sObject Collections requests of 200, 200 and 50', async () => {
    const ids = seedN(450);
    const result = await client().update(ids.map((id, i) => ({ crm_id: id, values: { Svc_Intent_Score__c: i, Svc_Segments__c: 'enterprise' } })));
    expect(result).toEqual({ written: ids, errors: [], retry: [] });
    const patches = sf.requests.filter(isCollection('PATCH'));
    const bodies = patches.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.records.length)).toEqual([200, 200, 50]);
    expect(bodies.every((b) => b.allOrNone === false)).toBe(true);
    expect(bodies[2].records[49]).toEqual({ id: ids[449], attributes: { type: 'Account' }, Svc_Intent_Score__c: 449, Svc_Segments__c: 'enterprise' });
    expect(sf.accounts.get(ids[449])).toMatchObject({ Svc_Intent_Score__c: 449, Svc_Segments__c: 'enterprise' });
  });

  it('lists the records Salesforce refuses with its message and writes the rest', async () => {
    const ids = seedN(300);
    sf.faults.failRecords([ids[3], ids[70], ids[260]], 'FIELD_CUSTOM_VALIDATION_EXCEPTION', 'Intent score needs a segment');
    const result = await client().update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 5 } })));
    expect(result.errors).toEqual(
      [ids[3], ids[70], ids[260]].map((crm_id) => ({ crm_id, field: null, message: 'FIELD_CUSTOM_VALIDATION_EXCEPTION: Intent score needs a segment' })),
    );
    expect(result.written).toHaveLength(297);
    expect(result.retry).toEqual([]);
    expect(sf.accounts.get(ids[4])!.Svc_Intent_Score__c).toBe(5);
    expect(sf.accounts.get(ids[3])!.Svc_Intent_Score__c).toBeUndefined();
  });

  it('leaves a record locked by another transaction (UNABLE_TO_LOCK_ROW) in retry, not in errors', async () => {
    const ids = seedN(4);
    sf.faults.failRecords([ids[1]], 'UNABLE_TO_LOCK_ROW', 'unable to obtain exclusive access to this record');
    const result = await client().update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 7 } })));
    expect(result).toEqual({ written: [ids[0], ids[2], ids[3]], errors: [], retry: [ids[1]] });
  });

  it('lists a request Salesforce refuses whole on each of its records and still sends the next ones', async () => {
    const ids = seedN(250);
    const writes = ids.map((id, i) => ({ crm_id: id, values: { Svc_Intent_Score__c: i < 200 ? 'high' : 1 } }));
    const result = await client().update(writes);
    expect(result.errors).toHaveLength(200);
    expect(result.errors[0]).toEqual({
      crm_id: ids[0],
      field: null,
      message: expect.stringMatching(/^JSON_PARSER_ERROR: Cannot deserialize instance of double/),
    });
    expect(result.written).toEqual(ids.slice(200));
    expect(sf.requests.filter(isCollection('PATCH')).map((r) => r.status)).toEqual([400, 200]);
  });

  it('names the field the admin deleted on each record it refused, and check lists it missing', async () => {
    const ids = seedN(5);
    sf.faults.deleteField('Svc_Segments__c');
    const c = client();
    const result = await c.update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 1, Svc_Segments__c: 'smb' } })));
    expect(result.written).toEqual([]);
    expect(result.errors).toHaveLength(5);
    for (const e of result.errors)
      expect(e).toMatchObject({ field: 'Svc_Segments__c', message: expect.stringMatching(/^INVALID_FIELD: No such column 'Svc_Segments__c'/) });
    const again = await c.update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 1 } })));
    expect(again.written).toEqual(ids);
    const check = await c.check([{ name: 'Svc_Segments__c', label: 'Segments', type: 'string' }], { ensure: false });
    expect(check.missing_fields).toEqual(['Svc_Segments__c']);
  });

  it('refuses a field svc does not own before sending anything', async () => {
    const [id] = seedN(1);
    const c = client();
    const result = await c.update([{ crm_id: id, values: { Industry: 'Software', Svc_Intent_Score__c: 3 } }]);
    expect(result).toEqual({ written: [], errors: [{ crm_id: id, field: 'Industry', message: expect.stringContaining('Svc_') }], retry: [] });
    expect(c.requests()).toBe(0);
    expect(sf.accounts.get(id)!.Industry).toBeNull();
  });

  it('retries a 5xx answer with backoff, then writes', async () => {
    const ids = seedN(3);
    sf.faults.serverErrorNext(1);
    const c = client();
    const result = await c.update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 9 } })));
    expect(result).toEqual({ written: ids, errors: [], retry: [] });
    expect(sf.requests.filter(isCollection('PATCH')).map((r) => r.status)).toEqual([503, 200]);
    expect(sleeps).toEqual([1_000]);
    // Token request and the retry included: every HTTP request the stand-in saw.
    expect(c.requests()).toBe(3);
    expect(c.requests()).toBe(sf.requests.length);
  });

  it('puts the records of a request stalled past timeoutMs in retry', async () => {
    const ids = seedN(3);
    const c = client({ timeoutMs: 150, maxRetries: 1 });
    sf.faults.stallNext(5_000, 2);
    const result = await c.update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 2 } })));
    expect(result).toEqual({ written: [], errors: [], retry: ids });
    await expect(c.readRecords(ids)).resolves.toHaveLength(3);
    expect(sf.requests.filter(isCollection('PATCH'))).toHaveLength(2);
    expect(sleeps).toEqual([1_000]);
  });

  it('stops writing at 90 % of the daily API requests and leaves the rest in retry', async () => {
    const ids = seedN(450);
    sf.faults.setApiUsage(89_998, 100_000);
    const result = await client().update(ids.map((id) => ({ crm_id: id, values: { Svc_Intent_Score__c: 1 } })));
    expect(result.written).toEqual(ids.slice(0, 400));
    expect(result.retry).toEqual(ids.slice(400));
    expect(sf.requests.filter(isCollection('PATCH'))).toHaveLength(2);
    expect(sf.apiUsage().used).toBe(90_000);
  });
});

describe('create', () => {
  it('creates accounts with Name, Website and the values; a refused row is listed by domain', async () => {
    const c = client();
    const result = await c.create([
      { domain: 'newco.com', name: 'NewCo', values: { Svc_Intent_Score__c: 80, Svc_Segments__c: 'enterprise' } },
      { domain: 'blank.io', name: '', values: {} },
    ]);
    expect(result.created).toEqual([{ domain: 'newco.com', crm_id: expect.stringMatching(/^001\w{15}$/) }]);
    expect(result.errors).toEqual([
      { domain: 'blank.io', crm_id: null, field: 'Name', message: 'REQUIRED_FIELD_MISSING: Required fields are missing: [Name]' },
    ]);
    expect(result.retry).toEqual([]);
    expect(sf.accounts.get(result.created[0].crm_id)).toMatchObject({
      Name: 'NewCo',
      Website: 'newco.com',
      Svc_Intent_Score__c: 80,
      OwnerId: sf.integrationUser.Id,
    });
    const [post] = sf.requests.filter(isCollection('POST'));
    expect(JSON.parse(post.body).records[0]).toEqual({
      attributes: { type: 'Account' },
      Name: 'NewCo',
      Website: 'newco.com',
      Svc_Intent_Score__c: 80,
      Svc_Segments__c: 'enterprise',
    });
  });

  it('does not send again a create that got no answer (it may have been saved): its domain goes to retry', async () => {
    const c = client({ timeoutMs: 150 });
    await c.readRecords(seedN(1));
    sf.faults.stallNext(5_000);
    const result = await c.create([{ domain: 'newco.com', name: 'NewCo', values: {} }]);
    expect(result).toEqual({ created: [], errors: [], retry: ['newco.com'] });
    expect(sf.requests.filter(isCollection('POST'))).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('credentials and availability', () => {
  it('a wrong client secret is a CrmAuthError with Salesforce message, asked once', async () => {
    const c = client({ clientSecret: 'not-the-secret' });
    await expect(c.readRecords(seedN(1))).rejects.toThrow(new CrmAuthError('invalid client credentials'));
    expect(sf.requests.map((r) => [r.path, r.status])).toEqual([['/services/oauth2/token', 400]]);
    expect(c.requests()).toBe(1);
  });

  it('a revoked session is answered by one new token, then the request succeeds', async () => {
    const ids = seedN(1);
    const c = client();
    await c.readRecords(ids);
    sf.faults.revokeSessions();
    expect(await c.readRecords(ids)).toHaveLength(1);
    expect(sf.requests.slice(2).map((r) => [isToken(r) ? 'token' : 'query', r.status])).toEqual([
      ['query', 401],
      ['token', 200],
      ['query', 200],
    ]);
    expect(c.requests()).toBe(5);
  });

  it('a revoked session and a rotated secret is a CrmAuthError after one try at a new token', async () => {
    const ids = seedN(1);
    const c = client();
    await c.readRecords(ids);
    sf.faults.revokeSessions();
    sf.faults.rotateSecret();
    const failure = c.readRecords(ids);
    await expect(failure).rejects.toBeInstanceOf(CrmAuthError);
    await expect(failure).rejects.toThrow('invalid client credentials');
    expect(sf.requests.slice(2).map((r) => [isToken(r) ? 'token' : 'query', r.status])).toEqual([
      ['query', 401],
      ['token', 400],
    ]);
    expect(sleeps).toEqual([]);
  });

  it('a session refused again right after a new token is a CrmAuthError, not a loop', async () => {
    const ids = seedN(1);
    const c = client();
    await c.readRecords(ids);
    sf.faults.refuseSessions();
    await expect(c.readRecords(ids)).rejects.toThrow(new CrmAuthError('Session expired or invalid'));
    expect(sf.requests.slice(2).map((r) => [isToken(r) ? 'token' : 'query', r.status])).toEqual([
      ['query', 401],
      ['token', 200],
      ['query', 401],
    ]);
  });

  it('reads give up with CrmUnavailableError when Salesforce keeps failing past the retries', async () => {
    const c = client({ maxRetries: 2 });
    sf.faults.serverErrorNext(10, 500);
    await expect(c.findByDomains(['acme.com'])).rejects.toBeInstanceOf(CrmUnavailableError);
    expect(sf.requests.filter(isQuery).map((r) => r.status)).toEqual([500, 500, 500]);
    expect(sleeps).toEqual([1_000, 2_000]);
  });

  it('the daily request limit spent (403 REQUEST_LIMIT_EXCEEDED) is CrmUnavailableError, not an auth error', async () => {
    sf.faults.setApiUsage(100_000, 100_000);
    const failure = client().readRecords(seedN(1));
    await expect(failure).rejects.toBeInstanceOf(CrmUnavailableError);
    await expect(failure).rejects.not.toBeInstanceOf(CrmAuthError);
    await expect(failure).rejects.toThrow('TotalRequests Limit exceeded.');
    expect(sf.requests.filter(isQuery).map((r) => [r.status, r.query.get('q') !== null])).toEqual([[403, true]]);
  });
});

describe('SOQL literals', () => {
  it('escape quotes, backslashes and LIKE wildcards so a pattern matches only itself', async () => {
    expect(soqlString("O'Brien \\ Co")).toBe("'O\\'Brien \\\\ Co'");
    expect(soqlContains("100%_o'k")).toBe("'%100\\%\\_o\\'k%'");
    sf.accounts.seed([{ Name: "We are 100%_o'k, really" }, { Name: "We are 100xxo'k" }, { Name: '100% ok' }]);
    const token = await (
      await fetch(`${sf.url}/services/oauth2/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sf.clientId, client_secret: sf.clientSecret }),
      })
    ).json();
    const soql = `SELECT Name FROM Account WHERE Name LIKE ${soqlContains("100%_o'k")}`;
    const res = await fetch(`${token.instance_url}/services/data/v62.0/query?q=${encodeURIComponent(soql)}`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(res.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/100000$/);
    expect((await res.json()).records.map((r: { Name: string }) => r.Name)).toEqual(["We are 100%_o'k, really"]);
  });
});
