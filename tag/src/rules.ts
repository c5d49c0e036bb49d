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
import type { SvcData } from './types.ts';

type Data = SvcData | null | undefined;
type Any = any;

const RANK: Record<string, number> = {
  low: 1, moderate: 2, high: 3, 'very high': 4,
  weak: 1, strong: 3,
  target: 1, awareness: 2, consideration: 3, decision: 4, purchase: 5,
};

const lc = (v: unknown): string => ((v ?? '') + '').toLowerCase();

/** The position of a value on its scale (confidence, profile fit, buying stage), or the number; else NaN. */
export const rank = (v: unknown): number => {
  const s = lc(v), r = RANK[s];
  return r > 0 ? r : s.trim() ? +s : NaN; // (r > 0: not an inherited property such as "constructor")
};

/**
 * The values a rule field has in an answer: segment ids and names; country name and ISO code; else the
 * value at the path (as in templates) and, from each score (or the product named before the dot), the
 * score field of that name.
 */
const values = (d: Data, f: string): unknown[] => {
  const s: Any = d?.segments || {}, [, product, k] = /(?:(.*)\.)?(.*)/.exec(f)!;
  return /^segment$/i.test(f)
    ? (s.ids || []).concat(s.names || [])
    : [get(d, f), ...(d?.scores || []).map((x: Any) => (!product || lc(x.product) == lc(product) ? x[k] : null))];
};

// [1] no (match), [2] field, [3] op, [4] index of a quoted value, [5] bare value
const TERM = /^\s*(?:(no\s+)?match|([\w.-]+)\s*([!<>=]?=|[<>])\s*(?:\0(\d+)|([^\0=<>!]*[^\s\0=<>!])))\s*$/i;

/** True when `rule` holds for `data`; false for a malformed rule. Never throws. */
export function evaluate(rule: string, d: Data): boolean {
  try {
    const quoted: string[] = [];
    return rule
      .replace(/(["'])(.*?)\1/g, (_, q, v: string) => '\0' + quoted.push(v))
      .split(/\s+or\s+/i)
      .map((any) =>
        any.split(/\s+and\s+/i).map((term) => {
          const m = TERM.exec(term)!, op = m[3], ne = op == '!=', value = lc(m[4] ? quoted[m[4] as Any - 1] : m[5]);
          return m[2]
            ? values(d, m[2]).some((x) => {
                const a = rank(x), b = rank(value);
                return ne || op[0] == '=' ? lc(x) == value : op == '>' ? a > b : op == '>=' ? a >= b : op == '<' ? a < b : a <= b;
              }) != ne
            : (d?.company?.company_match == 'Match') != !!m[1];
        }),
      )
      .some((all) => all.every(Boolean));
  } catch {
    return false; // malformed (no TERM match), or not a string
  }
}
