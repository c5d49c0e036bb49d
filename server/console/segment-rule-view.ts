/**
 * The segment builder as data (the Segments page, ui/segments/): the conditions it edits, the
 * builder's state and the rule it stands for (both ways), how a value typed or picked changes a condition,
 * the rule in words, and the body a save sends. Pure, so the console's tests check it without a browser.
 *
 * The rule model is the server's (core/customer-records.ts `SegmentMatch`, server/segments/evaluate.ts): a
 * level (the rule itself, or one of its groups — one level of nesting) holds conditions combined by its
 * `op` (`all`, the default, or `any`); each present field is one condition (its values ORed), each group one
 * condition of the top level. Catalog fields show as "Industry is any of Software, Retail", with pickers
 * where the vocabulary is fixed (employee and revenue ranges, core/vocabulary.ts) and typed values checked
 * for the shape the catalog stores elsewhere; intent (a product's buying stages and/or a minimum score), a
 * visited path pattern and a page-view count are the behaviour conditions; the CRM owner (emails, or any /
 * none) and the CRM stage (is one of / is not one of) are what a connected CRM says of the account, as the
 * CRM sync read it back. Fields the builder does not add (company ids, account lists) are kept as they
 * are, shown in words and removable.
 *
 * The builder's state (`RuleDraft`) is the rule with its numbers as typed (a half-typed "1" of "14" is not a
 * rule yet) and a key per group (Preact keeps each group's inputs with it when another is removed);
 * `draftOf` loads a saved rule, `ruleOf` gives the rule back or the problems that stop it.
 */
import type { SegmentMatch } from '../../core/customer-records.ts';
import { CATALOG_FIELDS } from '../../core/segment-fields.ts';
import { BUYING_STAGES, type BuyingStage, EMPLOYEE_RANGES, REVENUE_RANGES } from '../../core/vocabulary.ts';
import {
  ENGAGEMENT_KINDS,
  ENGAGEMENT_LABELS,
  type EngagedDraft,
  type EngagementKind,
  type EventDraft,
  engagementDraftsOf,
  engagementInWords,
  engagementRulesOf,
  freshEngagement,
} from './engagement-rule-view.ts';
import { freshLookalike, type LookalikeDraft, lookalikeDraftOf, lookalikeInWords, lookalikeRuleOf, type SeedNames } from './lookalike-view.ts';
import { freshTopic, TOPIC_KIND, TOPIC_LABEL, type TopicDraft, type TopicPart, topicDraftOf, topicInWords, topicRuleOf } from './topic-rule-view.ts';

/** The catalog fields the builder edits, in the order it offers them: all but company ids (KEPT_FIELDS). */
export type BuilderField = Exclude<(typeof CATALOG_FIELDS)[number], 'company_id'>;
export const BUILDER_FIELDS: readonly BuilderField[] = CATALOG_FIELDS.filter((f): f is BuilderField => f !== 'company_id');

/** The list fields a rule may hold that the builder keeps but does not offer (set through the API or a list page). */
export const KEPT_FIELDS = ['company_id', 'in_list'] as const satisfies readonly (keyof SegmentMatch)[];
export type KeptField = (typeof KEPT_FIELDS)[number];
export type ListField = BuilderField | KeptField;
const LIST_FIELDS: readonly ListField[] = [...BUILDER_FIELDS, ...KEPT_FIELDS];

/** The behaviour and intent conditions, in the order the builder offers them (after the catalog fields). */
export const BEHAVIOUR_KINDS = ['intent', 'visited', 'page_views'] as const;
export type BehaviourKind = (typeof BEHAVIOUR_KINDS)[number];
/** The CRM conditions, offered last: the account's owner and its stage (or type) in a connected CRM. */
export const CRM_KINDS = ['crm_owner', 'crm_stage'] as const;
export type CrmKind = (typeof CRM_KINDS)[number];
/** Accounts like a seed (./lookalike-view.ts), offered after the CRM conditions. */
export const LOOKALIKE_KIND = 'lookalike' as const;
/** What one condition of a level is on (engaged time and custom events: ./engagement-rule-view.ts, offered after the behaviour conditions). */
export type ConditionKind = ListField | BehaviourKind | EngagementKind | CrmKind | typeof LOOKALIKE_KIND | typeof TOPIC_KIND;
/** What a new condition can be on (the kept fields are never added here). */
export type NewKind = BuilderField | BehaviourKind | EngagementKind | CrmKind | typeof LOOKALIKE_KIND | typeof TOPIC_KIND;

