/**
 * The console upload of bulk enrichment, over HTTP: an uploaded file's result is byte for byte what
 * `svc enrich` writes for the same file, with the same credits; a server killed (SIGKILL) or stopped in
 * the middle of a job resumes it on the next start on the same state and folder, into the very bytes of
 * an uninterrupted run, charging nothing twice; bad, oversized and foreign uploads are refused.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../auth/password.ts';
import { runCliCollected } from '../../cli/run.ts';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../observability/logger.ts';
import { type RunningServer, startServer } from '../../serve.ts';
import { plainCustomer } from '../../testing/fixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../../testing/test-server.ts';
import { batchSources, leadMix } from '../batch-test-leads.ts';
import { ADDED_COLUMNS } from './file-job.ts';
import type { EnrichJob } from './job-store.ts';
import { saveBody } from './upload.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const QUOTA = 20;
const BEARER = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

let srv: TestServer;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  srv = await startTestServer({
    ...batchSources(new Date()),
    customers: ['upload', 'cli', 'killed', 'stopped', 'whole', 'misc', 'broke', 'other'].map((id) =>
      plainCustomer(id, { enrichment_credits: id === 'misc' || id === 'other' ? 1000 : id === 'broke' ? 0 : QUOTA }),
    ),
  });
  env = { ...process.env, SVC_DATA: join(srv.dir, 'data'), SVC_STATE: join(srv.dir, 'svc.db'), SVC_LOG: 'silent' };
  delete env.SVC_REDIS_URL;
}, 60_000);
afterAll(() => srv?.close());

const file = (name: string) => join(srv.dir, name);
const charges = async (customer: string, store = srv.store) => (await store.usage(customer)).map(({ api, charges }) => ({ api, charges }));

/** A CRM export: an id, the email (some blank), a note CSV must quote, a short row now and then. */
function contacts(n: number, seed: number): string {
  const emails = leadMix(n * 2, seed)
    .filter((l): l is { email: string } => 'email' in l)
    .slice(0, n);
  const rows = emails.map(({ email }, i) =>
    i % 97 === 5 ? [`c${i}`, ''] : [`c${i}`, i % 89 === 3 ? '' : email, i % 7 === 0 ? `said "hi", then\nleft` : `note ${i}`],
  );
  return stringify([['id', 'email', 'note'], ...rows]);
}

/** An upload over real HTTP (the body streamed as the browser sends a File). */
async function upload(base: string, customer: string, csv: string | Buffer, query = '', headers: Record<string, string> = {}) {
  return fetch(`${base}/admin/api/customers/${customer}/enrichment-jobs${query}`, {
    method: 'POST',
    headers: { ...BEARER, 'content-type': 'text/csv', ...headers },
    body: typeof csv === 'string' ? csv : new Uint8Array(csv),
  });
}
const getJob = async (base: string, customer: string, id: string): Promise<EnrichJob> =>
  (await fetch(`${base}/admin/api/customers/${customer}/enrichment-jobs/${id}`, { headers: BEARER })).json() as Promise<EnrichJob>;

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const finished = (base: string, customer: string, id: string) =>
  until(`job ${id}`, async () => {
    const job = await getJob(base, customer, id);
    return job.status === 'done' || job.status === 'failed' ? job : null;
  });
const result = async (base: string, customer: string, id: string) =>
  Buffer.from(await (await fetch(`${base}/admin/api/customers/${customer}/enrichment-jobs/${id}/result.csv`, { headers: BEARER })).arrayBuffer());

/** `svc enrich` on the same file, for a customer seeded like the uploader: the oracle. */
async function cliResult(input: string, customer: string): Promise<Buffer> {
  const out = file(`${customer}-cli-out.csv`);
  const run = await runCliCollected(['enrich', '--in', input, '--out', out, '--customer', customer], { env, cwd: srv.dir });
  expect(run.code, run.stderr).toBe(0);
  return readFileSync(out);
}

