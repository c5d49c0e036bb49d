/**
 * Customer segments: a segment matches an account when every field its rule lists matches one of the
 * rule's values (AND across fields, OR within one, case-insensitive). An empty rule matches nothing, so a
 * half-configured segment never tags every account.
 */

import type { Segment, SegmentMatch } from '../../core/customer-records.ts';
import type { CompanyRow } from '../../data/sources/schema.ts';

export function segmentMatches(match: SegmentMatch, company: CompanyRow): boolean {
  const fields = Object.entries(match).filter(([, values]) => values !== undefined) as [keyof SegmentMatch, string[]][];
  if (fields.length === 0) return false;
  return fields.every(([field, values]) => {
    const actual = (company[field] ?? '').toLowerCase();
    return values.some((v) => v.toLowerCase() === actual);
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