export const OPS = ['all', 'any'] as const;
export type Op = (typeof OPS)[number];

/**
 * Groups a rule holds at most, and the bounds of the behaviour conditions: core/customer-records.ts says the
 * same (its tests check), kept apart so the console's bundle carries no zod schema.
 */
export const MAX_GROUPS = 20;
export const MAX_DAYS = 400;
export const MAX_PAGE_VIEWS = 1_000_000;
export const MAX_PATH = 500;

export interface FieldSpec {
  label: string;
  /** The fixed vocabulary to pick from; absent: values are typed. */
  choices?: readonly string[];
  /** What to type (placeholder / hint). */
  hint: string;
  /** A typed value as stored (trimmed; codes upper-cased), or an error message. */
  check(value: string): { ok: true; value: string } | { ok: false; message: string };
  /** Whether values are prefixes (the words say "starts with"). */
  prefix?: boolean;
}

const text =
  (max = 200) =>
  (v: string): ReturnType<FieldSpec['check']> => {
    const value = v.trim();
    if (value === '') return { ok: false, message: 'type a value' };
    return value.length <= max ? { ok: true, value } : { ok: false, message: `at most ${max} characters` };
  };
const pattern =
  (re: RegExp, message: string, upper = false) =>
  (v: string): ReturnType<FieldSpec['check']> => {
    const value = upper ? v.trim().toUpperCase() : v.trim();
    return re.test(value) ? { ok: true, value } : { ok: false, message };
  };
const choice =
  (choices: readonly string[]) =>
  (v: string): ReturnType<FieldSpec['check']> => {
    const found = choices.find((c) => c.toLowerCase() === v.trim().toLowerCase());
    return found ? { ok: true, value: found } : { ok: false, message: `one of ${choices.join(', ')}` };
  };

export const FIELD_SPECS: Readonly<Record<BuilderField, FieldSpec>> = {
  industry: { label: 'Industry', hint: 'e.g. Software', check: text() },
  subindustry: { label: 'Sub-industry', hint: 'e.g. Application Software', check: text() },
  employee_range: { label: 'Employees', choices: EMPLOYEE_RANGES, hint: 'pick one or more', check: choice(EMPLOYEE_RANGES) },
  revenue_range: { label: 'Revenue', choices: REVENUE_RANGES, hint: 'pick one or more', check: choice(REVENUE_RANGES) },
  country_iso_code: {
    label: 'Country',
    hint: 'two-letter ISO code, e.g. US, DE',
    check: pattern(/^[A-Z]{2}$/, 'a two-letter ISO country code (US, DE …)', true),
  },
  region: { label: 'Region', hint: 'e.g. North America, EMEA, APAC, LATAM', check: text() },
  state: { label: 'State', hint: 'name or code, e.g. California or CA', check: text() },
  sic_prefix: { label: 'SIC code', hint: 'the first digits, e.g. 73', check: pattern(/^\d{1,4}$/, '1 to 4 digits of a SIC code'), prefix: true },
  naics_prefix: { label: 'NAICS code', hint: 'the first digits, e.g. 5112', check: pattern(/^\d{1,6}$/, '1 to 6 digits of a NAICS code'), prefix: true },
};

/** Labels of every condition kind: the "Add a condition on" choices and the words. */
export const KIND_LABELS: Readonly<Record<ConditionKind, string>> = {
  ...(Object.fromEntries(BUILDER_FIELDS.map((f) => [f, FIELD_SPECS[f].label])) as Record<BuilderField, string>),
  company_id: 'Company id',
  in_list: 'In account list',
  intent: 'Intent (buying stage or score)',
  visited: 'Visited a page',
  page_views: 'Page views',
  ...ENGAGEMENT_LABELS,
  crm_owner: 'CRM owner',
  crm_stage: 'CRM stage',
  lookalike: 'Lookalike accounts',
  topic: TOPIC_LABEL,
};

/** The values of `crm_owner` that are no email: the account has a CRM owner (`any`), or none (`none`). */
export const OWNER_SPECIAL = ['any', 'none'] as const;
export type OwnerSpecial = (typeof OWNER_SPECIAL)[number];
export const OWNER_SPECIAL_LABELS: Readonly<Record<OwnerSpecial, string>> = { any: 'has a CRM owner', none: 'has no CRM owner' };
const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** An owner email (core/customer-records.ts says the same), and a stage's length. */
export const MAX_OWNER_EMAIL = 320;
export const MAX_STAGE = 200;

