/*
 * Segment rule vocabulary without zod: the console bundles this module (core/customer-records.ts, the
 * rule's schema, would bring zod into the browser).
 */

/**
 * The rule fields that match the company's catalog columns (the evaluator's and the membership index's),
 * in the order the segment builder offers them; `company_id` last, set through the API or a list page.
 */
export const CATALOG_FIELDS = [
  'industry',
  'subindustry',
  'employee_range',
  'revenue_range',
  'country_iso_code',
  'region',
  'state',
  'sic_prefix',
  'naics_prefix',
  'company_id',
] as const;
