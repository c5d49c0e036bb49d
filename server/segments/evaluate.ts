/**
 * Customer segments: a segment matches an account when every field its rule lists matches one of the
 * rule's values (AND across fields, OR within one, case-insensitive). An empty rule matches nothing, so a
 * half-configured segment never tags every account. `MATCH_FIELDS` says which catalog columns each rule
 * field reads and how; the membership index (./membership.ts) evaluates the very same table over the
 * whole catalog, and its tests check it against `segmentMatches`.
 */

import type { Segment, SegmentMatch } from '../../core/customer-records.ts';
import type { CompanyRow } from '../../data/sources/schema.ts';

export type MatchField = keyof SegmentMatch;

/** The catalog columns a rule field reads (any of them may match) and whether its values are prefixes. */
export interface FieldRule {
  columns: readonly (keyof CompanyRow)[];
  prefix: boolean;
}

export const MATCH_FIELDS: Readonly<Record<MatchField, FieldRule>> = {
  industry: { columns: ['industry'], prefix: false },
  subindustry: { columns: ['subindustry'], prefix: false },
  employee_range: { columns: ['employee_range'], prefix: false },
  revenue_range: { columns: ['revenue_range'], prefix: false },
  country_iso_code: { columns: ['country_iso_code'], prefix: false },
  region: { columns: ['region'], prefix: false },
  /** The state's name or its code (`California`, `CA`). */
  state: { columns: ['state', 'state_code'], prefix: false },
  sic_prefix: { columns: ['sic'], prefix: true },
  naics_prefix: { columns: ['naics'], prefix: true },
  company_id: { columns: ['company_id'], prefix: false },
};

/** Whether one catalog value (as stored) satisfies a field's values (already lower-cased). */
export function valueMatches(rule: FieldRule, actual: string, wanted: readonly string[]): boolean {
  const a = actual.toLowerCase();
  if (rule.prefix) return a !== '' && wanted.some((w) => w !== '' && a.startsWith(w));
  return wanted.includes(a);
}

/** The fields a rule lists, with their values lower-cased. */
export function ruleFields(match: SegmentMatch): [MatchField, string[]][] {
  return (Object.entries(match) as [MatchField, string[] | undefined][])
    .filter((e): e is [MatchField, string[]] => e[1] !== undefined)
    .map(([f, values]) => [f, values.map((v) => v.toLowerCase())]);
}

/** A rule in words, for lists (`industry: Software, Retail; employee_range: 51-200`); "matches nothing" for an empty one. */
export function ruleSummary(match: SegmentMatch): string {
  const parts = (Object.entries(match) as [MatchField, string[] | undefined][])
    .filter((e): e is [MatchField, string[]] => e[1] !== undefined && e[1].length > 0)
    .map(([field, values]) => `${field}: ${values.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : 'matches nothing (empty rule)';
}

export function segmentMatches(match: SegmentMatch, company: CompanyRow): boolean {
  const fields = ruleFields(match);
  if (fields.length === 0) return false;
  return fields.every(([field, values]) => {
    const rule = MATCH_FIELDS[field];
    return rule.columns.some((c) => valueMatches(rule, company[c] ?? '', values));
  });
}

export function matchingSegments(segments: readonly Segment[], company: CompanyRow | null): Segment[] {
  return company ? segments.filter((s) => segmentMatches(s.match, company)) : [];
}

export interface SegmentsPayload {
  ids: number[];
  names: string[];
  list: { name: string | null; id: number }[];
}

/** The spec's segments object; names are [] / null in `list` unless the token/tag may see them (restrictive by default). */
export function segmentsPayload(segments: readonly Segment[], showNames: boolean): SegmentsPayload {
  return {
    ids: segments.map((s) => s.id),
    names: showNames ? segments.map((s) => s.name) : [],
    list: segments.map((s) => ({ name: showNames ? s.name : null, id: s.id })),
  };
}