/**
 * Stages and types a CRM commonly holds, suggested while typing (any value can be typed: a CRM's own
 * stages are the customer's): HubSpot's default lifecycle stages and company types, Salesforce's default
 * Account types. Compared whole and ignoring case, so `customer` is not `Customer - Direct`.
 */
export const CRM_STAGE_SUGGESTIONS: readonly string[] = [
  'subscriber',
  'lead',
  'marketingqualifiedlead',
  'salesqualifiedlead',
  'opportunity',
  'customer',
  'evangelist',
  'other',
  'PROSPECT',
  'PARTNER',
  'RESELLER',
  'VENDOR',
  'Prospect',
  'Customer - Direct',
  'Customer - Channel',
  'Channel Partner / Reseller',
  'Installation Partner',
  'Technology Partner',
  'Other',
];

const isBuilderField = (f: string): f is BuilderField => (BUILDER_FIELDS as readonly string[]).includes(f);
const isListField = (f: string): f is ListField => (LIST_FIELDS as readonly string[]).includes(f);

/** A product a customer scores for (its `products[]`): intent conditions pick one by `name`. */
export interface ProductChoice {
  name: string;
  display_name: string;
}

// ---- the builder's state -------------------------------------------------------------------------------

/** An intent condition as edited: the minimum score as typed ('' = none). */
export interface IntentDraft {
  product: string;
  stages: BuyingStage[];
  min_score: string;
}
export interface VisitedDraft {
  path: string;
  days: string;
}
export interface PageViewsDraft {
  min: string;
  days: string;
}
/** A CRM stage condition as edited: the stages it must be one of, and those it must not be (either may be empty). */
export interface CrmStageDraft {
  in: string[];
  not_in: string[];
}
export type StageSide = keyof CrmStageDraft;

/** The list fields' values of a level (a saved rule's level has the same ones). */
export type ListValues = { [F in ListField]?: string[] };

/** One level as edited: its list fields (values as stored), behaviour conditions (numbers as typed), op. */
export type LevelDraft = ListValues & {
  op: Op;
  intent?: IntentDraft;
  visited?: VisitedDraft;
  page_views?: PageViewsDraft;
  engaged?: EngagedDraft;
  event?: EventDraft;
  /** Owner emails, `any`, `none`, as stored. */
  crm_owner?: string[];
  crm_stage?: CrmStageDraft;
  lookalike?: LookalikeDraft;
  /** A third-party intent topic's score (./topic-rule-view.ts). */
  topic?: TopicDraft;
};
export type GroupDraft = LevelDraft & { key: number };
export type RuleDraft = LevelDraft & { groups: GroupDraft[] };

/** Which level of a draft: the top (`'top'`) or a group by its key. */
export type LevelRef = 'top' | number;

type SavedLevel = Omit<SegmentMatch, 'groups'>;

function levelDraftOf(level: SavedLevel): LevelDraft {
  const draft: LevelDraft = { op: level.op ?? 'all' };
  for (const f of LIST_FIELDS) if (level[f] !== undefined) draft[f] = [...(level[f] as string[])];
  if (level.intent)
    draft.intent = {
      product: level.intent.product,
      stages: [...(level.intent.stages ?? [])],
      min_score: level.intent.min_score === undefined ? '' : String(level.intent.min_score),
    };
  if (level.visited) draft.visited = { path: level.visited.path, days: String(level.visited.days) };
  if (level.page_views) draft.page_views = { min: String(level.page_views.min), days: String(level.page_views.days) };
  if (level.crm_owner) draft.crm_owner = [...level.crm_owner];
  if (level.crm_stage) draft.crm_stage = { in: [...(level.crm_stage.in ?? [])], not_in: [...(level.crm_stage.not_in ?? [])] };
  if (level.lookalike) draft.lookalike = lookalikeDraftOf(level.lookalike);
  if (level.topic) draft.topic = topicDraftOf(level.topic);
  Object.assign(draft, engagementDraftsOf(level));
  return draft;
}

/** A saved rule (flat legacy rules included) as the builder edits it. */
export function draftOf(match: SegmentMatch): RuleDraft {
  return { ...levelDraftOf(match), groups: (match.groups ?? []).map((g, i) => ({ ...levelDraftOf(g), key: i + 1 })) };
}

export const emptyDraft = (): RuleDraft => ({ op: 'all', groups: [] });

