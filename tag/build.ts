/**
 * `npm run build:tag` (= `tsx tag/build.ts`):
 * - dist/tag/variants/<features>.js: tag/src/svc.ts bundled as one IIFE (es2021, minified, no
 *   dependencies) for EVERY combination of the compile-time features (core/tag-features.ts: 64 variants,
 *   named by their features, `core` for none), each with one settings placeholder the server fills in
 *   for `/tag/v1/<tagId>.js` (server/tag/assets.ts picks the tag's variant per request);
 * - dist/tag/svc.js: the variant with every feature (`/tag/v1/svc.js`, the generic bundle);
 * - dist/tag/chunks/integrations.<hash>.js: GA4 and Segment (tag/src/integrations-chunk.ts), an ES module the
 *   variants with the integrations import when a tool is asked for (`/tag/v1/integrations.<hash>.js`);
 * - dist/tag/preact.js: the `useSvc()` hook (tag/preact.ts) as ESM, preact external — not in svc.js;
 * - dist/tag/svc.d.ts: the public types (tag/src/types.ts, copied: it holds declarations only);
 * - dist/tag/preact.d.ts: the hook's types, emitted by the TypeScript compiler (`tsc`), importing the
 *   public types from `./svc.js` (that is svc.d.ts beside it, for every module resolution);
 * - dist/tag/size.json: raw, gzip (zlib level 9) and Brotli (quality 11: tag/compress.ts) sizes of every
 *   variant, of the chunk and of a snippet.
 * It prints the sizes and what exceeds a gzip budget (core, no feature: 2,000 B; any other variant,
 * integrations included, 3,500 B; the integrations chunk 1,000 B; snippet 600 B); tag/build.test.ts fails
 * on it. The every-feature bundle is 3,492 B, the default 3,421 B, the chunk 895 B (tag/size-history.md: what
 * each rewrite saved, and how the integrations left the bundle for their chunk).
 *
 * Size choices (each measured): es2021 syntax (optional chaining, `??`, `||=` kept as is: every browser
 * released since 2020: Chrome 85, Firefox 79, Safari 14), no "use strict" prologue (the code needs no
 * strict-mode semantics), no legal comments, UTF-8 output, then terser (about 130 B gzip less on the
 * full bundle, 80 B on the core; hoisting function declarations and leaving statements unsequenced: 12 B
 * more), then the hoisted function declarations ordered for gzip (`orderFunctions`: 0–11 B). The source
 * is written for readers; the minifiers do the squeezing.
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type BuildOptions, build } from 'esbuild';
import { type FormatOptions, minify } from 'terser';
import { ALL_VARIANTS, BUNDLE_FEATURES, CORE_FEATURES, EVERY_FEATURE, type FeatureSet, variantName } from '../core/tag-features.ts';
import { brotliBytes, gzipBytes } from './compress.ts';
import { SETTINGS_NAME, SETTINGS_PLACEHOLDER } from './settings-placeholder.ts';
import { renderSnippet } from './snippet.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Gzip budgets in bytes: the core variant (no feature), any other variant (`bundle`; svc.js, every feature
 * on, is one), the integrations chunk (loaded only when a tool is asked for), the snippet.
 */
export const BUDGETS = { core: 2000, bundle: 3500, integrations: 1000, snippet: 600 } as const;

export interface Size {
  raw: number;
  /** zlib level 9: what the budgets are in. */
  gzip: number;
  /** Brotli quality 11: what a browser that accepts `br` downloads (server/tag/assets.ts serves it). */
  br: number;
}
export interface TagSizes {
  /** Every variant by name (`core`, `personalisation-form_fill-spa-page_views-debug`, …). */
  variants: Record<string, Size>;
  /** dist/tag/svc.js: every feature. */
  bundle: Size;
  /** dist/tag/chunks/integrations.<hash>.js, with its file name. */
  integrations: Size & { file: string };
  snippet: Size;
}

/** What the sizes are measured on: the longest tag id, an explicit endpoint and a nonce (the larger form). */
export const SAMPLE_SNIPPET = { tagId: 'x'.repeat(64), endpoint: 'https://svc.example.com', nonce: 'n'.repeat(24) };

export const sizeOf = (text: string): Size => ({
  raw: Buffer.byteLength(text),
  gzip: gzipBytes(text).length,
  br: brotliBytes(text).length,
});

