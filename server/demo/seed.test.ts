/**
 * Demo mode's seed on restart (`npm start` twice on one state): what the console made stays as it was
 * (segments, named lists, tag settings, credits), only what is missing is created, and every record the
 * seed creates is in the audit log as `system:demo-seed`. On SQLite and on a real Redis.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerSeed } from '../../core/customer-records.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { DEMO_SEED_ACTOR, seedMissing } from './seed.ts';

const SAMPLE = (JSON.parse(readFileSync(join(import.meta.dirname, '../../data/sample/customers.json'), 'utf8')) as { customers: CustomerSeed[] }).customers;

interface AuditRow {
  actor: string;
  action: string;
  target: string;
  after: Record<string, unknown> | null;
}

describe.each(['sqlite', 'redis'] as const)('demo seed on restart (%s)', (backend) => {
  let dir: string;
  let redis: RedisServer | undefined;
  let srv: TestServer | undefined;
  const seedFile = () => join(dir, 'customers.json');

  const start = async () => {
    srv = await startTestServer({
      customers: [],
      env: {
        SVC_DEMO: '1',
        SVC_SEED: seedFile(),
        ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(dir, 'journal') } : { SVC_STATE: join(dir, 'svc.db') }),
      },
    });
    return srv;
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${srv!.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const audit = async (customer: string): Promise<AuditRow[]> =>
    (await admin('GET', `/customers/${customer}/audit?from=2000-01-01&to=2100-01-01`)).body.events as AuditRow[];
  const seedEvents = async (customer: string) => (await audit(customer)).filter((e) => e.actor === DEMO_SEED_ACTOR).map((e) => `${e.action} ${e.target}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-demo-seed-'));
    if (backend === 'redis') redis = await startRedisServer();
    writeFileSync(seedFile(), JSON.stringify({ customers: SAMPLE }));
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a restart keeps the marketer's segments, lists, tag settings and credits, and creates only what is missing (audited)", async () => {
    await start();
    // First start on an empty state: the file's customers and tags are created, each one audited.
    const first = await seedEvents('demo');
    expect(first).toHaveLength(3);
    expect(first).toEqual(expect.arrayContaining(['customer.create demo', 'tag.create demo-web-tag', expect.stringMatching(/^token\.create tok_/)]));
    expect(await seedEvents('globex')).toEqual(expect.arrayContaining(['customer.create globex', 'tag.create globex-web-tag']));
    const created = (await audit('demo')).find((e) => e.action === 'customer.create');
    expect(created?.after).toMatchObject({ id: 'demo', name: 'Acme Analytics' });

    // What a marketer and the operator do in the console.
    const segment = await admin('POST', '/customers/demo/segments', { name: 'Console segment A', match: { industry: ['Retail'] } });
    expect(segment.status).toBe(201);
    expect((await admin('POST', '/customers/demo/segments', { name: 'Console segment B', match: { region: ['EMEA'] } })).status).toBe(201);
    const list = await admin('POST', '/customers/demo/lists', { name: 'Trade show leads' });
    expect(list.status).toBe(201);
    expect((await admin('POST', '/customers/demo/lists', { name: 'Partners' })).status).toBe(201);
    expect((await admin('PATCH', '/tags/demo-web-tag', { allowed_domains: ['localhost', 'www.acme.test'], settings: { min_confidence: 'High' } })).status).toBe(
      200,
    );
    expect((await admin('PATCH', '/customers/demo', { identification_credits: 4242, name: 'Acme (renamed)' })).status).toBe(200);

    const customerBefore = (await admin('GET', '/customers/demo')).body;
    const tagBefore = (await admin('GET', '/tags/demo-web-tag')).body;
    const listsBefore = (await admin('GET', '/customers/demo/lists')).body;
    const globexBefore = (await admin('GET', '/customers/globex')).body;
    const tokensBefore = await srv!.store.listTokens('demo');
    const auditBefore = await audit('demo');
    await srv!.close();

    // The file gains a customer and a tag of an existing customer: on restart only those are created.
    const initech: CustomerSeed = { ...SAMPLE[1]!, id: 'initech', name: 'Initech', tags: [{ ...SAMPLE[1]!.tags[0]!, tag_id: 'initech-web-tag' }] };
    const demo: CustomerSeed = {
      ...SAMPLE[0]!,
      tags: [...SAMPLE[0]!.tags, { tag_id: 'demo-second-tag', allowed_domains: ['localhost'], scores: false, segment_names: false }],
    };
    writeFileSync(seedFile(), JSON.stringify({ customers: [demo, SAMPLE[1], initech] }));
    await start();

    expect((await admin('GET', '/customers/demo')).body).toEqual(customerBefore);
    expect((await admin('GET', '/customers/demo')).body.segments).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Console segment A' }), expect.objectContaining({ name: 'Console segment B' })]),
    );
    expect((await admin('GET', '/customers/demo/lists')).body).toEqual(listsBefore);
    expect(JSON.stringify(listsBefore)).toContain('Trade show leads');
    expect((await admin('GET', '/tags/demo-web-tag')).body).toEqual(tagBefore);
    expect((await admin('GET', '/customers/globex')).body).toEqual(globexBefore);
    expect(await srv!.store.listTokens('demo')).toEqual(tokensBefore);

    // The demo customer's log gained exactly the one tag the seed created, and no deletion.
    const auditAfter = await audit('demo');
    expect(auditAfter.length).toBe(auditBefore.length + 1);
    expect(auditAfter.filter((e) => !auditBefore.some((b) => JSON.stringify(b) === JSON.stringify(e))).map((e) => [e.actor, e.action, e.target])).toEqual([
      [DEMO_SEED_ACTOR, 'tag.create', 'demo-second-tag'],
    ]);
    expect((await admin('GET', '/tags/demo-second-tag')).status).toBe(200);
    expect(await seedEvents('initech')).toEqual(['customer.create initech', 'tag.create initech-web-tag']);
    expect((await admin('GET', '/customers/initech')).body).toMatchObject({ id: 'initech', name: 'Initech' });
  }, 60_000);
});

describe('seedMissing', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ customers: SAMPLE });
  }, 60_000);
  afterAll(() => srv?.close());

  it('writes nothing to the store when every customer and tag of the file exists', async () => {
    const writes: string[] = [];
    // Every method but the reads counts as a write: re-writing a record unchanged is a write too.
    const reads = /^(get|list|authenticate)/;
    const watched = new Proxy(srv.store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (!reads.test(String(key))) writes.push(String(key));
          return value.apply(target, args);
        };
      },
    });
    const audited: unknown[] = [];
    const report = await seedMissing(watched, async (e) => audited.push(e), SAMPLE);
    expect(report).toEqual({ customers: [], tags: [] });
    expect(writes).toEqual([]);
    expect(audited).toEqual([]);
  });
});
