/**
 * Customer segments: whether an account is in a segment, given its rule (core/customer-records.ts
 * `SegmentMatch`). A rule is a level of conditions combined by its `op` (`all`, the default, or `any`),
 * and at the top level up to 20 groups, each one more condition with its own `op`. The conditions:
 *
 *  - a catalog field (`industry`, `sic_prefix`, …): one of its values matches the company (ignoring case;
 *    `*_prefix` fields by prefix). `MATCH_FIELDS` says which catalog columns each reads and how; the
 *    membership index (./membership.ts) evaluates the very same table over the whole catalog, and its
 *    tests check it against `segmentMatches`.
 *  - `in_list`: the company is in one of the customer's account lists named (`hot`, `excluded`, a named
 *    list's id; server/lists/routes.ts), read through `ListMembers`; an unknown list id holds no company.
 *  - `intent`, `visited`, `page_views`: what the account did, which the catalog row does not hold. They
 *    read `AccountFacts` (its intent score per product, its page views per day and path), gathered at the
 *    I/O edge (./account-facts.ts) only for a customer whose rules need them (`needsAccountFacts`);
 *    without facts these conditions do not hold.
 *  - `crm_owner`, `crm_stage`: what a connected CRM says of the account (its owner, its lifecycle stage or
 *    type), as the CRM sync read it back (server/crm/, kept per account in the CRM store). They read the
 *    `crm` of `AccountFacts`, gathered like the others only when a rule reads them; an account without
 *    CRM facts has no owner and no stage (`none` and `not_in` hold, an email, `any` and `in` do not).
 *  - `topic`: the account's score on a third-party intent topic over the dataset's last weeks
 *    (./topic-rule.ts), read from the `topics` of `AccountFacts` (catalog data, gathered like the others).
 *  - `engaged`, `event`: the account's engaged time on pages of a path pattern and its custom events, as the
 *    web tag measured them (./engagement-rule.ts), read from the `engagement` of `AccountFacts`.
 *  - `lookalike`: the account's firmographic similarity to a seed (a list, a segment, company ids;
 *    server/lookalikes/method.ts) reaches `min_score`, the seed's own accounts apart. It reads the
 *    `lookalike` score of `AccountFacts`, gathered like the others (./lookalike-seeds.ts).
 *
 * An empty rule (no condition, no group) matches nothing, so a half-configured segment never tags every
 * account. Rules are compiled once per (frozen) record: identification evaluates every segment of the
 * customer on every Match.
 */

import type { CompanyRow } from '../../core/catalog-records.ts';
import type {
  AccountList,
  CrmStageCondition,
  EngagedCondition,
  EventCondition,
  HotAccount,
  IntentCondition,
  LookalikeCondition,
  PageViewsCondition,
  RuleOp,
  Segment,
  SegmentGroup,
  SegmentMatch,
  VisitedCondition,
} from '../../core/customer-records.ts';
import { compilePathGlob, type GlobMatcher } from '../../core/glob.ts';
import { CATALOG_FIELDS } from '../../core/segment-fields.ts';
import type { BuyingStage } from '../../core/vocabulary.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';
import { reaches } from '../lookalikes/method.ts';
import { buyingStage } from '../scoring/model.ts';
import { type EngagementFacts, engagedHolds, engagedWords, eventHolds, eventWords, NO_ENGAGEMENT } from './engagement-rule.ts';
import { type TopicFacts, type TopicRule, topicHolds, topicRule, topicWords } from './topic-rule.ts';

export type MatchField = (typeof CATALOG_FIELDS)[number];

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

/** One page-view count of an account: a path on a UTC day (the visit store's per-day aggregate). */
export interface DayPageViews {
  day: string;
  path: string;
  page_views: number;
}

/** What an account did, as the behaviour and intent conditions read it (./account-facts.ts gathers it). */
export interface AccountFacts {
  /** The UTC day (YYYY-MM-DD) the look-back windows end on: today. */
  today: string;
  /** The account's page views per day and path, covering at least the longest window its rules read. */
  pages: readonly DayPageViews[];
  /** The account's intent score (0–100) for a product of the customer, by name (case-insensitive); undefined for no such product. */
  intent(product: string): number | undefined;
  /** What the connected CRMs say of the account, when a rule reads it; absent: no owner, no stage. */
  crm?: CrmFacts;
  /**
   * The account's lookalike score (0–1) against a `lookalike` condition's seed (./lookalike-seeds.ts),
   * undefined when the account is one of the seed's or the seed has no account; absent: no rule reads it.
   */
  lookalike?(c: LookalikeCondition): number | undefined;
  /** The account's third-party topics (./topic-rule.ts), when a rule reads them; absent: `topic` holds for nobody. */
  topics?: TopicFacts;
  /** The account's engaged time and custom events (./engagement-rule.ts), when a rule reads them; absent: none. */
  engagement?: EngagementFacts;
}