const COMMON: BuildOptions = {
  bundle: true,
  minify: true,
  platform: 'browser',
  target: 'es2021',
  charset: 'utf8',
  legalComments: 'none',
  write: false,
  logLevel: 'silent',
  // The tag's own code needs no strict-mode semantics; dropping the prologue saves its bytes.
  tsconfigRaw: { compilerOptions: { alwaysStrict: false, strict: false } },
};

/** esbuild `define`s that make each `SVC_FEATURES.<name>` a literal (tag/src/flags.d.ts). */
const featureDefines = (features: FeatureSet): Record<string, string> =>
  Object.fromEntries(BUNDLE_FEATURES.map((name) => [`SVC_FEATURES.${name}`, String(features[name])]));

/** The integrations chunk: its file name under `/tag/v1/` (content-addressed) and its code. */
export interface Chunk {
  file: string;
  js: string;
}

let integrations: Promise<Chunk> | undefined;
/**
 * The integrations chunk (tag/src/integrations-chunk.ts: GA4 and Segment, `tell`), an ES module (the tag
 * loads it with `import()`) minified like the bundles, named `integrations.<first 6 base64url characters of
 * its SHA-256>.js` (36 bits; 6 B gzip less in the bundle than 8 hex digits): a new build of it is a new URL,
 * so the server lets browsers keep each one for a year. Built once per process (every variant names it).
 */
export function integrationsChunk(): Promise<Chunk> {
  integrations ||= build({ ...COMMON, entryPoints: [join(ROOT, 'tag/src/integrations-chunk.ts')], format: 'esm' }).then(async (result) => {
    const { code } = await minify(result.outputFiles![0].text, { ecma: 2020, module: true, compress: { passes: 2 }, format: { ecma: 2020 } });
    return { file: `integrations.${createHash('sha256').update(code!).digest('base64url').slice(0, 6)}.js`, js: code! };
  });
  return integrations;
}

/** The minified bundle's source text, with `features` compiled in (default: every feature). */
export async function bundleTag(features: FeatureSet = EVERY_FEATURE): Promise<string> {
  const define = { ...featureDefines(features), SVC_INTEGRATIONS_CHUNK: JSON.stringify((await integrationsChunk()).file) };
  const result = await build({ ...COMMON, entryPoints: [join(ROOT, 'tag/src/svc.ts')], format: 'iife', define });
  const js = await compress(result.outputFiles![0].text);
  if (js.split(SETTINGS_PLACEHOLDER).length !== 2) throw new Error(`the bundle must contain ${SETTINGS_PLACEHOLDER} exactly once`);
  return js;
}

/**
 * esbuild's output squeezed further by terser (safe options, two passes: inlining, joined
 * declarations, shorter conditionals; function declarations hoisted and statements left unjoined by
 * commas, which gzip compresses better: -12 B on the full bundle, -6 B on the core), then its function
 * declarations put in the order gzip compresses best (`orderFunctions`). Terser would see that the
 * placeholder string is no object and drop the code that applies the server's settings, so it works on
 * an opaque global in its place.
 */
async function compress(js: string): Promise<string> {
  const [before, after, ...more] = js.split(SETTINGS_PLACEHOLDER);
  if (after === undefined || more.length) return js; // the caller reports the missing placeholder
  // The name without quotes is an undeclared global, which terser cannot evaluate, in the placeholder's place.
  const { code } = await minify(before + SETTINGS_NAME + after, {
    ecma: 2020,
    toplevel: true,
    compress: { passes: 2, hoist_funs: true, sequences: false },
    format: { ecma: 2020 },
  });
  return orderFunctions(code!.replace(SETTINGS_NAME, SETTINGS_PLACEHOLDER));
}

/** The little of terser's syntax tree (`format.ast`) that `orderFunctions` reads. */
interface TerserNode {
  TYPE: string;
  body?: TerserNode | TerserNode[];
  expression?: TerserNode;
  /** The node's first token: `pos` is its offset in the parsed code. */
  start: { pos: number };
}

/**
 * `code` (terser's output: `(()=>{function …}…;…})()`) with the function declarations at the top of the
 * IIFE, where terser hoists them, reordered for gzip: their order changes nothing when the code runs (a
 * function declaration exists before any statement of its scope runs), but it decides how far apart gzip
 * finds repeated text. Each declaration in turn is moved to the place where the whole compresses smallest
 * (zlib level 9, as measured), until no move helps: a deterministic local search from terser's order, about
 * 50 ms a variant; 8 B gzip less on the every-feature bundle, 0–11 B on the 64 variants (18 B on the
 * every-feature bundle before the rewrites listed in tag/size-history.md took some of it). Code of any other shape
 * is returned as it is.
 */
