/**
 * The production bundle (server/build.ts) runs with plain node: built into a scratch folder inside the
 * repository (so the external better-sqlite3 resolves from node_modules), started on a free port on a
 * real data build, it answers readiness, an identification and the docs; and `data build`'s worker threads
 * run from the bundle (big sources build in them).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDataset } from '../data/build/build.ts';
import { startBuildWorker } from '../data/build/bulk.ts';
import { buildServer } from './build.ts';
import { IPS, writeFixtureSources } from './testing/test-server.ts';

let dir: string;
let child: ChildProcess | undefined;
let url = '';

beforeAll(async () => {
  dir = mkdtempSync(join(process.cwd(), 'var-build-test-'));
  await buildServer(join(dir, 'server'));
  writeFixtureSources(join(dir, 'sources'));
  await buildDataset({ in: join(dir, 'sources'), out: join(dir, 'data') });
  child = spawn(process.execPath, [join(dir, 'server', 'main.js'), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_DATA: join(dir, 'data'),
      SVC_STATE: join(dir, 'svc.db'),
      SVC_JOBS_DIR: join(dir, 'jobs'),
      SVC_ADMIN_TOKEN: 'build-test-admin-token-0123456789',
      SVC_LOG: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^ ]+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child!.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child!.once('exit', (code) => reject(new Error(`the bundle exited with ${code}:\n${out}`)));
  });
}, 120_000);

afterAll(() => {
  child?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('serves from dist/server/main.js with plain node', async () => {
  expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({ status: 'ok' });
  const bare = await fetch(`${url}/v3/company/details?ip=${IPS.northwind}`, { headers: { 'user-agent': 'curl/8.5.0' } });
  expect(bare.status).toBe(401);
  expect(bare.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
  expect((await fetch(`${url}/docs/scalar.js`)).status).toBe(200);
});

it("runs data build's worker threads from the bundle: the entry named as in the sources resolves to the .js beside main.js", async () => {
  // What data/build/people.ts asks for when it runs inside dist/server/main.js: ./people-worker.ts there.
  const entry = new URL('people-worker.ts', pathToFileURL(join(dir, 'server', 'main.js')));
  const file = join(dir, 'people-from-bundle.db');
  const { result } = startBuildWorker<{ count: number }>(entry, { dir: join(process.cwd(), 'data', 'sample'), file });
  const { count } = await result;
  expect(count).toBeGreaterThan(0);
  const db = new Database(file, { readonly: true });
  expect((db.prepare('SELECT COUNT(*) AS n FROM people').get() as { n: number }).n).toBe(count);
  db.close();
});
