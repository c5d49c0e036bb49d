/**
 * Which Vitest project each test file belongs to, read from what it imports (vitest.config.ts builds the
 * projects from this, so a new test lands in the right one without a list to keep):
 *
 *   system  starts processes or real backends: child_process, worker threads or cluster, Prism or a
 *           browser, reached from the test or a test helper (redis-server.ts, redis-cluster.ts,
 *           state-backends.ts, deploy/'s cluster and nginx helpers all spawn);
 *   app     an in-process server: HTTP or sockets (node:http, node:net…) or `inject` (light-my-request),
 *           from the test or a helper (test-server.ts, webhook-receiver.ts, oidc-provider.ts);
 *   unit    the rest: pure modules, no process, no server, no network. `npm run test:unit` runs these.
 *
 * Only the test file and test helpers are read for these imports (a helper: a file under a `testing/`
 * folder, a `test-*` or `*-test-*` file, another test, deploy/ and bench/), since production modules import servers and
 * processes they do not start when a unit test imports them. vitest.projects.test.ts checks the unit
 * project against the whole import graph and the tests' text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export type TestProject = 'unit' | 'app' | 'system';

/** Where tests live (the e2e browser tests are Playwright's, not Vitest's). */
export const TEST_ROOTS = ['core', 'server', 'data', 'tag', 'demo-site', 'bench', 'deploy'];
/** Root-level tests (this classification's own). */
export const ROOT_TESTS = ['vitest.projects.test.ts'];

/** Imports that make a test `system`: processes, threads, Prism, browsers. */
export const SYSTEM_IMPORTS = /^(node:)?(child_process|worker_threads|cluster)$|^@stoplight\/prism|^@playwright\/|^playwright/;
/** Imports that make a test `app`: a server or a socket in this process, or `inject`. */
export const APP_IMPORTS = /^(node:)?(http|https|http2|net|tls|dgram)$|^light-my-request$/;
/** Our modules that start a server when a test calls them (imported straight from a test, not only from helpers). */
export const SERVER_MODULES = /^server\/serve\.ts$/;

/**
 * A test helper: its imports count as the test's own. deploy/ and bench/ are tools that start servers,
 * clusters and load generators, so what they import counts too.
 */
export const isTestHelper = (file: string): boolean => /(^|\/)testing\/|(^|\/|-)test-[^/]*\.ts$|\.test\.ts$|^(deploy|bench)\//.test(file);

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;

const importCache = new Map<string, string[]>();
/** The module specifiers a file imports (static, dynamic and side-effect imports, and re-exports). */
export function importsOf(root: string, file: string): string[] {
  let out = importCache.get(file);
  if (out === undefined) {
    out = [];
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(IMPORT)) out.push(m[1] ?? m[2] ?? m[3]);
    importCache.set(file, out);
  }
  return out;
}

/** A relative specifier of `from` as a root-relative path, or null when it is not a local TypeScript file. */
export function resolveLocal(root: string, from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const file = relative(root, resolve(root, dirname(from), spec));
  return /\.tsx?$/.test(file) && existsSync(join(root, file)) ? file : null;
}

/** Every test file Vitest runs, root-relative, sorted. */
export function testFiles(root: string): string[] {
  const out: string[] = ROOT_TESTS.filter((f) => existsSync(join(root, f)));
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (e.name === 'node_modules') continue;
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.test.ts')) out.push(path);
    }
  };
  for (const dir of TEST_ROOTS) if (existsSync(join(root, dir))) walk(dir);
  return out.sort();
}

/** The project of one test file, and the import that decided it (for the classification test's messages). */
export function classify(root: string, test: string): { project: TestProject; because: string | null } {
  let app: string | null = null;
  const seen = new Set<string>();
  const stack = [test];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of importsOf(root, file)) {
      const local = resolveLocal(root, file, spec);
      if (local !== null) {
        if (app === null && SERVER_MODULES.test(local)) app = `${file} imports ${local}`;
        if (isTestHelper(local)) stack.push(local);
      } else if (SYSTEM_IMPORTS.test(spec)) return { project: 'system', because: `${file} imports ${spec}` };
      else if (app === null && APP_IMPORTS.test(spec)) app = `${file} imports ${spec}`;
    }
  }
  return app === null ? { project: 'unit', because: null } : { project: 'app', because: app };
}

/** The test files of each project. */
export function testProjects(root: string): Record<TestProject, string[]> {
  const out: Record<TestProject, string[]> = { unit: [], app: [], system: [] };
  for (const test of testFiles(root)) out[classify(root, test).project].push(test);
  return out;
}
