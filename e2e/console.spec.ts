/**
 * The token-management console (/console/) in a real Chromium against the shared demo-mode server:
 * sign-in, the demo customer, create → secret shown once → copy → gone, the secret works on a real API
 * call, rotate (old secret 401), deactivate, delete; sign-in errors and 401s; the strict CSP holds.
 */
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, watchConsoleProblems } from './helpers.ts';

const SESSION_KEY = 'svc-console:admin-token';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** The operator's sign-in: the admin token, in the sign-in form's "Operator token" section (opened unless it is). */
async function signIn(page: Page, token = ADMIN_TOKEN) {
  const field = page.getByLabel('Admin token');
  if (!(await field.isVisible())) await page.getByText('Operator token', { exact: true }).click();
  await field.fill(token);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
}

/** Reads the one-time secret, copies it with the dialog's button, closes the dialog; checks it left the page. */
async function takeSecret(page: Page): Promise<string> {
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('you will not see it again');
  const secret = (await dialog.getByTestId('secret-value').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^[A-Za-z0-9]{40}$/);
  await dialog.getByRole('button', { name: 'Copy' }).click();
  await expect(dialog.getByRole('status')).toHaveText('Copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await dialog.getByRole('button', { name: /close/ }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // A closed <dialog> stops being a dialog at once; it leaves the DOM when its (asynchronous) close event
  // has reached the parent: wait for that before looking for the secret.
  await expect(page.getByTestId('secret-dialog')).toHaveCount(0);
  const everything = await page.evaluate(
    () => document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea, select')].map((el) => (el as HTMLInputElement).value).join('\n'),
  );
  expect(everything).not.toContain(secret);
  return secret;
}

const enrich = (request: APIRequestContext, secret: string) =>
  request.post('/v1/enrichment/company', { headers: { Authorization: `Token ${secret}` }, form: { domain: 'example.com' } });

test('create, copy once, use, rotate, deactivate and delete a token for the demo customer', async ({ page, request, context }) => {
  const problems = watchConsoleProblems(page);
  const res = await page.goto('/console/');
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toBe("default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-ancestors 'none'");
  expect(res?.headers()['cache-control']).toBe('no-store');

  await signIn(page);
  // The admin token is kept in sessionStorage only.
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  expect(await page.evaluate((k) => [sessionStorage.getItem(k), localStorage.length], SESSION_KEY)).toEqual([ADMIN_TOKEN, 0]);
  expect(await context.cookies()).toEqual([]);

  await page.getByLabel('Customer', { exact: true }).selectOption('demo');
  await expect(page.getByRole('heading', { name: 'Acme Analytics' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Packages' })).toContainText('people-enrichment');
  await expect(page.getByTestId('credits').getByRole('table').first()).toContainText('identification');

  // The form: allowed domains only for identification; a name is required.
  const form = page.getByTestId('create-token-form');
  await form.getByLabel('API group').selectOption('identification');
  await expect(form.getByLabel('Allowed domains')).toBeVisible();
  await form.getByLabel('API group').selectOption('company-firmographics');
  await expect(form.getByLabel('Allowed domains')).toHaveCount(0);
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(form.getByRole('alert')).toContainText('needs a name');

  const name = `e2e-console-${Date.now()}`;
  await form.getByLabel(/^Name/).fill(name);
  await form.getByLabel('Integrations').fill('hubspot, zapier');
  await expect(form.getByLabel(/^Rate limit/)).toHaveValue('100');
  await form.getByRole('button', { name: 'Create token' }).click();
  const secret = await takeSecret(page);

  const row = page.getByTestId('token-row').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('token-prefix')).toHaveText(`${secret.slice(0, 4)}…`);
  await expect(row).toContainText('company-firmographics');
  await expect(row).toContainText('hubspot, zapier');
  await expect(row).toContainText('100/min');
  await expect(row.getByTestId('token-status')).toHaveText('active');

  // The secret works for a real API call.
  expect((await enrich(request, secret)).status()).not.toBe(401);

  // Rotate (confirm step): a new secret once; the old one is refused.
  await row.getByRole('button', { name: `Rotate ${name}` }).click();
  await row.getByRole('button', { name: `Rotate ${name} now` }).click();
  const rotated = await takeSecret(page);
  expect(rotated).not.toBe(secret);
  expect((await enrich(request, secret)).status()).toBe(401);
  expect((await enrich(request, rotated)).status()).not.toBe(401);
  await expect(row.locator('.dates')).not.toContainText(/rotated\s*never/);

  // Deactivate: the secret stops working; activate brings it back.
  await row.getByRole('button', { name: `Deactivate ${name}` }).click();
  await expect(row.getByTestId('token-status')).toHaveText('inactive');
  expect((await enrich(request, rotated)).status()).toBe(401);
  await row.getByRole('button', { name: `Activate ${name}` }).click();
  await expect(row.getByTestId('token-status')).toHaveText('active');

  // Delete, with a confirm step that can be cancelled.
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await row.getByRole('button', { name: 'Cancel' }).click();
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await row
    .getByRole('group', { name: `Confirm delete of ${name}` })
    .getByRole('button', { name: `Delete ${name}` })
    .click();
  await expect(row).toHaveCount(0);
  expect((await enrich(request, rotated)).status()).toBe(401);

  // Sign out forgets the admin token.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Admin token')).toBeVisible();
  expect(await page.evaluate((k) => sessionStorage.getItem(k), SESSION_KEY)).toBeNull();
  expect(problems).toEqual([]);
});

test('rotation advice is a visible warning; API errors are shown next to the form', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const legacy = await request.post('/admin/api/tokens', {
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    data: { customer_id: 'demo', api_group: 'identification', name: 'default_existing_token' },
  });
  expect(legacy.status()).toBe(201);
  const legacyId = (await legacy.json()).id as string;

  await page.goto('/console/#customer=demo');
  await signIn(page);
  const row = page.locator(`[data-testid="token-row"][data-token-id="${legacyId}"]`);
  await expect(row.getByTestId('rotation-advice')).toBeVisible();
  await expect(row.getByTestId('rotation-advice')).toContainText(/Rotate.*migrate/s);

  // The server refuses an integration name over 100 characters: its message shows next to the form.
  const form = page.getByTestId('create-token-form');
  await form.getByLabel(/^Name/).fill('too-many-integrations');
  await form.getByLabel('Integrations').fill('x'.repeat(101));
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('create-error')).toContainText('Not created: integrations.0');
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await request.delete(`/admin/api/tokens/${legacyId}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(problems).toEqual([]);
});

test('a wrong admin token shows the sign-in error; a 401 later sends you back to sign-in with the message', async ({ page }) => {
  await page.goto('/console/');
  await signIn(page, 'wrong-admin-token-0123456789');
  await expect(page.getByTestId('signin-error')).toContainText('admin API: send "Authorization: Bearer <admin token>"');
  expect(await page.evaluate((k) => sessionStorage.getItem(k), SESSION_KEY)).toBeNull();

  await signIn(page);
  await expect(page.getByLabel('Customer', { exact: true })).toBeEnabled();
  // The credential changes under a signed-in tab (e.g. rotated by an operator): the next call is a 401.
  await page.evaluate((k) => sessionStorage.setItem(k, 'stale-admin-token-0123456789'), SESSION_KEY);
  await page.reload();
  await expect(page.getByTestId('signin-error')).toContainText('admin API: send "Authorization: Bearer <admin token>"');
  expect(await page.evaluate((k) => sessionStorage.getItem(k), SESSION_KEY)).toBeNull();
});
