/**
 * Pages a role may not open, in a real Chromium against the demo-mode server, as a marketer (invited through
 * the admin API, signed in with the one-time link): `#page=webhooks` says the page is not available to the
 * role, with a link home, instead of silently showing another page; an unknown page name says so too; the
 * onboarding checklist asks the marketer for no step the role cannot do (no webhook / Slack alert step).
 */
import { expect, test } from '@playwright/test';
import { signInAsNew, watchConsoleProblems } from './helpers.ts';

test('a marketer opening #page=webhooks is told the role may not open it; the checklist has no webhook step', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  await signInAsNew(page, request, 'marketer', 'page-access');

  await page.goto('/console/#page=webhooks');
  const notice = page.getByTestId('page-unavailable');
  await expect(page.getByRole('heading', { level: 1, name: 'Webhooks: not available to your role' })).toBeVisible();
  await expect(notice).toContainText('The Webhooks page is not available to your role (marketer)');
  await expect(notice).toContainText('webhooks:read');
  // Nothing else stands in for it.
  await expect(page.getByTestId('visitors-page')).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Webhooks' })).toHaveCount(0);

  // The way home: the workspace's landing (the checklist while it is open, else Home).
  await notice.getByRole('link', { name: 'Go to the console home' }).click();
  expect(new URL(page.url()).hash).toBe('#customer=demo');
  await expect(page.getByTestId('page-unavailable')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1, name: /^(Get started|Home)$/ })).toBeVisible();

  // An unknown page name is said to be unknown.
  await page.goto('/console/#customer=demo&page=webhookz');
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(page.getByTestId('page-unavailable')).toContainText('The console has no page “webhookz”');

  // The checklist: only the steps a marketer can do, none linking to a page it may not open.
  await page.goto('/console/#customer=demo&page=start');
  await expect(page.getByRole('heading', { level: 1, name: 'Get started' })).toBeVisible();
  const steps = page.getByTestId('onboarding').locator('[data-testid^="onboarding-step-"]');
  await expect(steps).toHaveCount(3);
  await expect(page.getByTestId('onboarding-step-webhook')).toHaveCount(0);
  expect(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual([
    'onboarding-step-install',
    'onboarding-step-identified_visit',
    'onboarding-step-segment',
  ]);
  expect(await steps.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')).filter((h) => h?.includes('page=webhooks')))).toEqual(
    [],
  );
  expect((await steps.allTextContents()).join(' ')).not.toMatch(/webhook|slack|alert/i);
  await expect(page.getByTestId('onboarding')).toContainText('3 steps for your role');
  expect(problems).toEqual([]);
});