describe('the console upload of bulk enrichment', () => {
  it('enriches an uploaded file exactly as svc enrich does the same file, with the same credits, and shows its progress', async () => {
    const csv = contacts(3_000, 11);
    writeFileSync(file('contacts.csv'), csv);
    const res = await upload(srv.url, 'upload', csv, '?name=contacts.csv');
    expect(res.status, await res.clone().text()).toBe(202);
    const queued = (await res.json()) as EnrichJob;
    expect(queued).toMatchObject({ customer_id: 'upload', file_name: 'contacts.csv', column_used: 'email', rows_total: 3_000, created_by: 'operator' });
    expect(res.headers.get('location')).toBe(`/admin/api/customers/upload/enrichment-jobs/${queued.id}`);

    const done = await finished(srv.url, 'upload', queued.id);
    expect(done).toMatchObject({ status: 'done', rows_done: 3_000, credits: QUOTA, error: null, seconds_left: null });
    expect(Object.values(done.statuses).reduce((a, b) => a + b, 0)).toBe(3_000);
    expect(Object.keys(done.statuses).sort()).toEqual(['200', '402', '404', '422']);
    expect(done.rows_per_second).toBeGreaterThan(0);

    const download = await fetch(`${srv.url}/admin/api/customers/upload/enrichment-jobs/${queued.id}/result.csv`, { headers: BEARER });
    expect(download.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(download.headers.get('content-disposition')).toMatch(/contacts-enriched\.csv/);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.equals(await cliResult(file('contacts.csv'), 'cli'))).toBe(true);
    expect(Object.keys((parse(bytes, { columns: true, to: 1 }) as Record<string, string>[])[0]!)).toEqual(['id', 'email', 'note', ...ADDED_COLUMNS]);
    expect(await charges('upload')).toEqual(await charges('cli'));
    expect(await charges('upload')).toEqual([{ api: 'company-firmographics-v3', charges: QUOTA }]);

    const list = await (await fetch(`${srv.url}/admin/api/customers/upload/enrichment-jobs`, { headers: BEARER })).json();
    expect(list.jobs.map((j: EnrichJob) => [j.id, j.status])).toEqual([[queued.id, 'done']]);
    expect(typeof list.node).toBe('string');
  }, 120_000);

  it('refuses a file the job could not finish with 422 naming the line, before storing or charging anything', async () => {
    const refused = async (csv: string, query: string, message: RegExp) => {
      const res = await upload(srv.url, 'misc', csv, query);
      expect(res.status, `${csv}`).toBe(422);
      expect((await res.json()).message).toMatch(message);
    };
    await refused('email\na@co1.example\nb@co1.example,extra\n', '', /^line 3: 2 fields, the header has 1/);
    await refused('email,note\na@co1.example,"unclosed\n', '', /line 2/);
    await refused('name,phone\nAnn,1\n', '', /no email or domain column/);
    await refused('email\na@co1.example\n', '?column=website', /no column "website"/);
    await refused('email,status\na@co1.example,lead\n', '', /already has column\(s\) status/);
    await refused('email\n', '', /no rows/);
    await refused('', '', /empty/);
    expect(await charges('misc')).toEqual([]);
    const list = await (await fetch(`${srv.url}/admin/api/customers/misc/enrichment-jobs`, { headers: BEARER })).json();
    expect(list.jobs).toEqual([]);
    expect(readdirSync(join(srv.dir, 'jobs', 'misc'))).toEqual([]);
  });

  it('answers 413 for a file over the limit, 415 for another type, 402 without credits, 404 for another customer', async () => {
    // Announced too large: refused before a byte is read.
    const big = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${srv.url}/admin/api/customers/misc/enrichment-jobs`, {
        method: 'POST',
        headers: { ...BEARER, 'content-type': 'text/csv', 'content-length': String(300 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      req.write('email\n');
    });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).message).toMatch(/larger than 256 MB/);
    // Sent without a length (chunked), cut off once it passes the limit.
    const out = file('cut.csv');
    const body = Object.assign(Readable.from([Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b')]), { headers: {} as Record<string, string>, complete: false });
    await expect(saveBody(body as never, out, 1000)).rejects.toMatchObject({ code: 'too_large' });

    const json = await fetch(`${srv.url}/admin/api/customers/misc/enrichment-jobs`, {
      method: 'POST',
      headers: { ...BEARER, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    const broke = await upload(srv.url, 'broke', 'email\na@co1.example\n');
    expect(broke.status).toBe(402);
    expect((await broke.json()).message).toMatch(/no Enrichment API credits left/);

    const theirs = (await (await upload(srv.url, 'other', 'email\na@co1.example\n')).json()) as EnrichJob;
    for (const path of ['', '/result.csv']) {
      const res = await fetch(`${srv.url}/admin/api/customers/misc/enrichment-jobs/${theirs.id}${path}`, { headers: BEARER });
      expect(res.status).toBe(404);
    }
    const del = await fetch(`${srv.url}/admin/api/customers/misc/enrichment-jobs/${theirs.id}`, { method: 'DELETE', headers: BEARER });
    expect(del.status).toBe(404);
    expect((await getJob(srv.url, 'other', theirs.id)).id).toBe(theirs.id);

    // A user of another customer: the customer's 404, not 403.
    await srv.users.createUser({
      customer_id: 'misc',
      email: 'm@misc.test',
      role: 'marketer',
      password_hash: await hashPassword('a long enough passphrase'),
      sso: false,
    });
    const login = await fetch(`${srv.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: srv.url },
      body: JSON.stringify({ email: 'm@misc.test', password: 'a long enough passphrase' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const foreign = await fetch(`${srv.url}/admin/api/customers/other/enrichment-jobs/${theirs.id}`, { headers: { cookie } });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).message).toBe('unknown customer other');
  });

  it('takes a gzip-compressed upload, the named column, and the file name given', async () => {
    const csv = 'Name,Website\nAcme,https://www.co2.example/about\nNobody,unknown.example\n';
    const res = await upload(srv.url, 'misc', gzipSync(csv), '?column=website&name=../accounts.csv', { 'content-encoding': 'gzip' });
    expect(res.status, await res.clone().text()).toBe(202);
    const job = (await res.json()) as EnrichJob;
    expect(job).toMatchObject({ column: 'website', column_used: 'Website', rows_total: 2, file_name: 'accounts.csv', input_bytes: csv.length });
    await finished(srv.url, 'misc', job.id);
    const rows = parse(await result(srv.url, 'misc', job.id), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.Name, r.company_companyId, r.status])).toEqual([
      ['Acme', '910002', '200'],
      ['Nobody', '', '404'],
    ]);
    const bad = await upload(srv.url, 'misc', Buffer.from('not gzip'), '', { 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
  });

  it('removes a job and its files (a running one stops first)', async () => {
    const res = await upload(srv.url, 'misc', contacts(20_000, 5));
    const job = (await res.json()) as EnrichJob;
    await until('the job to start', async () => ((await getJob(srv.url, 'misc', job.id)).rows_done > 0 ? true : null));
    const del = await fetch(`${srv.url}/admin/api/customers/misc/enrichment-jobs/${job.id}`, { method: 'DELETE', headers: BEARER });
    expect(del.status).toBe(204);
    expect((await fetch(`${srv.url}/admin/api/customers/misc/enrichment-jobs/${job.id}`, { headers: BEARER })).status).toBe(404);
    expect(existsSync(join(srv.dir, 'jobs', 'misc', job.id))).toBe(false);
  }, 60_000);
});

