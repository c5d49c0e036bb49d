/**
 * `npm run build:tag` (= `tsx tag/build.ts`):
 * - dist/tag/svc.js: tag/src/svc.ts bundled as one IIFE (es2021, minified, no dependencies) with one
 *   settings placeholder the server fills in for `/tag/v1/<tagId>.js`;
 * - dist/tag/preact.js: the `useSvc()` hook (tag/preact.ts) as ESM, preact external — not in svc.js;
 * - dist/tag/svc.d.ts: the public types (tag/src/types.ts);
 * - dist/tag/size.json: raw and gzip (zlib level 9) sizes of the bundle and of a snippet.
 * It prints the sizes and exits non-zero when a gzip budget is exceeded.
 *
 * Size choices (each measured): es2021 syntax (optional chaining, `??`, `||=` kept as is: every browser
 * released since 2020: Chrome 85, Firefox 79, Safari 14), no "use strict" prologue (the code needs no strict-mode semantics), no legal
 * comments, UTF-8 output.
 */
import { build, type BuildOptions } from 'esbuild';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { renderSnippet } from './snippet.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Gzip budgets in bytes. */
export const BUDGETS = { bundle: 3000, snippet: 600 } as const;

/** The string the server replaces with a tag's settings (see server/tag/assets.ts). */
export const PLACEHOLDER = '"__SVC_SETTINGS__"';

export interface Size {
  raw: number;
  gzip: number;
}
export interface TagSizes {
  bundle: Size;
  snippet: Size;
}

/** What the sizes are measured on: the longest tag id, an explicit endpoint and a nonce (the larger form). */
export const SAMPLE_SNIPPET = { tagId: 'x'.repeat(64), endpoint: 'https://svc.example.com', nonce: 'n'.repeat(24) };

export const sizeOf = (text: string): Size => ({
  raw: Buffer.byteLength(text),
  gzip: gzipSync(text, { level: 9 }).length,
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

/** The minified bundle's source text. */
export async function bundleTag(): Promise<string> {
  const result = await build({ ...COMMON, entryPoints: [join(ROOT, 'tag/src/svc.ts')], format: 'iife' });
  const js = result.outputFiles![0].text;
  if (js.split(PLACEHOLDER).length !== 2) throw new Error(`the bundle must contain ${PLACEHOLDER} exactly once`);
  return js;
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

/** Builds everything into `outDir` (default dist/tag); returns the sizes. */
export async function buildTag(outDir = join(ROOT, 'dist/tag')): Promise<TagSizes> {
  const [js, hook] = await Promise.all([bundleTag(), bundlePreactHook()]);
  const sizes: TagSizes = { bundle: sizeOf(js), snippet: sizeOf(renderSnippet(SAMPLE_SNIPPET)) };
  await mkdir(outDir, { recursive: true });
  await Promise.all([
    writeFile(join(outDir, 'svc.js'), js),
    writeFile(join(outDir, 'preact.js'), hook),
    copyFile(join(ROOT, 'tag/src/types.ts'), join(outDir, 'svc.d.ts')),
    writeFile(join(outDir, 'size.json'), JSON.stringify({ ...sizes, budgets: BUDGETS }, null, 2) + '\n'),
  ]);
  return sizes;
}

/** Names of the budgets `sizes` exceeds. */
export const overBudget = (sizes: TagSizes): (keyof TagSizes)[] =>
  (['bundle', 'snippet'] as const).filter((k) => sizes[k].gzip > BUDGETS[k]);

async function main() {
  const outDir = join(ROOT, 'dist/tag');
  const sizes = await buildTag(outDir);
  const where = relative(process.cwd(), outDir) || '.';
  for (const k of ['bundle', 'snippet'] as const) {
    const { raw, gzip } = sizes[k];
    console.log(
      `tag ${k.padEnd(7)} raw ${String(raw).padStart(5)} B  gzip ${String(gzip).padStart(5)} B  ` +
        `(budget ${BUDGETS[k]} B gzip)`,
    );
  }
  console.log(`wrote ${where}/svc.js, preact.js, svc.d.ts and size.json`);
  const over = overBudget(sizes);
  if (over.length) {
    console.error(`over budget: ${over.join(', ')}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
