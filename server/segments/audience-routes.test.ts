/**
 * A segment as a LinkedIn Matched Audiences company list over real HTTP, on both state backends: the
 * template's columns filled from the catalog (spreadsheet-safe), the Segments API's members, a download
 * for the workspace's credential, and a signed, expiring link that works without one — and refuses a
 * forged, altered or expired link, another customer, an unknown format.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { Role } from '../../core/roles.ts';
import { hashPassword } from '../auth/password.ts';
import { settingKey } from '../auth/signing-key.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { AUDIENCE_KEY_SETTING, audienceSignature, LINKEDIN_COLUMNS } from './audience.ts';

const BEARER = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const PASSWORD = 'a long enough passphrase';

/** A company whose name a spreadsheet would run as a formula, in the Enterprise Software segment (101). */
const FORMULA: CompanyRow = { ...ACME_SOFTWARE, company_id: '900010', name: '=HYPERLINK("http://evil.example","x")', domain: 'formula.example', zip: '' };
/** Another member of 101 with blank location fields. */
const SPARSE: CompanyRow = { ...ACME_SOFTWARE, company_id: '900011', name: 'Sparse Software', domain: 'sparse.example', city: '', state: '', zip: '' };
const GLOBEX = { ...TEST_CUSTOMER, id: 'globex', name: 'Globex', tags: [] };

