/**
 * `data import --intent-topics`: a Company Surge-style export into topics.csv of a sources folder — both key
 * forms (domain, company id), the vendors' header names, weeks read as their Monday, accounts the sources
 * do not hold counted; a bad file refused whole with each bad row's line, the folder left as it was.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliCollected } from '../../server/cli/run.ts';
import { ImportError } from './errors.ts';
import { type IntentTopicsReport, importIntentTopics } from './intent-topics.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-topics-import-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COMPANIES = [
  'company_id,name,domain,industry',
  '100001,Alpha Corp,alpha.example,Software',
  '100002,Beta GmbH,beta.example,Manufacturing',
  '100003,Gamma Ltd,gamma.example,Retail',
].join('\n');
// beta.co.uk is Beta's second domain; alpha.example is listed for Gamma too, but it is Alpha's primary one.
const DOMAINS = ['domain,company_id', 'beta.co.uk,100002', 'alpha.example,100003'].join('\n');

let n = 0;
/** A sources folder as `data import` or `data generate` leaves it (companies, domains, networks). */
function sources(): string {
  const dir = join(root, `sources-${++n}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'companies.csv'), `${COMPANIES}\n`);
  writeFileSync(join(dir, 'domains.csv'), `${DOMAINS}\n`);
  writeFileSync(join(dir, 'networks.csv'), 'network,kind,company_id,confidence\n203.0.113.0/24,company,100001,High\n');
  return dir;
}

const vendorFile = (name: string, lines: string[]): string => {
  const file = join(root, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};

const topicsOf = (dir: string) => readFileSync(join(dir, 'topics.csv'), 'utf8');

describe('data import --intent-topics, keyed by domain (a Company Surge export)', () => {
  let dir: string;
  let report: IntentTopicsReport;
  beforeEach(async () => {
    dir = sources();
    const file = vendorFile('surge.csv', [
      'Company Name,Domain,Size,Industry,Category,Topic,Topic Id,Composite Score,Composite Score Delta,Week Of',
      'Alpha,https://www.Alpha.example/about,Large,Software,Marketing,Customer Data Platform,1001,71.6,+12,2026-10-28',
      'Beta,beta.co.uk,Medium,Manufacturing,Tech,  Identity   Resolution ,1002,64,0,2026-10-26',
      'Unknown,unknown.example,Small,Retail,Tech,CRM,1003,90,1,2026-10-26',
      'Alpha,alpha.example,Large,Software,Marketing,Customer Data Platform,1001,40,-3,2026-10-19T08:00:00Z',
    ]);
    report = await importIntentTopics({ out: dir, file });
  });

  it('writes topics.csv: each domain resolved (scheme, www., path, case aside; a second domain too), weeks as their Monday, scores rounded', () => {
    expect(topicsOf(dir)).toBe(
      [
        'company_id,topic,score,week',
        '100001,Customer Data Platform,72,2026-10-26',
        '100002,Identity Resolution,64,2026-10-26',
        '100001,Customer Data Platform,40,2026-10-19',
        '',
      ].join('\n'),
    );
  });

  it('reports rows, keys, accounts, topics and weeks, and the rows of accounts the sources do not hold with their line', () => {
    expect(report).toMatchObject({
      rows: 4,
      written: 3,
      keyed_by: { company_id: 0, domain: 4 },
      unmatched: 1,
      unmatched_rows: [{ line: 4, key: 'unknown.example' }],
      accounts: 2,
      topics: 2,
      weeks: { first: '2026-10-19', latest: '2026-10-26' },
    });
  });

  it('keeps every other file of the sources folder', () => {
    expect(readdirSync(dir).sort()).toEqual(['companies.csv', 'domains.csv', 'networks.csv', 'topics.csv']);
    expect(readFileSync(join(dir, 'companies.csv'), 'utf8')).toBe(`${COMPANIES}\n`);
  });
});

describe('data import --intent-topics, keyed by company id', () => {
  it('reads company_id (a blank one falls back to the row’s domain); an id the sources lack is unmatched', async () => {
    const dir = sources();
    const file = vendorFile('by-id.csv', [
      'company_id,domain,topic,score,week',
      '100003,,crm,88,2026-10-26',
      ',beta.example,crm,61,2026-10-26',
      '999999,,crm,70,2026-10-26',
    ]);
    const report = await importIntentTopics({ out: dir, file });
    expect(topicsOf(dir)).toBe(['company_id,topic,score,week', '100003,crm,88,2026-10-26', '100002,crm,61,2026-10-26', ''].join('\n'));
    expect(report).toMatchObject({ rows: 3, written: 2, keyed_by: { company_id: 2, domain: 1 }, unmatched: 1, unmatched_rows: [{ line: 4, key: '999999' }] });
  });
});

describe('a bad file is refused whole, each bad row named by its line', () => {
  it('lists the bad rows (score, week, topic, key) and leaves the folder as it was', async () => {
    const dir = sources();
    await importIntentTopics({ out: dir, file: vendorFile('good.csv', ['domain,topic,score,week', 'alpha.example,crm,70,2026-10-26']) });
    const before = topicsOf(dir);
    const file = vendorFile('bad.csv', [
      'Domain,Topic,Score,Week',
      'alpha.example,crm,140,2026-10-26',
      'alpha.example,crm,55,',
      'beta.example,,55,2026-10-26',
      ',crm,55,2026-10-26',
      'gamma.example,crm,55,2026-02-30',
      'gamma.example,crm,55,2026-10-26',
      'gamma.example,crm,abc,2026-10-26',
    ]);
    const error = await importIntentTopics({ out: dir, file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as Error).message).toBe(
      [
        `--intent-topics ${file}: 6 bad rows, nothing was imported:`,
        '  line 2: score: a number from 0 to 100 (got "140")',
        '  line 3: week: a date YYYY-MM-DD (any day of the week) (got "")',
        '  line 4: topic: a topic name is not blank (got "")',
        '  line 5: no Domain or Company ID',
        '  line 6: week: a date YYYY-MM-DD (any day of the week) (got "2026-02-30")',
        '  line 8: score: a number from 0 to 100 (got "abc")',
      ].join('\n'),
    );
    expect(topicsOf(dir)).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['companies.csv', 'domains.csv', 'networks.csv', 'topics.csv']);
  });

  it('names the columns it could not find, with the header it read', async () => {
    const file = vendorFile('no-columns.csv', ['Company,Topic Name,Intent', 'Alpha,crm,70']);
    await expect(importIntentTopics({ out: sources(), file })).rejects.toThrow(
      `--intent-topics ${file}: missing a Domain or Company ID column, a Score column, a Week column (its header: "Company", "Topic Name", "Intent")`,
    );
  });

  it('refuses an empty file, a header without rows, and a folder without companies', async () => {
    await expect(importIntentTopics({ out: sources(), file: vendorFile('empty.csv', []) })).rejects.toThrow(/empty file/);
    await expect(importIntentTopics({ out: sources(), file: vendorFile('header.csv', ['domain,topic,score,week']) })).rejects.toThrow(
      /no rows; nothing was imported/,
    );
    await expect(importIntentTopics({ out: join(root, 'nothing-here'), file: vendorFile('x.csv', ['domain,topic,score,week']) })).rejects.toThrow(
      /companies\.csv is missing/,
    );
  });
});

describe('svc data import --intent-topics', () => {
  it('prints the report (--json) and exits 0; a bad file exits 2 naming the lines', async () => {
    const dir = sources();
    const good = vendorFile('cli.csv', ['Domain,Topic,Composite Score,Date', 'gamma.example,erp,66,2026-10-30']);
    const ok = await runCliCollected(['data', 'import', '--out', dir, '--intent-topics', good, '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ rows: 1, written: 1, weeks: { first: '2026-10-26', latest: '2026-10-26' } });
    expect(topicsOf(dir)).toBe('company_id,topic,score,week\n100003,erp,66,2026-10-26\n');
    const bad = await runCliCollected([
      'data',
      'import',
      '--out',
      dir,
      '--intent-topics',
      vendorFile('cli-bad.csv', ['domain,topic,score,week', 'alpha.example,erp,-1,2026-10-26']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('line 2: score: a number from 0 to 100 (got "-1")');
  });
});
