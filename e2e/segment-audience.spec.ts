/**
 * A segment as a LinkedIn audience on the Segments page, in a real Chromium against the demo-mode server: a
 * marketer (invited through the admin API, signed in with the one-time link) downloads the "Enterprise
 * Software" segment's LinkedIn company list — the template's columns, the segment's accounts (as the preview
 * API lists them) — then copies a signed link, which downloads the very same file in a context that never
 * signed in; the link with its signature altered is refused (403). A viewer may download but is offered no
 * link. axe-core finds no serious or critical violation at 1,366 × 768 and 390 × 844.
 */
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, ORIGIN, signInAsNew, watchConsoleProblems } from './helpers.ts';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const HEADER = 'companyname,companywebsite,companyemaildomain,linkedincompanypageurl,stocksymbol,industry,city,state,companycountry,zipcode';

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

async function openSegments(page: Page) {
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Segments' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Segments' })).toBeVisible();
  return page.getByTestId('segments-table').getByRole('row', { name: /Enterprise Software/ });
}

test('a marketer downloads a segment as a LinkedIn company list and copies a signed link that works without signing in', async ({ page, request, browser }) => {
  // Two axe passes and three downloads.
  test.setTimeout(90_000);
  const problems = watchConsoleProblems(page);
  const segments = (await (await request.get('/admin/api/customers/demo/segments', { headers: admin })).json()) as {
    id: number;
    name: string;
    match: unknown;
  }[];
  const segment = segments.find((s) => s.name === 'Enterprise Software')!;
  const preview = await request.post('/admin/api/customers/demo/segments/preview', { headers: admin, data: { match: segment.match } });
  const { size, accounts } = (await preview.json()) as { size: number; accounts: { name: string; domain: string }[] };
  expect(size).toBeGreaterThan(0);

  await page.setViewportSize({ width: 1366, height: 768 });
  await signInAsNew(page, request, 'marketer', 'audience');
  const row = await openSegments(page);
  await expectAccessible(page, 'segments page');

  const downloading = page.waitForEvent('download');
  await row.getByRole('button', { name: /^LinkedIn audience of Enterprise Software/ }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(new RegExp(`^linkedin-audience-demo-segment-${segment.id}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const file = readFileSync((await download.path())!, 'utf8');
  const lines = file.trimEnd().split('\n');
  expect(lines[0]).toBe(HEADER);
  expect(lines).toHaveLength(size + 1);
  // The first accounts, in the preview's (company id) order: name, then the domain as website and email domain.
  for (const [i, a] of accounts.slice(0, 5).entries())
    expect(lines[i + 1]!.startsWith(`${a.name.includes(',') ? `"${a.name}"` : a.name},${a.domain},${a.domain},,,`)).toBe(true);
  await expect(row.getByTestId('audience-status')).toHaveText('Downloaded: upload it in Campaign Manager as a company list.');

  await row.getByRole('button', { name: /Copy a signed link/ }).click();
  await expect(row.getByTestId('audience-status')).toContainText('Signed link copied: it works without signing in until');
  const url = await page.evaluate(() => navigator.clipboard.readText());
  await expect(row.getByTestId('audience-link')).toHaveText(url);
  expect(url).toMatch(new RegExp(`^${ORIGIN}/admin/api/customers/demo/segments/${segment.id}/audience\\.csv\\?format=linkedin&expires=\\d+&signature=`));
  await expectAccessible(page, 'segments page with a link');

  // Someone who never signed in: the link downloads the same file; altered, it is refused.
  const stranger = await browser.newContext();
  const got = await stranger.request.get(url);
  expect(got.status()).toBe(200);
  expect(got.headers()['content-disposition']).toMatch(/^attachment; filename=linkedin-audience-demo-segment-/);
  expect(await got.text()).toBe(file);
  const altered = await stranger.request.get(url.replace(/signature=.{4}/, 'signature=AAAA'));
  expect(altered.status()).toBe(403);
  expect((await altered.json()).code).toBe('forbidden');
  expect((await stranger.request.get(url.replace(/&expires=.*/, ''))).status()).toBe(401);
  await stranger.close();

  await page.setViewportSize({ width: 390, height: 844 });
  await expectAccessible(page, 'segments page on a phone');
  expect(problems).toEqual([]);
});

test('a viewer downloads the audience but is offered no signed link', async ({ page, request }) => {
  test.setTimeout(60_000);
  await signInAsNew(page, request, 'viewer', 'audience');
  const row = await openSegments(page);
  await expect(row.getByRole('button', { name: /^LinkedIn audience of Enterprise Software/ })).toBeVisible();
  await expect(row.getByRole('button', { name: /Copy a signed link/ })).toHaveCount(0);
  const downloading = page.waitForEvent('download');
  await row.getByRole('button', { name: /^LinkedIn audience of Enterprise Software/ }).click();
  expect(readFileSync((await (await downloading).path())!, 'utf8').split('\n')[0]).toBe(HEADER);
});
