/**
 * Who acts on the workspace (the admin API and the console): the operator — the admin token, every
 * customer, every permission — or a user of one customer with one role (core/roles.ts).
 */
import { type Permission, roleMay } from '../../core/roles.ts';
import type { SessionRecord, UserRecord } from '../../core/user-records.ts';

export type Principal = { kind: 'operator' } | { kind: 'user'; user: UserRecord; session: SessionRecord };

export function may(principal: Principal, permission: Permission): boolean {
  return principal.kind === 'operator' || roleMay(principal.user.role, permission);
}

/** How the audit log names the actor. */
export function actorOf(principal: Principal | null): string {
  if (principal === null) return 'anonymous';
  return principal.kind === 'operator' ? 'operator' : `user:${principal.user.id} ${principal.user.email}`;
}
