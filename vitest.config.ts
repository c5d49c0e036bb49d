import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'core/**/*.test.ts',
      'server/**/*.test.ts',
      'data/**/*.test.ts',
      'tag/**/*.test.ts',
      'demo-site/**/*.test.ts',
      'bench/**/*.test.ts',
      'deploy/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Native better-sqlite3 and child processes (mmdblookup, servers) are fine in forks.
    pool: 'forks',
  },
});
