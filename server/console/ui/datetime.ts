/**
 * The console's one way of showing a time: every page shows instants as `2026-11-25 18:42 UTC` and days
 * as `2026-11-25`, so a marketer comparing the Visitors table, an account page and the audit log reads one
 * format (the API answers stay ISO 8601). UTC, not the browser's zone: the reports' days are UTC days.
 */

/** An ISO 8601 instant (or epoch milliseconds) as `YYYY-MM-DD HH:MM UTC`; an unreadable value as given. */
export function formatDateTime(value: string | number | null | undefined): string {
  if (value == null || value === '') return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** An ISO 8601 instant or day (or epoch milliseconds) as its UTC day `YYYY-MM-DD`. */
export function formatDate(value: string | number | null | undefined): string {
  if (value == null || value === '') return '—';
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toISOString().slice(0, 10);
}