/** The CRM side of an account over every connected CRM (what `crm_owner` and `crm_stage` read). */
export interface CrmFacts {
  /** The owners' emails, lower-cased (one per CRM record with an owner). */
  owners: readonly string[];
  /** The lifecycle stages and types, lower-cased. */
  stages: readonly string[];
}

/** An account no CRM record matched. */
export const NO_CRM_FACTS: CrmFacts = Object.freeze({ owners: [], stages: [] });

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

// ---------------------------------------------------------------------------------------------------
// A rule as a tree of conditions

/** One condition of a level. */
export type Condition =
  /** `values` lower-cased; `raw` as written (company ids are looked up as given too). */
  | { kind: 'field'; field: MatchField; values: string[]; raw: readonly string[] }
  | { kind: 'lists'; ids: string[] }
  | { kind: 'intent'; intent: IntentCondition }
  | { kind: 'visited'; visited: VisitedCondition; pattern: GlobMatcher }
  | { kind: 'page_views'; page_views: PageViewsCondition }
  /** Emails lower-cased; `any` / `none` as flags. */
  | { kind: 'crm_owner'; emails: string[]; any: boolean; none: boolean }
  /** Values lower-cased. */
  | { kind: 'crm_stage'; in: string[] | undefined; not_in: string[] | undefined }
  | { kind: 'lookalike'; lookalike: LookalikeCondition }
  | { kind: 'engaged'; engaged: EngagedCondition; pattern: GlobMatcher }
  | { kind: 'event'; event: EventCondition }
  /** Defaults applied (min_score 60, weeks 1). */
  | { kind: 'topic'; topic: TopicRule }
  | { kind: 'group'; level: Level };

/** A level (the rule, or one of its groups): its conditions and how they combine. */
export interface Level {
  op: RuleOp;
  conditions: Condition[];
}

/**
 * A `visited` path pattern's matcher: `*` any run of characters, everything else itself, the whole path
 * without its query string, ignoring case (core/glob.ts, the product's one matcher: linear in the path,
 * where the regular expression it replaced backtracked for most of a minute on a crafted page path).
 * Remembered per pattern (rules repeat them on every evaluation).
 */
export const pathPattern: (pattern: string) => GlobMatcher = boundedMemo((pattern: string) => compilePathGlob(pattern, { ignoreCase: true }), 1_000);

function levelOf(level: SegmentMatch | SegmentGroup): Level {
  const conditions: Condition[] = [];
  for (const field of CATALOG_FIELDS) {
    const values = level[field];
    if (values !== undefined) conditions.push({ kind: 'field', field, values: values.map((v) => v.toLowerCase()), raw: values });
  }
  if (level.in_list !== undefined) conditions.push({ kind: 'lists', ids: level.in_list.map((id) => id.toLowerCase()) });
  if (level.visited !== undefined) conditions.push({ kind: 'visited', visited: level.visited, pattern: pathPattern(level.visited.path) });
  if (level.page_views !== undefined) conditions.push({ kind: 'page_views', page_views: level.page_views });
  if (level.intent !== undefined) conditions.push({ kind: 'intent', intent: level.intent });
  if (level.crm_owner !== undefined) {
    const values = level.crm_owner.map((v) => v.toLowerCase());
    conditions.push({
      kind: 'crm_owner',
      emails: values.filter((v) => v !== 'any' && v !== 'none'),
      any: values.includes('any'),
      none: values.includes('none'),
    });
  }
  if (level.crm_stage !== undefined) conditions.push({ kind: 'crm_stage', in: lowered(level.crm_stage.in), not_in: lowered(level.crm_stage.not_in) });
  if (level.lookalike !== undefined) conditions.push({ kind: 'lookalike', lookalike: level.lookalike });
  if (level.engaged !== undefined) conditions.push({ kind: 'engaged', engaged: level.engaged, pattern: pathPattern(level.engaged.path) });
  if (level.event !== undefined) conditions.push({ kind: 'event', event: level.event });
  if (level.topic !== undefined) conditions.push({ kind: 'topic', topic: topicRule(level.topic) });
  for (const group of (level as SegmentMatch).groups ?? []) conditions.push({ kind: 'group', level: levelOf(group) });
  return { op: level.op ?? 'all', conditions };
}

