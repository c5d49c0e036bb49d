/**
 * The Notifications page in a real Chromium against the demo-mode server, with the browser in Berlin's time
 * zone: a marketer (invited through the admin API, signed in with the one-time link) finds the browser's
 * zone proposed, sets a daily digest at 07:00 America/Los_Angeles about "my accounts", and it is saved
 * (the page says so, GET /auth/me/notifications answers it, a reload shows it); Preview opens the digest's
 * HTML in a new tab; a scope naming a segment deleted meanwhile is refused with the server's 422 message,
 * nothing saved; the operator is told digests are per user. axe-core finds no serious or critical violation
 * at 1,366 × 768 and 390 × 844, and the phone page does not scroll sideways.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, signInAsNew, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const RUN = Date.now().toString(36);

test.use({ timezoneId: 'Europe/Berlin' });

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

const mine = (page: Page) => page.evaluate(async () => (await fetch('/auth/me/notifications')).json());

test('a marketer sets a daily digest at 07:00 in Los Angeles, and it is saved; Preview opens the digest', async ({ page, request, context }) => {
  const problems = watchConsoleProblems(page);
  await page.setViewportSize(LAPTOP);
  await signInAsNew(page, request, 'marketer', `notif-${RUN}`);
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Notifications' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Digest settings' });
  await expect(page.getByTestId('digest-summary')).toHaveText('You get no digest mails.');

  // Never set: the browser's zone is proposed (the server's default is UTC).
  await expect(form.getByLabel('Digest', { exact: true })).toHaveValue('off');
  await expect(form.getByLabel('Time zone')).toHaveValue('Europe/Berlin');
  await expect(form.getByText("Your browser's: Europe/Berlin.")).toBeVisible();
  await expectAccessible(page, 'Notifications at 1366');

  await form.getByLabel('Digest', { exact: true }).selectOption('daily');
  await form.getByLabel('Local hour').selectOption({ label: '07:00' });
  await form.getByLabel('Time zone').selectOption('America/Los_Angeles');
  await form.getByLabel('My accounts').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('status')).toHaveText('Saved.');
  await expect(page.getByTestId('digest-summary')).toHaveText('A daily digest every day at 07:00 (America/Los_Angeles), about the accounts you own.');
  expect(await mine(page)).toEqual({ digest: 'daily', hour: 7, time_zone: 'America/Los_Angeles', scope: { type: 'my_accounts' } });

  // A reload shows what was saved.
  await page.reload();
  await expect(form.getByLabel('Digest', { exact: true })).toHaveValue('daily');
  await expect(form.getByLabel('Local hour')).toHaveValue('7');
  await expect(form.getByLabel('Time zone')).toHaveValue('America/Los_Angeles');
  await expect(form.getByLabel('My accounts')).toBeChecked();

  // Preview: the digest's HTML in a new tab, on the session cookie.
  const preview = page.getByRole('link', { name: /^Preview/ });
  await expect(preview).toHaveAttribute('target', '_blank');
  const [tab] = await Promise.all([context.waitForEvent('page'), preview.click()]);
  await tab.waitForLoadState();
  expect(new URL(tab.url()).pathname).toBe('/auth/me/digest/preview');
  await expect(tab.getByRole('heading', { level: 1 })).toContainText('digest');
  await tab.close();

  await page.setViewportSize(PHONE);
  await expect(form.getByLabel('Time zone')).toBeVisible();
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, 'the phone page scrolls sideways').toBeLessThanOrEqual(client);
  await expectAccessible(page, 'Notifications at 390');
  await page.screenshot({ path: `${SHOTS}/notifications-390.png`, fullPage: true });
  expect(problems).toEqual([]);
});

test('a scope naming a segment deleted meanwhile is refused with the 422 message, and nothing is saved', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const created = await request.post('/admin/api/customers/demo/segments', {
    headers: admin,
    data: { name: `E2E digest scope ${RUN}`, match: { industry: ['Software'] } },
  });
  expect(created.status()).toBe(201);
  const segment = (await created.json()) as { id: number; name: string };
  await page.setViewportSize(LAPTOP);
  await signInAsNew(page, request, 'viewer', `notif-422-${RUN}`);
  await page.goto('/console/#customer=demo&page=notifications');
  const form = page.getByRole('form', { name: 'Digest settings' });
  await form.getByLabel('Digest', { exact: true }).selectOption('weekly');
  await form.getByLabel('Accounts in some segments or lists').check();
  await expect(form.getByTestId('digest-scope-choices')).toBeVisible();
  await expectAccessible(page, 'the segment choices');

  // None chosen: said before asking the server.
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('status')).toHaveText('Choose at least one segment or list, or another scope.');

  await form.getByLabel(`Segment: ${segment.name}`).check();
  expect((await request.delete(`/admin/api/customers/demo/segments/${segment.id}`, { headers: admin })).status()).toBe(204);
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('status')).toHaveText(`Not saved: scope.segments: no segment ${segment.id}`);
  expect((await mine(page)).digest).toBe('off');
  expect(problems).toEqual([]);
});

test('the operator is told digests are per user', async ({ page }) => {
  const problems = watchConsoleProblems(page);
  await page.setViewportSize(PHONE);
  await page.goto('/console/#customer=demo&page=notifications');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
  await expect(page.getByTestId('notifications-operator')).toContainText('Digests are per user');
  await expect(page.getByRole('form', { name: 'Digest settings' })).toHaveCount(0);
  await expectAccessible(page, 'Notifications for the operator');
  expect(problems).toEqual([]);
});
