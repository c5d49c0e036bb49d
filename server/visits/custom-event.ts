/**
 * The privacy rules of a custom event's properties (pure), the page views' own applied to what a page's
 * code chose to send: nothing that looks like a person's data or a credential is kept. The beacon's schema
 * (./beacon.ts) already bounds the shape (a name, at most 10 flat properties, values of at most 200
 * characters); what passes it is scrubbed here, property by property, and the event is still counted:
 *
 *  - a property whose name says it holds personal data or a secret (`email`, `userEmail`, `password`,
 *    `api_key`, `phone`, `token` …) is dropped, whatever its value;
 *  - a string value is dropped when it looks like an email address (a word with characters on both sides of
 *    an `@`), a token or key (a run of 24 or more letters, digits, `_` and `-` mixing letters and digits:
 *    API keys, JWTs, session ids, hashes), or a phone or card number (9 or more digits once spaces, dots,
 *    dashes, parentheses and a leading `+` are set aside);
 *  - a URL or a path keeps its query string only as a page view's path does (`utm_*` and the customer's
 *    `kept_query_params`: ./beacon.ts cleanPath) and never its fragment; a URL also loses any user name and password.
 *
 * Each check reads the value once, without a regular expression that could backtrack.
 */
import type { EventProperties, PropertyValue } from '../../core/engagement-records.ts';
import { cleanPath } from './beacon.ts';

/** Fragments of property names (lower case, `_` and `-` removed) that say the value is personal or secret. */
const PERSONAL_NAMES = ['email', 'password', 'passwd', 'secret', 'token', 'apikey', 'phone', 'ssn', 'iban', 'creditcard', 'cardnumber'];

/** A run of token characters this long, holding letters and digits, is taken for a credential. */
const TOKEN_RUN = 24;
/** This many digits in a row (separators aside) are taken for a phone or card number. */
const NUMBER_DIGITS = 9;

export function personalName(name: string): boolean {
  const n = name.toLowerCase().replace(/[_-]/g, '');
  return PERSONAL_NAMES.some((p) => n.includes(p));
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isTokenChar = (c: number) => isDigit(c) || isLetter(c) || c === 0x5f /* _ */ || c === 0x2d; /* - */
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** An `@` with a non-space character on each side. */
export function looksLikeEmail(value: string): boolean {
  for (let i = 1; i < value.length - 1; i++) {
    if (value.charCodeAt(i) === 0x40 /* @ */ && !isSpace(value.charCodeAt(i - 1)) && !isSpace(value.charCodeAt(i + 1))) return true;
  }
  return false;
}

/** A run of TOKEN_RUN or more token characters holding at least one letter and one digit. */
export function looksLikeToken(value: string): boolean {
  let run = 0;
  let letters = false;
  let digits = false;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : -1;
    if (c !== -1 && isTokenChar(c)) {
      run++;
      letters ||= isLetter(c);
      digits ||= isDigit(c);
      continue;
    }
    if (run >= TOKEN_RUN && letters && digits) return true;
    run = 0;
    letters = digits = false;
  }
  return false;
}

/** NUMBER_DIGITS or more digits in a row, spaces, dots, dashes, parentheses and `+` between them set aside. */
export function looksLikeNumber(value: string): boolean {
  let digits = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (isDigit(c)) {
      if (++digits >= NUMBER_DIGITS) return true;
    } else if (!(c === 0x20 || c === 0x2e || c === 0x2d || c === 0x28 || c === 0x29 || c === 0x2b)) digits = 0;
  }
  return false;
}

/** A URL or path value as a page view's path would be kept; other text as it is. */
function keptText(value: string, keptParams: readonly string[]): string {
  if (value.startsWith('/') && !value.startsWith('//')) return cleanPath(value, keptParams);
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      return url.origin + cleanPath(url.pathname + url.search, keptParams);
    } catch {
      return value;
    }
  }
  return value;
}

/** The properties kept of an event, and the names of those dropped (for the debug answer and the tests). */
export function scrubProperties(properties: EventProperties | undefined, keptParams: readonly string[] = []): { kept: EventProperties; dropped: string[] } {
  const kept: EventProperties = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(properties ?? {})) {
    const text = typeof value === 'string' ? keptText(value, keptParams) : null;
    if (personalName(name) || (text !== null && (looksLikeEmail(text) || looksLikeToken(text) || looksLikeNumber(text)))) dropped.push(name);
    else kept[name] = (text ?? value) as PropertyValue;
  }
  return { kept, dropped };
}
