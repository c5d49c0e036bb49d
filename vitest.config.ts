import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { type TestProject, testProjects } from './vitest.projects.ts';

/**
 * Three projects, by what a test starts (vitest.projects.ts sorts the files by their imports): `unit`
 * (pure modules: `npm run test:unit`, the inner loop), `app` (an in-process server), `system` (real
 * Redis, clusters, nginx, child processes, Prism). `vitest run` runs all three.
 */
const files = testProjects(fileURLToPath(new URL('.', import.meta.url)));
const PROJECTS: TestProject[] = ['unit', 'app', 'system'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Native better-sqlite3 and child processes (mmdblookup, servers) are fine in forks.
    pool: 'forks',
    projects: PROJECTS.map((name) => ({
      extends: true,
      // Pure modules need no process of their own: unit files share workers (a fork per file was half
      // of the project's CPU), each file still evaluating its own modules afresh (vitest.unit-setup.ts),
      // so a vi.mock applies and no module state carries over from the file before.
      test: { name, include: files[name], ...(name === 'unit' ? { isolate: false, setupFiles: ['./vitest.unit-setup.ts'] } : {}) },
    })),
  },
});
