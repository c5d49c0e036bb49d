/**
 * Credit usage (rows per pool, API and month from `GET /admin/api/customers/:id/credits`) as a small
 * table: one row per API, one column per month (most recent months only), charges in the cells.
 */
import type { UsageRow } from '../../core/usage-records.ts';

export interface UsageTableRow {
  pool: string;
  api: string;
  /** Charges per month, aligned with `months`; 0 where there were none. */
  charges: number[];
  /** Of those, charges made through a partner (aligned with `months`). */
  partnerCharges: number[];
  /** Charges over the shown months. */
  total: number;
}

export interface UsageTable {
  /** `YYYY-MM`, oldest first. */
  months: string[];
  rows: UsageTableRow[];
}

export function usageTable(usage: readonly UsageRow[], maxMonths = 6): UsageTable {
  const months = [...new Set(usage.map((u) => u.month))].sort().slice(-maxMonths);
  const col = new Map(months.map((m, i) => [m, i]));
  const byApi = new Map<string, UsageTableRow>();
  for (const u of usage) {
    const i = col.get(u.month);
    if (i === undefined) continue;
    const key = `${u.pool}\u0000${u.api}`;
    let row = byApi.get(key);
    if (!row) {
      row = { pool: u.pool, api: u.api, charges: months.map(() => 0), partnerCharges: months.map(() => 0), total: 0 };
      byApi.set(key, row);
    }
    row.charges[i] += u.charges;
    row.partnerCharges[i] += u.partner_charges;
    row.total += u.charges;
  }
  const rows = [...byApi.values()].sort((a, b) => a.pool.localeCompare(b.pool) || a.api.localeCompare(b.api));
  return { months, rows };
}
