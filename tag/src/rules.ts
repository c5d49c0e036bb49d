/**
 * The rule language of `data-svc-show` / `data-svc-hide`. Pure: no DOM; `evaluate` never throws.
 *
 *   rule   := all ( "or" all )*                 "and" binds tighter than "or"
 *   all    := unary ( "and" unary )*
 *   unary  := "not" unary | "(" rule ")" | term
 *   term   := "match" | "no match" | field op value
 *   op     := "=" | "==" | "!=" | ">" | ">=" | "<" | "<="
 *   value  := "double quoted" | 'single quoted' | bare words (not and / or; no quotes, ( ) = < > !)
 *
 * Keywords and values are case-insensitive. Quote a value that contains " and " / " or ", quotes,
 * parentheses or = < > ! characters. Whitespace around operators and parentheses is optional.
 *
 *   match                 company.company_match is "Match"
 *   no match              anything else (Non-actionable Match, No Match)
 *   segment = X           X is the name or the id of one of the visitor's segments (names need segment
 *                         names enabled on the tag)
 *   buying_stage, profile_fit, intent_score, profile_score, is_svcqa
 *                         any product's score; `cdp.buying_stage` only the product named `cdp`
 *   any other path        as in templates: `confidence`, `company.industry`, or a company field without
 *                         the prefix (industry, employee_range, revenue_range, country, city …)
 *
 * A field can have several values (several segments, several products): `=` and the ordered operators
 * are true when one of them satisfies the comparison; `!=` is true when none equals the value.
 * Ordered comparisons follow the scales Low < Moderate < High < Very High, Weak < Moderate < Strong,
 * Target < Awareness < Consideration < Decision < Purchase, or compare numbers; anything else is false.
 * A null or absent field has no value. A malformed rule evaluates to false, whatever its other terms say.
 *
 * Examples: `match and confidence >= High`, `segment = "Enterprise Software" or segment = 12`,
 * `cdp.buying_stage >= Consideration and profile_fit = Strong`, `not (country = US or country = CA)`.
 */
import { type Answer, get } from './template.ts';

// (`'' +` rather than `String()`, here and in templates: 3 B gzip less; the values are JSON, never a symbol)
const lowerCase = (value: unknown): string => ('' + (value ?? '')).toLowerCase();

/** The position of a value on its scale (confidence, profile fit, buying stage), or the number; else NaN. */
export function rank(value: unknown): number {
  // (declared here, not in the module: terser writes it where it is read, one top-level name less)
  const SCALE_RANKS: Record<string, number> = {
    low: 1,
    moderate: 2,
    high: 3,
    'very high': 4,
    weak: 1,
    strong: 3,
    target: 1,
    awareness: 2,
    consideration: 3,
    decision: 4,
    purchase: 5,
  };
  const text = lowerCase(value).trim();
  // (+: an inherited member such as "constructor" is a function, NaN as a number; a blank text is NaN, not 0)
  return +SCALE_RANKS[text] || +(text || NaN); // (unary + is Number())
}

// Placeholders while evaluating: \0<n> a quoted value; \0 alone a parenthesised group already true ("not \0"
// false). One control character for both, which no rule text holds (the HTML parser turns a NUL in an attribute
// into U+FFFD): one rare character fewer in the bundle, 6 B gzip less than \1 for the group.
// The leftmost of [1, 2] a quoted value and [3] an innermost group without quotes: a quote opened before a
// group is replaced first, so parentheses inside quotes are never a group.
const QUOTED_OR_GROUP = /(["'])(.*?)\1|\(([^()"']*)\)/;
const TRUE = '\u0000';

/** True when `rule` holds for `data`; false for a malformed rule (or anything that is no string). */
export function evaluate(rule: string, data: Answer): boolean {
  const quoted: string[] = [];

  const term = (text: string): boolean => {
    text = text.trim();
    if (/^not\s/i.test(text)) return !term(text.slice(3));
    // A true group (\0, no digits), or: [1] "no " of "no match", [2] field: [3] the product before its last
    // dot, [4] the rest; [5] operator, [6] index of a quoted value, [7] bare value. (The regular expressions
    // are written where they are used, here and in templates and attributes: a module-level name each cost
    // the every-feature bundle about 5 B gzip.) A malformed term has no match: destructuring null throws,
    // and the rule is false (below). \0 is the placeholder above, a control character on purpose.
    const [, no, field, product, scoreField, op, quotedIndex, bare] =
      /^(?:\0|(no\s+)?match|(([\w.-]*?)\.?([\w-]+))\s*([!<>=]?=|[<>])\s*(?:\0(\d+)|([^\0()=<>!]+)))$/i.exec(text)!;
    if (!field) return text == TRUE || (data?.company?.company_match == 'Match') == !no; // a true group, "match" / "no match"
    const expected = lowerCase(quoted[+quotedIndex] ?? bare); // (no index: quoted[NaN] is undefined)
    // The values of the field: segment ids and names; else the value at the path (as in templates) and,
    // from each score (or only the product named before the dot), the score field of that name.
    const values =
      lowerCase(field) == 'segment'
        ? [...(data?.segments?.ids ?? []), ...(data?.segments?.names ?? [])]
        : [
            get(data, field),
            // (any product when none is named)
            ...(data?.scores ?? []).map((score) =>
              !product || lowerCase(product) == lowerCase(score.product) ? (score as unknown as Record<string, unknown>)[scoreField] : null,
            ),
          ];
    // A null or absent value has none. `!=` is tested as `=` and negated below (none of the values equals).
    const holds = values.some(
      (actual) =>
        actual != null &&
        (op == '>'
          ? rank(actual) > rank(expected)
          : op == '>='
            ? rank(actual) >= rank(expected)
            : op == '<'
              ? rank(actual) < rank(expected)
              : op == '<='
                ? rank(actual) <= rank(expected)
                : lowerCase(actual) == expected),
    );
    return holds != (op == '!='); // negated for !=
  };
  // The rule is reduced: the leftmost quoted value or innermost group, one at a time, then what is left of
  // it (or of a group) split at "or" and "and". Every term is evaluated (no short-circuit), so one
  // malformed term makes the whole rule false.
  const reduce = (text: string): boolean =>
    QUOTED_OR_GROUP.test(text)
      ? reduce(
          text.replace(QUOTED_OR_GROUP, (_, quote?: string, value?: string, inner?: string) =>
            quote ? '\0' + (quoted.push(value!) - 1) : (reduce(inner!) ? ' ' : ' not ') + TRUE + ' ',
          ),
        )
      : text
          .split(/\s+or\s+/i)
          .map((both) => both.split(/\s+and\s+/i).map(term))
          .some((terms) => terms.every((holds) => holds));

  try {
    return reduce(rule);
  } catch {
    return false; // malformed, or not a string
  }
}
