/**
 * `data import --intent-topics FILE`: a vendor's third-party intent export (a Company Surge®-style CSV: per
 * account, topic and week a score 0–100) → topics.csv of the sources folder (../sources/schema.ts TopicRow),
 * each row's account resolved to a company of the sources.
 *
 * The header is read case-insensitively, spaces, `-` and `_` ignored (`Composite Score`, `company_domain`),
 * extra columns ignored (company name, size, industry, category, topic id, deltas …). Accepted names:
 *   account   `Company ID` (company_id) or `Domain` (Company Domain, Website, Company Website); with both, a
 *             row's company id wins and its domain is read when the id cell is blank
 *   topic     `Topic` (Topic Name)
 *   score     `Score` (Composite Score, Surge Score, Topic Score, Intent Score): 0–100, decimals rounded
 *   week      `Week` (Week Of, Week Start, Week Start Date, Week Ending, Date): a date YYYY-MM-DD (or an ISO
 *             date-time), any day of the week, stored as the week's Monday
 * A domain is compared without scheme, `www.`, path or case and names the company whose primary domain it
 * is (else the first, by company id, that lists it in domains.csv), as enrichment resolves it.
 *
 * A bad file is refused whole, nothing written: no such columns, no rows, unreadable CSV, or any bad row —
 * the error lists the bad rows by line (the header is line 1; at most MAX_SHOWN of them, and how many).
 * A row whose account the sources do not hold is no error (a vendor covers far more companies than a
 * catalog): it is counted in the report, with the first few by line.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CompanyRow } from '../../core/catalog-records.ts';
import { TopicName, TopicScore, TopicWeek } from '../../core/topic-records.ts';
import { normaliseDomain } from '../catalog/keys.ts';
import { CsvWriter } from '../generate/csv-writer.ts';
import type { Progress } from '../progress.ts';
import { CsvSyntaxError, csvRecordBatches } from '../sources/csv-records.ts';
import { readCsvBatches } from '../sources/read.ts';
import { DomainRow, SOURCE_FILES, TOPIC_COLUMNS } from '../sources/schema.ts';
import { ImportError } from './errors.ts';
import { checkOutputFolder, replaceFolder } from './output-folder.ts';

/** Bad rows (and unmatched ones) an error or a report lists by line at most. */
export const MAX_SHOWN = 20;

type Column = 'company_id' | 'domain' | 'topic' | 'score' | 'week';

/** The header names each column is recognised by (lower-cased, spaces, `-` and `_` removed). */
export const TOPIC_HEADER_NAMES: Readonly<Record<Column, readonly string[]>> = {
  company_id: ['companyid'],
  domain: ['domain', 'companydomain', 'website', 'companywebsite'],
  topic: ['topic', 'topicname'],
  score: ['score', 'compositescore', 'surgescore', 'topicscore', 'intentscore'],
  week: ['week', 'weekof', 'weekstart', 'weekstartdate', 'weekending', 'date'],
};

const headerKey = (h: string) =>
  h
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');

const VendorRow = z.object({ topic: TopicName, score: TopicScore, week: TopicWeek });

export interface IntentTopicsReport {
  file: string;
  /** Data rows read. */
  rows: number;
  /** Rows written to topics.csv (their account found). */
  written: number;
  /** Rows keyed by each form (the one read for the row). */
  keyed_by: { company_id: number; domain: number };
  /** Rows whose account the sources do not hold. */
  unmatched: number;
  /** The first of them (MAX_SHOWN at most): line and the key as written. */
  unmatched_rows: { line: number; key: string }[];
  /** Distinct companies and topics written. */
  accounts: number;
  topics: number;
  /** The first and the latest week written (Mondays); null when none. */
  weeks: { first: string; latest: string } | null;
}

/** Where a row's account is found: company ids, and domains (primary owner first). */
export interface AccountKeys {
  ids: ReadonlySet<string>;
  byDomain: ReadonlyMap<string, string>;
}

