/**
 * The rule language of `data-svc-show` / `data-svc-hide`. Pure: no DOM, never throws out of `evaluate`.
 *
 *   rule  := all ( "or" all )*                 "and" binds tighter than "or"; no parentheses
 *   all   := term ( "and" term )*
 *   term  := [ "not" ] ( "match" | "no match" | field op value )
 *   op    := "=" | "==" | "!=" | ">" | ">=" | "<" | "<="
 *   value := "double quoted" | 'single quoted' | bare words (no quotes, = < > !)
 *
 * Keywords and values are case-insensitive. Quote a value that contains " and " / " or ", quotes or
 * = < > ! characters. Whitespace around operators is optional.
 *
 *   match                 company.company_match is "Match"
 *   no match              anything else (Non-actionable Match, No Match)
 *   segment = X           X is the name or the id of one of the visitor's segments (also `segments`;
 *                         names need segment names enabled on the tag)
 *   country = X           company.country or company.country_iso_code  (country = US)
 *   buying_stage, profile_fit, intent_score, profile_score, is_svcqa
 *                         any product's score; `cdp.buying_stage` only the product named `cdp`
 *   any other path        as in templates: `confidence`, `company.industry`, or a company field without
 *                         the prefix (industry, employee_range, revenue_range, city, employee_count …)
 *
 * A field can have several values (several segments, several products): `=` and the ordered operators
 * are true when one of them satisfies the comparison; `!=` is true when none equals the value.
 * Ordered comparisons follow the scales Low < Moderate < High < Very High, Weak < Moderate < Strong,
 * Target < Awareness < Consideration < Decision < Purchase, or compare numbers; anything else is false.
 * A malformed rule (or a missing value) evaluates to false, whatever its other terms say.
 *
 * Examples: `match and confidence >= High`, `segment = "Enterprise Software" or segment = 12`,
 * `cdp.buying_stage >= Consideration and profile_fit = Strong`, `not country = US`.
 */
import { get } from './template.ts';
import type { SvcData, SvcScore } from './types.ts';

type Data = SvcData | null | undefined;

const RANK: Record<string, number> = {
  low: 1, moderate: 2, high: 3, 'very high': 4,
  weak: 1, strong: 3,
  target: 1, awareness: 2, consideration: 3, decision: 4, purchase: 5,
};

const lc = (v: unknown): string => (v == null ? '' : String(v).toLowerCase());

const rank = (v: string): number => {
  const r = RANK[v];
  return typeof r == 'number' ? r : v.trim() && isFinite(+v) ? +v : NaN;
};

const isMatch = (d: Data) => !!d && !!d.company && d.company.company_match == 'Match';

/** The values a rule field has in an answer (lists for segments and scores). */
function values(d: Data, field: string): unknown[] {
  if (!d) return [];
  const c = d.company || ({} as SvcData['company']), s = d.segments || {}, f = lc(field);
  const m = /^(?:(.+)\.)?(buying_stage|profile_fit|intent_score|profile_score|is_svcqa)$/.exec(f);
  return /^segments?$/.test(f)
    ? (s.ids || ([] as unknown[])).concat(s.names || [])
    : f == 'country'
      ? [c.country, c.country_iso_code]
      : m && m[1] != 'company'
        ? (d.scores || [])
            .filter((x: SvcScore) => !m[1] || lc(x.product) == m[1])
            .map((x: SvcScore) => (x as unknown as Record<string, unknown>)[m[2]])
        : [get(d, field)];
}

function compare(op: string, actual: string, value: string): boolean {
  if (op[0] == '=') return actual == value;
  const a = rank(actual), b = rank(value);
  return op == '>' ? a > b : op == '>=' ? a >= b : op == '<' ? a < b : a <= b;
}

const OR = /\s+or\s+/i, AND = /\s+and\s+/i;
// [1] not, [2] no (match), [3] field, [4] op, [5] index of a quoted value, [6] bare value
const TERM = /^\s*(not\s+)?(?:(no\s+)?match|([\w.-]+)\s*(==?|!=|[<>]=?)\s*(?:\0(\d+)\0|([^\0"'=<>!]*[^\s\0"'=<>!])))\s*$/i;

/** True when `rule` holds for `data`; false for a malformed rule. Never throws. */
export function evaluate(rule: string, d: Data): boolean {
  try {
    const quoted: string[] = [];
    return String(rule)
      .replace(/"([^"]*)"|'([^']*)'/g, (_, a?: string, b?: string) => '\0' + (quoted.push(a || b || '') - 1) + '\0')
      .split(OR)
      .map((any) =>
        any.split(AND).map((term) => {
          const m = TERM.exec(term);
          if (!m) throw 0; // malformed: the whole rule is false
          const ne = m[4] == '!=', value = lc(m[5] ? quoted[+m[5]] : m[6]);
          const v = m[3]
            ? values(d, m[3]).some((x) => compare(ne ? '=' : m[4], lc(x), value)) != ne
            : isMatch(d) != !!m[2];
          return v != !!m[1];
        }),
      )
      .some((all) => all.every(Boolean));
  } catch {
    return false;
  }
}
