/**
 * Server-side parts of the tag, end to end in Chromium:
 * - server-managed settings: an admin changes a tag's settings (PATCH /admin/api/tags/:id/settings) and
 *   the same page, unedited, behaves accordingly, because /tag/v1/<tagId>.js inlines them. This test
 *   starts its own server (own state, known admin token) so it can change settings freely;
 * - first-party serving: the page's own origin reverse-proxies /svc/* to the service (a tiny Node proxy,
 *   the same thing as the nginx example in docs/tag.md) while the service's own host is blocked, as an
 *   ad blocker would.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { freePort } from '../deploy/processes.ts';
import { answerFor, countRequests, dataLayer, events, html, ORIGIN, pick, recordEvents, serve, TAG, type Visitor, visitors, waitForEvent } from './helpers.ts';

const ADMIN = 'e2e-admin-token-0123456789';
const TSX = join(process.cwd(), 'node_modules/tsx/dist/cli.mjs');

let company: Visitor;
let name: string;
test.beforeAll(async ({ request }) => {
  company = pick(await visitors(request), (v) => v.label.startsWith('In segment'), 'in-segment company');
  name = (await answerFor(request, company.ip)).company.name;
});

test.describe('server-managed settings', () => {
  let dir: string;
  let proc: ChildProcess;
  let base: string;

  test.beforeAll(async () => {
    test.setTimeout(60_000);
    dir = mkdtempSync(join(tmpdir(), 'svc-tag-e2e-'));
    execFileSync(process.execPath, [TSX, 'server/cli/main.ts', 'data', 'build', '--in', 'data/sample', '--out', join(dir, 'data')], { stdio: 'ignore' });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = spawn(process.execPath, [TSX, 'server/cli/main.ts', 'serve'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        SVC_DEMO: '1',
        SVC_DATA: join(dir, 'data'),
        SVC_STATE: join(dir, 'svc.db'),
        SVC_JOBS_DIR: join(dir, 'jobs'),
        SVC_ADMIN_TOKEN: ADMIN,
        SVC_LOG: 'error',
      },
      stdio: 'ignore',
      detached: true, // its own process group, ended as a whole in afterAll
    });
    await expect.poll(async () => (await fetch(`${base}/tag/v1/svc.js`).catch(() => null))?.status, { timeout: 30_000 }).toBe(200);
  });
  test.afterAll(() => {
    if (proc?.pid) process.kill(-proc.pid, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  const setSettings = async (settings: object) => {
    const res = await fetch(`${base}/admin/api/tags/${TAG}/settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(settings),
    });
    expect(res.status).toBe(200);
  };
  const open = async (page: Page) => {
    await recordEvents(page);
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
    // The same page every time: the snippet as pasted, nothing else.
    const url = await serve(page, '/t/settings', { body: '<h1 id="title" data-svc-text="Hello {company.name|there}">Hello there</h1>' }, base);
    await page.goto(`${url}?svc_test_ip=${company.ip}`);
  };

  test('a settings change on the server changes what the unedited page does', async ({ browser }) => {
    await setSettings({ consent_default: 'pending', honor_gpc: false, fields: ['name'], anti_flicker_timeout_ms: 300, cache_ttl_ms: 0 });
    const bundle = await fetch(`${base}/tag/v1/${TAG}.js`);
    const etag = bundle.headers.get('etag');
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=300');
    expect((await fetch(`${base}/tag/v1/${TAG}.js`, { headers: { 'if-none-match': etag! } })).status).toBe(304);

    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const requests = countRequests(page);
    await open(page);
    // consent_default pending: no lookup yet; anti_flicker_timeout_ms 300: revealed early anyway.
    await page.waitForFunction(() => !document.documentElement.classList.contains('svc-af'), null, { timeout: 3000 });
    expect(await page.evaluate(() => performance.getEntriesByName('svc:hidden')[0].duration)).toBeLessThan(900); // 300 ms, not 1000
    expect(requests()).toEqual([]);
    await page.evaluate(() => (window as any).svc.push(['consent', 'granted']));
    await waitForEvent(page, 'svc:ready'); // honor_gpc false: asked although GPC is on
    await expect(page.locator('#title')).toHaveText(`Hello ${name}`);
    expect(await dataLayer(page)).toEqual([{ event: 'svc_company_details_loaded', svc_company_match: 'Match', svc_company_name: name }]); // fields
    await page.reload();
    await page.evaluate(() => (window as any).svc.push(['consent', 'granted']));
    await waitForEvent(page, 'svc:ready');
    expect(requests()).toHaveLength(2); // cache_ttl_ms 0
    await ctx.close();

    // Back to the defaults: the same page now honours GPC (no lookup) — no page edit.
    await setSettings({});
    expect((await fetch(`${base}/tag/v1/${TAG}.js`, { headers: { 'if-none-match': etag! } })).status).toBe(200);
    const ctx2 = await browser.newContext();
    const page2 = await ctx2.newPage();
    const requests2 = countRequests(page2);
    await open(page2);
    await waitForEvent(page2, 'svc:error');
    expect((await events(page2, 'svc:error'))[0].detail).toEqual({ status: 0, message: 'gpc' });
    expect(requests2()).toEqual([]);
    await ctx2.close();
  });

  test('an unknown tag id is a 404 script that does nothing; the page stays intact', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route(`${base}/t/unknown`, (r) =>
      r.fulfill({
        contentType: 'text/html',
        body: html({ body: '<h1 id="title" data-svc-text="company.name">Default</h1>' }).replace(`/tag/v1/${TAG}.js`, '/tag/v1/no-such-tag.js'),
      }),
    );
    await page.goto(`${base}/t/unknown`);
    // The snippet's own timer (1000 ms) reveals the page.
    await page.waitForFunction(() => !document.documentElement.classList.contains('svc-af'), null, { timeout: 3000 });
    expect(await page.evaluate(() => getComputedStyle(document.getElementById('title')!).visibility)).toBe('visible');
    expect(await page.evaluate(() => performance.now())).toBeGreaterThan(1000);
    await expect(page.locator('#title')).toHaveText('Default');
    expect(errors).toEqual([]);
  });
});

test.describe('first-party serving through a reverse proxy', () => {
  let proxy: http.Server;
  let site: string;

  test.beforeAll(async () => {
    const upstream = new URL(ORIGIN);
    proxy = http.createServer((req, res) => {
      if (req.url!.startsWith('/svc/')) {
        // location /svc/ { proxy_pass http://svc-upstream/; } — path prefix stripped, headers kept.
        const up = http.request(
          {
            host: upstream.hostname,
            port: upstream.port,
            path: req.url!.slice(4),
            method: req.method,
            headers: { ...req.headers, host: upstream.host, 'x-forwarded-host': req.headers.host },
          },
          (r) => {
            res.writeHead(r.statusCode!, r.headers);
            r.pipe(res);
          },
        );
        up.on('error', () => res.writeHead(502).end());
        req.pipe(up);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        html({
          body: '<h1 id="title" data-svc-text="Hello {company.name|there}">Hello there</h1>',
          snippet: { endpoint: `http://${req.headers.host}/svc` },
        }),
      );
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  test.afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  test("the tag and the API work under the customer's own domain while the service's host is blocked", async ({ page }) => {
    const blocked: string[] = [];
    await page.route(`${ORIGIN}/**`, (r) => {
      blocked.push(r.request().url());
      return r.abort('blockedbyclient');
    });
    await recordEvents(page);
    const requests = countRequests(page);
    await page.goto(`${site}/pricing?svc_test_ip=${company.ip}`);
    await waitForEvent(page, 'svc:ready');
    await expect(page.locator('#title')).toHaveText(`Hello ${name}`);
    expect(requests()).toEqual([`${site}/svc/v3/company/details?tag=${TAG}&test_ip=${company.ip}`]);
    expect(
      await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((e) => e.name)
          .filter((n) => n.includes('/tag/v1/')),
      ),
    ).toEqual([`${site}/svc/tag/v1/${TAG}.js`]);
    expect(blocked).toEqual([]);
  });
});
