/** Rules of granting access and new record ids, shared by every backend. */
import { randomBytes } from 'node:crypto';
import type { Segment } from '../../core/customer-records.ts';
import { GROUP_GRANTS, isEntitled } from '../auth/entitlements.ts';
import { StateError } from './errors.ts';
import type { CustomerRecord, TokenRecord } from './store.ts';

/** The business rules of granting access, shared by every backend. */
export function checkTokenGrant(customer: CustomerRecord, t: { api_group: TokenRecord['api_group']; allowed_domains: string[] }): void {
  if (!isEntitled(customer, t.api_group)) {
    throw new StateError(
      t.api_group in GROUP_GRANTS
        ? `customer ${customer.id} is not granted the ${t.api_group} API group (the operator grants it: customer update ${customer.id} --grant ${t.api_group})`
        : `customer ${customer.id} has no package that covers the ${t.api_group} API group (packages: ${customer.packages.join(', ') || 'none'})`,
      'not_entitled',
    );
  }
  if (t.allowed_domains.length > 0 && t.api_group !== 'identification') {
    throw new StateError('allowed domains exist only for identification tokens: the other APIs are server-to-server');
  }
}

export function checkTagGrant(customer: CustomerRecord): void {
  if (!isEntitled(customer, 'identification')) {
    throw new StateError(`customer ${customer.id} has no package that covers the identification API (web tags need platform)`, 'not_entitled');
  }
}

export const newTokenId = () => 'tok_' + randomBytes(8).toString('hex');
export const newTagId = () => 'tag_' + randomBytes(9).toString('base64url');

/** A customer's segment high-water mark: never below an id it holds (ids given by an import or a PATCH count too). */
export function highWater(seq: number, segments: readonly Segment[]): number {
  return segments.reduce((m, s) => Math.max(m, s.id), seq);
}
