/**
 * What the routes check of a rule's `lookalike` conditions before it is saved or previewed (pure): the
 * seed names a list and a segment the customer has, and a segment is never seeded by itself — directly
 * or through the segments its seed segments are seeded by (a cycle would have no members to start from).
 */
import type { LookalikeCondition, Segment, SegmentMatch } from '../../core/customer-records.ts';
import { allConditions, type ListMembers, ruleLevel } from './evaluate.ts';

/** The `lookalike` conditions of a rule (groups included). */
export function ruleLookalikes(match: SegmentMatch): LookalikeCondition[] {
  const out: LookalikeCondition[] = [];
  for (const c of allConditions(ruleLevel(match))) if (c.kind === 'lookalike') out.push(c.lookalike);
  return out;
}

/** The segment ids a rule's lookalike conditions are seeded by. */
export const seedSegmentsOf = (match: SegmentMatch): number[] => ruleLookalikes(match).flatMap((c) => (c.segment !== undefined ? [c.segment] : []));

/**
 * The chain of segments by which segment `id`, given `match`, would be seeded by itself (`[id, …, id]`),
 * or null when it would not. `segments` are the customer's (the one with `id`, if saved, is taken as
 * `match`); an id no segment has ends its chain (the rule is refused for it elsewhere).
 */
export function seedCycle(segments: readonly Pick<Segment, 'id' | 'match'>[], id: number, match: SegmentMatch): number[] | null {
  const ruleOf = (sid: number) => (sid === id ? match : segments.find((s) => s.id === sid)?.match);
  const seen = new Set<number>();
  const walk = (sid: number, path: number[]): number[] | null => {
    for (const next of seedSegmentsOf(ruleOf(sid) ?? {})) {
      if (next === id) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(id, [id]);
}

/** Why a rule's lookalike seeds are not the customer's, or null: a list or a segment it does not have. */
export function unknownSeeds(match: SegmentMatch, lists: ListMembers, segments: readonly Pick<Segment, 'id'>[]): string | null {
  for (const c of ruleLookalikes(match)) {
    if (c.list !== undefined && lists(c.list.toLowerCase()) === undefined) return `match.lookalike.list: no list ${JSON.stringify(c.list)}`;
    if (c.segment !== undefined && !segments.some((s) => s.id === c.segment)) return `match.lookalike.segment: no segment ${c.segment}`;
  }
  return null;
}

/** The segments whose lookalike conditions are seeded by segment `id` (its delete would leave them without a seed). */
export const segmentsSeededBy = (segments: readonly Segment[], id: number): Segment[] =>
  segments.filter((s) => s.id !== id && seedSegmentsOf(s.match).includes(id));
