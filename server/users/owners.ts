/** A customer always keeps an owner: someone who can manage its users. */
import { ApiError } from '../../core/error-codes.ts';
import type { Role } from '../../core/roles.ts';
import type { UserRecord, UserStore } from '../state/users.ts';

/** Refuses (409) to demote (`next`: the new role) or remove (`next`: null) the customer's last owner. */
export async function keepAnOwner(users: UserStore, user: UserRecord, next: Role | null): Promise<void> {
  if (user.role !== 'owner' || next === 'owner') return;
  const owners = (await users.listUsers(user.customer_id)).filter((u) => u.role === 'owner');
  if (owners.length <= 1) throw new ApiError('conflict', `${user.email} is the customer's last owner: make someone else owner first`);
}