/** Why a draft is not a rule yet: which level and condition, which input, and what to do. */
export interface RuleProblem {
  level: LevelRef;
  kind: BehaviourKind | EngagementKind | typeof LOOKALIKE_KIND | typeof TOPIC_KIND;
  part: 'product' | 'min_score' | 'path' | 'days' | 'min' | 'seed' | 'min_seconds' | 'name' | 'min_count' | TopicPart;
  message: string;
}

/** A whole number from min to max as typed, or undefined. */
function wholeNumber(typed: string, min: number, max: number): number | undefined {
  const t = typed.trim();
  if (!/^\d{1,9}$/.test(t)) return undefined;
  const n = Number(t);
  return n >= min && n <= max ? n : undefined;
}

const daysProblem = (level: LevelRef, kind: BehaviourKind, label: string): RuleProblem => ({
  level,
  kind,
  part: 'days',
  message: `${label}: the days are a whole number from 1 to ${MAX_DAYS}.`,
});

/**
 * One level as saved: list fields with values (an empty list would match nothing: dropped, as an untouched
 * condition), behaviour conditions once they say something (a path, a stage or score, a minimum), `op` only
 * when `any` (`all` is the default). Problems for what is typed but cannot be sent.
 */
function levelRuleOf(draft: LevelDraft, ref: LevelRef, problems: RuleProblem[]): SavedLevel {
  const out: SavedLevel = {};
  for (const f of LIST_FIELDS) {
    const values = draft[f];
    if (values && values.length > 0) out[f] = [...values];
  }
  const { intent, visited, page_views: views } = draft;
  if (intent && (intent.stages.length > 0 || intent.min_score.trim() !== '')) {
    const score = intent.min_score.trim() === '' ? undefined : wholeNumber(intent.min_score, 0, 100);
    if (intent.product === '') problems.push({ level: ref, kind: 'intent', part: 'product', message: 'Intent: pick a product.' });
    else if (intent.min_score.trim() !== '' && score === undefined)
      problems.push({ level: ref, kind: 'intent', part: 'min_score', message: 'Intent: the minimum score is a whole number from 0 to 100.' });
    else {
      const stages = BUYING_STAGES.filter((s) => intent.stages.includes(s));
      out.intent = { product: intent.product, ...(stages.length > 0 ? { stages } : {}), ...(score !== undefined ? { min_score: score } : {}) };
    }
  }
  if (visited && visited.path.trim() !== '') {
    const path = visited.path.trim();
    const days = wholeNumber(visited.days, 1, MAX_DAYS);
    if (!path.startsWith('/') || path.length > MAX_PATH || path.includes('?'))
      problems.push({
        level: ref,
        kind: 'visited',
        part: 'path',
        message: `Visited: a path pattern starts with / and holds no ? (pages are compared without their query string; at most ${MAX_PATH} characters); * matches any run of characters, e.g. /pricing* or /blog/*.`,
      });
    else if (days === undefined) problems.push(daysProblem(ref, 'visited', 'Visited'));
    else out.visited = { path, days };
  }
  if (views && views.min.trim() !== '') {
    const min = wholeNumber(views.min, 1, MAX_PAGE_VIEWS);
    const days = wholeNumber(views.days, 1, MAX_DAYS);
    if (min === undefined)
      problems.push({
        level: ref,
        kind: 'page_views',
        part: 'min',
        message: `Page views: the minimum is a whole number from 1 to ${MAX_PAGE_VIEWS.toLocaleString('en-US')}.`,
      });
    else if (days === undefined) problems.push(daysProblem(ref, 'page_views', 'Page views'));
    else out.page_views = { min, days };
  }
  const engagement = engagementRulesOf(draft);
  if (engagement.engaged) out.engaged = engagement.engaged;
  if (engagement.event) out.event = engagement.event;
  for (const p of engagement.problems) problems.push({ level: ref, ...p });
  // Like a list field: a CRM condition without values is an untouched one (dropped).
  if (draft.crm_owner && draft.crm_owner.length > 0) out.crm_owner = [...draft.crm_owner];
  const stage = draft.crm_stage;
  if (stage && (stage.in.length > 0 || stage.not_in.length > 0))
    out.crm_stage = { ...(stage.in.length > 0 ? { in: [...stage.in] } : {}), ...(stage.not_in.length > 0 ? { not_in: [...stage.not_in] } : {}) };
  if (draft.lookalike) {
    const like = lookalikeRuleOf(draft.lookalike);
    if (like.ok) out.lookalike = like.condition;
    else problems.push({ level: ref, kind: LOOKALIKE_KIND, part: like.part, message: like.message });
  }
  if (draft.topic) {
    const topic = topicRuleOf(draft.topic);
    if (topic.ok) out.topic = topic.condition;
    else problems.push({ level: ref, kind: TOPIC_KIND, part: topic.part, message: topic.message });
  }
  if (draft.op === 'any') out.op = 'any';
  return out;
}

