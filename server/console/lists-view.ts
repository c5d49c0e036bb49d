/**
 * Pure helpers of the Lists page (ui/ListsPage.tsx): the CSV the "Add accounts" box sends (the same upload
 * path as a file, so one report shows what matched), the report in words, a list without one account.
 */
import type { UploadReport } from '../lists/schema.ts';

/** One CSV cell (RFC 4180: quoted when it holds a comma, a quote or a line break). */
export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * The accounts typed into the add box (one per line, or separated by commas or spaces) as an upload CSV:
 * a value with a dot is a domain, anything else a company id. Null when nothing was typed.
 */
export function csvForAccounts(text: string): string | null {
  const values = text
    .split(/[\s,;]+/)
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (values.length === 0) return null;
  const rows = values.map((v) => (v.includes('.') ? `${csvCell(v)},` : `,${csvCell(v)}`));
  return ['domain,company_id', ...rows].join('\n') + '\n';
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The report's headline: what matched, what did not, and whether the list changed. */
export function reportHeadline(r: UploadReport): string {
  const counts = `${plural(r.matched, 'row')} matched · ${plural(r.not_found.length, 'row')} not found · ${plural(r.duplicates.length, 'row')} duplicated`;
  if (!r.applied) return `${counts}. Nothing changed: ${r.reason ?? 'not applied'}.`;
  return `${counts}. Applied (${r.mode}): ${plural(r.added, 'account')} added, ${plural(r.removed, 'account')} removed; the list holds ${plural(r.size, 'account')}.`;
}

/** The company ids of a list without one of them (what "Remove" PUTs). */
export function withoutAccount(ids: readonly string[], companyId: string): string[] {
  return ids.filter((id) => id !== companyId);
}

/** Whether a list can be deleted (named lists only: hot and excluded are fixed). */
export const deletable = (kind: string): boolean => kind === 'named';