/**
 * The accounts of a sources folder: companies.csv (its primary domains) and domains.csv (the others); a
 * domain names its primary owner, else the lowest company id listing it (catalog.ts `companiesByDomain`).
 */
export async function accountKeysOf(dir: string): Promise<AccountKeys> {
  const companies = join(dir, SOURCE_FILES.companies);
  if (!existsSync(companies))
    throw new ImportError(
      `--intent-topics: ${companies} is missing: the topics name companies of a sources folder (import or generate its companies first, or give network sources in the same command)`,
    );
  const ids = new Set<string>();
  const primary = new Map<string, string>();
  const extra = new Map<string, string>();
  const lower = (map: Map<string, string>, domain: string, id: string) => {
    const had = map.get(domain);
    if (had === undefined || id < had) map.set(domain, id);
  };
  for await (const batch of readCsvBatches(companies, CompanyRow)) {
    for (const c of batch) {
      ids.add(c.company_id);
      const d = normaliseDomain(c.domain);
      if (d) lower(primary, d, c.company_id);
    }
  }
  const domains = join(dir, SOURCE_FILES.domains);
  if (existsSync(domains)) {
    for await (const batch of readCsvBatches(domains, DomainRow)) {
      for (const r of batch) {
        const d = normaliseDomain(r.domain);
        if (d && ids.has(r.company_id)) lower(extra, d, r.company_id);
      }
    }
  }
  for (const [d, id] of extra) if (!primary.has(d)) primary.set(d, id);
  return { ids, byDomain: primary };
}

/** Which column of the header each field is read from; ImportError when one is missing. */
function columnsOf(file: string, header: readonly string[]): Record<Column, number> {
  const keys = header.map(headerKey);
  const at = (c: Column) => keys.findIndex((k) => TOPIC_HEADER_NAMES[c].includes(k));
  const found = { company_id: at('company_id'), domain: at('domain'), topic: at('topic'), score: at('score'), week: at('week') };
  const missing = [
    ...(found.company_id < 0 && found.domain < 0 ? ['a Domain or Company ID column'] : []),
    ...(['topic', 'score', 'week'] as const).filter((c) => found[c] < 0).map((c) => `a ${c[0].toUpperCase()}${c.slice(1)} column`),
  ];
  if (missing.length > 0) {
    const shown = header.map((h) => JSON.stringify(h.trim().slice(0, 40))).join(', ');
    throw new ImportError(`--intent-topics ${file}: missing ${missing.join(', ')} (its header: ${shown}); the accepted names are in docs/data.md`);
  }
  return found;
}

