/**
 * The raw page-view export over HTTP: views sent as beacons come back as the NDJSON log's lines (plus
 * their cursor), filtered by day, resumable at any line, gzip when accepted; and the route pipeline's
 * streamed body: an error before the first byte is an error answer, one after it cuts the connection.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { StoreUnavailableError } from '../state/errors.ts';
import type { KeptRawView, RawPageView, VisitStore } from '../state/visits/store.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { sendPageView } from '../testing/page-view.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { exportLine } from './export.ts';
import type { RecordedPageView } from './recorder.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const today = () => new Date().toISOString().slice(0, 10);

let srv: TestServer;
const recorded: RecordedPageView[] = [];
/** The server's log lines (a stream cut after its head is logged). */
const logged: string[] = [];
const logStream = new PassThrough();
logStream.on('data', (c: Buffer) => logged.push(...c.toString('utf8').split('\n').filter(Boolean)));

beforeAll(async () => {
  // `dated`: views recorded at given times, before any other of its own (ids follow the latest view's).
  srv = await startTestServer({
    log: createLogger('error', { destination: logStream, pretty: false }),
    env: { SVC_TRUST_PROXY: 'loopback' },
    customers: [
      TEST_CUSTOMER,
      { ...TEST_CUSTOMER, id: 'dated', name: 'Dated', tags: [] },
      // A rule on what the account did: its segments are known only once the view is counted.
      {
        ...TEST_CUSTOMER,
        id: 'engaged',
        name: 'Engaged',
        tags: [],
        segments: [...TEST_CUSTOMER.segments, { id: 103, name: 'Engaged', match: { page_views: { min: 2, days: 7 } } }],
      },
    ],
  });
  srv.recorder.onPageView((v) => void recorded.push(v));
});
afterAll(() => srv?.close());

const beacon = (path: string, ip: string = IPS.northwind) => sendPageView(srv.url, { path, ip, referrer: 'news.example' });

async function settle(n: number): Promise<void> {
  await expect.poll(() => recorded.length, { timeout: 5000 }).toBeGreaterThanOrEqual(n);
  await srv.recorder.events.flush();
}

/** A view of `dated` recorded through the server's recorder at a given time (beacons are always now). */
async function recordAt(at: string, path: string, companyId: string | null = '900001', customerId = 'dated'): Promise<RecordedPageView> {
  const customer = (await srv.store.getCustomer(customerId))!;
  return srv.recorder.record({
    customer,
    tag_id: 'acme-tag',
    company: companyId === null ? null : srv.dataset.current.catalog.company(companyId),
    path,
    referrer_host: null,
    session_id: 'session-at',
    origin: 'https://www.acme.test',
    at: new Date(at),
  });
}

const exportOf = async (query: string, customer = 'dated') => {
  const res = await fetch(`${srv.url}/admin/api/customers/${customer}/events?${query}`, { headers: ADMIN });
  const text = await res.text();
  return {
    res,
    text,
    lines:
      text === ''
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l) as RawPageView & { cursor: string }),
  };
};

