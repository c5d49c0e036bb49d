/**
 * The enrichment jobs' disk limits (./limits.ts) over real HTTP, as a script or the console uploads: a gzip
 * bomb refused at its ratio's bound (never more written), the customer's N+1th unfinished job refused, the
 * customer's bytes cap, the node's free space (an injected statfs) before accepting and while a job runs,
 * and finished jobs deleted after the retention (an injected clock).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { StateStore } from '../../state/store.ts';
import { plainCustomer } from '../../testing/fixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../../testing/test-server.ts';
import { batchSources } from '../batch-test-leads.ts';
import type { EnrichJob } from './job-store.ts';
import { GZIP_SLACK_BYTES, jobLimits, RESULT_ROW_BYTES, type StatFs } from './limits.ts';
import { EnrichJobs } from './runner.ts';
import { saveBody } from './upload.ts';

const BEARER = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const MB = 1024 * 1024;
const PLENTY: StatFs = () => ({ bavail: 1e9, bsize: 4096 });

/** A CSV of `rows` rows of found and unknown emails. */
const contacts = (rows: number) => `id,email\n${Array.from({ length: rows }, (_, i) => `${i},lead${i % 40}@co${i % 40}.example`).join('\n')}\n`;

/** An upload as python-requests sends `data=` bytes (Content-Length), or a stream (chunked, no length). */
async function upload(base: string, customer: string, body: string | Buffer | Readable, headers: Record<string, string> = {}) {
  const streamed = body instanceof Readable;
  const res = await fetch(`${base}/admin/api/customers/${customer}/enrichment-jobs`, {
    method: 'POST',
    headers: { ...BEARER, 'content-type': 'text/csv', 'user-agent': 'python-requests/2.32.3', ...headers },
    body: streamed ? (Readable.toWeb(body) as ReadableStream) : typeof body === 'string' ? body : new Uint8Array(body),
    ...(streamed ? { duplex: 'half' } : {}),
  } as RequestInit);
  return { status: res.status, headers: res.headers, body: (await res.json()) as EnrichJob & { code?: string; message?: string } };
}
const remove = (base: string, customer: string, id: string) =>
  fetch(`${base}/admin/api/customers/${customer}/enrichment-jobs/${id}`, { method: 'DELETE', headers: BEARER });
const getJob = async (base: string, customer: string, id: string) =>
  (await (await fetch(`${base}/admin/api/customers/${customer}/enrichment-jobs/${id}`, { headers: BEARER })).json()) as EnrichJob;
