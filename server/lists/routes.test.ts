/**
 * Account lists through the routes in-process (srv.request: inject, as curl sends): the lists API, the
 * CSV upload's report and its bad files (nothing changes), and segments with `in_list` in identification
 * and the Segments API — on both state backends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const LISTS = '/admin/api/customers/acme/lists';

describe.each(['sqlite', 'redis'] as const)('account lists on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;

  const admin = (method: string, path: string, body?: unknown) =>
    srv.request(`${path}`, {
      method,
      headers: body === undefined ? ADMIN : { ...ADMIN, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const upload = (listId: string, csv: string, query = '', type = 'text/csv') =>
    srv.request(`${LISTS}/${listId}/upload${query}`, { method: 'POST', headers: { ...ADMIN, 'content-type': type }, body: csv });
  const api = (path: string, token: string) => srv.request(`${path}`, { headers: { authorization: `Token ${token}` } });
  const ids = async (listId: string) =>
    ((await (await admin('GET', `${LISTS}/${listId}`)).json()).accounts as { company_id: string }[]).map((a) => a.company_id);
  const auditActions = async () =>
    (await srv.users.listAudit('acme', '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 10_000)).filter((a) => a.action.startsWith('list.'));
  async function newToken(group: string): Promise<string> {
    const res = await admin('POST', '/admin/api/tokens', { customer_id: 'acme', api_group: group, name: `${group} ${Math.random()}` });
    return (await res.json()).token as string;
  }

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      customers: [TEST_CUSTOMER],
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE],
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('lists the hot and excluded accounts; a named list is created, renamed, filled and deleted (audited)', async () => {
    expect(await (await admin('GET', LISTS)).json()).toEqual({
      lists: [
        { id: 'hot', name: 'Hot accounts', kind: 'hot', size: 1 },
        { id: 'excluded', name: 'Excluded accounts', kind: 'excluded', size: 1 },
      ],
    });
    const hot = await (await admin('GET', `${LISTS}/hot`)).json();
    expect(hot).toEqual({
      id: 'hot',
      name: 'Hot accounts',
      kind: 'hot',
      size: 1,
      offset: 0,
      accounts: [{ company_id: '900001', name: ACME_SOFTWARE.name, domain: ACME_SOFTWARE.domain, products: [] }],
    });

    const created = await admin('POST', LISTS, { name: 'Partners' });
    expect(created.status).toBe(201);
    const list = await created.json();
    expect(list).toEqual({ id: expect.stringMatching(/^list-[0-9a-f]{10}$/), name: 'Partners', kind: 'named', size: 0 });
    expect((await admin('POST', LISTS, { name: ' partners ' })).status).toBe(409);
    expect((await admin('POST', LISTS, {})).status).toBe(422);
    expect((await admin('POST', '/admin/api/customers/nobody/lists', { name: 'x' })).status).toBe(404);
    expect((await admin('GET', `${LISTS}/list-nope`)).status).toBe(404);

    const put = await admin('PUT', `${LISTS}/${list.id}`, { name: 'Key partners', company_ids: ['900003', '900001', '900003'] });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ id: list.id, name: 'Key partners', kind: 'named', size: 2 });
    expect(await ids(list.id)).toEqual(['900003', '900001']);
    const page = await (await admin('GET', `${LISTS}/${list.id}?offset=1&limit=1`)).json();
    expect(page).toMatchObject({ size: 2, offset: 1, accounts: [{ company_id: '900001' }] });
    // Unknown ids, a fixed list's name, nothing to change: 422 and nothing changed.
    const unknown = await admin('PUT', `${LISTS}/${list.id}`, { company_ids: ['900001', '123456'] });
    expect(unknown.status).toBe(422);
    expect((await unknown.json()).message).toMatch(/no account "123456"/);
    expect((await admin('PUT', `${LISTS}/hot`, { name: 'Warm' })).status).toBe(422);
    expect((await admin('PUT', `${LISTS}/${list.id}`, {})).status).toBe(422);
    expect(await ids(list.id)).toEqual(['900003', '900001']);

    // The hot list keeps the products of the accounts it keeps.
    expect((await admin('PUT', `${LISTS}/hot`, { hot_accounts: [{ company_id: '900001', products: ['cdp'] }] })).status).toBe(200);
    expect((await admin('PUT', `${LISTS}/hot`, { company_ids: ['900001', '900003'] })).status).toBe(200);
    expect((await (await admin('GET', `${LISTS}/hot`)).json()).accounts.map((a: { products: string[] }) => a.products)).toEqual([['cdp'], []]);
    expect((await (await admin('GET', '/admin/api/customers/acme')).json()).hot_accounts).toEqual([
      { company_id: '900001', products: ['cdp'] },
      { company_id: '900003', products: [] },
    ]);
    expect((await admin('PUT', `${LISTS}/hot`, { company_ids: ['900001'] })).status).toBe(200);

    expect((await admin('DELETE', `${LISTS}/hot`)).status).toBe(409);
    expect((await admin('DELETE', `${LISTS}/${list.id}`)).status).toBe(204);
    expect((await admin('DELETE', `${LISTS}/${list.id}`)).status).toBe(404);
    const actions = (await auditActions()).map((a) => `${a.action} ${a.target}`);
    expect(actions.sort()).toEqual(
      [`list.create ${list.id}`, `list.update ${list.id}`, 'list.update hot', 'list.update hot', 'list.update hot', `list.delete ${list.id}`].sort(),
    );
  });

  it('a CSV upload reports matched, not found and duplicated rows exactly, and applies the matched ones', async () => {
    const list = await (await admin('POST', LISTS, { name: 'Upload target' })).json();
    const csv = ['Domain,Company ID', 'northwind.example,', ',900003', 'nobody.example,', ',900001', 'northwind.co.uk,', ',,', 'not a domain,'].join('\r\n');
    const res = await upload(list.id, csv);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      mode: 'add',
      rows: 7,
      matched: 2,
      not_found: [
        { row: 4, value: 'nobody.example' },
        { row: 7, value: '' },
        { row: 8, value: 'not a domain' },
      ],
      duplicates: [
        { row: 5, value: '900001' },
        { row: 6, value: 'northwind.co.uk' },
      ],
      applied: true,
      added: 2,
      removed: 0,
      size: 2,
    });
    expect(await ids(list.id)).toEqual(['900001', '900003']);

    // add: the list keeps what it had; a dry run reports what would happen and changes nothing.
    const dry = await (await upload(list.id, 'company_id\n900002\n900001\n', '?mode=replace&dry_run=true')).json();
    expect(dry).toMatchObject({ mode: 'replace', matched: 2, applied: false, reason: expect.stringMatching(/dry run/), added: 1, removed: 1, size: 2 });
    expect(await ids(list.id)).toEqual(['900001', '900003']);
    const added = await (await upload(list.id, 'company_id\n900002\n900001\n')).json();
    expect(added).toMatchObject({ matched: 2, duplicates: [], applied: true, added: 1, removed: 0, size: 3 });
    expect(await ids(list.id)).toEqual(['900001', '900003', '900002']);

    // replace: the matched ones; a replace in which nothing matched applies nothing.
    const replaced = await (await upload(list.id, 'domain\nbluepeak.example\nnobody.example\n', '?mode=replace')).json();
    expect(replaced).toMatchObject({
      mode: 'replace',
      rows: 2,
      matched: 1,
      not_found: [{ row: 3, value: 'nobody.example' }],
      applied: true,
      added: 0,
      removed: 2,
      size: 1,
    });
    expect(await ids(list.id)).toEqual(['900002']);
    const nothing = await (await upload(list.id, 'domain\nnobody.example\n', '?mode=replace')).json();
    expect(nothing).toMatchObject({ matched: 0, applied: false, reason: expect.stringMatching(/no row matched/) });
    expect(await ids(list.id)).toEqual(['900002']);

    const audit = (await auditActions()).filter((a) => a.action === 'list.upload' && a.target === list.id);
    expect(audit).toHaveLength(3);
    expect(audit.find((a) => (a.after as { mode: string }).mode === 'replace')?.after).toMatchObject({
      matched: 1,
      not_found: 1,
      removed: 2,
      removed_ids: ['900001', '900003'],
    });
    await admin('DELETE', `${LISTS}/${list.id}`);
  });

  it('a bad file changes nothing: unreadable, no usable column, too many rows, too large, not CSV', async () => {
    const before = await ids('hot');
    const auditBefore = (await auditActions()).length;
    const refused = async (res: Response, status: number, message: RegExp) => {
      expect(res.status).toBe(status);
      const body = await res.json();
      expect(body).toMatchObject({ status: 'error', message: expect.stringMatching(message) });
    };
    await refused(await upload('hot', 'domain\n"bluepeak.example\nnorthwind.co.uk\n'), 422, /not readable CSV/);
    await refused(await upload('hot', 'name,website_url\nBluepeak,bluepeak.example\n'), 422, /no domain or company_id column/);
    await refused(await upload('hot', ''), 422, /empty/);
    await refused(await upload('hot', `company_id\n${'900002\n'.repeat(100_001)}`), 413, /more than 100,000 rows/);
    await refused(await upload('hot', 'a'.repeat(5 * 1024 * 1024 + 1)), 413, /too large/);
    await refused(await upload('hot', 'domain\nbluepeak.example\n', '', 'text/plain'), 415, /text\/csv/);
    await refused(await upload('hot', JSON.stringify({ domain: 'bluepeak.example' }), '', 'application/json'), 415, /text\/csv/);
    await refused(await upload('hot', 'domain\nbluepeak.example\n', '?mode=merge'), 422, /mode/);
    await refused(await upload('nope', 'domain\nbluepeak.example\n'), 404, /unknown list/);
    // The CSRF rule stands for text/csv: a browser's cross-site Origin is refused.
    const crossSite = await srv.request(`${LISTS}/hot/upload`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'text/csv', origin: 'https://evil.example' },
      body: 'domain\nbluepeak.example\n',
    });
    expect(crossSite.status).toBe(403);
    expect(await ids('hot')).toEqual(before);
    expect((await auditActions()).length).toBe(auditBefore);
  });

  it('a segment with in_list matches exactly the list: identification, /v3/segments sizes and pages, membership', async () => {
    expect((await admin('PATCH', '/admin/api/customers/acme', { grants: ['segments'] })).status).toBe(200);
    const segToken = await newToken('segments');
    const idToken = await newToken('identification');
    const identify = async (ip: string) => (await (await api(`/v3/company/details?ip=${ip}`, idToken)).json()) as { segments: { ids: number[] } };
    const list = await (await admin('POST', LISTS, { name: 'Targets' })).json();
    expect(await (await upload(list.id, 'domain\nnorthwind.example\nnorthwind.co.uk\n')).json()).toMatchObject({ matched: 2, applied: true });

    expect((await admin('POST', '/admin/api/customers/acme/segments', { name: 'Typo', match: { in_list: ['list-typo'] } })).status).toBe(422);
    const seg = await (await admin('POST', '/admin/api/customers/acme/segments', { name: 'Targets', match: { in_list: [list.id] } })).json();
    // With another field: the list's companies that also match it.
    const segUs = await (
      await admin('POST', '/admin/api/customers/acme/segments', { name: 'US targets', match: { in_list: [list.id], country_iso_code: ['US'] } })
    ).json();
    const sizes = async () =>
      Object.fromEntries(((await (await api('/v3/segments', segToken)).json()).segments as { id: number; size: number }[]).map((s) => [s.id, s.size]));
    const members = async (id: number) =>
      ((await (await api(`/v3/segments/${id}/accounts`, segToken)).json()).accounts as { companyId: string }[]).map((a) => a.companyId);

    expect(await sizes()).toMatchObject({ [seg.id]: 2, [segUs.id]: 1 });
    expect(await members(seg.id)).toEqual(['900001', '900003']);
    expect(await members(segUs.id)).toEqual(['900001']);
    expect((await identify(IPS.northwind)).segments.ids).toEqual([101, seg.id, segUs.id]);
    expect((await identify(IPS.bluepeak)).segments.ids).toEqual([102]);
    const preview = await (await admin('POST', '/admin/api/customers/acme/segments/preview', { match: { in_list: [list.id, 'excluded'] } })).json();
    expect(preview.accounts.map((a: { companyId: string }) => a.companyId)).toEqual(['900001', '900002', '900003']);

    // The list changes: sizes, pages, identification and membership follow at once.
    expect((await admin('PUT', `${LISTS}/${list.id}`, { company_ids: ['900002'] })).status).toBe(200);
    expect(await sizes()).toMatchObject({ [seg.id]: 1, [segUs.id]: 0 });
    expect(await members(seg.id)).toEqual(['900002']);
    expect((await identify(IPS.northwind)).segments.ids).toEqual([101]);
    expect((await identify(IPS.bluepeak)).segments.ids).toEqual([102, seg.id]);
    const membership = await (await api(`/v3/segments/membership?domain=${BLUEPEAK_MANUFACTURING.domain}`, segToken)).json();
    expect(membership.segments.ids).toEqual([102, seg.id]);

    // The fixed lists work too: `hot` is what identification flags as is_svcqa.
    const hotSeg = await (await admin('POST', '/admin/api/customers/acme/segments', { name: 'Hot', match: { in_list: ['hot'] } })).json();
    expect(await (await upload('hot', 'domain\nbluepeak.example\n', '?mode=replace')).json()).toMatchObject({ matched: 1, applied: true, size: 1 });
    const bluepeak = (await (await api(`/v3/company/details?ip=${IPS.bluepeak}`, idToken)).json()) as {
      company: { is_svcqa: boolean };
      segments: { ids: number[] };
    };
    expect(bluepeak.company.is_svcqa).toBe(true);
    expect(bluepeak.segments.ids).toContain(hotSeg.id);
    expect((await identify(IPS.northwind)).segments.ids).not.toContain(hotSeg.id);
    expect(await members(hotSeg.id)).toEqual(['900002']);

    // A list a segment uses is not deleted.
    const inUse = await admin('DELETE', `${LISTS}/${list.id}`);
    expect(inUse.status).toBe(409);
    expect((await inUse.json()).message).toMatch(/"Targets"/);
    for (const s of [seg, segUs, hotSeg]) await admin('DELETE', `/admin/api/customers/acme/segments/${s.id}`);
    expect((await admin('DELETE', `${LISTS}/${list.id}`)).status).toBe(204);
    await admin('PUT', `${LISTS}/hot`, { company_ids: ['900001'] });
  });
});
