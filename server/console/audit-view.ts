/**
 * Pure helpers of the Audit page: who acted (the log's `operator`, `user:<id> <email>`, `anonymous`), what
 * changed (the fields of `before` and `after` as `field: old → new` lines), the default range, the CSV name.
 */
import { defaultRange } from './visits-view.ts';

export { defaultRange };

/** `user:usr_1 jane@x.com` → `jane@x.com`; `operator` → `operator`. */
export function actorLabel(actor: string): string {
  const m = /^user:\S+ (.+)$/.exec(actor);
  return m ? m[1]! : actor;
}

const show = (v: unknown): string => {
  if (v === undefined || v === null) return '—';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
};

/** The changed fields, one line each: `role: marketer → admin`, `email: → a@x.com` for a new record. */
export function changeLines(before: Record<string, unknown> | null, after: Record<string, unknown> | null): string[] {
  if (!before && !after) return [];
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys.map((k) => {
    if (!before) return `${k}: ${show(after![k])}`;
    if (!after) return `${k}: ${show(before[k])} → (removed)`;
    return `${k}: ${show(before[k])} → ${show(after[k])}`;
  });
}

/** The file name of the CSV download. */
export function auditCsvName(customerId: string, from: string, to: string): string {
  return `audit-${customerId}-${from}-${to}.csv`;
}
