/**
 * Which packages entitle a customer to which API group (spec "What the service does"; People Search is
 * "not shown" there: we sell it with People Enrichment, whose ids it returns).
 */
import type { ApiGroup, Package } from '../../data/sources/schema.ts';

export const GROUP_PACKAGES: Record<ApiGroup, readonly Package[]> = {
  identification: ['platform'],
  'company-firmographics': ['platform', 'sales-intelligence'],
  'lead-scoring-firmographics': ['platform', 'sales-intelligence'],
  'lead-scoring': ['advanced'],
  'people-enrichment': ['people-enrichment'],
  'people-search': ['people-enrichment'],
};

export function isEntitled(packages: readonly string[], group: ApiGroup): boolean {
  return GROUP_PACKAGES[group].some((p) => packages.includes(p));
}
