/**
 * Which packages entitle a customer to which API group (spec "What the service does"). People
 * Enrichment is a paid add-on that "works with any platform or sales-intelligence package": its groups
 * need the `people-enrichment` package AND one of those. People Search is "not shown" there: we sell it
 * with People Enrichment, whose ids it returns.
 */
import type { ApiGroup, Package } from '../../core/customer-records.ts';

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

export function isEntitled(packages: readonly string[], group: ApiGroup): boolean {
  const { anyOf, addOn } = GROUP_PACKAGES[group];
  return anyOf.some((p) => packages.includes(p)) && (addOn === undefined || packages.includes(addOn));
}
