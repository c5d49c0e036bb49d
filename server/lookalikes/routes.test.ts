/**
 * Lookalike accounts over real HTTP (fetch to the test server's port), on both state backends (the seed's
 * lists and segments are the customer record's): the preview seeded by a list, a segment or company ids,
 * its scores and reasons as the method gives them, the seed left out and excluded accounts flagged, every
 * bad input a 4xx with a code; the `lookalike` segment rule in the segment preview, in identification and
 * in the Segments API; a segment seeded by itself refused (422), a seed segment or list not deleted (409).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { lookalikeCompanies } from '../testing/lookalike-catalog.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { cachedTokens, IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { likeness, profileOf } from './method.ts';
import type { LookalikePreview } from './schema.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const PREVIEW = '/admin/api/customers/acme/lookalikes/preview';

const GENERATED = lookalikeCompanies(60);
const COMPANIES: CompanyRow[] = [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE, ...GENERATED];
/** The "best customers": the generated software companies (900001, the fixture's, is not one of them). */
const SEED_IDS = GENERATED.filter((c) => c.industry.toLowerCase() === 'software').map((c) => c.company_id);
const byId = new Map(COMPANIES.map((c) => [c.company_id, c]));
const PROFILE = profileOf(SEED_IDS.map((id) => byId.get(id)!));