async function settled(base: string, customer: string, id: string): Promise<EnrichJob> {
  for (;;) {
    const job = await getJob(base, customer, id);
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A gzip bomb: a tiny body that decodes to `decoded` bytes of one CSV. */
const bomb = (decoded: number) => gzipSync(Buffer.concat([Buffer.from('email\n'), Buffer.alloc(decoded, 'a@co1.example\n')]), { level: 9 });

describe('a gzip bomb', () => {
  it('stops at its ratio bound: saveBody writes no more than the bound, chunked or with a length', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bomb-'));
    try {
      const gz = bomb(64 * MB);
      expect(gz.length).toBeLessThan(150 * 1024);
      const bound = 50 * gz.length + GZIP_SLACK_BYTES;
      for (const [name, headers] of [
        ['chunked', { 'content-encoding': 'gzip' }],
        ['length', { 'content-encoding': 'gzip', 'content-length': String(gz.length) }],
      ] as const) {
        const req = Object.assign(Readable.from([gz.subarray(0, 1000), gz.subarray(1000)]), { headers, complete: false });
        const file = join(dir, `${name}.csv`);
        await expect(saveBody(req as never, file, { maxBytes: 256 * MB, gzipRatio: 50 })).rejects.toMatchObject({
          code: 'too_large',
          message: expect.stringMatching(/decompresses to more than 50 times its compressed size/),
        });
        expect(statSync(file).size).toBeLessThanOrEqual(bound);
      }
      // A file that compresses as CSV exports do is taken whole.
      const csv = contacts(20_000);
      const req = Object.assign(Readable.from([gzipSync(csv)]), { headers: { 'content-encoding': 'gzip' }, complete: false });
      expect(await saveBody(req as never, join(dir, 'fine.csv'), { maxBytes: 256 * MB, gzipRatio: 50 })).toBe(csv.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the limits over HTTP', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      ...batchSources(new Date()),
      env: { SVC_JOBS_MAX_QUEUED: '2', SVC_JOBS_MAX_CUSTOMER_MB: '8', SVC_JOBS_MIN_FREE_MB: '100' },
      customers: ['bomb', 'queue', 'other', 'bytes', 'disk', 'full'].map((id) => plainCustomer(id, { enrichment_credits: 1_000 })),
    });
  }, 60_000);
  afterAll(() => srv?.close());
  const folders = (customer: string) => (existsSync(join(srv.dir, 'jobs', customer)) ? readdirSync(join(srv.dir, 'jobs', customer)) : []);

  it('refuses a gzip bomb 413 too_large, with or without a length, keeping nothing', async () => {
    // 16 MB in ≈ 33 KB: over 50 × its size + 1 MB, under the customer's room (8 MB / 2), so the ratio is what refuses it.
    const gz = bomb(16 * MB);
    expect(50 * gz.length + GZIP_SLACK_BYTES).toBeLessThan(4 * MB);
    for (const body of [gz, Readable.from([gz])]) {
      const res = await upload(srv.url, 'bomb', body, { 'content-encoding': 'gzip' });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ status: 'error', code: 'too_large', message: expect.stringMatching(/more than 50 times/) });
    }
    expect(folders('bomb')).toEqual([]);
  });

  it("refuses a customer's job past SVC_JOBS_MAX_QUEUED unfinished ones 409 conflict, before reading the file", async () => {
    // Jobs paused, so the queue is what the test makes it.
    const jobs = srv.enrichJobs as EnrichJobs & { pump: () => Promise<void> };
    jobs.pump = async () => {};
    try {
      const first = await upload(srv.url, 'queue', contacts(3));
      const second = await upload(srv.url, 'queue', contacts(3));
      expect([first.status, second.status]).toEqual([202, 202]);
      const third = await upload(srv.url, 'queue', contacts(3));
      expect(third.status).toBe(409);
      expect(third.body).toMatchObject({
        status: 'error',
        code: 'conflict',
        message: expect.stringMatching(/2 enrichment jobs .* queued or running .*at most 2/),
      });
      expect(folders('queue')).toHaveLength(2);
      const other = await upload(srv.url, 'other', contacts(3));
      expect(other.status).toBe(202);
      expect((await remove(srv.url, 'queue', first.body.id)).status).toBe(204);
      const fourth = await upload(srv.url, 'queue', contacts(3));
      expect(fourth.status).toBe(202);
      delete (jobs as Partial<typeof jobs>).pump;
      await jobs.pump();
      for (const [customer, id] of [
        ['queue', second.body.id],
        ['queue', fourth.body.id],
        ['other', other.body.id],
      ] as const)
        expect((await settled(srv.url, customer, id)).status).toBe('done');
    } finally {
      delete (jobs as Partial<typeof jobs>).pump;
    }
  });

  it("refuses a file past the customer's SVC_JOBS_MAX_CUSTOMER_MB 413 too_large, counting kept results; deleting one makes room", async () => {
    // 5,000 rows reserve 2 × the file + 5,000 KB: one fits in 8 MB, two do not.
    const csv = contacts(5_000);
    expect(5_000 * RESULT_ROW_BYTES + 2 * csv.length).toBeLessThan(8 * MB);
    expect(2 * (5_000 * RESULT_ROW_BYTES + 2 * csv.length)).toBeGreaterThan(8 * MB);
    const first = await upload(srv.url, 'bytes', csv);
    expect(first.status).toBe(202);
    expect((await settled(srv.url, 'bytes', first.body.id)).status).toBe('done');
    const second = await upload(srv.url, 'bytes', csv);
    expect(second.status).toBe(413);
    expect(second.body).toMatchObject({ code: 'too_large', message: expect.stringMatching(/hold .* of the 8 MB they may keep on this node/) });
    expect(folders('bytes')).toEqual([first.body.id]);
    // A body larger than the room left is cut off while it streams (no rows needed to know).
    const big = `email\n${'x'.repeat(2 * MB)}\n`;
    const cut = await upload(srv.url, 'bytes', Readable.from([big]));
    expect(cut.status).toBe(413);
    expect(cut.body.code).toBe('too_large');
    expect(folders('bytes')).toEqual([first.body.id]);
    expect((await remove(srv.url, 'bytes', first.body.id)).status).toBe(204);
    const again = await upload(srv.url, 'bytes', csv);
    expect(again.status).toBe(202);
    await settled(srv.url, 'bytes', again.body.id);
  }, 60_000);

  it('checks the free space (statfs) before accepting: 503 unavailable with Retry-After when the reserve would be eaten', async () => {
    const jobs = srv.enrichJobs;
    jobs.statfs = () => ({ bavail: (100 * MB) / 4096 - 1, bsize: 4096 });
    try {
      const res = await upload(srv.url, 'disk', contacts(3));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('600');
      expect(res.body).toMatchObject({ status: 'error', code: 'unavailable', message: expect.stringMatching(/100 MB stays free/) });
      expect(folders('disk')).toEqual([]);
    } finally {
      jobs.statfs = PLENTY;
    }
    const accepted = await upload(srv.url, 'disk', contacts(3));
    expect(accepted.status).toBe(202);
    await settled(srv.url, 'disk', accepted.body.id);
  });

  it('fails a running job whose disk falls under the reserve, deleting its partial result', async () => {
    const jobs = srv.enrichJobs;
    let calls = 0;
    // Plenty for the upload's two checks, then the disk is full when the job writes (no other job runs now).
    jobs.statfs = () => ({ bavail: ++calls <= 2 ? 1e9 : 1, bsize: 4096 });
    try {
      const res = await upload(srv.url, 'full', contacts(1_000));
      expect(res.status).toBe(202);
      const job = await settled(srv.url, 'full', res.body.id);
      expect(job).toMatchObject({ status: 'failed', error: expect.stringMatching(/kept free for the server/) });
      expect(job.rows_done).toBeLessThan(1_000);
      expect(readdirSync(join(srv.dir, 'jobs', 'full', job.id))).toEqual(['input.csv']);
    } finally {
      jobs.statfs = PLENTY;
    }
  });
});

