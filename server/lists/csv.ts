/**
 * An account CSV (one row per account: a `domain` or a `company_id` column) read and resolved against the
 * catalog, purely: what the upload route (./routes.ts) reports and applies.
 *
 * A bad file is refused whole (ApiError, nothing applied): unreadable CSV (an unclosed quote, text after a
 * closing quote), no `domain` / `company_id` column in the header, more than MAX_LIST_ACCOUNTS rows, no rows
 * at all. A readable file is reported row by row: matched (an account of the catalog, the first row naming
 * it), not found (blank, not a domain, or no account), duplicated (an account an earlier row named). The
 * header names are read case-insensitively, spaces, `-` and `_` ignored (`Company ID`, `company-id`); with
 * both columns, a row's company id wins and its domain is read when the id cell is blank.
 */
import { parse } from 'csv-parse/sync';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { MAX_LIST_ACCOUNTS } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { parseDomain } from '../net/email.ts';
import type { ReportRow } from './schema.ts';

/** One row of accounts: its row number as a spreadsheet shows it (the header is row 1) and its value. */
export interface AccountRow {
  row: number;
  column: 'domain' | 'company_id';
  value: string;
}

const COLUMN_NAMES: Readonly<Record<string, AccountRow['column']>> = { domain: 'domain', website: 'domain', companyid: 'company_id' };
const columnKey = (header: string) =>
  header
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');

/** The rows of accounts of a CSV text; throws ApiError for a bad file (nothing of it is used then). */
export function readAccountRows(text: string, maxRows = MAX_LIST_ACCOUNTS): AccountRow[] {
  if (text.trim() === '') throw new ApiError('invalid', 'the file is empty: send a CSV with a header row (domain or company_id) and one row per account');
  // Cheap bound first: a record holds at least one line, so fewer lines than the limit cannot be too many rows.
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1 && lines <= maxRows + 1; i = text.indexOf('\n', i + 1)) lines++;
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, to: lines > maxRows + 1 ? maxRows + 2 : undefined });
  } catch (e) {
    throw new ApiError('invalid', `the file is not readable CSV: ${(e as Error).message.slice(0, 200)}; nothing was changed`);
  }
  const [header, ...rows] = records;
  if (!header) throw new ApiError('invalid', 'the file is empty: send a CSV with a header row (domain or company_id) and one row per account');
  if (rows.length > maxRows)
    throw new ApiError('too_large', `the file has more than ${maxRows.toLocaleString('en-US')} rows of accounts: split it; nothing was changed`);
  const idColumn = header.findIndex((h) => COLUMN_NAMES[columnKey(h)] === 'company_id');
  const domainColumn = header.findIndex((h) => COLUMN_NAMES[columnKey(h)] === 'domain');
  if (idColumn < 0 && domainColumn < 0) {
    const found = header.map((h) => JSON.stringify(h.trim().slice(0, 40))).join(', ');
    throw new ApiError('invalid', `the file has no domain or company_id column (its header row: ${found}); nothing was changed`);
  }
  if (rows.length === 0) throw new ApiError('invalid', 'the file has a header row but no accounts; nothing was changed');
  return rows.map((fields, i) => {
    const id = idColumn >= 0 ? (fields[idColumn] ?? '').trim() : '';
    if (id !== '' || domainColumn < 0) return { row: i + 2, column: 'company_id', value: id };
    return { row: i + 2, column: 'domain', value: (fields[domainColumn] ?? '').trim() };
  });
}

/** What the resolution reads of the catalog. */
export interface CompanyLookup {
  company(id: string): CompanyRow | null;
  companiesByDomain(domain: string): readonly CompanyRow[];
}

export interface Resolution {
  /** Company ids of the matched rows, in file order, each once. */
  matched: string[];
  not_found: ReportRow[];
  duplicates: ReportRow[];
}

/** Each row's account: a company id as the catalog holds it; a domain's primary owner (as enrichment picks it). */
export function resolveRows(rows: readonly AccountRow[], catalog: CompanyLookup): Resolution {
  const seen = new Set<string>();
  const out: Resolution = { matched: [], not_found: [], duplicates: [] };
  for (const r of rows) {
    let companyId: string | null = null;
    if (r.column === 'company_id') companyId = r.value === '' ? null : (catalog.company(r.value)?.company_id ?? null);
    else {
      const domain = parseDomain(r.value);
      companyId = domain ? (catalog.companiesByDomain(domain)[0]?.company_id ?? null) : null;
    }
    const shown = { row: r.row, value: r.value.slice(0, 200) };
    if (companyId === null) out.not_found.push(shown);
    else if (seen.has(companyId)) out.duplicates.push(shown);
    else {
      seen.add(companyId);
      out.matched.push(companyId);
    }
  }
  return out;
}

/** The list's next company ids: `add` keeps the current ones (in order) and appends the new; `replace` is the matched ones. */
export function nextIds(current: readonly string[], matched: readonly string[], mode: 'add' | 'replace'): string[] {
  if (mode === 'replace') return [...matched];
  const have = new Set(current);
  return [...current, ...matched.filter((id) => !have.has(id))];
}