describe('a job interrupted by the server', () => {
  const ROWS = 40_000;
  let whole: Buffer;
  beforeAll(async () => {
    writeFileSync(file('big.csv'), contacts(ROWS, 23));
    whole = await cliResult(file('big.csv'), 'whole');
  }, 120_000);

  /** A config of its own (state and jobs folder), on the test server's data: what two successive servers share. */
  const configOf = (name: string) =>
    loadConfig(
      {},
      {
        PORT: '0',
        HOST: '127.0.0.1',
        SVC_DATA: join(srv.dir, 'data'),
        SVC_STATE: file(`${name}.db`),
        SVC_JOBS_DIR: file(`${name}-jobs`),
        SVC_EVENTS_DIR: file(`${name}-events`),
        SVC_LOG: 'error',
        SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      },
    );

  /** Uploads big.csv and waits until a few thousand rows are done (and rows are still coming). */
  async function midway(base: string, customer: string): Promise<string> {
    const res = await upload(base, customer, readFileSync(file('big.csv')));
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as EnrichJob;
    await until('rows done', async () => {
      const job = await getJob(base, customer, id);
      expect(job.status).not.toBe('done');
      return job.rows_done >= 3_000 ? true : null;
    });
    return id;
  }

  async function resumed(config: ReturnType<typeof configOf>, customer: string, id: string) {
    const next: RunningServer = await startServer(config, createLogger('error'));
    try {
      const done = await finished(next.url, customer, id);
      expect(done).toMatchObject({ status: 'done', rows_done: ROWS, rows_total: ROWS, credits: QUOTA });
      expect(Object.values(done.statuses).reduce((a, b) => a + b, 0)).toBe(ROWS);
      expect((await result(next.url, customer, id)).equals(whole)).toBe(true);
      expect(await charges(customer, next.store)).toEqual(await charges('whole'));
      expect(await charges(customer, next.store)).toEqual([{ api: 'company-firmographics-v3', charges: QUOTA }]);
    } finally {
      await next.close();
    }
  }

  it('resumes after a crash (SIGKILL of the server process) into the bytes of an uninterrupted run, charging nothing twice', async () => {
    const config = configOf('killed');
    // The customer, provisioned in the state the server process then reads.
    const first = await startServer(config, createLogger('error'));
    await first.store.importCustomer(plainCustomer('killed', { enrichment_credits: QUOTA }));
    await first.close();
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'serve', '--json'], {
      cwd: ROOT,
      env: { ...env, ...Object.fromEntries(Object.entries(config).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))), SVC_LOG: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    const base = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`server exited: ${stderr}`)));
    });
    try {
      const id = await midway(base, 'killed');
      child.kill('SIGKILL');
      await exited;
      await resumed(config, 'killed', id);
    } finally {
      child.kill('SIGKILL');
    }
  }, 180_000);

  it('resumes after a stop (close) on the next start, the same way', async () => {
    const config = configOf('stopped');
    const first = await startServer(config, createLogger('error'));
    await first.store.importCustomer(plainCustomer('stopped', { enrichment_credits: QUOTA }));
    const id = await midway(first.url, 'stopped');
    await first.close();
    await resumed(config, 'stopped', id);
  }, 180_000);
});