describe.each(['sqlite', 'redis'] as const)('segment audiences on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  const cookies = new Map<string, string>();

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      customers: [TEST_CUSTOMER, GLOBEX],
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FORMULA, SPARSE],
    });
    for (const [customer, role] of [
      ['acme', 'viewer'],
      ['acme', 'marketer'],
      ['globex', 'owner'],
    ] as const satisfies readonly (readonly [string, Role])[]) {
      const email = `${role}@${customer}.test`;
      await srv.users.createUser({ customer_id: customer, email, role, password_hash: await hashPassword(PASSWORD), sso: false });
      const login = await fetch(`${srv.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: srv.url },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      expect(login.status).toBe(204);
      cookies.set(`${customer}:${role}`, login.headers.get('set-cookie')!.split(';')[0]!);
    }
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  const path = (segment: number | string = 101, query = '?format=linkedin', customer = 'acme') =>
    `/admin/api/customers/${customer}/segments/${segment}/audience.csv${query}`;
  const get = (url: string, headers: Record<string, string> = {}) => fetch(url.startsWith('http') ? url : `${srv.url}${url}`, { headers });
  const as = (who: string) => ({ cookie: cookies.get(who)! });
  const mint = (body: unknown, headers: Record<string, string> = BEARER, segment = 101) =>
    fetch(`${srv.url}/admin/api/customers/acme/segments/${segment}/audience-link`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', origin: srv.url },
      body: JSON.stringify(body),
    });
  /** An error answer: its HTTP status, and the body's code and message. */
  const errorOf = async (res: Response) => ({ ...((await res.json()) as { code: string; message: string }), status: res.status });

  it("downloads the segment's accounts as LinkedIn's company-list template, the Segments API's members, spreadsheet-safe", async () => {
    const res = await get(path(), as('acme:viewer'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const day = new Date().toISOString().slice(0, 10);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=linkedin-audience-acme-segment-101-${day}.csv`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    const [header, ...rows] = parse(text) as string[][];
    expect(header).toEqual([
      'companyname',
      'companywebsite',
      'companyemaildomain',
      'linkedincompanypageurl',
      'stocksymbol',
      'industry',
      'city',
      'state',
      'companycountry',
      'zipcode',
    ]);
    expect(header).toEqual([...LINKEDIN_COLUMNS]);
    expect(rows).toEqual([
      ['Northwind Analytics', 'northwind.example', 'northwind.example', '', '', 'Software', 'San Francisco', 'California', 'United States', '94105'],
      [`'=HYPERLINK("http://evil.example","x")`, 'formula.example', 'formula.example', '', '', 'Software', 'San Francisco', 'California', 'United States', ''],
      ['Sparse Software', 'sparse.example', 'sparse.example', '', '', 'Software', '', '', 'United States', ''],
    ]);

    // The members are the Segments API's, in the same order.
    const grant = await fetch(`${srv.url}/admin/api/customers/acme`, {
      method: 'PATCH',
      headers: { ...BEARER, 'content-type': 'application/json' },
      body: JSON.stringify({ grants: ['segments'] }),
    });
    expect(grant.status).toBe(200);
    const token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'segments', name: 'ads' })).secret;
    const api = await (await get('/v3/segments/101/accounts', { authorization: `Token ${token}` })).json();
    expect(api.accounts.map((a: { domain: string }) => a.domain)).toEqual(rows.map((r) => r[1]));

    // The operator's token downloads the same bytes; HEAD has the headers only.
    expect(await (await get(path(), BEARER)).text()).toBe(text);
    const head = await fetch(`${srv.url}${path()}`, { method: 'HEAD', headers: BEARER });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-disposition')).toMatch(/^attachment; filename=linkedin-audience-acme-segment-101-/);
    expect(await head.text()).toBe('');
  });

  it('refuses no credential (401), another customer (404), an unknown segment (404), a missing, unknown or repeated format (400, 422)', async () => {
    expect(await errorOf(await get(path()))).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(await errorOf(await get(path(), as('globex:owner')))).toMatchObject({ status: 404, code: 'not_found', message: 'unknown customer acme' });
    expect(await errorOf(await get(path(999), BEARER))).toMatchObject({ status: 404, message: 'unknown segment 999 of customer acme' });
    expect(await errorOf(await get(path(101, ''), BEARER))).toMatchObject({ status: 400, code: 'blank' });
    const unknown = await errorOf(await get(path(101, '?format=facebook'), as('acme:viewer')));
    expect(unknown).toMatchObject({ status: 422, code: 'invalid', message: 'format: no format "facebook"; the formats: linkedin' });
    expect(await errorOf(await get(path(101, '?format=linkedin&format=linkedin'), BEARER))).toMatchObject({ status: 422, code: 'invalid' });
    // A link cannot be minted for a format svc does not write, nor by a role that may not change segments.
    expect(await errorOf(await mint({ format: 'facebook' }))).toMatchObject({ status: 422, code: 'invalid' });
    expect(await errorOf(await mint({ format: 'linkedin' }, as('acme:viewer')))).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await errorOf(await mint({ format: 'linkedin', expires_in_hours: 169 }))).toMatchObject({ status: 422 });
  });

  it('mints a signed link that downloads the file without signing in until it expires, and audits it', async () => {
    const before = Date.now();
    const res = await mint({ format: 'linkedin', expires_in_hours: 2 }, as('acme:marketer'));
    expect(res.status).toBe(201);
    const link = (await res.json()) as { url: string; format: string; expires_at: string };
    expect(link.format).toBe('linkedin');
    const expiresMs = Date.parse(link.expires_at);
    expect(expiresMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 2 * 3600_000);
    expect(expiresMs).toBeLessThanOrEqual(Date.now() + 2 * 3600_000);
    const url = new URL(link.url);
    expect(url.origin).toBe(srv.url);
    expect(url.pathname).toBe('/admin/api/customers/acme/segments/101/audience.csv');
    expect([...url.searchParams.keys()]).toEqual(['format', 'expires', 'signature']);
    expect(Number(url.searchParams.get('expires')) * 1000).toBe(expiresMs);

    const signed = await get(link.url);
    expect(signed.status).toBe(200);
    expect(signed.headers.get('content-disposition')).toMatch(/^attachment; filename=linkedin-audience-acme-segment-101-/);
    expect(await signed.text()).toBe(await (await get(path(), BEARER)).text());

    const audit = await srv.users.listAudit('acme', '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 10_000);
    const entry = audit.find((e) => e.action === 'segment.audience_link');
    expect(entry).toMatchObject({
      target: '101',
      actor: expect.stringContaining('marketer@acme.test'),
      after: { format: 'linkedin', expires_at: link.expires_at },
    });
  });

  it('refuses a forged or altered link (403) and an expired one (403, saying so), each with a JSON error', async () => {
    const link = new URL(((await (await mint({ format: 'linkedin' })).json()) as { url: string }).url);
    const q = (changes: Record<string, string | null>, segment = 101) => {
      const params = new URLSearchParams(link.search);
      for (const [k, v] of Object.entries(changes)) v === null ? params.delete(k) : params.set(k, v);
      return `${srv.url}${path(segment, `?${params}`)}`;
    };
    const signature = link.searchParams.get('signature')!;
    const forged = (res: Response) =>
      errorOf(res).then((e) => expect(e).toMatchObject({ status: 403, code: 'forbidden', message: expect.stringMatching(/signature does not match/) }));
    await forged(await get(q({ signature: `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}` })));
    await forged(await get(q({ expires: String(Number(link.searchParams.get('expires')) + 3600) })));
    await forged(await get(q({}, 102)));
    await forged(await get(q({ format: 'facebook' })));
    await forged(await get(q({}).replace('/customers/acme/', '/customers/globex/')));
    const incomplete = await errorOf(await get(q({ signature: null })));
    expect(incomplete).toMatchObject({ status: 403, code: 'forbidden', message: expect.stringMatching(/incomplete/) });
    // A link signed with the deployment's key (as any node reads it from the state store) whose time is up.
    const key = await settingKey(srv.store, AUDIENCE_KEY_SETTING);
    const expires = Math.floor(Date.now() / 1000) - 1;
    const old = audienceSignature(key, { customerId: 'acme', segmentId: '101', format: 'linkedin', expires });
    const expired = await errorOf(await get(q({ expires: String(expires), signature: old })));
    expect(expired).toMatchObject({
      status: 403,
      code: 'forbidden',
      message: `this download link expired at ${new Date(expires * 1000).toISOString()}: ask for a new one`,
    });
    // The same key with a time still to come: accepted (the key is the one the links are signed with).
    const later = Math.floor(Date.now() / 1000) + 60;
    const fresh = audienceSignature(key, { customerId: 'acme', segmentId: '101', format: 'linkedin', expires: later });
    expect((await get(q({ expires: String(later), signature: fresh }))).status).toBe(200);
  });
});
