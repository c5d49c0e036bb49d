/**
 * The console's Webhooks section in a real Chromium against the demo-mode server: add an endpoint (the
 * signing secret is shown once), see it listed without its secret, open its (empty) delivery log, and
 * remove it; the form points at what is wrong before sending.
 */
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN } from './helpers.ts';

async function openDemoCustomer(page: Page) {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/console/');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByLabel('Customer', { exact: true }).selectOption('demo');
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Webhooks' }).click();
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  return problems;
}

test('add a webhook, see its secret once, read its delivery log and remove it', async ({ page }) => {
  const problems = await openDemoCustomer(page);
  const section = page.getByTestId('webhooks');
  const form = section.getByTestId('create-webhook-form');
  const url = `https://hooks.example.com/svc/${Date.now()}`;

  await form.getByLabel(/^Receiver URL/).fill('hooks.example.com');
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await expect(form.getByRole('alert')).toContainText('full http(s) URL');

  await form.getByLabel(/^Receiver URL/).fill(url);
  await form.getByLabel('Hot pages').fill('/pricing*, pricing');
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await expect(form.getByRole('alert')).toContainText('“pricing” is not a path pattern');
  await form.getByLabel('Hot pages').fill('/pricing*, /demo');
  await form.getByRole('button', { name: 'Add webhook' }).click();

  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  const secret = (await dialog.getByTestId('secret-value').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
  await dialog.getByRole('button', { name: /close/ }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByTestId('secret-dialog')).toHaveCount(0); // unmounted once its close event reached the page

  const endpoint = section.getByTestId('webhook').filter({ hasText: url });
  await expect(endpoint).toContainText('account.visited, account.hot');
  await expect(endpoint).toContainText('hot pages /pricing*, /demo');
  await expect(endpoint).toContainText(`secret ${secret.slice(0, 10)}…`);
  expect(await page.content()).not.toContain(secret);

  await endpoint.getByRole('button', { name: 'Deliveries' }).click();
  await expect(endpoint).toContainText('Nothing delivered yet.');

  await endpoint.getByRole('button', { name: 'Remove' }).click();
  await endpoint.getByRole('button', { name: 'Confirm remove' }).click();
  await expect(section.getByTestId('webhook').filter({ hasText: url })).toHaveCount(0);
  expect(problems).toEqual([]);
});
