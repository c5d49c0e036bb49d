/**
 * The segment builder as data (the Segments page, ui/SegmentsPage.tsx): the rule fields it edits, how a
 * value typed or picked changes a rule, the rule in words, and the body a save sends. Pure, so the
 * console's tests check it without a browser.
 *
 * The rule model is the server's (core/customer-records.ts `SegmentMatch`, server/segments/evaluate.ts):
 * every field listed must match one of its values (AND across fields, OR within a field). The builder
 * shows one condition per field ("Industry is any of Software, Retail"); fields it does not edit (company
 * ids, account lists …) are kept as they are and shown in words. Value pickers where the vocabulary is
 * fixed (employee and revenue ranges, core/vocabulary.ts); typed values elsewhere, checked for the shape
 * the catalog stores (two-letter country codes, digits for SIC/NAICS prefixes).
 */
import type { SegmentMatch } from '../../core/customer-records.ts';
import { EMPLOYEE_RANGES, REVENUE_RANGES } from '../../core/vocabulary.ts';

/** The rule fields the builder edits, in the order it offers them. */
export const BUILDER_FIELDS = [
  'industry',
  'subindustry',
  'employee_range',
  'revenue_range',
  'country_iso_code',
  'region',
  'state',
  'sic_prefix',
  'naics_prefix',
] as const satisfies readonly (keyof SegmentMatch)[];
export type BuilderField = (typeof BUILDER_FIELDS)[number];

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

const isBuilderField = (f: string): f is BuilderField => (BUILDER_FIELDS as readonly string[]).includes(f);

/** A rule field's values (empty when absent). */
export const valuesOf = (match: SegmentMatch, field: BuilderField): string[] => match[field] ?? [];

/** The builder fields the rule has a condition on, in builder order. */
export const usedFields = (match: SegmentMatch): BuilderField[] => BUILDER_FIELDS.filter((f) => match[f] !== undefined);

/** The builder fields a new condition can be on (one condition per field: values of one field are ORed). */
export const freeFields = (match: SegmentMatch): BuilderField[] => BUILDER_FIELDS.filter((f) => match[f] === undefined);

/** The rule with a condition on `field` (no values yet), or as it was when it has one. */
export function addCondition(match: SegmentMatch, field: BuilderField): SegmentMatch {
  return match[field] !== undefined ? match : { ...match, [field]: [] };
}

export function removeCondition(match: SegmentMatch, field: BuilderField): SegmentMatch {
  const { [field]: _gone, ...rest } = match;
  return rest;
}

const sameValue = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Typed values added to a field's condition (comma-separated values are several), checked and stored as the
 * catalog spells them; a value already there (any case) is not added twice.
 */
export function addValues(match: SegmentMatch, field: BuilderField, typed: string): { ok: true; match: SegmentMatch } | { ok: false; message: string } {
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

export function removeValue(match: SegmentMatch, field: BuilderField, value: string): SegmentMatch {
  return { ...match, [field]: valuesOf(match, field).filter((v) => v !== value) };
}

/** A picker's checkbox: the value on or off, the field's values kept in the vocabulary's order. */
export function toggleChoice(match: SegmentMatch, field: BuilderField, value: string, on: boolean): SegmentMatch {
  const current = valuesOf(match, field);
  const next = on ? [...current.filter((v) => !sameValue(v, value)), value] : current.filter((v) => !sameValue(v, value));
  const order = FIELD_SPECS[field].choices;
  if (order) next.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { ...match, [field]: next };
}

/** The rule as saved and previewed: conditions without values dropped (an empty value list would match nothing). */
export function cleanRule(match: SegmentMatch): SegmentMatch {
  return Object.fromEntries(Object.entries(match).filter(([, v]) => Array.isArray(v) && v.length > 0)) as SegmentMatch;
}

/** Whether the rule can match anything at all (the server's empty rule matches nothing). */
export const hasConditions = (match: SegmentMatch): boolean => Object.keys(cleanRule(match)).length > 0;

/** One key per rule, whatever the order of its fields: a preview is asked again only when this changes. */
export function ruleKey(match: SegmentMatch): string {
  const clean = cleanRule(match) as Record<string, string[]>;
  return JSON.stringify(
    Object.keys(clean)
      .sort()
      .map((k) => [k, clean[k]]),
  );
}

const orList = (values: readonly string[]) => (values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`);

/** Labels of the fields the builder does not edit, for the words. */
const OTHER_LABELS: Record<string, string> = { company_id: 'Company id', in_list: 'In account list' };

/** The rule in words: "Industry is Software or Retail, and Employees is 1,000-4,999". */
export function ruleInWords(match: SegmentMatch): string {
  const clean = cleanRule(match) as Record<string, string[]>;
  const parts = Object.entries(clean).map(([field, values]) => {
    if (isBuilderField(field)) {
      const spec = FIELD_SPECS[field];
      return `${spec.label} ${spec.prefix ? 'starts with' : 'is'} ${orList(values)}`;
    }
    const label = OTHER_LABELS[field] ?? field;
    return values.length > 5 ? `${label} is one of ${values.length} values` : `${label} is ${orList(values)}`;
  });
  return parts.length === 0 ? 'matches no account yet: add a condition' : parts.join(', and ');
}

/** Values of a field used in the customer's other segments: suggestions for typed fields. */
export function suggestions(rules: readonly SegmentMatch[], field: BuilderField): string[] {
  const seen = new Map<string, string>();
  for (const r of rules) for (const v of r[field] ?? []) if (!seen.has(v.toLowerCase())) seen.set(v.toLowerCase(), v);
  return [...seen.values()].sort((a, b) => a.localeCompare(b));
}

export type SegmentFormResult = { ok: true; body: { name: string; match: SegmentMatch } } | { ok: false; field: 'name' | 'rule'; message: string };

/**
 * What a save sends, or why not: a name (1–200 characters, not another segment's, case-insensitively, as
 * the server's 409 would say) and at least one condition with values.
 */
export function segmentBody(name: string, match: SegmentMatch, others: readonly { id: number; name: string }[], editing: number | null): SegmentFormResult {
  const n = name.trim();
  if (n === '') return { ok: false, field: 'name', message: 'Name: a segment needs a name.' };
  if (n.length > 200) return { ok: false, field: 'name', message: 'Name: at most 200 characters.' };
  const taken = others.find((s) => s.id !== editing && s.name.trim().toLowerCase() === n.toLowerCase());
  if (taken) return { ok: false, field: 'name', message: `Name: the segment “${taken.name}” has this name already.` };
  const clean = cleanRule(match);
  if (!hasConditions(clean)) return { ok: false, field: 'rule', message: 'Rule: add at least one condition with a value (an empty rule matches nothing).' };
  return { ok: true, body: { name: n, match: clean } };
}
