/**
 * `svc enrich` end to end: a 10,000-row file answers, row by row, what single calls of the API answer, with
 * the same credits; a job killed mid-way (SIGKILL of the real CLI process) and run again writes exactly
 * the bytes of an uninterrupted run and charges exactly as much; bad inputs and mismatched resumes are refused.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchSources, leadMix } from '../enrichment/batch-test-leads.ts';
import { EnrichedCompanyV3 } from '../enrichment/schema.ts';
import { spreadsheetSafe } from '../http/csv.ts';
import { plainCustomer } from '../testing/fixtures.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { ADDED_COLUMNS, progressFileOf } from './enrich-job.ts';
import { runCliCollected } from './run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const QUOTA = 20;

let srv: TestServer;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  srv = await startTestServer({
    ...batchSources(new Date()),
    customers: ['single', 'job', 'whole', 'crashed', 'misc'].map((id) => plainCustomer(id, { enrichment_credits: id === 'misc' ? 1000 : QUOTA })),
  });
  env = { ...process.env, SVC_DATA: join(srv.dir, 'data'), SVC_STATE: join(srv.dir, 'svc.db'), SVC_LOG: 'silent' };
  delete env.SVC_REDIS_URL;
}, 60_000);
afterAll(() => srv?.close());

const svc = (args: string[]) => runCliCollected(args, { env, cwd: srv.dir });
const file = (name: string) => join(srv.dir, name);
const charges = async (customer: string) => (await srv.store.usage(customer)).map(({ api, charges }) => ({ api, charges }));

/** A CRM export: an id, the email (some blank), a note with the characters CSV must quote, and a short row now and then. */
function contacts(n: number, seed: number): string[][] {
  const emails = leadMix(n * 2, seed)
    .filter((l): l is { email: string } => 'email' in l)
    .slice(0, n);
  return emails.map(({ email }, i) => {
    if (i % 97 === 5) return [`c${i}`, ''];
    return [`c${i}`, i % 89 === 3 ? '' : email, i % 7 === 0 ? `said "hi", then\nleft` : `note ${i}`];
  });
}
const writeCsv = (path: string, rows: string[][]) => writeFileSync(path, stringify([['id', 'email', 'note'], ...rows]));