const conditionsIn = (level: SavedLevel): number => Object.keys(level).filter((k) => k !== 'op').length;

/**
 * The rule a draft stands for — as previewed and saved — or the problems that stop it. Groups without a
 * condition are dropped (the server refuses an empty group); an empty rule is a rule (it matches nothing:
 * `hasConditions` tells).
 */
export function ruleOf(draft: RuleDraft): { ok: true; match: SegmentMatch } | { ok: false; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const match: SegmentMatch = levelRuleOf(draft, 'top', problems);
  const groups = draft.groups.map((g) => levelRuleOf(g, g.key, problems)).filter((g) => conditionsIn(g) > 0);
  if (groups.length > 0) match.groups = groups;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, match };
}

// ---- editing a level ------------------------------------------------------------------------------------

/** A rule field's values (empty when absent). */
export const valuesOf = (match: ListValues, field: ListField): string[] => match[field] ?? [];

/** The builder fields the level has a condition on, in builder order. */
export const usedFields = (match: ListValues): BuilderField[] => BUILDER_FIELDS.filter((f) => match[f] !== undefined);

/** Every condition of a level, in the builder's order: catalog fields, kept fields, intent, behaviour, CRM. */
export function conditionsOf(level: LevelDraft): ConditionKind[] {
  return [
    ...LIST_FIELDS.filter((f) => level[f] !== undefined),
    ...BEHAVIOUR_KINDS.filter((k) => level[k] !== undefined),
    ...ENGAGEMENT_KINDS.filter((k) => level[k] !== undefined),
    ...CRM_KINDS.filter((k) => level[k] !== undefined),
    ...(level.lookalike !== undefined ? [LOOKALIKE_KIND] : []),
    ...(level.topic !== undefined ? [TOPIC_KIND] : []),
  ];
}

/** The builder fields a new condition can be on (one condition per field: values of one field are ORed). */
export const freeFields = (match: ListValues): BuilderField[] => BUILDER_FIELDS.filter((f) => match[f] === undefined);

/**
 * What a new condition of the level can be on: free catalog fields, then the behaviour conditions it has
 * not (intent only when the customer has a product to pick), then the CRM conditions it has not.
 */
export function freeKinds(level: LevelDraft, hasProducts: boolean): NewKind[] {
  return [
    ...freeFields(level),
    ...BEHAVIOUR_KINDS.filter((k) => level[k] === undefined && (k !== 'intent' || hasProducts)),
    ...ENGAGEMENT_KINDS.filter((k) => level[k] === undefined),
    ...CRM_KINDS.filter((k) => level[k] === undefined),
    ...(level.lookalike === undefined ? [LOOKALIKE_KIND] : []),
    ...(level.topic === undefined ? [TOPIC_KIND] : []),
  ];
}

/** Days a new behaviour condition starts with. */
export const DEFAULT_DAYS = '30';

/**
 * The level with a new, empty condition on `kind` (or as it was when it has one): no values, the first
 * product, the last 30 days.
 */
export function addCondition<T extends LevelDraft | ListValues>(level: T, kind: NewKind, products: readonly ProductChoice[] = []): T {
  if ((level as LevelDraft)[kind] !== undefined) return level;
  if (isBuilderField(kind) || kind === 'crm_owner') return { ...level, [kind]: [] };
  if (kind === LOOKALIKE_KIND) return { ...level, lookalike: freshLookalike() } as T;
  if (kind === TOPIC_KIND) return { ...level, topic: freshTopic() } as T;
  if (kind === 'engaged' || kind === 'event') return { ...level, [kind]: freshEngagement(kind) };
  const fresh =
    kind === 'intent'
      ? { product: products[0]?.name ?? '', stages: [], min_score: '' }
      : kind === 'visited'
        ? { path: '', days: DEFAULT_DAYS }
        : kind === 'crm_stage'
          ? { in: [], not_in: [] }
          : { min: '', days: DEFAULT_DAYS };
  return { ...level, [kind]: fresh };
}

export function removeCondition<T extends LevelDraft | ListValues>(level: T, kind: ConditionKind): T {
  const { [kind]: _gone, ...rest } = level as Record<string, unknown>;
  return rest as T;
}

