/**
 * Builds the demo site into dist/demo-site: index.html (static marketing page with the snippet pasted
 * in <head>) and app.js (the Preact "tag inspector"). Called by the main build; `tsx demo-site/build.ts`
 * runs it alone. The featured segment comes from data/sample/customers.json when that file exists.
 */

import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { renderSnippet } from '../tag/snippet.ts';
import { NONCE_PLACEHOLDER, renderPage } from './page.ts';
import { DEFAULT_SEGMENT, DEMO_TAG_ID, demoSegmentName } from './segment.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const HERE = join(ROOT, 'demo-site');

export interface DemoBuildOptions {
  /** Default: dist/demo-site. */
  outDir?: string;
  /** Default: data/sample/customers.json (optional file). */
  customersFile?: string;
}

async function segmentFrom(file: string): Promise<string> {
  if (!existsSync(file)) return DEFAULT_SEGMENT;
  try {
    return demoSegmentName(JSON.parse(await readFile(file, 'utf8')));
  } catch (e) {
    throw new Error(`demo site: cannot read ${file}: ${(e as Error).message}`);
  }
}

async function bundle(entry: string, format: 'iife', minify: boolean): Promise<string> {
  const result = await build({
    entryPoints: [join(HERE, entry)],
    bundle: true,
    minify,
    format,
    target: 'es2020',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

export async function buildDemoSite(options: DemoBuildOptions = {}): Promise<void> {
  const outDir = options.outDir ?? join(ROOT, 'dist/demo-site');
  const segmentName = await segmentFrom(options.customersFile ?? join(ROOT, 'data/sample/customers.json'));
  const [app, recorderJs, css] = await Promise.all([
    bundle('src/app.tsx', 'iife', true),
    bundle('src/recorder.ts', 'iife', true),
    readFile(join(HERE, 'src/styles.css'), 'utf8'),
  ]);
  // Inline scripts and style carry a nonce placeholder: the server serves the page under a strict CSP.
  const html = renderPage({
    snippet: renderSnippet({ tagId: DEMO_TAG_ID, nonce: NONCE_PLACEHOLDER }),
    segmentName,
    recorderJs: recorderJs.trim(),
    css,
    nonce: NONCE_PLACEHOLDER,
  });
  await mkdir(outDir, { recursive: true });
  await Promise.all([writeFile(join(outDir, 'index.html'), html), writeFile(join(outDir, 'app.js'), app)]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildDemoSite().then(
    () => console.log('wrote dist/demo-site/index.html and dist/demo-site/app.js'),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
