/** Which segment the demo page features: the first segment of the demo customer, as generated. */

export const DEFAULT_SEGMENT = 'Enterprise Software';
export const DEMO_TAG_ID = 'demo-web-tag';

interface CustomerLike {
  segments?: { name?: unknown }[];
  tags?: { tag_id?: unknown }[];
}

/**
 * The first segment name of the customer that owns the demo tag (else of the first customer) in a
 * parsed customers.json, or the default when there is none.
 */
export function demoSegmentName(customersFile: unknown, tagId = DEMO_TAG_ID): string {
  const customers = (customersFile as { customers?: CustomerLike[] } | null)?.customers;
  if (!Array.isArray(customers)) return DEFAULT_SEGMENT;
  const owner = customers.find((c) => c?.tags?.some((t) => t?.tag_id === tagId)) ?? customers[0];
  const name = owner?.segments?.[0]?.name;
  return typeof name === 'string' && name.trim() ? name : DEFAULT_SEGMENT;
}

/** A rule-language comparison `segment = "<name>"`, quoted so any name stays one value. */
export function segmentRule(name: string): string {
  return `segment = ${name.includes('"') ? `'${name}'` : `"${name}"`}`;
}