const sameValue = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Typed values added to a field's condition (comma-separated values are several), checked and stored as the
 * catalog spells them; a value already there (any case) is not added twice.
 */
export function addValues<T extends ListValues>(match: T, field: BuilderField, typed: string): { ok: true; match: T } | { ok: false; message: string } {
  const spec = FIELD_SPECS[field];
  const parts = typed.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0) return { ok: false, message: `${spec.label}: ${spec.hint}` };
  const values = [...valuesOf(match, field)];
  for (const part of parts) {
    const checked = spec.check(part);
    if (!checked.ok)
      return {
        ok: false,
        message: `${spec.label}: “${part.trim()}” is not ${checked.message.startsWith('one of') ? checked.message : `valid (${checked.message})`}`,
      };
    if (!values.some((v) => sameValue(v, checked.value))) values.push(checked.value);
  }
  return { ok: true, match: { ...match, [field]: values } };
}

export function removeValue<T extends ListValues>(match: T, field: ListField, value: string): T {
  return { ...match, [field]: valuesOf(match, field).filter((v) => v !== value) };
}

/** A picker's checkbox: the value on or off, the field's values kept in the vocabulary's order. */
export function toggleChoice<T extends ListValues>(match: T, field: BuilderField, value: string, on: boolean): T {
  const current = valuesOf(match, field);
  const next = on ? [...current.filter((v) => !sameValue(v, value)), value] : current.filter((v) => !sameValue(v, value));
  const order = FIELD_SPECS[field].choices;
  if (order) next.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { ...match, [field]: next };
}

/** An intent condition's stage checkbox: on or off, stages kept in the funnel's order. */
export function toggleStage(intent: IntentDraft, stage: BuyingStage, on: boolean): IntentDraft {
  const chosen = new Set(intent.stages);
  if (on) chosen.add(stage);
  else chosen.delete(stage);
  return { ...intent, stages: BUYING_STAGES.filter((s) => chosen.has(s)) };
}

/** Typed values split at commas, trimmed, blanks dropped. */
const typedValues = (typed: string) =>
  typed
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');

/**
 * Typed owner emails added to a CRM owner condition (comma-separated: several; `any` / `none` typed are
 * those values), each checked; one already there (any case) is not added twice.
 */
export function addOwners(owners: readonly string[], typed: string): { ok: true; owners: string[] } | { ok: false; message: string } {
  const parts = typedValues(typed);
  if (parts.length === 0) return { ok: false, message: 'CRM owner: type an owner’s email address, e.g. jane@example.com' };
  const out = [...owners];
  for (const part of parts) {
    const special = OWNER_SPECIAL.find((v) => v === part.toLowerCase());
    if (!special && (!EMAIL.test(part) || part.length > MAX_OWNER_EMAIL))
      return { ok: false, message: `CRM owner: “${part}” is not an email address (or any / none)` };
    const value = special ?? part;
    if (!out.some((v) => sameValue(v, value))) out.push(value);
  }
  return { ok: true, owners: out };
}

/** The owner condition with `any` or `none` on or off (its checkboxes). */
export function toggleOwnerSpecial(owners: readonly string[], value: OwnerSpecial, on: boolean): string[] {
  const rest = owners.filter((v) => v.toLowerCase() !== value);
  return on ? [...rest, value] : rest;
}

/** Typed stages added to one side of a CRM stage condition (comma-separated: several), never twice (any case). */
export function addStages(stage: CrmStageDraft, side: StageSide, typed: string): { ok: true; stage: CrmStageDraft } | { ok: false; message: string } {
  const parts = typedValues(typed);
  if (parts.length === 0) return { ok: false, message: 'CRM stage: type a stage or type, e.g. customer or opportunity' };
  const values = [...stage[side]];
  for (const part of parts) {
    if (part.length > MAX_STAGE) return { ok: false, message: `CRM stage: at most ${MAX_STAGE} characters` };
    if (!values.some((v) => sameValue(v, part))) values.push(part);
  }
  return { ok: true, stage: { ...stage, [side]: values } };
}

export const removeStage = (stage: CrmStageDraft, side: StageSide, value: string): CrmStageDraft => ({
  ...stage,
  [side]: stage[side].filter((v) => v !== value),
});

/** Stages typed in the customer's other segments (any level), then the common ones: suggestions. */
export function stageSuggestions(rules: readonly SegmentMatch[]): string[] {
  const seen = new Map<string, string>();
  for (const r of rules)
    for (const level of [r, ...(r.groups ?? [])])
      for (const v of [...(level.crm_stage?.in ?? []), ...(level.crm_stage?.not_in ?? [])]) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  for (const v of CRM_STAGE_SUGGESTIONS) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  return [...seen.values()];
}

