/** Display formatting for the console: months, counts, token prefixes (times and days: ui/datetime.ts). Pure, locale-fixed. */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

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

/**
 * The dates a quota period covers: `year-N` (the server's contract-year period) from the contract start
 * → `2027-01-01 to 2027-12-31` for N = 1 and a 2026-01-01 start. Anything else is returned as it came.
 */
export function contractYearRange(period: string, contractStart: string): string {
  const m = /^year-(\d+)$/.exec(period);
  const start = new Date(contractStart.length === 10 ? `${contractStart}T00:00:00Z` : contractStart);
  if (!m || Number.isNaN(start.getTime())) return period;
  const from = new Date(start);
  from.setUTCFullYear(start.getUTCFullYear() + Number(m[1]));
  const to = new Date(start);
  to.setUTCFullYear(start.getUTCFullYear() + Number(m[1]) + 1);
  to.setUTCDate(to.getUTCDate() - 1);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return `${day(from)} to ${day(to)}`;
}
