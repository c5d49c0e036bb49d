/**
 * The Vitest projects stay honest: every test file is in exactly one project, and nothing in `unit`
 * (what `npm run test:unit` runs, the inner loop) starts a server, a process or a backend — checked
 * against the whole import graph and the test's own text, not just the rule that sorted it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from './vitest.config.ts';
import { classify, importsOf, isTestHelper, resolveLocal, testFiles, testProjects } from './vitest.projects.ts';

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Modules that start a server, a backend or processes when a test uses them. */
const STARTERS =
  /^server\/testing\/(test-server|redis-server|redis-cluster|redis-nodes|state-backends|webhook-receiver|oidc-provider)\.ts$|^deploy\/(processes|local-cluster)\.ts$/;
const STARTING_PACKAGES = /^(node:)?(child_process|http|https|http2|net|tls|dgram)$|^light-my-request$|^@stoplight\/prism|playwright/;
/** What a test's own text must not do in the unit project. */
const STARTING_CALLS =
  /(?<![.\w])(startTestServer|startServer|startRedisServer|startRedisCluster|startRedisNodes|startLocalCluster|spawn|spawnSync|execFile|execFileSync|execSync)\(|\.listen\(/;

/** Every local module `test` reaches, and the packages the test and its helpers import. */
function reach(test: string): { modules: Set<string>; packages: Map<string, string> } {
  const modules = new Set<string>();
  const packages = new Map<string, string>();
  const stack = [test];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (modules.has(file)) continue;
    modules.add(file);
    for (const spec of importsOf(ROOT, file)) {
      const local = resolveLocal(ROOT, file, spec);
      if (local !== null) stack.push(local);
      else if (isTestHelper(file)) packages.set(spec, file);
    }
  }
  return { modules, packages };
}

describe('Vitest projects', () => {
  const projects = testProjects(ROOT);

  it('puts every test file in exactly one project, as vitest.config.ts runs them', () => {
    const all = testFiles(ROOT);
    expect([...projects.unit, ...projects.app, ...projects.system].sort()).toEqual(all);
    const configured = ((config.test?.projects ?? []) as { test: { name: string; include: string[] } }[]).map((p) => [p.test.name, p.test.include]);
    expect(configured).toEqual([
      ['unit', projects.unit],
      ['app', projects.app],
      ['system', projects.system],
    ]);
    expect(projects.unit).toContain('vitest.projects.test.ts');
  });

  it('keeps the unit project free of servers, processes and backends', () => {
    const problems: string[] = [];
    for (const test of projects.unit) {
      const { modules, packages } = reach(test);
      for (const m of modules) if (STARTERS.test(m)) problems.push(`${test} reaches ${m}`);
      for (const [spec, from] of packages) if (STARTING_PACKAGES.test(spec)) problems.push(`${test}: ${from} imports ${spec}`);
      const call = STARTING_CALLS.exec(readFileSync(join(ROOT, test), 'utf8'));
      if (call) problems.push(`${test} calls ${call[0]}`);
    }
    expect(problems).toEqual([]);
  });

  describe('classify', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-projects-'));
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    };
    // Built, not written out, so that this file's own imports are only its real ones.
    const from = (what: string, spec: string) => `${'import'} ${what} from '${spec}';\n`;
    write('server/testing/redis-server.ts', from('{ spawn }', 'node:child_process'));
    write('server/testing/test-server.ts', from('{ createServer }', 'node:http'));
    write('server/app.ts', from('{ createServer }', 'node:http') + from('{ spawn }', 'node:child_process'));
    write('server/a.test.ts', from('{ startRedisServer }', './testing/redis-server.ts'));
    write('server/b.test.ts', from('{ startTestServer }', './testing/test-server.ts'));
    write('server/c.test.ts', from('{ app }', './app.ts') + from('{ z }', 'zod'));
    write('server/d.test.ts', `const { inject } = await ${'import'}('light-my-request');\n`);

    it('sorts by what the test and its helpers import, not what production modules import', () => {
      try {
        expect(classify(root, 'server/a.test.ts')).toEqual({ project: 'system', because: 'server/testing/redis-server.ts imports node:child_process' });
        expect(classify(root, 'server/b.test.ts')).toEqual({ project: 'app', because: 'server/testing/test-server.ts imports node:http' });
        expect(classify(root, 'server/c.test.ts')).toEqual({ project: 'unit', because: null });
        expect(classify(root, 'server/d.test.ts').project).toBe('app');
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });
});
