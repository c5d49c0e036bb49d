/**
 * The production build of the server: `server/cli/main.ts` bundled by esbuild into dist/server/main.js,
 * run with plain `node` (`npm start`), so production neither transpiles TypeScript at start nor resolves
 * hundreds of module files. better-sqlite3 stays external (a native addon is loaded from node_modules).
 * Development and tests keep running the sources through tsx.
 */
import { mkdirSync } from 'node:fs';
import { build } from 'esbuild';

const OUT = 'dist/server';

export async function buildServer(outdir = OUT): Promise<{ bytes: number }> {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    // `data build`'s worker threads (data/build/bulk.ts startBuildWorker) load their entry as a file of its
    // own: bundled beside main.js, so the production bundle builds large sources too, without tsx.
    entryPoints: { main: 'server/cli/main.ts', 'network-worker': 'data/build/network-worker.ts', 'people-worker': 'data/build/people-worker.ts' },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3'],
    // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const bytes = Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith('.js'))
    .reduce((n, [, o]) => n + o.bytes, 0);
  return { bytes };
}

if (process.argv[1]?.endsWith('server/build.ts')) {
  const { bytes } = await buildServer();
  process.stdout.write(`wrote ${OUT}/main.js and the data build's workers (${(bytes / 1024).toFixed(0)} kB)\n`);
}
