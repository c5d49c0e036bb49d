import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import { RedisVisitStore } from '../state/visits/redis.ts';
import type { PageViewCount, VisitStore } from '../state/visits/store.ts';
import { ACME_SOFTWARE } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { createEventLog, type EventLog } from './event-log.ts';
import { createRecorder, type PageViewInput, type RecordedPageView, STORE_FAILURE_REPORT_MS } from './recorder.ts';

function recorderWithSightings() {
  const written: [string, string, string][] = [];
  const visits = {
    recordTagSighting: async (tagId: string, origin: string, at: string) => void written.push([tagId, origin, at]),
  } as unknown as VisitStore;
  return { recorder: createRecorder({ visits, events: {} as EventLog }), written };
}

describe('tagSeen', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s));

  it('writes a (tag, origin) sighting at most once a minute, each pair on its own', () => {
    const { recorder, written } = recorderWithSightings();
    recorder.tagSeen('t1', 'https://a.example', at(0));
    recorder.tagSeen('t1', 'https://a.example', at(59));
    recorder.tagSeen('t1', 'https://b.example', at(30));
    recorder.tagSeen('t2', 'https://a.example', at(30));
    recorder.tagSeen('t1', 'https://a.example', at(60));
    expect(written).toEqual([
      ['t1', 'https://a.example', '2026-11-24T12:00:00.000Z'],
      ['t1', 'https://b.example', '2026-11-24T12:00:30.000Z'],
      ['t2', 'https://a.example', '2026-11-24T12:00:30.000Z'],
      ['t1', 'https://a.example', '2026-11-24T12:01:00.000Z'],
    ]);
  });

  it('writes nothing for a request without an origin', () => {
    const { recorder, written } = recorderWithSightings();
    recorder.tagSeen('t1', null, at(0));
    expect(written).toEqual([]);
  });

  it('stays bounded: past 10,000 remembered pairs it starts over (and writes again)', () => {
    const { recorder, written } = recorderWithSightings();
    for (let i = 0; i < 10_000; i++) recorder.tagSeen(`t${i % 200}`, `https://o${i}.example`, at(0));
    recorder.tagSeen('t0', 'https://o0.example', at(1));
    expect(written.length).toBe(10_000);
    recorder.tagSeen('t0', 'https://new.example', at(1));
    recorder.tagSeen('t0', 'https://o0.example', at(2));
    expect(written.length).toBe(10_002);
  });
});

