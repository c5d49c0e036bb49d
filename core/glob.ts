/**
 * Path patterns, the product's one matcher: a webhook's `hot_paths` (server/webhooks/events.ts) and a
 * segment's `visited` rule (server/segments/evaluate.ts). `*` matches any run of characters (none, `/`,
 * anything); every other character is itself; the pattern covers the whole text.
 *
 * No regular expression: one `.*` per `*` backtracks, and a few `/`-separated `*` ending in `.pdf` against
 * a crafted path of a thousand `/` blocked the event loop for most of a minute — once on a webhook's page
 * view, again in a segment preview, and on every identification of the account after the rule was saved.
 * Here the pattern is split at its `*` into literal pieces: the first must start the text, the last end
 * it, and each one between is found at its leftmost place after the one before (the leftmost leaves the
 * most room for the pieces after it, and a `*` accepts any gap). Each middle piece is searched by KMP from
 * where the previous one ended, so the text is read once: at most 2·|text| + |pattern| steps, whatever
 * the inputs (core/glob.test.ts pins the bound).
 *
 * core/ so that every layer can use the same one (the console's bundle too: no Node built-in here), and
 * core/glob.test.ts checks that no other module turns `*` into a regular expression again.
 */

export interface GlobOptions {
  /**
   * Compare ignoring case exactly as a RegExp's `i` flag without `u` did for segment rules: code unit by
   * code unit, both sides upper-cased when that gives one code unit and does not turn a non-ASCII one
   * into ASCII (so `ſ` is not `s`, `K` (Kelvin) is not `k`, `ß` stays itself).
   */
  ignoreCase?: boolean;
}

/** The work one match did (character comparisons), for the test that pins the bound. */
export interface GlobSteps {
  count: number;
}

/** A compiled pattern: whether the whole text matches it. */
export type GlobMatcher = (text: string, steps?: GlobSteps) => boolean;

/** One literal piece between two `*`, with its KMP failure table. */
interface Piece {
  text: string;
  fail: Int32Array;
}

/** Compiles a pattern once (callers keep the matcher: rules and endpoints repeat their patterns). */
export function compileGlob(pattern: string, options: GlobOptions = {}): GlobMatcher {
  const fold = options.ignoreCase ? foldCase : (s: string) => s;
  const parts = fold(pattern).split('*');
  if (parts.length === 1) {
    const whole = parts[0]!;
    return (text, steps) => {
      if (steps) steps.count += whole.length;
      return fold(text) === whole;
    };
  }
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts
    .slice(1, -1)
    .filter((p) => p !== '')
    .map((p) => ({ text: p, fail: failTable(p) }));
  const fixed = first.length + last.length;
  return (raw, steps) => {
    const text = fold(raw);
    // The prefix and the suffix may not overlap: each character of the text is matched once.
    if (text.length < fixed) return false;
    if (steps) steps.count += fixed;
    if (!text.startsWith(first) || !text.endsWith(last)) return false;
    const end = text.length - last.length;
    let at = first.length;
    searchSteps = 0;
    for (const piece of middle) {
      at = search(piece, text, at, end);
      if (at === -1) break;
    }
    if (steps) steps.count += searchSteps;
    return at !== -1;
  };
}

/** Whether `text` matches `pattern` (compiles it each call: for one-off checks; keep `compileGlob`'s matcher otherwise). */
export function globMatches(pattern: string, text: string, options?: GlobOptions): boolean {
  return compileGlob(pattern, options)(text);
}

/**
 * A path pattern's matcher for recorded page paths: compared to the path without its query string and
 * fragment (patterns hold neither; a page's `utm_*` parameters never decide a match).
 */
export function compilePathGlob(pattern: string, options?: GlobOptions): GlobMatcher {
  const glob = compileGlob(pattern, options);
  return (path, steps) => glob(pathOnly(path), steps);
}

/** A page path without its query string and fragment. */
export function pathOnly(path: string): string {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x3f /* ? */ || c === 0x23 /* # */) return path.slice(0, i);
  }
  return path;
}

/** KMP: for each prefix of the piece, the length of its longest proper prefix that is also its suffix. */
function failTable(piece: string): Int32Array {
  const fail = new Int32Array(piece.length);
  let k = 0;
  for (let i = 1; i < piece.length; i++) {
    while (k > 0 && piece.charCodeAt(i) !== piece.charCodeAt(k)) k = fail[k - 1]!;
    if (piece.charCodeAt(i) === piece.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return fail;
}

/** Comparisons of the match under way (a module variable rather than a result object per search: matching runs on identification's hot path, and synchronously). */
let searchSteps = 0;

/**
 * Where the piece's leftmost occurrence in text[from, to) ends (-1: none). Each text character is read
 * once and each fall-back of `k` undoes an earlier advance: at most 2·(characters read) comparisons.
 */
function search(piece: Piece, text: string, from: number, to: number): number {
  const p = piece.text;
  let k = 0;
  let steps = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    while (k > 0 && p.charCodeAt(k) !== c) {
      k = piece.fail[k - 1]!;
      steps++;
    }
    steps++;
    if (p.charCodeAt(k) === c && ++k === p.length) {
      searchSteps += steps;
      return i + 1;
    }
  }
  searchSteps += steps;
  return -1;
}

/** Upper-cases code unit by code unit as RegExp's non-Unicode `i` canonicalises (see GlobOptions.ignoreCase). */
function foldCase(text: string): string {
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) ascii = text.charCodeAt(i) < 0x80;
  if (ascii) return text.toUpperCase();
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text[i]!;
    const upper = unit.toUpperCase();
    out += upper.length !== 1 || (unit.charCodeAt(0) >= 0x80 && upper.charCodeAt(0) < 0x80) ? unit : upper;
  }
  return out;
}