/** Reads the vendor file, writes `<outDir>/topics.csv`; ImportError (nothing kept) for a bad file. */
export async function writeIntentTopics(file: string, accounts: AccountKeys, outDir: string, progress?: Progress): Promise<IntentTopicsReport> {
  if (!existsSync(file)) throw new ImportError(`--intent-topics ${file}: no such file`);
  const out = new CsvWriter(join(outDir, SOURCE_FILES.topics), TOPIC_COLUMNS);
  const report: IntentTopicsReport = {
    file,
    rows: 0,
    written: 0,
    keyed_by: { company_id: 0, domain: 0 },
    unmatched: 0,
    unmatched_rows: [],
    accounts: 0,
    topics: 0,
    weeks: null,
  };
  const bad: string[] = [];
  let badRows = 0;
  const companies = new Set<string>();
  const topics = new Set<string>();
  let first = '';
  let latest = '';
  let columns: Record<Column, number> | null = null;
  progress?.phase('intent topics');
  try {
    for await (const records of csvRecordBatches(file)) {
      for (const { fields, line } of records) {
        if (columns === null) {
          columns = columnsOf(file, fields);
          continue;
        }
        report.rows++;
        const cell = (i: number) => (i >= 0 ? (fields[i] ?? '').trim() : '');
        const problem = (what: string) => {
          badRows++;
          if (bad.length < MAX_SHOWN) bad.push(`line ${line}: ${what}`);
        };
        const parsed = VendorRow.safeParse({ topic: cell(columns.topic), score: cell(columns.score), week: cell(columns.week) });
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          const field = String(issue.path[0]) as 'topic' | 'score' | 'week';
          problem(`${field}: ${issue.message} (got ${JSON.stringify(cell(columns[field]).slice(0, 60))})`);
          continue;
        }
        const id = cell(columns.company_id);
        const domainCell = cell(columns.domain);
        if (id === '' && domainCell === '') {
          problem('no Domain or Company ID');
          continue;
        }
        const companyId = id !== '' ? (accounts.ids.has(id) ? id : null) : (accounts.byDomain.get(normaliseDomain(domainCell)) ?? null);
        report.keyed_by[id !== '' ? 'company_id' : 'domain']++;
        if (companyId === null) {
          report.unmatched++;
          if (report.unmatched_rows.length < MAX_SHOWN) report.unmatched_rows.push({ line, key: (id || domainCell).slice(0, 200) });
          continue;
        }
        const { topic, score, week } = parsed.data;
        if (badRows > 0) continue; // nothing will be kept: only the remaining bad rows are of interest
        out.write([companyId, topic, String(score), week]);
        report.written++;
        companies.add(companyId);
        topics.add(topic.toLowerCase());
        if (first === '' || week < first) first = week;
        if (week > latest) latest = week;
      }
      progress?.update(report.rows);
      await out.drain();
    }
  } catch (e) {
    out.destroy();
    if (e instanceof CsvSyntaxError) throw new ImportError(`--intent-topics ${file}: ${e.message}; nothing was imported`);
    throw e;
  }
  progress?.end();
  await out.close();
  if (columns === null) throw new ImportError(`--intent-topics ${file}: empty file (a header row is required: Domain or Company ID, Topic, Score, Week)`);
  if (badRows > 0) {
    const more = badRows > bad.length ? `\n  … and ${badRows - bad.length} more` : '';
    throw new ImportError(`--intent-topics ${file}: ${badRows} bad row${badRows === 1 ? '' : 's'}, nothing was imported:\n  ${bad.join('\n  ')}${more}`);
  }
  if (report.rows === 0) throw new ImportError(`--intent-topics ${file}: the file has a header row but no rows; nothing was imported`);
  report.accounts = companies.size;
  report.topics = topics.size;
  report.weeks = first === '' ? null : { first, latest };
  return report;
}

/** The report in words, for the terminal. */
export function formatTopicsReport(r: IntentTopicsReport): string {
  const lines = [
    `intent topics: ${r.written.toLocaleString('en-US')} of ${r.rows.toLocaleString('en-US')} rows written to ${SOURCE_FILES.topics} (${r.accounts.toLocaleString('en-US')} accounts, ${r.topics.toLocaleString('en-US')} topics${r.weeks ? `, weeks ${r.weeks.first} to ${r.weeks.latest}` : ''})`,
    `  keyed by company id: ${r.keyed_by.company_id.toLocaleString('en-US')}, by domain: ${r.keyed_by.domain.toLocaleString('en-US')}`,
  ];
  if (r.unmatched > 0) {
    const shown = r.unmatched_rows.map((u) => `line ${u.line} (${u.key})`).join(', ');
    lines.push(`  not a company of the sources: ${r.unmatched.toLocaleString('en-US')} row${r.unmatched === 1 ? '' : 's'}, e.g. ${shown}`);
  }
  return lines.join('\n');
}

/**
 * `data import --out DIR --intent-topics FILE` alone: topics.csv written into the sources folder DIR, its
 * accounts resolved against DIR's companies; every other file of DIR kept (the folder is replaced whole, as
 * every import replaces it: a failed import leaves it as it was).
 */
export async function importIntentTopics(opts: { out: string; file: string; progress?: Progress }): Promise<IntentTopicsReport> {
  checkOutputFolder(opts.out);
  if (!existsSync(opts.file)) throw new ImportError(`--intent-topics ${opts.file}: no such file`);
  const accounts = await accountKeysOf(opts.out);
  return replaceFolder(opts.out, (dir) => writeIntentTopics(opts.file, accounts, dir, opts.progress));
}