describe.each(['sqlite', 'redis'] as const)('lookalike accounts on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  const token = cachedTokens(() => srv);

  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${srv.url}${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const preview = async (body: unknown) => {
    const res = await call('POST', PREVIEW, body);
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      customers: [{ ...TEST_CUSTOMER, grants: ['segments'], account_lists: [{ id: 'best', name: 'Best customers', company_ids: SEED_IDS }] }],
      companies: COMPANIES,
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('seeded by a list: every other account, highest score first, scored and explained by the method; excluded accounts flagged', async () => {
    const { status, body } = await preview({ seed: { list: 'best' }, limit: 200 });
    expect(status).toBe(200);
    const answer = body as LookalikePreview;
    expect(answer.seed).toEqual({ accounts: SEED_IDS.length, not_found: 0 });
    const others = COMPANIES.filter((c) => !SEED_IDS.includes(c.company_id));
    const expected = others
      .map((c) => ({ c, l: likeness(PROFILE, c) }))
      .sort((a, b) => b.l.score - a.l.score || (a.c.company_id < b.c.company_id ? -1 : 1))
      .map(({ c, l }) => ({
        company_id: c.company_id,
        name: c.name,
        domain: c.domain,
        score: l.score,
        reasons: l.reasons,
        excluded: c.company_id === '900002',
      }));
    expect(answer.accounts).toEqual(expected);
    expect(answer.accounts[0]!.reasons.length).toBeGreaterThan(0);
    expect(answer.accounts.find((a) => a.company_id === '900002')?.excluded).toBe(true);
    // The limit: the first accounts of the same ranking.
    expect((await preview({ seed: { list: 'best' }, limit: 5 })).body.accounts).toEqual(expected.slice(0, 5));
    expect((await preview({ seed: { list: 'best' } })).body.accounts).toHaveLength(20);
  });

  it('seeded by company ids or a segment: the same ranking as the list of the same accounts; ids the catalog lacks are counted', async () => {
    const byList = (await preview({ seed: { list: 'best' }, limit: 30 })).body.accounts;
    const byIds = await preview({ seed: { companies: [...SEED_IDS, 'no-such-company'] }, limit: 30 });
    expect(byIds.status).toBe(200);
    expect(byIds.body.seed).toEqual({ accounts: SEED_IDS.length, not_found: 1 });
    expect(byIds.body.accounts).toEqual(byList);
    const created = await call('POST', '/admin/api/customers/acme/segments', { name: 'All software', match: { industry: ['software'] } });
    expect(created.status).toBe(201);
    const segment = (await created.json()).id as number;
    // The segment also holds 900001 (Software): its seed is one account larger.
    const bySegment = await preview({ seed: { segment }, limit: 30 });
    expect(bySegment.body.seed.accounts).toBe(SEED_IDS.length + 1);
    const same = await preview({ seed: { companies: [...SEED_IDS, '900001'] }, limit: 30 });
    expect(bySegment.body.accounts).toEqual(same.body.accounts);
    expect(bySegment.body.accounts.map((a: { company_id: string }) => a.company_id)).not.toContain('900001');
    expect((await call('DELETE', `/admin/api/customers/acme/segments/${segment}`)).status).toBe(204);
  });

  it('answers bad input with a 4xx and a code, never a 500', async () => {
    const cases: [unknown, number, RegExp][] = [
      [{}, 422, /seed/],
      [{ seed: {} }, 422, /one seed/],
      [{ seed: { list: 'best', segment: 1 } }, 422, /one seed/],
      [{ seed: { list: 'nope' } }, 422, /seed\.list: no list "nope"/],
      [{ seed: { segment: 999 } }, 422, /seed\.segment: no segment 999/],
      [{ seed: { segment: 'one' } }, 422, /segment id/],
      [{ seed: { companies: [] } }, 422, /at least one company id/],
      [{ seed: { companies: ['nope', 'nada'] } }, 422, /none of the company ids is in the catalog/],
      [{ seed: { list: 'best' }, limit: 0 }, 422, /limit/],
      [{ seed: { list: 'best' }, limit: 201 }, 422, /limit/],
      [{ seed: { list: 'best' }, limit: 2.5 }, 422, /limit/],
      [{ seed: { list: 'best' }, colour: 'red' }, 422, /colour/],
    ];
    for (const [body, status, message] of cases) {
      const res = await preview(body);
      expect([res.status, res.body.status, res.body.code], JSON.stringify(body)).toEqual([status, 'error', 'invalid']);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    // The empty list of the customer (its hot list holds one account, excluded one: a named list without any).
    expect((await call('POST', '/admin/api/customers/acme/lists', { name: 'Empty' })).status).toBe(201);
    const lists = (await (await call('GET', '/admin/api/customers/acme/lists')).json()).lists as { id: string; name: string }[];
    const empty = lists.find((l) => l.name === 'Empty')!.id;
    const res = await preview({ seed: { list: empty } });
    expect([res.status, res.body.code, res.body.message]).toEqual([422, 'invalid', 'seed: the list holds no account in the catalog: nothing to compare with']);
    const unknown = await fetch(`${srv.url}/admin/api/customers/nobody/lookalikes/preview`, {
      method: 'POST',
      headers: ADMIN,
      body: '{"seed":{"list":"best"}}',
    });
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, 'not_found']);
    const bad = await fetch(`${srv.url}${PREVIEW}`, { method: 'POST', headers: ADMIN, body: '{"seed":' });
    expect([bad.status, (await bad.json()).code]).toEqual([400, 'invalid']);
    const anonymous = await fetch(`${srv.url}${PREVIEW}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"seed":{"list":"best"}}',
    });
    expect([anonymous.status, (await anonymous.json()).code]).toEqual([401, 'unauthenticated']);
  });

  it('the lookalike segment rule: its preview, identification’s answer and the Segments API agree with the scores', async () => {
    const northwind = likeness(PROFILE, ACME_SOFTWARE).score;
    expect(northwind).toBeGreaterThan(0.3);
    const scores = (await preview({ seed: { list: 'best' }, limit: 200 })).body.accounts as LookalikePreview['accounts'];
    const make = async (name: string, min_score: number) => {
      const res = await call('POST', '/admin/api/customers/acme/segments', { name, match: { lookalike: { list: 'best', min_score } } });
      expect(res.status).toBe(201);
      return (await res.json()).id as number;
    };
    const holds = await make('Like our best', northwind);
    const above = await make('Very like our best', Math.min(1, northwind + 0.001));
    for (const [min, id] of [
      [northwind, holds],
      [northwind + 0.001, above],
    ] as const) {
      const match = { lookalike: { list: 'best', min_score: Math.min(1, min) } };
      const res = await call('POST', '/admin/api/customers/acme/segments/preview', { match });
      expect(res.status).toBe(200);
      const members = scores.filter((a) => a.score >= Math.min(1, min) - 1e-9);
      expect((await res.json()).size, String(id)).toBe(members.length);
    }
    // Identification of 900001's address carries the segment its score reaches, not the one above it.
    const answer = await (
      await fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, { headers: { authorization: `Token ${await token('acme', 'identification')}` } })
    ).json();
    expect(answer.segments.ids).toContain(holds);
    expect(answer.segments.ids).not.toContain(above);
    // The Segments API: the rule in words and its size.
    const segmentsApi = await (await fetch(`${srv.url}/v3/segments`, { headers: { authorization: `Token ${await token('acme', 'segments')}` } })).json();
    const listed = segmentsApi.segments.find((s: { id: number }) => s.id === holds);
    expect(listed.rule).toBe(`accounts like list best, score ≥ ${northwind}`);
    expect(listed.size).toBe(scores.filter((a) => a.score >= northwind - 1e-9).length);
    for (const id of [holds, above]) expect((await call('DELETE', `/admin/api/customers/acme/segments/${id}`)).status).toBe(204);
  });

  it('refuses a segment seeded by itself (422), and deleting a segment or a list that seeds another (409)', async () => {
    const base = await (await call('POST', '/admin/api/customers/acme/segments', { name: 'Seed', match: { industry: ['Software'] } })).json();
    const like = await (
      await call('POST', '/admin/api/customers/acme/segments', { name: 'Like seed', match: { lookalike: { segment: base.id, min_score: 0.7 } } })
    ).json();
    expect(like.id).toBeGreaterThan(base.id);
    const self = await call('PATCH', `/admin/api/customers/acme/segments/${like.id}`, { match: { lookalike: { segment: like.id, min_score: 0.7 } } });
    const selfBody = await self.json();
    expect([self.status, selfBody.code]).toEqual([422, 'invalid']);
    expect(selfBody.message).toBe(
      `match.lookalike.segment: segment ${like.id} would be seeded by itself (${like.id} → ${like.id}): seed it from another segment, a list or company ids`,
    );
    const through = await call('PATCH', `/admin/api/customers/acme/segments/${base.id}`, {
      match: { groups: [{ lookalike: { segment: like.id, min_score: 0.5 } }] },
    });
    expect([through.status, (await through.json()).message]).toEqual([
      422,
      `match.lookalike.segment: segment ${base.id} would be seeded by itself (${base.id} → ${like.id} → ${base.id}): seed it from another segment, a list or company ids`,
    ]);
    const unknown = await call('POST', '/admin/api/customers/acme/segments', {
      name: 'Like nothing',
      match: { lookalike: { segment: 12345, min_score: 0.7 } },
    });
    expect([unknown.status, (await unknown.json()).message]).toEqual([422, 'match.lookalike.segment: no segment 12345']);
    const noList = await call('POST', '/admin/api/customers/acme/segments', { name: 'Like no list', match: { lookalike: { list: 'worst', min_score: 0.7 } } });
    expect([noList.status, (await noList.json()).message]).toEqual([422, 'match.lookalike.list: no list "worst"']);
    const twoSeeds = await call('POST', '/admin/api/customers/acme/segments', {
      name: 'Two seeds',
      match: { lookalike: { list: 'best', segment: base.id, min_score: 0.7 } },
    });
    expect(twoSeeds.status).toBe(422);
    const deleteSeed = await call('DELETE', `/admin/api/customers/acme/segments/${base.id}`);
    expect([deleteSeed.status, (await deleteSeed.json()).code]).toEqual([409, 'conflict']);
    const byList = await (
      await call('POST', '/admin/api/customers/acme/segments', { name: 'Like the list', match: { lookalike: { list: 'best', min_score: 0.9 } } })
    ).json();
    const deleteList = await call('DELETE', '/admin/api/customers/acme/lists/best');
    expect([deleteList.status, (await deleteList.json()).code]).toEqual([409, 'conflict']);
    for (const id of [byList.id, like.id, base.id]) expect((await call('DELETE', `/admin/api/customers/acme/segments/${id}`)).status).toBe(204);
  });
});
