/**
 * `npm run build:tag` (= `tsx tag/build.ts`): bundles tag/src/svc.ts into dist/tag/svc.js (IIFE, es2017,
 * minified, no dependencies), prints the raw and gzip (zlib level 9) sizes of the bundle and of a
 * snippet, writes them to dist/tag/size.json, and exits non-zero when a gzip budget is exceeded.
 */
import { build } from 'esbuild';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { renderSnippet } from './snippet.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Gzip budgets in bytes. */
export const BUDGETS = { bundle: 3000, snippet: 600 } as const;

export interface Size {
  raw: number;
  gzip: number;
}
export interface TagSizes {
  bundle: Size;
  snippet: Size;
}

/** What the sizes are measured on: the longest tag id and an explicit endpoint (the larger form). */
export const SAMPLE_SNIPPET = { tagId: 'x'.repeat(64), endpoint: 'https://svc.example.com' };

export const sizeOf = (text: string): Size => ({
  raw: Buffer.byteLength(text),
  gzip: gzipSync(text, { level: 9 }).length,
});

/** The minified bundle's source text. */
export async function bundleTag(): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, 'tag/src/svc.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2017',
    platform: 'browser',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** Builds the bundle into `outDir` (default dist/tag) with size.json beside it; returns the sizes. */
export async function buildTag(outDir = join(ROOT, 'dist/tag')): Promise<TagSizes> {
  const js = await bundleTag();
  const sizes: TagSizes = { bundle: sizeOf(js), snippet: sizeOf(renderSnippet(SAMPLE_SNIPPET)) };
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'svc.js'), js);
  await writeFile(join(outDir, 'size.json'), JSON.stringify({ ...sizes, budgets: BUDGETS }, null, 2) + '\n');
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
  console.log(`wrote ${where}/svc.js and ${where}/size.json`);
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
