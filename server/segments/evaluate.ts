/**
 * Customer segments: a segment matches an account when every field its rule lists matches one of the
 * rule's values (AND across fields, OR within one, case-insensitive). An empty rule matches nothing, so a
 * half-configured segment never tags every account. `MATCH_FIELDS` says which catalog columns each rule
 * field reads and how; the membership index (./membership.ts) evaluates the very same table over the
 * whole catalog, and its tests check it against `segmentMatches`.
 *
 * `in_list` is the one field that reads no catalog column: the company id must be in one of the customer's
 * account lists named (`hot`, `excluded`, a named list's id; server/lists/routes.ts). So a rule is
 * evaluated with the customer's lists (`listMembers`); an unknown list id holds no company.
 */

import type { AccountList, HotAccount, Segment, SegmentMatch } from '../../core/customer-records.ts';
import type { CompanyRow } from '../../data/sources/schema.ts';

/** The rule fields that read catalog columns (every field but `in_list`). */
export type MatchField = Exclude<keyof SegmentMatch, 'in_list'>;

/** The company ids of one of a customer's account lists, by list id; undefined for an unknown id. */
export type ListMembers = (listId: string) => ReadonlySet<string> | undefined;
/** No lists at all: an `in_list` rule matches nothing. */
export const NO_LISTS: ListMembers = () => undefined;

/** What segments are evaluated with: the customer's segments and lists. */
export interface SegmentOwner {
  segments: readonly Segment[];
  hot_accounts: readonly HotAccount[];
  excluded_accounts: readonly string[];
  account_lists?: readonly AccountList[];
}

/** Sets of the lists' company ids, kept per list array (records are cached, frozen objects: built once per change). */
const listSets = new WeakMap<object, ReadonlySet<string>>();
function setOf(list: readonly unknown[], ids: () => Iterable<string>): ReadonlySet<string> {
  let set = listSets.get(list);
  if (!set) {
    set = new Set(ids());
    listSets.set(list, set);
  }
  return set;
}

/** The customer's lists as `in_list` reads them. */
export function listMembers(owner: Omit<SegmentOwner, 'segments'>): ListMembers {
  return (listId) => {
    if (listId === 'hot') return setOf(owner.hot_accounts, () => owner.hot_accounts.map((h) => h.company_id));
    if (listId === 'excluded') return setOf(owner.excluded_accounts, () => owner.excluded_accounts);
    const list = owner.account_lists?.find((l) => l.id === listId);
    return list ? setOf(list.company_ids, () => list.company_ids) : undefined;
  };
}

/** The list ids of a rule's `in_list` (lower-cased), or undefined when it names none. */
export function ruleLists(match: SegmentMatch): string[] | undefined {
  return match.in_list?.map((id) => id.toLowerCase());
}

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

/** The catalog fields a rule lists (`in_list` apart: `ruleLists`), with their values lower-cased. */
export function ruleFields(match: SegmentMatch): [MatchField, string[]][] {
  return (Object.entries(match) as [MatchField, string[] | undefined][])
    .filter((e): e is [MatchField, string[]] => e[1] !== undefined && e[0] !== ('in_list' as MatchField))
    .map(([f, values]) => [f, values.map((v) => v.toLowerCase())]);
}

/** A rule in words, for lists (`industry: Software, Retail; employee_range: 51-200`); "matches nothing" for an empty one. */
export function ruleSummary(match: SegmentMatch): string {
  const parts = (Object.entries(match) as [MatchField, string[] | undefined][])
    .filter((e): e is [MatchField, string[]] => e[1] !== undefined && e[1].length > 0)
    .map(([field, values]) => `${field}: ${values.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : 'matches nothing (empty rule)';
}

export function segmentMatches(match: SegmentMatch, company: CompanyRow, lists: ListMembers = NO_LISTS): boolean {
  const fields = ruleFields(match);
  const listIds = ruleLists(match);
  if (fields.length === 0 && listIds === undefined) return false;
  if (listIds !== undefined && !listIds.some((id) => lists(id)?.has(company.company_id))) return false;
  return fields.every(([field, values]) => {
    const rule = MATCH_FIELDS[field];
    return rule.columns.some((c) => valueMatches(rule, company[c] ?? '', values));
  });
}

/**
 * The customer's segments the company is in. Pass the customer (its lists are what `in_list` reads); a bare
 * list of segments is evaluated without lists (an `in_list` rule then matches nothing).
 */
export function matchingSegments(owner: SegmentOwner | readonly Segment[], company: CompanyRow | null): Segment[] {
  if (!company) return [];
  const [segments, lists] = isSegmentList(owner) ? [owner, NO_LISTS] : [owner.segments, listMembers(owner)];
  return segments.filter((s) => segmentMatches(s.match, company, lists));
}

const isSegmentList = (o: SegmentOwner | readonly Segment[]): o is readonly Segment[] => Array.isArray(o);

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