describe('the retention', () => {
  it('deletes finished jobs and their files SVC_JOBS_RETENTION_DAYS after they finish, not before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-retention-'));
    let clock = Date.parse('2026-11-20T10:00:00Z');
    const limits = jobLimits(loadConfig({}, { SVC_JOBS_RETENTION_DAYS: '2' }));
    const jobs = new EnrichJobs({
      dir,
      store: {} as StateStore,
      catalog: () => {
        throw new Error('no job runs here');
      },
      accounts: {},
      log: { info() {}, error() {} },
      now: () => clock,
      limits,
    });
    try {
      const job = await jobs.jobs.insert({
        id: 'ej_old',
        customer_id: 'c',
        file_name: 'a.csv',
        column: null,
        column_used: 'email',
        input_bytes: 10,
        rows_total: 1,
        created_by: 'operator',
        node: jobs.node,
      });
      expect((await jobs.jobs.claim('elsewhere:1:x', 2, () => false))?.id).toBe(job.id);
      await jobs.jobs.settle(job.id, 'elsewhere:1:x', { status: 'done' });
      mkdirSync(jobs.folderOf('c', job.id), { recursive: true });
      writeFileSync(jobs.resultOf('c', job.id), 'email,status\n');
      clock += 2 * 86_400_000 - 1;
      await jobs.pump();
      expect(jobs.jobs.get(job.id)?.status).toBe('done');
      expect(existsSync(jobs.resultOf('c', job.id))).toBe(true);
      clock += 2;
      await jobs.pump();
      expect(jobs.jobs.get(job.id)).toBeNull();
      expect(existsSync(jobs.folderOf('c', job.id))).toBe(false);
    } finally {
      await jobs.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
