/**
 * Organization names as the name join compares them: "Lariat Software, Inc." and "LARIAT SOFTWARE" are the
 * same key. Lower case, accents folded, `&` → `and`, punctuation dropped, trailing legal-form words
 * (Inc, LLC, GmbH, AB, S.A. …) removed repeatedly, and a leading "the". Dotted forms (`S.A.`, `U.S.`)
 * collapse first so they compare as one word.
 */
import { LEGAL_FORMS } from '../../core/company-name.ts';

// The legal forms a display name drops (core/company-name.ts), and words a join ignores though a name people say keeps them.
const LEGAL_SUFFIXES = new Set([...LEGAL_FORMS, 'company', 'group', 'holding', 'holdings']);

export function normaliseOrganization(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    // "s.a." → "sa", "u.s." → "us": dots between single letters belong to one word
    .replace(/\b([a-z])\.(?=[a-z]\b)/g, '$1')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  // "… GmbH & Co. KG": the `and` of a legal form goes with it.
  while (words.length > 1 && (LEGAL_SUFFIXES.has(words[words.length - 1]) || words[words.length - 1] === 'and')) words.pop();
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}
