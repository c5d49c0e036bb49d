/** Rules of granting access and new record ids, shared by every backend. */
import { randomBytes } from 'node:crypto';
import type { CustomerRecord, TokenRecord } from '../../../core/access-records.ts';
import type { Segment } from '../../../core/customer-records.ts';
import { GROUP_GRANTS, isEntitled } from '../../../core/entitlements.ts';
import { StateError } from '../errors.ts';

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

/**
 * Every refusal of the access records, written once: the service throws them, and a backend's atomic step
 * (an IMMEDIATE transaction, an HSETNX) throws the one it detects, so both backends answer alike.
 */
export const refusal = {
  unknownCustomer: (id: string) => new StateError(`unknown customer ${id}`, 'not_found'),
  customerExists: (id: string) =>
    new StateError(`customer ${id} already exists: change it with customer update (PATCH /admin/api/customers/${id})`, 'conflict'),
  tagOfAnotherCustomer: (tagId: string) => new StateError(`tag ${tagId} belongs to another customer`, 'conflict'),
  tagExists: (tagId: string) => new StateError(`tag ${tagId} already exists`, 'conflict'),
  unknownTag: (tagId: string) => new StateError(`unknown tag ${tagId}`, 'not_found'),
  unknownToken: (id: string) => new StateError(`unknown token ${id}`, 'not_found'),
  /** An optimistic change lost its race too often (Redis CAS). */
  changedByOthers: (what: 'segments' | 'account lists', id: string) =>
    new StateError(`the ${what} of customer ${id} are being changed by others: try again`, 'conflict'),
} as const;

/** What `svc state import` refuses: state goes only into an empty store. */
export const NOT_EMPTY = 'the target state already holds customers: import into an empty state';

/** The fields given (a patch's absent keys are left as they are). */
export const definedOnly = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
