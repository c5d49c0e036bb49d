/**
 * Anti-flicker and strict CSP, in Chromium against the real server and the minified bundle: only the
 * marked elements are pre-hidden, revealed on data, on error, at the (configurable) timeout, or by the
 * snippet's own timer when the bundle never runs; the hidden time is measured and reported.
 */
import { expect, test } from '@playwright/test';
import { answerFor, countRequests, delayApi, events, pick, recordEvents, serve, type Visitor, visibility, visitors, waitForEvent } from './helpers.ts';

let company: Visitor;
let name: string;
test.beforeAll(async ({ request }) => {
  company = pick(await visitors(request), (v) => v.kind === 'company', 'company');
  name = (await answerFor(request, company.ip)).company.name;
});

const BODY = `
  <h1 id="title" data-svc-text="Hello {company.name|there}">Hello there</h1>
  <p id="promo" data-svc-hide="match">Start a free trial</p>
  <p id="plain">Plain content is never hidden.</p>
  <nav id="nav"><a href="#">Pricing</a></nav>`;

test('only the marked elements are hidden until the answer arrives, then revealed; the hidden time is measured', async ({ page }) => {
  await recordEvents(page);
  await delayApi(page, 700);
  const url = await serve(page, '/t/flicker', { body: BODY });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  // While the answer is on its way: personalised elements hidden (layout kept), the rest of the page shown.
  expect(await page.evaluate(() => document.documentElement.classList.contains('svc-af'))).toBe(true);
  expect(await visibility(page, 'title')).toBe('hidden');
  expect(await visibility(page, 'promo')).toBe('hidden');
  expect(await visibility(page, 'plain')).toBe('visible');
  expect(await visibility(page, 'nav')).toBe('visible');
  expect(await page.evaluate(() => document.body.getBoundingClientRect().height)).toBeGreaterThan(0);

  await waitForEvent(page, 'svc:ready');
  // Revealed already personalised: the default text was never shown.
  await expect(page.locator('#title')).toHaveText(`Hello ${name}`);
  expect(await visibility(page, 'title')).toBe('visible');
  await expect(page.locator('#promo')).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.classList.contains('svc-af'))).toBe(false);
  const [ready] = await events(page, 'svc:ready');
  expect(ready.detail.hidden).toBeGreaterThanOrEqual(600);
  expect(ready.detail.hidden).toBeLessThanOrEqual(1100); // the answer, or at worst the 1000 ms timeout
  const measure = await page.evaluate(() => performance.getEntriesByName('svc:hidden').map((e) => Math.round(e.duration)));
  expect(measure).toHaveLength(1);
  expect(Math.abs(measure[0] - ready.detail.hidden)).toBeLessThanOrEqual(1);
});

test('reveals at the timeout (default 1000 ms) when the answer is late, then personalises', async ({ page }) => {
  await recordEvents(page);
  await delayApi(page, 2200);
  const url = await serve(page, '/t/late', { body: BODY });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  // Revealed by the timeout, with the default text, well before the answer (2.2 s).
  await page.waitForFunction(() => !document.documentElement.classList.contains('svc-af'), null, { timeout: 3000 });
  const revealedAt = await page.evaluate(() => performance.now());
  expect(revealedAt).toBeLessThan(2000);
  expect(await visibility(page, 'title')).toBe('visible');
  await expect(page.locator('#title')).toHaveText('Hello there');
  await waitForEvent(page, 'svc:ready');
  await expect(page.locator('#title')).toHaveText(`Hello ${name}`);
  // Hidden from the snippet's mark until 1000 ms after navigation start.
  const [ready] = await events(page, 'svc:ready');
  const mark = await page.evaluate(() => performance.getEntriesByName('svc:hide')[0].startTime);
  expect(mark + ready.detail.hidden).toBeGreaterThanOrEqual(950);
  expect(mark + ready.detail.hidden).toBeLessThanOrEqual(1500);
});

test('the timeout is configurable', async ({ page }) => {
  await recordEvents(page);
  await delayApi(page, 1500);
  const url = await serve(page, '/t/short', { body: BODY, head: `<script>svc.push(["init",{"timeout":300}])</script>` });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  await page.waitForFunction(() => !document.documentElement.classList.contains('svc-af'), null, { timeout: 3000 });
  // hidden from the snippet's mark until the 300 ms timeout, not the 1000 ms default
  expect(await page.evaluate(() => performance.getEntriesByName('svc:hidden')[0].duration)).toBeLessThan(900);
  expect(await visibility(page, 'title')).toBe('visible');
  await waitForEvent(page, 'svc:ready');
  const [ready] = await events(page, 'svc:ready');
  expect(ready.detail.hidden).toBeLessThan(700);
});

