/**
 * `serve --workers 2` as users run it (a real CLI process, node:cluster, one SQLite state file): hundreds
 * of concurrent requests spread over both workers spend exactly the quota and let exactly the rate limit
 * through.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDataset } from '../data/build/build.ts';
import { freePort } from '../deploy/processes.ts';
import { SqliteStateStore } from './state/sqlite/store.ts';
import { TEST_CUSTOMER } from './testing/fixtures.ts';
import { IPS, TEST_ADMIN_TOKEN, writeFixtureSources } from './testing/test-server.ts';

const QUOTA = 37;
const LIMIT = 45;
let dir: string;
let primary: ChildProcess;
let url: string;
let spender: string;
let limited: string;
let stderr = '';
let metricsPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
  writeFixtureSources(join(dir, 'sources'));
  await buildDataset({ in: join(dir, 'sources'), out: join(dir, 'data') });
  const store = new SqliteStateStore(join(dir, 'svc.db'));
  await store.importCustomer({ ...TEST_CUSTOMER, id: 'tiny', name: 'Tiny Co', identification_credits: QUOTA, tags: [] });
  spender = (await store.createToken({ customer_id: 'tiny', api_group: 'identification', name: 'spender', rate_limit: 100_000 })).secret;
  limited = (await store.createToken({ customer_id: 'tiny', api_group: 'identification', name: 'limited', rate_limit: LIMIT })).secret;
  await store.close();

  const port = await freePort();
  metricsPort = await freePort();
  primary = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'serve', '--workers', '2'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA: join(dir, 'data'),
      SVC_STATE: join(dir, 'svc.db'),
      SVC_JOBS_DIR: join(dir, 'jobs'),
      SVC_LOG: 'error',
      SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SVC_METRICS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  primary.stderr!.on('data', (d) => (stderr += d));
  url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 45_000;
  for (;;) {
    try {
      await fetch(url + '/nope');
      break;
    } catch {
      if (primary.exitCode !== null || Date.now() > deadline) throw new Error(`serve --workers 2 did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  // Both workers must be up before the load: wait until the primary has two children listening.
  const workersUp = Date.now() + 30_000;
  while (workers().length < 2 && Date.now() < workersUp) await new Promise((r) => setTimeout(r, 150));
}, 90_000);

afterAll(async () => {
  if (primary && primary.exitCode === null) {
    const exited = new Promise((r) => primary.once('exit', r));
    primary.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function workers(): string[] {
  try {
    // Only node worker processes: the TypeScript loader may start helper processes (esbuild) of its own.
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(primary.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('main.ts') && !l.includes('esbuild'));
  } catch {
    return [];
  }
}

const ask = (secret: string, ip: string) =>
  fetch(`${url}/v3/company/details?ip=${ip}`, { headers: { authorization: `Token ${secret}`, 'user-agent': 'Mozilla/5.0 Chrome/131.0' } }).then(
    (r) => r.status,
  );

it('runs two workers', () => {
  expect(workers()).toHaveLength(2);
});

it('spends exactly the quota under hundreds of concurrent matched requests across workers', async () => {
  const statuses = await Promise.all(Array.from({ length: 300 }, () => ask(spender, IPS.northwind)));
  expect(statuses.filter((s) => s === 200)).toHaveLength(QUOTA);
  expect(statuses.filter((s) => s === 402)).toHaveLength(300 - QUOTA);
  const store = new SqliteStateStore(join(dir, 'svc.db'));
  try {
    expect((await store.usage('tiny')).reduce((n, u) => n + u.charges, 0)).toBe(QUOTA);
  } finally {
    await store.close();
  }
}, 60_000);

it('lets exactly the rate limit through across workers', async () => {
  // Free answers (No Match), so only the limit decides — inside one fixed one-minute window.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 100));
  const statuses = await Promise.all(Array.from({ length: 200 }, () => ask(limited, IPS.nowhere)));
  expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(200 - LIMIT);
}, 60_000);

it("reports metrics aggregated over both workers, on the metrics port and on any worker's /metrics", async () => {
  const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const fromPort = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(value(fromPort, 'svc_credits_charged_total{pool="identification",api="identification"}')).toBe(QUOTA);
  expect(value(fromPort, 'svc_rate_limit_refusals_total{route="/v3/company/details"}')).toBe(200 - LIMIT);
  expect(value(fromPort, 'svc_http_requests_total{route="/v3/company/details",method="GET",status="402"}')).toBe(300 - QUOTA);
  // Asked twice on the service port (keep-alive off: each may land on either worker), always the whole node.
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, connection: 'close' } });
    expect(res.status).toBe(200);
    expect(value(await res.text(), 'svc_credits_charged_total{pool="identification",api="identification"}')).toBe(QUOTA);
  }
}, 30_000);
