import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, compilePathGlob, type GlobSteps, globMatches, pathOnly } from './glob.ts';

/**
 * The matchers the product had before core/glob.ts, kept as the reference: `*` → `.*`, the rest escaped,
 * the whole text. Segments compiled theirs with `is`; webhooks matched pieces by string search, which
 * agreed with `s` (a `*` spans line breaks too).
 */
const escapeRegex = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const regexReference = (pattern: string, text: string, ignoreCase: boolean) =>
  new RegExp(`^${pattern.split('*').map(escapeRegex).join('.*')}$`, ignoreCase ? 'is' : 's').test(text);

/** A second reference, by definition: `*` takes any run of characters, anything else is itself. */
function recursiveReference(pattern: string, text: string): boolean {
  if (pattern === '') return text === '';
  if (pattern[0] === '*') {
    for (let i = 0; i <= text.length; i++) if (recursiveReference(pattern.slice(1), text.slice(i))) return true;
    return false;
  }
  return text !== '' && text[0] === pattern[0] && recursiveReference(pattern.slice(1), text.slice(1));
}

const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((c) => c.join(''));

describe('path patterns (core/glob.ts)', () => {
  it('match as documented: * any run of characters (across /, or none), the rest literally, the whole path', () => {
    expect(globMatches('/pricing*', '/pricing')).toBe(true);
    expect(globMatches('/pricing*', '/pricing/enterprise')).toBe(true);
    expect(globMatches('/pricing*', '/about/pricing')).toBe(false);
    expect(globMatches('/blog/*', '/blog/2024/05/post')).toBe(true);
    expect(globMatches('/docs/*/api', '/docs/v2/api')).toBe(true);
    expect(globMatches('/docs/*/api', '/docs/api')).toBe(false); // the two / are both literal
    expect(globMatches('/*.pdf', '/a/b/c.pdf')).toBe(true);
    expect(globMatches('/a*a', '/a')).toBe(false); // prefix and suffix never share a character
    expect(globMatches('/a.b', '/axb')).toBe(false); // regex characters are literal
    expect(globMatches('/(x)+[y]', '/(x)+[y]')).toBe(true);
    expect(globMatches('/Pricing*', '/pricing')).toBe(false);
    expect(globMatches('/Pricing*', '/pRICING/x', { ignoreCase: true })).toBe(true);
  });

  it('compare a page path without its query string and fragment', () => {
    const hot = compilePathGlob('/pricing*');
    expect(hot('/pricing/enterprise?utm_source=x')).toBe(true);
    expect(hot('/blog?next=/pricing')).toBe(false);
    expect(compilePathGlob('/a')('/a#/pricing')).toBe(true);
    expect(pathOnly('/x?y#z')).toBe('/x');
    expect(pathOnly('/x#z?y')).toBe('/x');
  });

  it('agree with the regular expressions they replaced, with and without case, on small random patterns and texts', () => {
    // Line breaks, a surrogate pair and the characters whose case the old `i` flag treated specially
    // (ſ and K (Kelvin) upper-case to ASCII, ß to two letters, ÿ to Ÿ) are in the alphabets.
    const chars = ['/', 'a', 'A', 's', 'S', 'k', '.', '\n', 'ſ', '\u212a', 'ß', 'ÿ', 'Ÿ', '😀'];
    fc.assert(
      fc.property(text([...chars, '*', '*', '*'], 9), text(chars, 14), fc.boolean(), (pattern, path, ignoreCase) => {
        expect(compileGlob(pattern, { ignoreCase })(path)).toBe(regexReference(pattern, path, ignoreCase));
      }),
      { numRuns: 5000 },
    );
  });

  it('agree with the definition (a recursive matcher), and so do the case-sensitive path matchers', () => {
    fc.assert(
      fc.property(text(['/', 'a', 'b', '*', '*'], 10), text(['/', 'a', 'b', '?', '#'], 14), (pattern, path) => {
        expect(globMatches(pattern, path)).toBe(recursiveReference(pattern, path));
        expect(compilePathGlob(pattern)(path)).toBe(recursiveReference(pattern, pathOnly(path)));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the cost of a match', () => {
  /** The bound the matcher keeps: 2 comparisons per text character, plus the pattern's length. */
  const within = (pattern: string, subject: string, ignoreCase = false) => {
    const steps: GlobSteps = { count: 0 };
    const matched = compileGlob(pattern, { ignoreCase })(subject, steps);
    expect(steps.count).toBeLessThanOrEqual(2 * subject.length + pattern.length);
    return { matched, steps: steps.count };
  };

  it('is bounded for the path that blocked the event loop (/*/*/*/*.pdf against /a + 1,000 × / + x) and far larger ones', () => {
    const attack = `/a${'/'.repeat(1000)}x`;
    expect(within('/*/*/*/*.pdf', attack, true).matched).toBe(false);
    expect(within('/*/*/*/*.pdf', `${attack}.pdf`, true).matched).toBe(true);
    const huge = `/a${'/'.repeat(1_000_000)}x`;
    expect(within('/*/*/*/*.pdf', huge, true).matched).toBe(false);
    expect(within('/*/*/*/*/*/*/*/*/*.pdf', `${huge}.pdf`).matched).toBe(true);
    // Middle pieces that nearly match everywhere (naive search: |text| × |piece|; KMP: linear).
    const piece = `${'a'.repeat(300)}b`;
    expect(within(`/*${piece}*${piece}*`, `/${'a'.repeat(200_000)}`).matched).toBe(false);
    expect(within(`/*${piece}*${piece}*`, `/${'a'.repeat(200_000)}b${'a'.repeat(300)}b`).matched).toBe(true);
    expect(within(`*${'ab'.repeat(100)}c*`, 'ab'.repeat(100_000)).matched).toBe(false);
  });

  it('is bounded for any pattern and text', () => {
    fc.assert(
      fc.property(text(['/', 'a', 'b', '*', '*'], 16), text(['/', 'a', 'b'], 200), fc.boolean(), (pattern, subject, ignoreCase) => {
        within(pattern, subject, ignoreCase);
      }),
      { numRuns: 2000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// The class cannot come back: no module but this one turns a `*` pattern into a regular expression.
// Product modules only: tests may hold a regex reference on purpose (this one does), on inputs they make.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['server', 'core', 'tag', 'data', 'e2e', 'bench', 'demo-site', 'deploy'];
/** The matcher itself. */
const ALLOWED = new Set(['core/glob.ts']);

/** Code that compiles a glob by hand: a `*` replaced or joined as regex text, or a pattern split at its `*`. */
const HAND_ROLLED = [
  /\.join\(\s*(['"`])[^'"`\n]*\*[^'"`\n]*\1\s*\)/, // .join('.*'), .join('[^/]*')
  /\.replace(?:All)?\(\s*(?:\/\\\*\/[gimsuy]*|(['"`])\*\1)\s*,/, // .replace(/\*/g, …), .replaceAll('*', …)
  /\.replace(?:All)?\([^\n]*,\s*(['"`])[^'"`\n]*\.\*[^'"`\n]*\1\s*\)/, // …, '.*')
  /\.split\(\s*(['"`])\*\1\s*\)/, // .split('*'): the pieces of a glob
];
const handRolled = (source: string) => HAND_ROLLED.some((re) => re.test(source));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
  } catch {
    return out; // a folder this checkout does not have
  }
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist' && path !== 'data/sample') out.push(...sourceFiles(path));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('one path matcher', () => {
  it('the check finds the hand-rolled globs the product had', () => {
    expect(handRolled("new RegExp('^' + pattern.split('*').map((part) => esc(part)).join('.*') + '$', 'is')")).toBe(true);
    expect(handRolled("const re = parts.map(escapeRegex).join('.*');")).toBe(true);
    expect(handRolled('const pieces = pattern.split("*");')).toBe(true);
    expect(handRolled("new RegExp('^' + glob.replace(/\\*/g, '.*') + '$')")).toBe(true);
    expect(handRolled("new RegExp(glob.replaceAll('*', '[^/]*'))")).toBe(true);
    expect(handRolled("new RegExp(escape(glob).replace('\\\\*', '.*'))")).toBe(true);
    expect(handRolled("body.replace(/\\*\\//g, '*\\\\/'); header.split(','); d.startsWith('*.')")).toBe(false);
  });

  it('no other module turns `*` into a regular expression or splits a pattern at its `*` (they use core/glob.ts)', () => {
    const files = SCANNED.flatMap(sourceFiles);
    expect(files).toEqual(expect.arrayContaining(['server/segments/evaluate.ts', 'server/webhooks/events.ts']));
    const offenders = files.filter((f) => !ALLOWED.has(f) && handRolled(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
