/** What an audit record keeps of a change: the fields that differ, and of a token only what is not secret. */

import type { TokenRecord } from '../../core/access-records.ts';
import type { NewAuditEvent } from '../../core/user-records.ts';
import type { AuditEntry } from '../http/route-def.ts';

/** A token without what must never reach the audit log. */
export const auditedToken = (t: TokenRecord) => ({
  id: t.id,
  name: t.name,
  api_group: t.api_group,
  status: t.status,
  allowed_domains: t.allowed_domains,
  rate_limit: t.rate_limit,
});

/** The fields that differ, before and after (the audit log's record of a change). */
export function changed<T extends object>(before: T | null, after: T): { before: Record<string, unknown> | null; after: Record<string, unknown> } {
  if (before === null) return { before: null, after: after as Record<string, unknown> };
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const x = (before as Record<string, unknown>)[key];
    const y = (after as Record<string, unknown>)[key];
    if (JSON.stringify(x) !== JSON.stringify(y)) {
      b[key] = x;
      a[key] = y;
    }
  }
  return { before: b, after: a };
}

/** A change made from the shell: the operator's, from no address (the CLI's audit records). */
export function operatorEvent(entry: AuditEntry): NewAuditEvent {
  return {
    customer_id: entry.customer,
    at: new Date().toISOString(),
    actor: 'operator',
    ip: null,
    action: entry.action,
    target: entry.target ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
  };
}
