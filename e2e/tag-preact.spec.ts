/**
 * The Preact hook from its built entry (dist/tag/preact.js, preact external), bundled into a tiny app the
 * way a front-end developer would, on a page with the snippet: `useSvc()` follows the tag.
 */
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { build } from 'esbuild';
import { answerFor, ORIGIN, pick, serve, type Visitor, visitors } from './helpers.ts';

let app = '';
let company: Visitor;
let name: string;
test.beforeAll(async ({ request }) => {
  company = pick(await visitors(request), (v) => v.kind === 'company', 'company');
  name = (await answerFor(request, company.ip)).company.name;
  const result = await build({
    stdin: {
      contents: `
        import { h, render } from 'preact';
        import { useSvc } from './dist/tag/preact.js';
        function Hero() {
          const { status, data, error } = useSvc();
          const name = data && data.company.company_match === 'Match' ? data.company.name : '';
          return h('p', { id: 'hero' }, status + ':' + (name || (error ? error.message : 'default')));
        }
        render(h(Hero, null), document.getElementById('root'));
        window.mountLate = () => render(h(Hero, null), document.getElementById('late'));`,
      resolveDir: join(process.cwd()),
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  app = result.outputFiles[0].text;
});

test('useSvc() renders loading, then the answer; a component mounted later gets it at once', async ({ page }) => {
  await page.route(`${ORIGIN}/t/app.js`, (r) => r.fulfill({ contentType: 'application/javascript', body: app }));
  await page.route('**/v3/company/details*', async (r) => {
    await new Promise((res) => setTimeout(res, 500));
    await r.continue();
  });
  const url = await serve(page, '/t/preact', { body: '<div id="root"></div><div id="late"></div><script src="/t/app.js"></script>' });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  await expect(page.locator('#root #hero')).toHaveText('loading:default');
  await expect(page.locator('#root #hero')).toHaveText(`ready:${name}`);
  await page.evaluate(() => (window as any).mountLate());
  await expect(page.locator('#late #hero')).toHaveText(`ready:${name}`);
});

test('useSvc() reports no lookup by choice as an error state', async ({ page }) => {
  await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
  await page.route(`${ORIGIN}/t/app.js`, (r) => r.fulfill({ contentType: 'application/javascript', body: app }));
  // The app loads before the tag here (the tag's answer comes after the first render).
  const url = await serve(page, '/t/preact-gpc', { body: '<div id="root"></div><div id="late"></div><script src="/t/app.js"></script>' });
  await page.goto(url);
  await expect(page.locator('#root #hero')).toHaveText('error:gpc');
  await page.evaluate(() => (window as any).mountLate());
  await expect(page.locator('#late #hero')).toHaveText('error:gpc');
});