describe('svc enrich', () => {
  it('answers 10,000 rows exactly as 10,000 single calls answer, with the same credits', async () => {
    const rows = contacts(10_000, 11);
    writeCsv(file('contacts.csv'), rows);
    const token = (
      await srv.store.createToken({ customer_id: 'single', api_group: 'company-firmographics', name: 'crm', segment_names: true, rate_limit: 100_000 })
    ).secret;
    const singles: { status: number; body: Record<string, any> }[] = [];
    for (const [, email = ''] of rows) {
      const res = await srv.inject({
        method: 'POST',
        url: '/v1/enrichment/company',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ email }),
      });
      singles.push({ status: res.statusCode, body: res.json() });
    }
    expect(new Set(singles.map((s) => s.status))).toEqual(new Set([200, 400, 402, 404, 422]));

    const run = await svc(['enrich', '--in', 'contacts.csv', '--out', 'enriched.csv', '--customer', 'job', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 10_000, resumed_from: 0, column: 'email' });
    const out = parse(readFileSync(file('enriched.csv')), { columns: true }) as Record<string, string>[];
    expect(Object.keys(out[0]!)).toEqual(['id', 'email', 'note', ...ADDED_COLUMNS]);
    expect(out).toHaveLength(rows.length);
    const mismatches: string[] = [];
    out.forEach((row, i) => {
      const [id, email = '', note = ''] = rows[i]!;
      const single = singles[i]!;
      // A blank email is the single route's 400 `blank`; a file row has no other field to fall back on: 422.
      const status = single.status === 400 ? 422 : single.status;
      const company = 'company' in single.body && single.status !== 400 ? single.body.company : null;
      const expected: Record<string, string> = { id: id!, email, note, status: String(status) };
      for (const f of Object.keys(EnrichedCompanyV3.shape)) expected[`company_${f}`] = company?.[f] == null ? '' : String(company[f]);
      expected.segment_ids = single.body.segments?.ids.join(';') ?? '';
      expected.segment_names = single.body.segments?.names.join(';') ?? '';
      // Every cell as the service writes CSV: a formula-like one (a phone's leading +) defused.
      if (JSON.stringify(row) !== JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, spreadsheetSafe(expected[k]!)]))))
        mismatches.push(`row ${i + 1}: ${JSON.stringify(row)} ≠ ${JSON.stringify(expected)}`);
    });
    expect(mismatches.slice(0, 3)).toEqual([]);
    expect(await charges('job')).toEqual(await charges('single'));
    expect(await charges('job')).toEqual([{ api: 'company-firmographics-v3', charges: QUOTA }]);
    expect(existsSync(progressFileOf(file('enriched.csv')))).toBe(false);
  }, 120_000);

  it('resumes a job killed mid-way (SIGKILL) into the very bytes of an uninterrupted run, charging nothing twice', async () => {
    writeCsv(file('big.csv'), contacts(40_000, 23));
    const whole = await svc(['enrich', '--in', 'big.csv', '--out', 'whole.csv', '--customer', 'whole']);
    expect(whole.code, whole.stderr).toBe(0);

    const out = file('crashed.csv');
    const progress = progressFileOf(out);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'enrich', '--in', file('big.csv'), '--out', out, '--customer', 'crashed'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    let running = true;
    const exited = new Promise<void>((r) =>
      child.on('exit', () => {
        running = false;
        r();
      }),
    );
    // Killed once its progress file says a few thousand rows are done, while rows go on being written past it.
    let killedAt: { rows: number; bytes: number } | null = null;
    for (let i = 0; i < 6000 && killedAt === null && running; i++) {
      await new Promise((r) => setTimeout(r, 10));
      if (!existsSync(progress)) continue;
      try {
        const cp = JSON.parse(readFileSync(progress, 'utf8')) as { rows: number; bytes: number };
        // Rows are being written past the checkpoint: the resume must cut them off and answer them again.
        if (cp.rows >= 3000 && statSync(out).size > cp.bytes) {
          child.kill('SIGKILL');
          killedAt = cp;
        }
      } catch {
        // read between the rename and the write: try again
      }
    }
    await exited;
    expect(killedAt, `never saw progress: ${stderr}`).not.toBeNull();
    const cp = JSON.parse(readFileSync(progress, 'utf8')) as { rows: number; bytes: number; complete: boolean };
    expect(cp.complete, 'killed before it finished').toBe(false);
    expect(cp.rows).toBeLessThan(40_000);
    expect(statSync(out).size).toBeGreaterThanOrEqual(cp.bytes);

    const resumed = await svc(['enrich', '--in', 'big.csv', '--out', 'crashed.csv', '--customer', 'crashed', '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 40_000, resumed_from: cp.rows });
    expect(readFileSync(out).equals(readFileSync(file('whole.csv')))).toBe(true);
    expect(existsSync(progress)).toBe(false);
    expect(await charges('crashed')).toEqual(await charges('whole'));
    expect(await charges('crashed')).toEqual([{ api: 'company-firmographics-v3', charges: QUOTA }]);
  }, 180_000);

  it('reads a domain column, finds the column by name case-insensitively, and refuses what it cannot do safely', async () => {
    writeFileSync(file('accounts.csv'), '\uFEFFName,Website\nAcme,https://www.co2.example/about\nNobody,unknown.example\nBlank,\n');
    const ok = await svc(['enrich', '--in', 'accounts.csv', '--out', 'accounts-out.csv', '--customer', 'misc', '--column', 'website', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const rows = parse(readFileSync(file('accounts-out.csv')), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.Name, r.company_companyId, r.status])).toEqual([
      ['Acme', '910002', '200'],
      ['Nobody', '', '404'],
      ['Blank', '', '422'],
    ]);

    writeFileSync(file('upper.csv'), 'EMAIL\nann@co4.example\n');
    expect((await svc(['enrich', '--in', 'upper.csv', '--out', 'upper-out.csv', '--customer', 'misc'])).code).toBe(0);
    expect(readFileSync(file('upper-out.csv'), 'utf8')).toMatch(/\nann@co4\.example,910004,/);

    const refused = async (args: string[], message: RegExp) => {
      const r = await svc(['enrich', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    };
    await refused(['--in', 'upper.csv', '--out', 'upper-out.csv', '--customer', 'misc'], /already exists/);
    await refused(['--in', 'upper.csv', '--out', 'x.csv', '--customer', 'nobody'], /unknown customer nobody/);
    await refused(['--in', 'upper.csv', '--out', 'x.csv', '--customer', 'misc', '--column', 'phone'], /no column "phone"/);
    await refused(['--in', 'missing.csv', '--out', 'x.csv', '--customer', 'misc'], /missing\.csv not found/);
    await refused(['--in', 'upper.csv', '--customer', 'misc'], /--out is required/);
    writeFileSync(file('clash.csv'), 'email,status\na@co1.example,lead\n');
    await refused(['--in', 'clash.csv', '--out', 'x.csv', '--customer', 'misc'], /already has column\(s\) status/);
    writeFileSync(file('wide.csv'), 'email\na@co1.example\nb@co1.example,extra\n');
    await refused(['--in', 'wide.csv', '--out', 'wide-out.csv', '--customer', 'misc'], /wide\.csv line 3: 2 fields, the header has 1: fix the file/);
    // A progress file belongs to its input as it was: a changed input (or another customer) is not resumed into it.
    writeFileSync(file('wide.csv'), 'email\na@co1.example\nb@co1.example\n');
    await refused(['--in', 'wide.csv', '--out', 'wide-out.csv', '--customer', 'misc'], /belongs to another job .*or the input changed/);
    writeFileSync(file('wide.csv'), 'email\na@co1.example\nb@co1.example,extra\n');
    await refused(['--in', 'wide.csv', '--out', 'wide-out.csv', '--customer', 'single'], /belongs to another job/);
    expect(existsSync(file('x.csv'))).toBe(false);
  }, 60_000);
});
