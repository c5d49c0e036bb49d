/**
 * Which API groups the console offers a customer. Mirrors the server's rule by importing it
 * (`GROUP_PACKAGES`, `isEntitled`); the server still decides (403 when the packages do not cover the group).
 * Only type imports from the schema, so zod never reaches the browser bundle.
 */
import type { ApiGroup } from '../../core/customer-records.ts';
import { GROUP_PACKAGES, isEntitled } from '../../core/entitlements.ts';

/** Every group, in the order docs/api.md lists them. */
export const ALL_GROUPS = Object.keys(GROUP_PACKAGES) as ApiGroup[];

export const GROUP_LABELS: Record<ApiGroup, string> = {
  identification: 'Company Identification',
  'company-firmographics': 'Company Firmographics',
  'lead-scoring-firmographics': 'Lead Scoring and Firmographics',
  'lead-scoring': 'Lead Scoring',
  'people-enrichment': 'People Enrichment',
  'people-search': 'People Search',
};

/** The groups a customer with these packages may create tokens for, in display order. */
export function creatableGroups(packages: readonly string[]): ApiGroup[] {
  return ALL_GROUPS.filter((g) => isEntitled(packages, g));
}

/** Allowed domains (client-side use from listed origins) only mean something for identification tokens. */
export function groupUsesDomains(group: ApiGroup): boolean {
  return group === 'identification';
}