async function orderFunctions(code: string): Promise<string> {
  // (`ast` is a format option terser has, missing from its type declarations)
  const format = { ast: true, code: false } as FormatOptions;
  const { ast } = (await minify(code, { compress: false, mangle: false, ecma: 2020, format })) as { ast?: TerserNode };
  const iife = (ast?.body as TerserNode[] | undefined)?.[0];
  const statements = (iife?.TYPE === 'SimpleStatement' && (iife.body as TerserNode).expression?.body) as TerserNode[] | undefined;
  const functions = statements?.findIndex((statement) => statement.TYPE !== 'Defun') ?? -1;
  if (!statements || functions < 2 || statements.slice(functions).some((statement) => statement.TYPE === 'Defun')) return code;
  // Each declaration's text runs from its first token to the next statement's.
  const starts = statements.map((statement) => statement.start.pos);
  const parts = starts.slice(0, functions).map((start, i) => code.slice(start, starts[i + 1]));
  const [before, after] = [code.slice(0, starts[0]), code.slice(starts[functions])];
  const size = (order: number[]) => gzipBytes(before + order.map((i) => parts[i]).join('') + after).length;
  let order = parts.map((_, i) => i);
  let best = size(order);
  for (let moved = true; moved; ) {
    moved = false;
    for (let from = 0; from < order.length; from++)
      for (let to = 0; to < order.length; to++) {
        if (to === from) continue;
        const candidate = [...order];
        candidate.splice(to, 0, ...candidate.splice(from, 1));
        const candidateSize = size(candidate);
        if (candidateSize < best) [order, best, moved] = [candidate, candidateSize, true];
      }
  }
  return before + order.map((i) => parts[i]).join('') + after;
}

/** The Preact hook as ESM with preact external. */
export async function bundlePreactHook(): Promise<string> {
  const result = await build({
    ...COMMON,
    entryPoints: [join(ROOT, 'tag/preact.ts')],
    format: 'esm',
    minify: false,
    external: ['preact', 'preact/*'],
  });
  return result.outputFiles![0].text;
}

/** The TypeScript compiler's command-line entry (the `typescript` devDependency), or null when it is not installed. */
export function tscPath(): string | null {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
  } catch {
    return null;
  }
}

