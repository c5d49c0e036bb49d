/**
 * Builds the token-management console into dist/console: index.html (no inline script or style, so it
 * runs under the strict CSP `serve.ts` sends), app.js (Preact, bundled and minified by esbuild) and
 * console.css (and a favicon). Called by `npm run build`; `tsx server/console/build.ts` runs it alone.
 */

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');

/** A file, not a `data:` URL: the CSP (`default-src 'self'`) allows images from this origin only. */
export const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M8 1l7 7-7 7-7-7z" fill="#3f33d6"/></svg>\n';

/** The page shell: relative asset URLs (served under /console/), a mount point, a no-JS note. */
export function renderIndex(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<title>svc console</title>
<link rel="stylesheet" href="console.css">
<script src="app.js" defer></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

export interface ConsoleBuildOptions {
  /** Default: dist/console. */
  outDir?: string;
  minify?: boolean;
}

export async function buildConsole(options: ConsoleBuildOptions = {}): Promise<{ outDir: string; bytes: Record<string, number> }> {
  const outDir = options.outDir ?? join(ROOT, 'dist/console');
  const minify = options.minify ?? true;
  const [js, css] = await Promise.all([
    build({
      entryPoints: [join(HERE, 'ui/main.tsx')],
      bundle: true,
      minify,
      format: 'iife',
      target: 'es2020',
      platform: 'browser',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      legalComments: 'none',
      define: { 'process.env.NODE_ENV': '"production"' },
      write: false,
      logLevel: 'silent',
    }),
    build({ entryPoints: [join(HERE, 'ui/console.css')], bundle: true, minify, write: false, logLevel: 'silent' }),
  ]);
  const files = { 'index.html': renderIndex(), 'app.js': js.outputFiles[0].text, 'console.css': css.outputFiles[0].text, 'favicon.svg': FAVICON };
  await mkdir(outDir, { recursive: true });
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(outDir, name), text)));
  return { outDir, bytes: Object.fromEntries(Object.entries(files).map(([n, t]) => [n, Buffer.byteLength(t)])) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildConsole().then(
    ({ outDir, bytes }) =>
      console.log(
        `wrote ${outDir}: ${Object.entries(bytes)
          .map(([n, b]) => `${n} ${(b / 1024).toFixed(1)} kB`)
          .join(', ')}`,
      ),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