// ---- editing the draft's levels ---------------------------------------------------------------------------

/** The level a ref names (undefined: a group since removed). */
export function levelOf(draft: RuleDraft, ref: LevelRef): LevelDraft | undefined {
  return ref === 'top' ? draft : draft.groups.find((g) => g.key === ref);
}

/** The draft with one level changed (`edit` gets the level, returns its new state). */
export function editLevel(draft: RuleDraft, ref: LevelRef, edit: (level: LevelDraft) => LevelDraft): RuleDraft {
  if (ref === 'top') {
    const { groups } = draft;
    return { ...edit(draft), groups };
  }
  return { ...draft, groups: draft.groups.map((g) => (g.key === ref ? { ...edit(g), key: g.key } : g)) };
}

export const setOp = (draft: RuleDraft, ref: LevelRef, op: Op): RuleDraft => editLevel(draft, ref, (l) => ({ ...l, op }));

/**
 * The draft with a new, empty group at the end — combined the other way than the top level, since that is
 * why one groups conditions ("all of these, and any of those") — or as it was at MAX_GROUPS.
 */
export function addGroup(draft: RuleDraft): RuleDraft {
  if (draft.groups.length >= MAX_GROUPS) return draft;
  const key = Math.max(0, ...draft.groups.map((g) => g.key)) + 1;
  return { ...draft, groups: [...draft.groups, { key, op: draft.op === 'all' ? 'any' : 'all' }] };
}

export const removeGroup = (draft: RuleDraft, key: number): RuleDraft => ({ ...draft, groups: draft.groups.filter((g) => g.key !== key) });

// ---- the rule as previewed, saved and read ------------------------------------------------------------------

/** A saved or built rule without what cannot match: empty value lists, empty groups, the default `op`. */
export function cleanRule(match: SegmentMatch): SegmentMatch {
  const level = (l: SavedLevel): SavedLevel =>
    Object.fromEntries(Object.entries(l).filter(([k, v]) => (k === 'op' ? v === 'any' : Array.isArray(v) ? v.length > 0 : v !== undefined))) as SavedLevel;
  const { groups, ...top } = match;
  const out: SegmentMatch = level(top);
  const kept = (groups ?? []).map(level).filter((g) => conditionsIn(g) > 0);
  if (kept.length > 0) out.groups = kept;
  return out;
}

/** Whether the rule can match anything at all (the server's empty rule matches nothing). */
export const hasConditions = (match: SegmentMatch): boolean => conditionsIn(cleanRule(match)) > 0;

/** JSON with object keys sorted, at every depth. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** One key per rule, whatever the order of its fields: a preview is asked again only when this changes. */
export const ruleKey = (match: SegmentMatch): string => canonical(cleanRule(match));