const lowered = (values: readonly string[] | undefined) => values?.map((v) => v.toLowerCase());

const compiled = new WeakMap<SegmentMatch, Level>();

/** A rule's conditions, compiled once per frozen rule (a cached customer record's), else per call. */
export function ruleLevel(match: SegmentMatch): Level {
  let level = compiled.get(match);
  if (level === undefined) {
    level = levelOf(match);
    if (Object.isFrozen(match)) compiled.set(match, level);
  }
  return level;
}

/** Every condition of a level and of its groups. */
export function* allConditions(level: Level): Iterable<Condition> {
  for (const c of level.conditions) {
    if (c.kind === 'group') yield* allConditions(c.level);
    else yield c;
  }
}

/** The list ids a rule's `in_list` conditions name (lower-cased, groups included). */
export function ruleLists(match: SegmentMatch): string[] {
  const ids: string[] = [];
  for (const c of allConditions(ruleLevel(match))) if (c.kind === 'lists') ids.push(...c.ids);
  return ids;
}

/** The product names a rule's `intent` conditions name (as written, groups included). */
export function ruleProducts(match: SegmentMatch): string[] {
  const names: string[] = [];
  for (const c of allConditions(ruleLevel(match))) if (c.kind === 'intent') names.push(c.intent.product);
  return names;
}

/**
 * What of an account's facts a rule reads: the longest look-back of its behaviour conditions, whether it
 * reads intent, whether it reads the CRM side, and whether it scores the account against a lookalike seed.
 */
export interface FactsNeed {
  /** Days of page views (0: none). */
  days: number;
  intent: boolean;
  crm: boolean;
  /** Whether a rule scores the account against a lookalike seed (absent: none does). */
  lookalike?: boolean;
  /** The account's third-party topics (catalog data: a rule reading only these is still cached by the membership index). */
  topics?: boolean;
  /** Days of engaged time and custom events (absent or 0: none). */
  engagement?: number;
}

export function factsNeed(match: SegmentMatch): FactsNeed {
  const need: FactsNeed = { days: 0, intent: false, crm: false };
  for (const c of allConditions(ruleLevel(match))) {
    if (c.kind === 'visited') need.days = Math.max(need.days, c.visited.days);
    else if (c.kind === 'page_views') need.days = Math.max(need.days, c.page_views.days);
    else if (c.kind === 'intent') need.intent = true;
    else if (c.kind === 'crm_owner' || c.kind === 'crm_stage') need.crm = true;
    else if (c.kind === 'lookalike') need.lookalike = true;
    else if (c.kind === 'engaged' || c.kind === 'event') need.engagement = Math.max(need.engagement ?? 0, c.kind === 'engaged' ? c.engaged.days : c.event.days);
    else if (c.kind === 'topic') need.topics = true;
  }
  return need;
}

/** Whether a rule reads anything beyond the catalog and the lists (its members change without a rule change). */
export const readsFacts = (need: FactsNeed): boolean => need.days > 0 || need.intent || need.crm || need.lookalike === true || (need.engagement ?? 0) > 0;

const segmentNeeds = new WeakMap<readonly Segment[], FactsNeed | null>();

/**
 * What the customer's segments together read of an account's facts, or null when none reads any: then
 * no facts are gathered (identification's hot path pays one WeakMap lookup per frozen segment list).
 */
