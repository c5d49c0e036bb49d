/** Display formatting for the console: dates in UTC, months, counts, token prefixes. Pure, locale-fixed. */

const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-03-04T05:06:07Z` → `2026-03-04 05:06 UTC`; null/invalid → the fallback (default "—"). */
export function formatDateTime(iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return fallback;
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** `2026-03` → `Mar 2026`; anything else is returned as it came. */
export function formatMonth(month: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  const i = m ? Number(m[2]) - 1 : -1;
  return m && i >= 0 && i < 12 ? `${MONTHS[i]} ${m[1]}` : month;
}

/** 12345 → `12,345`. */
export function formatCount(n: number): string {
  return new Intl.NumberFormat('en-US').format(n);
}

/** The stored display prefix as shown in lists: `abcd` → `abcd…` (never more of the secret). */
export function displayPrefix(prefix: string): string {
  return `${prefix}…`;
}
