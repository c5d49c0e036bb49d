/**
 * The API reference at /docs in a real Chromium: Scalar renders our /openapi.json from this server only
 * (no CDN, no font service, no CSP violation), and its "try it" client sends a real request here.
 */
import { expect, test } from '@playwright/test';
import { watchConsoleProblems } from './helpers.ts';

// Scalar's bundle is 3.5 MB of JavaScript: on a busy machine parsing it alone takes seconds.
test.setTimeout(120_000);
const RENDERED = { timeout: 60_000 };

test('renders the reference from this server only, under its CSP', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const foreign: string[] = [];
  const problems = watchConsoleProblems(page);
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol.startsWith('http') && u.origin !== origin) foreign.push(r.url());
  });
  await page.goto('/docs');
  await expect(page.getByText('svc API').first()).toBeVisible(RENDERED);
  await expect(page.getByText('Identify the company behind an IP address').first()).toBeVisible();
  await expect(page.getByText('Enrichment and scoring').first()).toBeVisible();
  expect(foreign).toEqual([]);
  expect(problems).toEqual([]);
});

test('"try it" sends a real request to this server', async ({ page }) => {
  await page.goto('/docs#tag/operating/GET/healthz');
  const answered = page.waitForResponse((r) => r.url().endsWith('/healthz'), RENDERED);
  // By its operation: Scalar may have rendered other operations' buttons before this one.
  await page.getByRole('button', { name: /Test Request \(get \/healthz\)/i }).click(RENDERED);
  await page.getByRole('button', { name: /^Send/i }).first().click();
  const res = await answered;
  expect(res.status()).toBe(200);
});
