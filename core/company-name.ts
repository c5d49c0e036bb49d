/**
 * A company's name as people say it: "Lariat Software, Inc." is "Lariat Software", "Volkswagen GmbH & Co.
 * KG" is "Volkswagen". The identification answer carries it as `display_name` beside the legal `name`, for
 * text a visitor reads (a headline, a greeting); forms keep the legal name. The legal-form words are also
 * what the import's name join drops (data/import/organization-name.ts), so the two never disagree on what
 * a legal form is.
 */

/**
 * Legal-form words, as compared: lower case, accents folded, without dots, slashes or parentheses
 * (`S.A.` → `sa`, `A/S` → `as`, `Sp. z o.o.` → `sp` + `zoo`). Words such as "Company", "Group" or
 * "Holdings" are not here: they are often part of the name people use ("The Boston Consulting Group").
 */
export const LEGAL_FORMS: ReadonlySet<string> = new Set([
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'llc',
  'llp',
  'lp',
  'ltd',
  'limited',
  'plc',
  'pllc',
  'gmbh',
  'ag',
  'kg',
  'ug',
  'se',
  'ab',
  'as',
  'asa',
  'oy',
  'oyj',
  'aps',
  'bv',
  'nv',
  'sa',
  'sas',
  'sarl',
  'srl',
  'spa',
  'sl',
  'sro',
  'zoo',
  'sp',
  'kk',
  'pte',
  'pty',
  'bhd',
  'sdn',
  'ooo',
  'pjsc',
  'ojsc',
  'jsc',
]);

/** A word as LEGAL_FORMS holds it. */
const formKey = (word: string) =>
  word
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[./()]/g, '');

/** Words of at most this many letters may be one legal form split by spaces: `S. A.`, `z o.o.`, `N V`. */
const SPLIT_FORM_PART = 2;

/**
 * The name without its trailing legal forms (and the `&`/`and` that joins them: "GmbH & Co. KG"), its own
 * spelling and case kept; never fewer than one word, so a name that is only a legal form stays as it is.
 * Separators left at the end (", ") go too. Pure.
 */
export function displayName(name: string): string {
  // [word, separator, word, separator, …, word]: separators are runs of spaces and commas.
  const parts = name.trim().split(/([\s,]+)/);
  const keys = parts.filter((_, i) => i % 2 === 0).map(formKey);
  let words = keys.length;
  let stripped = false;
  while (words > 1) {
    const last = keys[words - 1];
    if (LEGAL_FORMS.has(last) || (stripped && (last === '&' || last === 'and'))) {
      words -= 1;
      stripped = true;
      continue;
    }
    const split = splitFormLength(keys, words);
    if (!split) break;
    words -= split;
    stripped = true;
  }
  if (!stripped) return name.trim();
  return parts
    .slice(0, words * 2 - 1)
    .join('')
    .replace(/[\s,&-]+$/, '');
}

/** How many of the first `words` words end in a legal form written with spaces (`S. A.`, `z o.o.`), or 0. */
function splitFormLength(keys: readonly string[], words: number): number {
  for (let take = 2; take <= 3 && words - take >= 1; take++) {
    const group = keys.slice(words - take, words);
    if (group.every((k) => k.length > 0 && k.length <= SPLIT_FORM_PART) && LEGAL_FORMS.has(group.join(''))) return take;
  }
  return 0;
}