describe('record: a visit store that fails', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const customer = { id: 'acme', segments: [], hot_accounts: [], excluded_accounts: [] } as unknown as CustomerRecord;
  const input = (second: number): PageViewInput => ({
    customer,
    tag_id: 'acme-tag',
    company: null,
    path: `/p${second}`,
    referrer_host: null,
    session_id: 'session-aaaa',
    origin: 'https://www.acme.test',
    at: new Date(Date.UTC(2026, 10, 24, 12, 0, second)),
  });

  function setUp(visits: VisitStore) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-recorder-'));
    dirs.push(dir);
    const errors: Error[] = [];
    let clock = 0;
    const recorder = createRecorder({ visits, events: createEventLog({ dir, retentionDays: 30 }), onError: (e) => void errors.push(e), now: () => clock });
    const heard: RecordedPageView[] = [];
    recorder.onPageView((v) => void heard.push(v));
    const lines = async () => {
      await recorder.events.flush();
      return readFileSync(join(dir, 'acme', '2026-11-24.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RecordedPageView);
    };
    return { recorder, errors, heard, lines, advance: (ms: number) => void (clock += ms) };
  }

  const failing = (message: string) =>
    ({
      recordPageView: async () => {
        throw new Error(message);
      },
      recordTagSighting: async () => {
        throw new Error(message);
      },
      close: async () => {},
    }) as unknown as VisitStore;

  it('still writes the NDJSON line and tells the listeners; reports the failures at most once a minute, with their count', async () => {
    const { recorder, errors, heard, lines, advance } = setUp(failing('Redis is down'));
    for (const s of [0, 1, 2]) await expect(recorder.record(input(s))).resolves.toMatchObject({ path: `/p${s}`, first_of_day_for_account: false });
    expect((await lines()).map((l) => l.path)).toEqual(['/p0', '/p1', '/p2']);
    expect(heard.map((v) => v.path)).toEqual(['/p0', '/p1', '/p2']);
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/1 page view\(s\) not counted .*Redis is down/);

    advance(STORE_FAILURE_REPORT_MS - 1);
    await recorder.record(input(3));
    expect(errors).toHaveLength(1);
    advance(1);
    await recorder.record(input(4));
    expect(errors).toHaveLength(2);
    expect(errors[1].message).toMatch(/4 page view\(s\) not counted/);
    expect(recorder.storeFailures).toEqual({ page_views: 5, tag_sightings: 0 });
    expect(await lines()).toHaveLength(5);
  });

  it('tag sightings that fail are counted into the same report; what is left is reported at close', async () => {
    const { recorder, errors } = setUp(failing('locked'));
    await recorder.record(input(0));
    recorder.tagSeen('acme-tag', 'https://a.acme.test', input(0).at);
    recorder.tagSeen('acme-tag', 'https://b.acme.test', input(0).at);
    await new Promise((r) => setImmediate(r));
    expect(recorder.storeFailures).toEqual({ page_views: 1, tag_sightings: 2 });
    expect(errors).toHaveLength(1);
    await recorder.close();
    expect(errors).toHaveLength(2);
    expect(errors[1].message).toMatch(/2 tag sighting\(s\) not written/);
  });

  describe('a real Redis visit store', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    }, 20_000);
    afterAll(async () => redis?.close());

    it('with redis-server stopped: the NDJSON line is on disk and the failure reported', async () => {
      const visits = await RedisVisitStore.open(redis.url);
      const { recorder, errors, lines } = setUp(visits);
      try {
        expect((await recorder.record(input(0))).first_of_day_for_account).toBe(false);
        await redis.stop();
        await recorder.record(input(1));
        expect((await lines()).map((l) => l.path)).toEqual(['/p0', '/p1']);
        expect(recorder.storeFailures.page_views).toBe(1);
        expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/visit store failing: 1 page view/)]);
      } finally {
        await redis.start();
        await recorder.close();
      }
    });

    it('with redis-server stalled (SIGSTOP): the view waits out the command deadline, not for ever', async () => {
      const visits = await RedisVisitStore.open(redis.url, { commandTimeoutMs: 200 });
      const { recorder, errors, lines } = setUp(visits);
      redis.pause();
      try {
        await recorder.record(input(0));
        expect((await lines()).map((l) => l.path)).toEqual(['/p0']);
        expect(errors[0].message).toMatch(/did not answer within 200 ms/);
      } finally {
        redis.resume();
        await recorder.close();
      }
    });
  });
});

describe('record: what the visit store counts and the line keeps', () => {
  const customer = { id: 'acme', segments: [], hot_accounts: [], excluded_accounts: [], kept_query_params: ['plan'] } as unknown as CustomerRecord;
  const counted: PageViewCount[] = [];
  const visits = {
    recordPageView: async (v: PageViewCount) => {
      counted.push(v);
      return { first_of_day_for_account: false };
    },
  } as unknown as VisitStore;
  const recorder = createRecorder({ visits, events: { append: () => {} } as unknown as EventLog });
  const input = (over: Partial<PageViewInput>): PageViewInput => ({
    customer,
    tag_id: 'acme-tag',
    company: null,
    path: '/pricing?plan=pro&utm_source=news',
    referrer_host: null,
    session_id: 'session-aaaa',
    origin: null,
    at: new Date(Date.UTC(2026, 10, 24, 12, 0, 0)),
    ...over,
  });

  it('counts an anonymous view under the reason it was given (none given: no_data), a Match under none', async () => {
    counted.length = 0;
    expect((await recorder.record(input({ unidentified_reason: 'vpn' }))).unidentified_reason).toBe('vpn');
    expect((await recorder.record(input({}))).unidentified_reason).toBe('no_data');
    expect((await recorder.record(input({ company: ACME_SOFTWARE, unidentified_reason: null }))).unidentified_reason).toBeNull();
    expect(counted.map((c) => c.unidentified_reason)).toEqual(['vpn', 'no_data', undefined]);
    // The line's reason and the count's agree, and the kept raw view is the line.
    expect(counted[0]!.raw).toMatchObject({ company_id: null, unidentified_reason: 'vpn' });
  });

  it('counts the view under its page (parameters the customer does not keep collapsed); the line keeps the path as sent', async () => {
    counted.length = 0;
    const view = await recorder.record(input({ company: ACME_SOFTWARE }));
    expect(counted[0]!.path).toBe('/pricing?plan=pro');
    expect(view.path).toBe('/pricing?plan=pro&utm_source=news');
    expect(counted[0]!.raw?.path).toBe('/pricing?plan=pro&utm_source=news');
  });
});
