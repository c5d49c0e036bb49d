/**
 * Every CSV the service writes (visitors report, account page, audit log, enrichment results) goes through
 * `csvText`: csv-stringify's RFC 4180 quoting, and every text cell through `spreadsheetSafe`. One writer,
 * so no export can forget the escape (csv.test.ts fails when a module other than this one imports
 * csv-stringify).
 */
import { type Input, type Options, stringify } from 'csv-stringify/sync';

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading `'`: names come
 * from third-party data, emails and notes from web forms, and the files are opened by marketers in Excel
 * (OWASP "CSV injection").
 */
export const spreadsheetSafe = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** Rows (arrays, or objects with `columns`) as CSV text, each text cell spreadsheet-safe. */
export function csvText(rows: Input, options: Omit<Options, 'cast'> = {}): string {
  return stringify(rows, { ...options, cast: { string: spreadsheetSafe } });
}