test('reveals the default content at once on an error', async ({ page }) => {
  await recordEvents(page);
  await page.route('**/v3/company/details*', (r) => r.fulfill({ status: 500, contentType: 'application/json', body: '{"status":"error","message":"boom"}' }));
  // A long timeout, so a reveal now can only be the error's.
  const url = await serve(page, '/t/error', { body: BODY, head: '<script>svc.push(["init",{"timeout":8000}])</script>' });
  await page.goto(url);
  await waitForEvent(page, 'svc:error');
  expect(await visibility(page, 'title')).toBe('visible');
  await expect(page.locator('#title')).toHaveText('Hello there');
  await expect(page.locator('#promo')).toBeVisible();
  const [error] = await events(page, 'svc:error');
  expect(error.detail).toEqual({ status: 500, message: 'boom' });
  expect(error.at).toBeLessThan(4000);
});

test('a blocked bundle never leaves content hidden: the snippet reveals it on its own', async ({ page }) => {
  await page.route('**/tag/v1/*.js', (r) => r.abort('blockedbyclient'));
  const requests = countRequests(page);
  const url = await serve(page, '/t/blocked', { body: BODY });
  await page.goto(url);
  expect(await visibility(page, 'title')).toBe('hidden');
  await page.waitForFunction(() => !document.documentElement.classList.contains('svc-af'), null, { timeout: 3000 });
  expect(await visibility(page, 'title')).toBe('visible');
  expect(await page.evaluate(() => performance.now())).toBeGreaterThan(1000); // by the snippet's timer
  await expect(page.locator('#title')).toHaveText('Hello there');
  expect(await page.evaluate(() => Array.isArray((window as any).svc))).toBe(true);
  expect(requests()).toEqual([]);
});

test('works under a strict Content-Security-Policy with a nonce: no eval, styles by nonce, no violation', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => ((window as any).__csp ??= []).push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await recordEvents(page);
  await delayApi(page, 1500);
  const csp = "default-src 'none'; script-src 'nonce-r4nd0m'; style-src 'nonce-r4nd0m'; connect-src 'self'; img-src 'self' data:; base-uri 'none'";
  const url = await serve(page, '/t/csp', {
    body: BODY,
    snippet: { nonce: 'r4nd0m' },
    head: `<script nonce="r4nd0m">svc.push(["init",{"timeout":8000}],["onReady",function(){document.body.setAttribute("data-ready","1")}])</script>`,
    headers: { 'Content-Security-Policy': csp },
  });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  // The anti-flicker style got the nonce (the browser applied it: it hides), and is lifted afterwards.
  expect(
    await page.evaluate(() => [...document.querySelectorAll('style')].map((s) => [s.nonce, (s.sheet?.cssRules[0] as CSSStyleRule | undefined)?.selectorText])),
  ).toEqual([['r4nd0m', '.svc-af [data-svc-show], .svc-af [data-svc-hide], .svc-af [data-svc-text], .svc-af [data-svc-attr]']]);
  expect(await visibility(page, 'title')).toBe('hidden');
  await waitForEvent(page, 'svc:ready');
  await expect(page.locator('#title')).toHaveText(`Hello ${name}`);
  expect(await visibility(page, 'title')).toBe('visible');
  await expect(page.locator('body')).toHaveAttribute('data-ready', '1');
  expect(await page.evaluate(() => (window as any).__csp ?? [])).toEqual([]);
  expect(violations).toEqual([]);
});

test('without the nonce the browser refuses the style: the policy is really enforced (control)', async ({ page }) => {
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => ((window as any).__csp ??= []).push(e.violatedDirective));
  });
  const url = await serve(page, '/t/csp-control', {
    body: BODY,
    headers: { 'Content-Security-Policy': "script-src 'unsafe-inline' 'self'; style-src 'nonce-other'" },
  });
  await page.goto(url);
  await expect.poll(() => page.evaluate(() => (window as any).__csp ?? [])).toContain('style-src-elem');
});
