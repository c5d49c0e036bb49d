/**
 * IPv6 in a real Chromium: the demo page loaded over http://[::1]:PORT (the browser talks to the server on
 * the IPv6 loopback; the page's Origin is an IPv6 literal, which the demo tag allows as `::1`) gets a
 * `Match` for an IPv6 test address: a demo hot account's protected /48 (data/generate/networks.ts,
 * `DemoNetwork.ipv6`). The shared test server listens on IPv4 only (HOST 0.0.0.0), so this spec starts
 * its own, bound to ::1, over the data that server built, with a state file of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import { TAG, UA } from './helpers.ts';

const TSX = join(process.cwd(), 'node_modules/tsx/dist/cli.mjs');
const DATA = join(process.env.SVC_E2E_DIR ?? 'var/e2e', 'data');

let dir: string;
let proc: ChildProcess;
let base: string;
/** An IPv6 address of a demo hot account, and the company the server answers for it. */
let ip: string;
let company: string;

/** The first address of each IPv6 /48 of the demo customer's hot accounts in the sample data. */
function hotAccountAddresses6(): string[] {
  const customers = JSON.parse(readFileSync('data/sample/customers.json', 'utf8')) as {
    customers: { id: string; hot_accounts: { company_id: string }[] }[];
  };
  const hot = new Set(customers.customers.find((c) => c.id === 'demo')!.hot_accounts.map((h) => h.company_id));
  const rows = parse(readFileSync('data/sample/networks.csv', 'utf8'), { columns: true }) as { network: string; kind: string; company_id: string }[];
  return rows.filter((r) => r.kind === 'company' && hot.has(r.company_id) && r.network.endsWith('::/48')).map((r) => `${r.network.slice(0, -3)}5`);
}

test.beforeAll(async () => {
  test.setTimeout(60_000);
  dir = mkdtempSync(join(tmpdir(), 'svc-ipv6-e2e-'));
  proc = spawn(process.execPath, [TSX, 'server/cli/main.ts', 'serve', '--port', '0', '--json'], {
    env: {
      ...process.env,
      HOST: '::1',
      SVC_DEMO: '1',
      SVC_DATA: DATA,
      SVC_STATE: join(dir, 'svc.db'),
      SVC_JOBS_DIR: join(dir, 'jobs'),
      SVC_EVENTS_DIR: join(dir, 'events'),
      SVC_LOG: 'error',
      SVC_ADMIN_TOKEN: 'e2e-ipv6-admin-token-0123456789abcdef',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true, // its own process group, ended as a whole in afterAll
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  base = JSON.parse(line).url;
  // The printed address is a URL a browser can open: an IPv6 literal in brackets.
  expect(base).toMatch(/^http:\/\/\[::1\]:\d+$/);

  for (const candidate of hotAccountAddresses6()) {
    const res = await fetch(`${base}/v3/company/details?tag=${TAG}&test_ip=${candidate}`, { headers: { origin: base, 'user-agent': UA } });
    expect(res.status).toBe(200);
    const body = await res.json();
    if (body.company.company_match === 'Match') {
      ip = candidate;
      company = body.company.name;
      break;
    }
  }
  expect(ip, 'a hot account of the sample data with an IPv6 /48 that answers Match').toBeDefined();
});

test.afterAll(() => {
  if (proc?.pid) process.kill(-proc.pid, 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

test('the demo page over http://[::1] gets a Match for an IPv6 test address, as for IPv4', async ({ page }) => {
  const answers: string[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/v3/company/details')) answers.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${base}/?svc_test_ip=${ip}`);
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { svc: { data: { company: { company_match: string } } | null } }).svc.data?.company.company_match))
    .toBe('Match');
  expect(await page.evaluate(() => (window as unknown as { svc: { data: { company: { name: string; privacy: unknown } } } }).svc.data.company)).toMatchObject({
    name: company,
    privacy: null,
  });
  // One lookup, to the page's own IPv6 origin, carrying the IPv6 test address.
  expect(answers).toEqual([`200 ${base}/v3/company/details?tag=${TAG}&test_ip=${encodeURIComponent(ip)}`]);
});