/** The raw bytes of an answer (fetch would undo the gzip). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${srv.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('GET /admin/api/customers/:id/events (raw page views, NDJSON)', () => {
  it('the recorded view is one type: what the NDJSON log writes is what the store keeps', () => {
    expectTypeOf<RecordedPageView>().toEqualTypeOf<RawPageView>();
  });

  it('answers the views sent as beacons, each line the NDJSON log’s line plus its cursor, in the order recorded', async () => {
    const start = recorded.length;
    for (const [i, path] of ['/', '/pricing', '/docs'].entries()) {
      expect((await beacon(path, i === 2 ? IPS.isp : IPS.northwind)).status).toBe(204);
      await settle(start + i + 1);
    }
    const { res, text, lines } = await exportOf(`from=${today()}&to=${today()}`, 'acme');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/);
    expect(lines.map((l) => [l.path, l.company_id])).toEqual([
      ['/', '900001'],
      ['/pricing', '900001'],
      ['/docs', null],
    ]);
    // Byte for byte the local NDJSON file's lines, each with `"cursor":…` as its last field.
    const file = readFileSync(join(srv.dir, 'events', 'acme', `${today()}.ndjson`), 'utf8')
      .trimEnd()
      .split('\n');
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => l.replace(/,"cursor":"[^"]*"}$/, '}')),
    ).toEqual(file.slice(-3));
    const { cursor, ...view } = lines[0]!;
    expect(view).toEqual(recorded[start]);
    expect(cursor).toMatch(/^\d+-\d+$/);
  });

  it('lists the days from..to only, resumes after any cursor with exactly the rest, and bounds a page by limit', async () => {
    await recordAt('2026-03-01T10:00:00.000Z', '/a');
    await recordAt('2026-03-01T11:00:00.000Z', '/b', null);
    await recordAt('2026-03-02T09:00:00.000Z', '/c');
    await recordAt('2026-03-03T09:00:00.000Z', '/d');
    await recordAt('2026-03-04T09:00:00.000Z', '/e');
    const paths = (lines: { path: string }[]) => lines.map((l) => l.path);
    expect(paths((await exportOf('from=2026-03-02&to=2026-03-03')).lines)).toEqual(['/c', '/d']);
    expect(paths((await exportOf('from=2026-03-01&to=2026-03-01')).lines)).toEqual(['/a', '/b']);
    const all = (await exportOf('from=2026-03-01&to=2026-03-04')).lines;
    expect(paths(all)).toEqual(['/a', '/b', '/c', '/d', '/e']);
    expect(all.map((l) => l.first_of_day_for_account)).toEqual([true, false, true, true, true]);

    // From every line's cursor: exactly the lines after it.
    for (const [i, line] of all.entries()) {
      expect(paths((await exportOf(`from=2026-03-01&to=2026-03-04&cursor=${line.cursor}`)).lines)).toEqual(paths(all.slice(i + 1)));
    }
    // Pages of 2, each resumed from the last line of the one before: the whole range once; a short page ends it.
    const pages: string[][] = [];
    for (let cursor = ''; ; ) {
      const { lines } = await exportOf(`from=2026-03-01&to=2026-03-04&limit=2${cursor && `&cursor=${cursor}`}`);
      pages.push(paths(lines));
      if (lines.length < 2) break;
      cursor = lines.at(-1)!.cursor;
    }
    expect(pages).toEqual([['/a', '/b'], ['/c', '/d'], ['/e']]);
    // An empty range: 200 and no lines.
    const empty = await exportOf('from=2025-01-01&to=2025-01-31');
    expect([empty.res.status, empty.text]).toEqual([200, '']);
  });

  it('keeps a view whose segments need what the account did after its count, with the segments the listeners heard', async () => {
    const day = today();
    const views = [await recordAt(`${day}T00:00:01.000Z`, '/one', '900001', 'engaged'), await recordAt(`${day}T00:00:02.000Z`, '/two', '900001', 'engaged')];
    expect(views.map((v) => v.segment_ids)).toEqual([[101], [101, 103]]);
    const { lines } = await exportOf(`from=${day}&to=${day}`, 'engaged');
    expect(lines.map(({ cursor: _, ...view }) => view)).toEqual(views);
  });

  it('answers HEAD with the head alone', async () => {
    const res = await fetch(`${srv.url}/admin/api/customers/dated/events?from=2026-03-01&to=2026-03-04`, { method: 'HEAD', headers: ADMIN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  it('is gzip when the client accepts it (the same lines), identity when it does not', async () => {
    const path = '/admin/api/customers/dated/events?from=2026-03-01&to=2026-03-04';
    const plain = await rawGet(path, ADMIN);
    const zipped = await rawGet(path, { ...ADMIN, 'accept-encoding': 'gzip, deflate, br' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['transfer-encoding']).toBe('chunked');
    expect(gunzipSync(zipped.body).toString()).toBe(plain.body.toString());
    expect(plain.body.toString().split('\n')).toHaveLength(6);
    const refused = await rawGet(path, { ...ADMIN, 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('refuses bad input with 422 and a clear message, an unknown customer with 404, no credential with 401', async () => {
    const status = async (query: string) => {
      const { res, text } = await exportOf(query);
      return [res.status, (JSON.parse(text) as { message: string }).message];
    };
    expect(await status('from=2026-03-04&to=2026-03-01')).toEqual([422, 'from: from must not be after to']);
    expect(await status('from=2026-02-30')).toEqual([422, 'from: not a calendar date']);
    expect(await status('cursor=abc')).toEqual([422, expect.stringMatching(/^cursor: not a cursor of this export/)]);
    expect(await status('limit=0')).toEqual([422, 'limit: limit must be at least 1']);
    expect(await status('limit=1000001')).toEqual([422, 'limit: limit is at most 1000000']);
    expect((await fetch(`${srv.url}/admin/api/customers/nobody/events`, { headers: ADMIN })).status).toBe(404);
    expect((await fetch(`${srv.url}/admin/api/customers/acme/events`)).status).toBe(401);
  });
});

describe('a streamed answer in the route pipeline', () => {
  const visits = () => srv.recorder.visits as VisitStore;

  it('an error before the first line is the pipeline’s error answer (503 JSON), not a cut stream', async () => {
    const original = visits().rawPageViews;
    visits().rawPageViews = async function* (): AsyncIterable<KeptRawView> {
      yield* [];
      throw new StoreUnavailableError('Redis did not answer within 1000 ms');
    };
    try {
      const res = await fetch(`${srv.url}/admin/api/customers/acme/events`, { headers: ADMIN });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).not.toBeNull();
      expect(await res.json()).toMatchObject({ code: 'unavailable' });
    } finally {
      visits().rawPageViews = original;
    }
  });

  it('an error after the first bytes cuts the connection (the client sees an incomplete answer); the server goes on', async () => {
    const original = visits().rawPageViews;
    const row = { id: '1-0', text: JSON.stringify({ path: 'x'.repeat(1000) }) };
    visits().rawPageViews = async function* (): AsyncIterable<KeptRawView> {
      for (let i = 0; i < 200; i++) yield { ...row, id: `1-${i}` };
      throw new StoreUnavailableError('Redis did not answer within 1000 ms');
    };
    try {
      const res = await fetch(`${srv.url}/admin/api/customers/acme/events`, { headers: ADMIN });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      await expect.poll(() => logged.join('\n')).toMatch(/events: answer cut after its head: Error: Redis did not answer/);
    } finally {
      visits().rawPageViews = original;
    }
    expect((await exportOf('from=2026-03-01&to=2026-03-01')).lines).toHaveLength(2);
  });

  it('a client that stops reading stops the store reads (a page at a time, never the whole range)', async () => {
    const original = visits().rawPageViews;
    let read = 0;
    let ended = false;
    const line = exportLine({ id: '1-0', text: JSON.stringify({ path: 'y'.repeat(2000) }) }).length;
    visits().rawPageViews = async function* (): AsyncIterable<KeptRawView> {
      try {
        for (let i = 0; i < 1_000_000; i++) {
          read++;
          yield { id: `1-${i}`, text: JSON.stringify({ path: 'y'.repeat(2000) }) };
        }
      } finally {
        ended = true;
      }
    };
    try {
      const controller = new AbortController();
      const res = await fetch(`${srv.url}/admin/api/customers/acme/events`, { headers: ADMIN, signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await expect.poll(() => ended, { timeout: 5000 }).toBe(true);
      // What the socket and the stream buffers hold, not the million lines (2 GB) of the range.
      expect(read * line).toBeLessThan(64 * 1024 * 1024);
    } finally {
      visits().rawPageViews = original;
    }
  });
});
