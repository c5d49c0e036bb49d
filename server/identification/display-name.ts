/**
 * The answer's `display_name`, computed when answered rather than stored in the catalog: the rule
 * (core/company-name.ts) is a few string operations, and remembering it per catalog name keeps even those
 * off the hot path, while a catalog column would need every dataset rebuilt to change the rule.
 */
import { displayName } from '../../core/company-name.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';

/** Distinct company names remembered: the companies that visitors come from, far fewer than the catalog. */
const NAMES_REMEMBERED = 50_000;

export const companyDisplayName: (name: string) => string = boundedMemo(displayName, NAMES_REMEMBERED);
