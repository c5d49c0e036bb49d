/**
 * The console's Web tags page in a real Chromium against the demo-mode server: the demo tag with its
 * snippet (copied with the button) and where it was seen; creating a tag (domains refused as the API
 * refuses them, features and limits), then installing its snippet on a page and seeing it "installed".
 */
import { expect, test } from '@playwright/test';
import { ADMIN_TOKEN, ORIGIN, TAG, UA, watchConsoleProblems } from './helpers.ts';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('lists tags with snippet and installed origins; creates a tag; a page view marks it installed', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  // The demo tag is used from this origin (a lookup, as the tag makes).
  expect((await request.get(`/v3/company/details?tag=${TAG}`, { headers: { origin: ORIGIN, 'user-agent': UA } })).status()).toBe(200);

  await page.goto('/console/#customer=demo&page=tags');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Web tags' })).toBeVisible();

  const demo = page.getByTestId(`tag-${TAG}`);
  await expect(demo).toContainText('localhost, 127.0.0.1');
  await expect(demo.getByText('installed')).toBeVisible();
  await expect(demo.getByTestId('tag-seen-on')).toContainText(ORIGIN);
  const snippet = (await demo.getByTestId('tag-snippet').textContent()) ?? '';
  expect(snippet).toContain(`${ORIGIN}/tag/v1/${TAG}.js`);
  await demo.getByRole('button', { name: 'Copy snippet' }).click();
  await expect(demo.getByRole('status')).toHaveText('Copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);

  // The form refuses what the API refuses, at the field.
  const form = page.getByTestId('create-tag-form');
  await form.getByRole('button', { name: 'Create tag' }).click();
  await expect(form.getByRole('alert')).toContainText('at least one allowed domain');
  await expect(form.getByLabel(/^Allowed domains/)).toBeFocused();
  await expect(form.getByLabel(/^Tag rate limit/)).toHaveValue('6000');
  await expect(form.getByLabel(/^Per-visitor rate limit/)).toHaveValue('300');
  await form.getByLabel(/^Allowed domains/).fill('shop.e2e.test');
  await form.getByLabel(/^Per-visitor rate limit/).fill('0');
  await form.getByRole('button', { name: 'Create tag' }).click();
  await expect(form.getByRole('alert')).toContainText('Per-visitor rate limit');

  await form.getByLabel(/^Per-visitor rate limit/).fill('120');
  await form.getByLabel('Scores').check();
  await form.getByLabel(/Form fill/).check();
  await form.getByRole('button', { name: 'Create tag' }).click();
  const created = page.getByRole('status').filter({ hasText: /Tag tag_\S+ created/ });
  await expect(created).toBeVisible();
  const tagId = /Tag (tag_\S+) created/.exec((await created.textContent()) ?? '')![1];
  const card = page.getByTestId(`tag-${tagId}`);
  await expect(card).toContainText('shop.e2e.test');
  await expect(card).toContainText('scores');
  await expect(card).toContainText('Form fill');
  await expect(card.getByText('not seen yet')).toBeVisible();
  await expect(card.getByTestId('tag-snippet')).toContainText(`/tag/v1/${tagId}.js`);

  // A page on an allowed domain sends a page view: after a refresh the tag shows as installed there.
  const shop = await page.context().newPage();
  // Served by the real server (*.test resolves to this machine): a fulfilled page would be a "public"
  // page, and Chrome's Private Network Access blocks its requests to localhost. A path without a page
  // (404 JSON): the demo site's own CSP would refuse a beacon to another origin.
  await shop.goto(`http://shop.e2e.test:${new URL(ORIGIN).port}/e2e-no-such-page`);
  expect(
    await shop.evaluate(
      ({ origin, tagId }) =>
        navigator.sendBeacon(`${origin}/v1/events?tag=${tagId}`, JSON.stringify({ type: 'pageview', path: '/pricing', session: 'e2e-web-tags-1' })),
      { origin: ORIGIN, tagId },
    ),
  ).toBe(true);
  await expect
    .poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return card.getByTestId('tag-seen-on').textContent();
    })
    .toContain(`http://shop.e2e.test:${new URL(ORIGIN).port}`);
  await expect(card.getByText('installed', { exact: true })).toBeVisible();
  await shop.close();
  expect(problems).toEqual([]);
});
