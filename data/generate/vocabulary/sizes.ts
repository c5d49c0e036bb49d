/**
 * Company size tiers: employee ranges with their share of companies and how many networks, offices and
 * contacts a company of that size has; and the revenue ranges. Range labels are the ones the scoring model
 * orders (`server/scoring/model.ts`).
 */

import { EMPLOYEE_RANGES, type EmployeeRange, REVENUE_RANGES, type RevenueRange } from '../../../core/vocabulary.ts';

export type { EmployeeRange, RevenueRange };
export { EMPLOYEE_RANGES, REVENUE_RANGES };

export interface SizeTier {
  range: EmployeeRange;
  /** Index in EMPLOYEE_RANGES (0 = smallest). */
  index: number;
  min: number;
  max: number;
  /** Share of companies in this tier. */
  weight: number;
  networks: [number, number];
  offices: [number, number];
  people: [number, number];
}

export const SIZE_TIERS: SizeTier[] = [
  { range: '1-9', index: 0, min: 1, max: 9, weight: 22, networks: [1, 2], offices: [1, 1], people: [1, 3] },
  { range: '10-49', index: 1, min: 10, max: 49, weight: 26, networks: [1, 4], offices: [1, 2], people: [2, 5] },
  { range: '50-199', index: 2, min: 50, max: 199, weight: 20, networks: [2, 6], offices: [1, 3], people: [3, 7] },
  { range: '200-499', index: 3, min: 200, max: 499, weight: 11, networks: [3, 8], offices: [2, 4], people: [4, 9] },
  { range: '500-999', index: 4, min: 500, max: 999, weight: 7, networks: [4, 10], offices: [2, 5], people: [5, 11] },
  { range: '1,000-4,999', index: 5, min: 1000, max: 4999, weight: 8, networks: [6, 14], offices: [3, 8], people: [6, 14] },
  { range: '5,000-9,999', index: 6, min: 5000, max: 9999, weight: 3, networks: [8, 20], offices: [4, 10], people: [8, 18] },
  { range: '10,000+', index: 7, min: 10000, max: 250000, weight: 3, networks: [12, 30], offices: [6, 16], people: [10, 24] },
];

const REVENUE_BOUNDS = [10e6, 50e6, 100e6, 250e6, 500e6, 1e9, 10e9];

export function revenueRange(revenue: number): RevenueRange {
  let i = 0;
  while (i < REVENUE_BOUNDS.length && revenue >= REVENUE_BOUNDS[i]) i++;
  return REVENUE_RANGES[i];
}

/** Rounds to `digits` significant digits (integers only; no float formatting involved). */
export function roundSignificant(n: number, digits: number): number {
  if (n < 10 ** digits) return Math.round(n);
  let scale = 1;
  while (n / scale >= 10 ** digits) scale *= 10;
  return Math.round(n / scale) * scale;
}