/** Runs `tsc` with `args` (no tsconfig.json is read); rejects with its output when it reports errors. */
async function runTsc(args: string[], cwd = ROOT): Promise<void> {
  const tsc = tscPath();
  if (!tsc) throw new Error('the TypeScript compiler is not installed (devDependency typescript): run npm install');
  await promisify(execFile)(process.execPath, [tsc, ...args], { cwd }).catch((e: { stdout?: string; stderr?: string }) => {
    throw new Error(`tsc ${args.join(' ')}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  });
}

/**
 * The hook's declarations (tag/preact.ts) as `tsc` emits them, with the types module they import named
 * `./svc.js`: in dist/tag that resolves to svc.d.ts (a `.js` specifier finds its `.d.ts` under every
 * moduleResolution; the import is types-only, erased from the hook's JavaScript).
 */
export async function preactDeclarations(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tag-dts-'));
  try {
    // The project's compiler options (tsconfig.json), minus Node's types (a browser module).
    await runTsc([
      '--ignoreConfig',
      ...['--declaration', '--emitDeclarationOnly', '--outDir', dir, '--rootDir', join(ROOT, 'tag')],
      ...['--strict', '--skipLibCheck', '--allowImportingTsExtensions', '--target', 'es2022', '--module', 'nodenext'],
      ...['--lib', 'es2022,dom,dom.iterable', '--types', '', '--jsx', 'react-jsx', '--jsxImportSource', 'preact'],
      join(ROOT, 'tag/preact.ts'),
    ]);
    const dts = await readFile(join(dir, 'preact.d.ts'), 'utf8');
    const types = /(['"])\.\/src\/types\.ts\1/g;
    if (!types.test(dts)) throw new Error('preact.d.ts does not import ./src/types.ts: update preactDeclarations()');
    return (
      '/** Types of the `useSvc()` hook, dist/tag/preact.js (source: tag/preact.ts); the public types are in svc.d.ts. */\n' + dts.replace(types, "'./svc.js'")
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Writes the declaration files into `outDir`: svc.d.ts and, when the TypeScript compiler is installed
 * (a devDependency; a production install without it still builds the tag), preact.d.ts.
 */
export async function writeDeclarations(outDir: string): Promise<string[]> {
  const written = [copyFile(join(ROOT, 'tag/src/types.ts'), join(outDir, 'svc.d.ts')).then(() => 'svc.d.ts')];
  if (tscPath())
    written.push(
      preactDeclarations()
        .then((dts) => writeFile(join(outDir, 'preact.d.ts'), dts))
        .then(() => 'preact.d.ts'),
    );
  else console.warn('dist/tag/preact.d.ts not written: the TypeScript compiler (devDependency typescript) is not installed');
  return Promise.all(written);
}

/** Builds everything into `outDir` (default dist/tag); returns the sizes. */
export async function buildTag(outDir = join(ROOT, 'dist/tag')): Promise<TagSizes> {
  await Promise.all([mkdir(join(outDir, 'variants'), { recursive: true }), mkdir(join(outDir, 'chunks'), { recursive: true })]);
  const [bundles, hook, chunk] = await Promise.all([
    Promise.all(ALL_VARIANTS.map((features) => bundleTag(features))),
    bundlePreactHook(),
    integrationsChunk(),
    writeDeclarations(outDir), // tsc runs while esbuild and terser work
  ]);
  const names = ALL_VARIANTS.map(variantName);
  const js = bundles[names.indexOf(variantName(EVERY_FEATURE))];
  const sizes: TagSizes = {
    variants: Object.fromEntries(names.map((name, i) => [name, sizeOf(bundles[i])])),
    bundle: sizeOf(js),
    integrations: { file: chunk.file, ...sizeOf(chunk.js) },
    snippet: sizeOf(renderSnippet(SAMPLE_SNIPPET)),
  };
  await Promise.all([
    ...names.map((name, i) => writeFile(join(outDir, 'variants', name + '.js'), bundles[i])),
    writeFile(join(outDir, 'svc.js'), js),
    // Earlier chunks are left in place: a bundle browsers cached before this build (5 minutes) still finds its own.
    writeFile(join(outDir, 'chunks', chunk.file), chunk.js),
    writeFile(join(outDir, 'preact.js'), hook),
    writeFile(join(outDir, 'size.json'), JSON.stringify({ ...sizes, budgets: BUDGETS }, null, 2) + '\n'),
  ]);
  return sizes;
}

/** A variant's budget by its name: the core's, or any other's (the integrations' code is in their chunk). */
export const budgetOf = (name: string): number => (name === variantName(CORE_FEATURES) ? BUDGETS.core : BUDGETS.bundle);

/** What exceeds its budget: variant names (each over its budgetOf), `integrations` (the chunk) and `snippet`. */
export function overBudget(sizes: Pick<TagSizes, 'variants' | 'snippet'> & Partial<Pick<TagSizes, 'integrations'>>): string[] {
  const over = Object.entries(sizes.variants)
    .filter(([name, size]) => size.gzip > budgetOf(name))
    .map(([name]) => name);
  if (sizes.integrations && sizes.integrations.gzip > BUDGETS.integrations) over.push('integrations');
  return sizes.snippet.gzip > BUDGETS.snippet ? [...over, 'snippet'] : over;
}

async function main() {
  const outDir = join(ROOT, 'dist/tag');
  const sizes = await buildTag(outDir);
  const where = relative(process.cwd(), outDir) || '.';
  const line = (what: string, { raw, gzip, br }: Size, budget: number) =>
    console.log(
      `${what.padEnd(66)} raw ${String(raw).padStart(5)} B  gzip ${String(gzip).padStart(5)} B  (budget ${budget} B gzip)  br ${String(br).padStart(5)} B`,
    );
  for (const [name, size] of Object.entries(sizes.variants).sort((a, b) => a[1].gzip - b[1].gzip)) {
    line(`tag ${name}`, size, budgetOf(name));
  }
  line(`chunk ${sizes.integrations.file} (loaded when a tool is asked for)`, sizes.integrations, BUDGETS.integrations);
  line('snippet', sizes.snippet, BUDGETS.snippet);
  console.log(
    `wrote ${where}/variants/*.js (${Object.keys(sizes.variants).length} variants), svc.js (every feature), chunks/${sizes.integrations.file}, preact.js, svc.d.ts, preact.d.ts and size.json`,
  );
  const over = overBudget(sizes);
  if (over.length) {
    console.error(`SIZE BUDGET FAILED, over budget: ${over.join(', ')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
