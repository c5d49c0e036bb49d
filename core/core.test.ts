/**
 * The neutral core's one rule, and the two dependencies it ends: core/ (vocabulary, records, error codes,
 * the MMDB format) is imported by server/, data/ and tag/ and imports none of them.
 *
 * - Every module under core/ imports only other core modules and zod (the records are zod schemas: one
 *   schema is the validation, the type and the docs). No other package, no Node built-in: the console's
 *   browser bundle carries core modules. Tests under core/ are not held to this: they check that the
 *   layers use the core's very values (vocabulary.test.ts imports the server's schemas to do so).
 * - No module under data/ imports from server/ or tag/. Its tests may import server/ (never tag/): they
 *   run data through the product's entry points — import/end-to-end.test.ts drives the CLI and starts a
 *   real server — and share the server tests' fixture sources (build/network-worker.test.ts).
 * - server/state/store.ts imports nothing from tag/ (the tag's features setting is core/tag-features.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The one package core modules may import. */
const ALLOWED_PACKAGES = ['zod'];

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** Every .ts/.tsx/.mts/.mjs file under `dir` (path relative to the repository root), data/sample left out. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && path !== 'data/sample') out.push(...sourceFiles(path));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The module specifiers a file imports: static imports and re-exports, side-effect imports, import(), require(). */
function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const specifiers: string[] = [];
  const patterns = [/\bfrom\s*(['"])([^'"]+)\1/g, /\bimport\s*(['"])([^'"]+)\1/g, /\bimport\s*\(\s*(['"])([^'"]+)\1/g, /\brequire\s*\(\s*(['"])([^'"]+)\1/g];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) specifiers.push(m[2]);
  return specifiers;
}

/** Where a relative specifier of `file` points, relative to the repository root (`server/auth/x.ts`). */
const target = (file: string, specifier: string) =>
  relative(ROOT, resolve(ROOT, dirname(file), specifier))
    .split(sep)
    .join('/');

describe('importsOf', () => {
  it('finds every form of import, and none in comments', () => {
    const source = [
      "import { z } from 'zod';",
      "import type {\n  A,\n  B,\n} from '../server/a.ts';",
      "export { c } from './c.ts';",
      "import './side-effect.ts';",
      "const d = await import('../data/d.ts');",
      '/* import { e } from "../tag/e.ts"; */',
      "// import { f } from '../tag/f.ts';",
    ].join('\n');
    expect(importsOf(source)).toEqual(['zod', '../server/a.ts', './c.ts', './side-effect.ts', '../data/d.ts']);
  });
});

describe('core/', () => {
  const modules = sourceFiles('core').filter((f) => !isTest(f));

  it('has the neutral modules', () => {
    expect(modules).toEqual(
      expect.arrayContaining([
        'core/error-codes.ts',
        'core/vocabulary.ts',
        'core/allowed-domain.ts',
        'core/tag-features.ts',
        'core/customer-records.ts',
        'core/access-records.ts',
        'core/catalog-records.ts',
        'core/visit-records.ts',
        'core/usage-records.ts',
        'core/mmdb-format.ts',
      ]),
    );
  });

  it.each(modules)('%s imports only core modules and zod', (file) => {
    const outside = importsOf(readFileSync(join(ROOT, file), 'utf8')).filter((specifier) =>
      specifier.startsWith('.') ? !target(file, specifier).startsWith('core/') : !ALLOWED_PACKAGES.includes(specifier),
    );
    expect(outside).toEqual([]);
  });
});

describe('data/', () => {
  it('imports nothing from server/ or tag/ (its tests: nothing from tag/)', () => {
    const found: string[] = [];
    for (const file of sourceFiles('data')) {
      for (const specifier of importsOf(readFileSync(join(ROOT, file), 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const to = target(file, specifier);
        if (!(to.startsWith('tag/') || (to.startsWith('server/') && !isTest(file)))) continue;
        found.push(`${file} → ${to}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('server/state/store.ts', () => {
  it('imports nothing from tag/', () => {
    const file = 'server/state/store.ts';
    const fromTag = importsOf(readFileSync(join(ROOT, file), 'utf8')).filter((s) => s.startsWith('.') && target(file, s).startsWith('tag/'));
    expect(fromTag).toEqual([]);
  });
});