export function needsAccountFacts(segments: readonly Segment[]): FactsNeed | null {
  const hit = segmentNeeds.get(segments);
  if (hit !== undefined) return hit;
  const need: FactsNeed = { days: 0, intent: false, crm: false };
  for (const s of segments) {
    const n = factsNeed(s.match);
    need.days = Math.max(need.days, n.days);
    need.intent ||= n.intent;
    need.crm ||= n.crm;
    if (n.lookalike) need.lookalike = true;
    if (n.engagement) need.engagement = Math.max(need.engagement ?? 0, n.engagement);
    if (n.topics) need.topics = true;
  }
  const out = readsFacts(need) || need.topics ? need : null;
  if (Object.isFrozen(segments)) segmentNeeds.set(segments, out);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Behaviour and intent, on one account's facts (the membership index reads the same functions)

/** The first UTC day of a look-back of `days` days ending on `today` (today counts as one). */
export function windowStart(today: string, days: number): string {
  return new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** Whether the account viewed a page matching the pattern (`pathPattern`: query strings aside) in the window. */
export function visitedHolds(pattern: GlobMatcher, days: number, pages: readonly DayPageViews[], today: string): boolean {
  const from = windowStart(today, days);
  return pages.some((p) => p.day >= from && p.day <= today && p.page_views > 0 && pattern(p.path));
}

/** The account's page views in the window. */
export function pageViewsIn(days: number, pages: readonly DayPageViews[], today: string): number {
  const from = windowStart(today, days);
  let n = 0;
  for (const p of pages) if (p.day >= from && p.day <= today) n += p.page_views;
  return n;
}

/** Whether an intent score satisfies the condition: its stage is one of `stages` and/or it reaches `min_score`. */
export function intentHolds(c: IntentCondition, score: number): boolean {
  if (c.stages !== undefined && !c.stages.includes(buyingStage(score) as BuyingStage)) return false;
  return c.min_score === undefined || score >= c.min_score;
}

/** Whether the account's CRM owners satisfy a `crm_owner` condition (`owners` lower-cased). */
export function crmOwnerHolds(c: Extract<Condition, { kind: 'crm_owner' }>, owners: readonly string[]): boolean {
  if (owners.length === 0) return c.none;
  return c.any || owners.some((o) => c.emails.includes(o));
}

/** Whether the account's CRM stages and types satisfy a `crm_stage` condition (`stages` lower-cased). */
export function crmStageHolds(c: Pick<CrmStageCondition, 'in' | 'not_in'>, stages: readonly string[]): boolean {
  if (c.in !== undefined && !stages.some((s) => c.in!.includes(s))) return false;
  return c.not_in === undefined || !stages.some((s) => c.not_in!.includes(s));
}

/** A CRM condition on one account's CRM facts. */
export function crmHolds(c: Extract<Condition, { kind: 'crm_owner' | 'crm_stage' }>, crm: CrmFacts): boolean {
  return c.kind === 'crm_owner' ? crmOwnerHolds(c, crm.owners) : crmStageHolds(c, crm.stages);
}

// ---------------------------------------------------------------------------------------------------
// Evaluation of one company

function conditionHolds(c: Condition, company: CompanyRow, lists: ListMembers, facts: AccountFacts | undefined): boolean {
  switch (c.kind) {
    case 'field': {
      const rule = MATCH_FIELDS[c.field];
      return rule.columns.some((col) => valueMatches(rule, company[col] ?? '', c.values));
    }
    case 'lists':
      return c.ids.some((id) => lists(id)?.has(company.company_id));
    case 'intent': {
      const score = facts?.intent(c.intent.product);
      return score !== undefined && intentHolds(c.intent, score);
    }
    case 'visited':
      return facts !== undefined && visitedHolds(c.pattern, c.visited.days, facts.pages, facts.today);
    case 'page_views':
      return facts !== undefined && pageViewsIn(c.page_views.days, facts.pages, facts.today) >= c.page_views.min;
    case 'crm_owner':
    case 'crm_stage':
      return crmHolds(c, facts?.crm ?? NO_CRM_FACTS);
    case 'lookalike': {
      const score = facts?.lookalike?.(c.lookalike);
      return score !== undefined && reaches(score, c.lookalike.min_score);
    }
    case 'topic':
      return facts?.topics !== undefined && topicHolds(c.topic, facts.topics);
    case 'engaged':
      return facts !== undefined && engagedHolds(c.engaged, c.pattern, facts.engagement ?? NO_ENGAGEMENT, facts.today);
    case 'event':
      return facts !== undefined && eventHolds(c.event, facts.engagement ?? NO_ENGAGEMENT, facts.today);
    case 'group':
      return levelHolds(c.level, company, lists, facts);
  }
}

function levelHolds(level: Level, company: CompanyRow, lists: ListMembers, facts: AccountFacts | undefined): boolean {
  if (level.conditions.length === 0) return false;
  return level.op === 'any'
    ? level.conditions.some((c) => conditionHolds(c, company, lists, facts))
    : level.conditions.every((c) => conditionHolds(c, company, lists, facts));
}

/**
 * Whether the company is in a segment of this rule. `lists` are the customer's account lists (`in_list`);
 * `facts` what the account did (`intent`, `visited`, `page_views`; without them those conditions do not hold)
 * and what its CRM says (`crm_owner`, `crm_stage`; without it the account has no owner and no stage).
 */
export function segmentMatches(match: SegmentMatch, company: CompanyRow, lists: ListMembers = NO_LISTS, facts?: AccountFacts): boolean {
  return levelHolds(ruleLevel(match), company, lists, facts);
}

/**
 * The customer's segments the company is in. Pass the customer (its lists are what `in_list` reads); a bare
 * list of segments is evaluated without lists (an `in_list` rule then matches nothing). `facts`: the
 * account's, when the customer's rules need them (`needsAccountFacts`).
 */
export function matchingSegments(owner: SegmentOwner | readonly Segment[], company: CompanyRow | null, facts?: AccountFacts): Segment[] {
  if (!company) return [];
  const [segments, lists] = isSegmentList(owner) ? [owner, NO_LISTS] : [owner.segments, listMembers(owner)];
  return segments.filter((s) => segmentMatches(s.match, company, lists, facts));
}

const isSegmentList = (o: SegmentOwner | readonly Segment[]): o is readonly Segment[] => Array.isArray(o);

// ---------------------------------------------------------------------------------------------------
// Words

function conditionWords(c: Condition, match: SegmentMatch | SegmentGroup): string | null {
  switch (c.kind) {
    case 'field': {
      const values = match[c.field] ?? [];
      return values.length > 0 ? `${c.field}: ${values.join(', ')}` : null;
    }
    case 'lists':
      return match.in_list && match.in_list.length > 0 ? `in_list: ${match.in_list.join(', ')}` : null;
    case 'intent': {
      const { product, stages, min_score } = c.intent;
      const parts = [...(stages ?? []), ...(min_score !== undefined ? [`score ≥ ${min_score}`] : [])];
      return `intent ${product}: ${parts.join(', ')}`;
    }
    case 'visited':
      return `visited ${c.visited.path} in ${dayWords(c.visited.days)}`;
    case 'page_views':
      return `page_views ≥ ${c.page_views.min} in ${dayWords(c.page_views.days)}`;
    case 'crm_owner':
      return `crm_owner: ${(match.crm_owner ?? []).join(', ')}`;
    case 'crm_stage': {
      const { in: among, not_in } = match.crm_stage ?? {};
      const parts = [...(among ? [`in (${among.join(', ')})`] : []), ...(not_in ? [`not in (${not_in.join(', ')})`] : [])];
      return `crm_stage ${parts.join(' and ')}`;
    }
    case 'lookalike':
      return `accounts like ${seedWords(c.lookalike)}, score ≥ ${c.lookalike.min_score}`;
    case 'topic':
      return topicWords(c.topic);
    case 'engaged':
      return engagedWords(c.engaged);
    case 'event':
      return eventWords(c.event);
    case 'group':
      return null;
  }
}

const dayWords = (days: number) => (days === 1 ? '1 day' : `${days} days`);

/** A lookalike's seed in words: `list X`, `segment 3`, `companies 100001, 100002` (the first five, then how many more). */
export function seedWords(seed: Pick<LookalikeCondition, 'list' | 'segment' | 'companies'>): string {
  if (seed.list !== undefined) return `list ${seed.list}`;
  if (seed.segment !== undefined) return `segment ${seed.segment}`;
  const ids = seed.companies ?? [];
  return `${ids.length === 1 ? 'company' : 'companies'} ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ` and ${ids.length - 5} more` : ''}`;
}

/** A level's conditions in words, its groups as `any of (…)` / `all of (…)`. */
function levelWords(match: SegmentMatch | SegmentGroup, level: Level, top: boolean): string[] {
  const groups = (match as SegmentMatch).groups ?? [];
  let g = 0;
  const parts: string[] = [];
  for (const c of level.conditions) {
    if (c.kind === 'group') {
      const group = groups[g++]!;
      const inner = levelWords(group, c.level, false);
      if (inner.length > 0) parts.push(`${top && level.op === 'all' ? 'and ' : ''}${c.level.op} of (${inner.join('; ')})`);
    } else {
      const words = conditionWords(c, match);
      if (words !== null) parts.push(words);
    }
  }
  return parts;
}

/**
 * A rule in words, for lists: `industry: Software, SaaS; country_iso_code: US; and any of (visited /pricing*
 * in 14 days; intent crm: Decision, Purchase)`; with `op: any` at the top `any of (…)`; "matches nothing"
 * for an empty one.
 */
export function ruleSummary(match: SegmentMatch): string {
  const level = ruleLevel(match);
  const parts = levelWords(match, level, true);
  if (parts.length === 0) return 'matches nothing (empty rule)';
  return level.op === 'any' && parts.length > 1 ? `any of (${parts.join('; ')})` : parts.join('; ');
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