const orList = (values: readonly string[]) => (values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`);
const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const inLast = (days: number) => (days === 1 ? 'in the last day' : `in the last ${days.toLocaleString('en-US')} days`);

function conditionWords(field: string, value: unknown, products: readonly ProductChoice[], names: SeedNames): string {
  if (field === LOOKALIKE_KIND) return lookalikeInWords(value as NonNullable<SegmentMatch['lookalike']>, names);
  if (field === TOPIC_KIND) return topicInWords(value as NonNullable<SegmentMatch['topic']>);
  if (field === 'engaged' || field === 'event') return engagementInWords(field, value as NonNullable<SegmentMatch['engaged' | 'event']>);
  if (field === 'intent') {
    const intent = value as NonNullable<SegmentMatch['intent']>;
    const product = products.find((p) => p.name === intent.product)?.display_name ?? intent.product;
    const stage = intent.stages && intent.stages.length > 0 ? `stage ${orList(intent.stages)}` : '';
    const score = intent.min_score !== undefined ? `score at least ${intent.min_score}` : '';
    return `Intent for ${product}: ${stage && score ? `${stage} with ${score}` : stage || score}`;
  }
  if (field === 'visited') {
    const v = value as NonNullable<SegmentMatch['visited']>;
    return `Visited ${v.path} ${inLast(v.days)}`;
  }
  if (field === 'page_views') {
    const v = value as NonNullable<SegmentMatch['page_views']>;
    return `At least ${plural(v.min, 'page view', 'page views')} ${inLast(v.days)}`;
  }
  if (field === 'crm_owner') {
    const values = value as string[];
    const emails = values.filter((v) => !OWNER_SPECIAL.some((s) => s === v.toLowerCase()));
    const specials = OWNER_SPECIAL.filter((s) => values.some((v) => v.toLowerCase() === s)).map((s) => OWNER_SPECIAL_LABELS[s]);
    const parts = [...(emails.length > 0 ? [`CRM owner is ${orList(emails)}`] : []), ...specials];
    const words = parts.join(' or ');
    return words.charAt(0).toUpperCase() + words.slice(1);
  }
  if (field === 'crm_stage') {
    const v = value as NonNullable<SegmentMatch['crm_stage']>;
    const notIn = v.not_in ? (v.not_in.length === 1 ? `not ${v.not_in[0]}` : `none of ${v.not_in.join(', ')}`) : '';
    const among = v.in ? orList(v.in) : '';
    return `CRM stage is ${among && notIn ? `${among} and ${notIn}` : among || notIn}`;
  }
  const values = value as string[];
  if (isBuilderField(field)) {
    const spec = FIELD_SPECS[field];
    return `${spec.label} ${spec.prefix ? 'starts with' : 'is'} ${orList(values)}`;
  }
  const label = isListField(field) ? KIND_LABELS[field] : field;
  return values.length > 5 ? `${label} is one of ${values.length} values` : `${label} is ${orList(values)}`;
}

const levelParts = (level: SavedLevel, products: readonly ProductChoice[], names: SeedNames): string[] =>
  Object.entries(level)
    .filter(([k]) => k !== 'op')
    .map(([k, v]) => conditionWords(k, v, products, names));

/**
 * The rule in words: conditions joined by ", and" (ALL) or ", or" (ANY) — "Industry is Software or Retail,
 * and Employees is 1,000-4,999" — a group of several as "any of (…; …)" / "all of (…; …)". Products by
 * their display names when the customer's products are given, a lookalike's seed list or segment by its name when `names` has it.
 */
export function ruleInWords(match: SegmentMatch, products: readonly ProductChoice[] = [], names: SeedNames = {}): string {
  const { groups, ...top } = cleanRule(match);
  const parts = levelParts(top, products, names);
  for (const g of groups ?? []) {
    const inner = levelParts(g, products, names);
    parts.push(inner.length === 1 ? inner[0] : `${g.op === 'any' ? 'any' : 'all'} of (${inner.join('; ')})`);
  }
  if (parts.length === 0) return 'matches no account yet: add a condition';
  return parts.join(top.op === 'any' ? ', or ' : ', and ');
}

/** Values of a field used in the customer's other segments (any level): suggestions for typed fields. */
export function suggestions(rules: readonly SegmentMatch[], field: BuilderField): string[] {
  const seen = new Map<string, string>();
  for (const r of rules)
    for (const level of [r, ...(r.groups ?? [])]) for (const v of level[field] ?? []) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  return [...seen.values()].sort((a, b) => a.localeCompare(b));
}

export type SegmentFormResult =
  | { ok: true; body: { name: string; match: SegmentMatch } }
  | { ok: false; field: 'name' | 'rule'; message: string; problem?: RuleProblem };

/**
 * What a save sends, or why not: a name (1–200 characters, not another segment's, case-insensitively, as
 * the server's 409 would say) and a rule without problems that has at least one condition.
 */
export function segmentBody(name: string, draft: RuleDraft, others: readonly { id: number; name: string }[], editing: number | null): SegmentFormResult {
  const n = name.trim();
  if (n === '') return { ok: false, field: 'name', message: 'Name: a segment needs a name.' };
  if (n.length > 200) return { ok: false, field: 'name', message: 'Name: at most 200 characters.' };
  const taken = others.find((s) => s.id !== editing && s.name.trim().toLowerCase() === n.toLowerCase());
  if (taken) return { ok: false, field: 'name', message: `Name: the segment “${taken.name}” has this name already.` };
  const rule = ruleOf(draft);
  if (!rule.ok) {
    const [problem] = rule.problems;
    const where = problem.level === 'top' ? '' : ` (group ${draft.groups.findIndex((g) => g.key === problem.level) + 1})`;
    return { ok: false, field: 'rule', message: `Rule${where}: ${problem.message}`, problem };
  }
  if (!hasConditions(rule.match))
    return { ok: false, field: 'rule', message: 'Rule: add at least one condition with a value (an empty rule matches nothing).' };
  return { ok: true, body: { name: n, match: rule.match } };
}
