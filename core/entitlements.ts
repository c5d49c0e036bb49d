/**
 * Which packages entitle a customer to which API group (spec "What the service does"). People
 * Enrichment is a paid add-on that "works with any platform or sales-intelligence package": its groups
 * need the `people-enrichment` package AND one of those. People Search is "not shown" there: we sell it
 * with People Enrichment, whose ids it returns. The Segments API is requested from support (spec
 * "Authentication" 4): no package covers it; the operator grants it per customer (`grants`).
 * In the neutral core: authentication, the state's token rules and the console (which groups a customer's
 * tokens may take) decide by the same table.
 */
import type { ApiGroup, Grant, Package, TokenGroup } from './customer-records.ts';

export interface GroupEntitlement {
  /** At least one of these packages. */
  anyOf: readonly Package[];
  /** And this add-on package, when the group is an add-on. */
  addOn?: Package;
}

export const GROUP_PACKAGES: Record<ApiGroup, GroupEntitlement> = {
  identification: { anyOf: ['platform'] },
  'company-firmographics': { anyOf: ['platform', 'sales-intelligence'] },
  'lead-scoring-firmographics': { anyOf: ['platform', 'sales-intelligence'] },
  'lead-scoring': { anyOf: ['advanced'] },
  'people-enrichment': { anyOf: ['platform', 'sales-intelligence'], addOn: 'people-enrichment' },
  'people-search': { anyOf: ['platform', 'sales-intelligence'], addOn: 'people-enrichment' },
};

/** The groups no package covers: the operator grants them per customer. */
export const GROUP_GRANTS: Readonly<Record<Exclude<TokenGroup, ApiGroup>, Grant>> = { segments: 'segments' };

/** What entitlement reads of a customer (a bare list: the packages, no grants). */
export type Entitled = readonly string[] | { packages: readonly string[]; grants?: readonly string[] };

export function isEntitled(customer: Entitled, group: TokenGroup): boolean {
  const packages = Array.isArray(customer) ? customer : (customer as { packages: readonly string[] }).packages;
  const grants = Array.isArray(customer) ? [] : ((customer as { grants?: readonly string[] }).grants ?? []);
  if (group in GROUP_GRANTS) return grants.includes(GROUP_GRANTS[group as keyof typeof GROUP_GRANTS]);
  const { anyOf, addOn } = GROUP_PACKAGES[group as ApiGroup];
  return anyOf.some((p) => packages.includes(p)) && (addOn === undefined || packages.includes(addOn));
}

/** Why a customer may not call a group, in words for a 403. */
export function notEntitledReason(customer: { id?: string; packages: readonly string[] }, group: TokenGroup): string {
  if (group in GROUP_GRANTS) {
    return `the ${group} API is not granted to this customer (the operator grants it: customer update ID --grant ${GROUP_GRANTS[group as keyof typeof GROUP_GRANTS]})`;
  }
  return `the customer's packages no longer cover the ${group} API (packages: ${customer.packages.join(', ') || 'none'})`;
}
