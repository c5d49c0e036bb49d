/**
 * A new customer's first sign-in, in a real Chromium against the demo-mode server: the operator creates the
 * customer, its web tag and invites its owner (API); the owner's first sign-in lands on "Get started" with
 * nothing done; a page of their site with the tag's snippet (a demo tag: the visitor is chosen with
 * `svc_test_ip`) ticks "installed" and "first identified visit"; a segment ticks its step; the Developers
 * page shows the snippet, window.svc, the events, the dataLayer and the webhook payloads, and its copy
 * button puts the snippet on the clipboard. The operator, signing in, sees a customer picker, not an
 * empty page.
 */
import { expect, type Page, test } from '@playwright/test';
import { renderSnippet } from '../tag/snippet.ts';
import { ADMIN_TOKEN, ORIGIN, pick, serve, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const PASSWORD = 'e2e correct horse battery';
// A customer of its own per run: a rerun against the same server state starts new again.
const RUN = Date.now().toString(36);
const CUSTOMER = `e2e-onb-${RUN}`;
const TAG_ID = `${CUSTOMER}-tag`;

const steps = (page: Page) => page.getByTestId('onboarding').locator('[data-testid^="onboarding-step-"]');
const step = (page: Page, id: string) => page.getByTestId(`onboarding-step-${id}`);

test('a new customer lands on the checklist, which ticks itself; the Developers page copies the snippet', async ({ page, request, context }) => {
  const problems = watchConsoleProblems(page);
  expect(
    (
      await request.post('/admin/api/customers', {
        headers: admin,
        data: { id: CUSTOMER, name: `Onboarding ${RUN}`, packages: ['platform'], identification_credits: 1000 },
      })
    ).status(),
  ).toBe(201);
  expect(
    (
      await request.post('/admin/api/tags', {
        headers: admin,
        data: { customer_id: CUSTOMER, tag_id: TAG_ID, allowed_domains: ['localhost', '127.0.0.1'], demo: true },
      })
    ).status(),
  ).toBe(201);
  const invitation = await request.post(`/admin/api/customers/${CUSTOMER}/invitations`, {
    headers: admin,
    data: { email: `owner-${RUN}@onboarding.example`, role: 'owner' },
  });
  expect(invitation.status()).toBe(201);

  // First sign-in: "Get started", nothing done, the snippet of its tag on the first step.
  await page.goto((await invitation.json()).url);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Get started' })).toBeVisible();
  expect(page.url()).toBe(`${ORIGIN}/console/`);
  await expect(steps(page)).toHaveCount(4);
  for (const id of ['install', 'identified_visit', 'segment', 'webhook']) await expect(step(page, id)).toHaveAttribute('data-done', 'false');
  await expect(page.getByTestId('onboarding-progress')).toHaveText('0 of 4');
  await expect(page.getByTestId('onboarding-snippet')).toContainText(`/tag/v1/${TAG_ID}.js`);
  // Each step links to where it is done.
  await expect(step(page, 'segment').getByRole('link')).toHaveAttribute('href', `/console/#customer=${CUSTOMER}&page=segments`);

  // Their site: a page with the snippet, visited by a company (demo tag: svc_test_ip stands in for its network).
  const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');
  const site = await context.newPage();
  const url = await serve(site, `/e2e-onboarding-${RUN}`, { body: '<h1>Welcome</h1>', snippet: { tagId: TAG_ID } });
  await site.goto(`${url}?svc_test_ip=${company.ip}`);
  await expect.poll(() => site.evaluate(() => !!window.svc && !Array.isArray(window.svc) && window.svc.data !== null)).toBe(true);

  // The open checklist asks again by itself.
  await expect(step(page, 'install')).toHaveAttribute('data-done', 'true', { timeout: 15_000 });
  await expect(step(page, 'identified_visit')).toHaveAttribute('data-done', 'true', { timeout: 15_000 });
  await expect(page.getByTestId('onboarding-progress')).toHaveText('2 of 4');

  expect(
    (
      await request.post(`/admin/api/customers/${CUSTOMER}/segments`, { headers: admin, data: { name: 'Software', match: { industry: ['Software'] } } })
    ).status(),
  ).toBe(201);
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(step(page, 'segment')).toHaveAttribute('data-done', 'true');
  await expect(step(page, 'webhook')).toHaveAttribute('data-done', 'false');
  await expect(page.getByTestId('onboarding-progress')).toHaveText('3 of 4');

  // The Developers page: the snippet with its copy button, and the reference built from the sources.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Developers' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Developers' })).toBeVisible();
  const snippet = renderSnippet({ tagId: TAG_ID, endpoint: ORIGIN });
  const code = page.getByTestId('dev-snippet-code');
  await expect(code.locator('code')).toHaveText(snippet);
  await code.getByRole('button', { name: 'Copy the snippet' }).click();
  await expect(code.getByRole('status')).toHaveText('Copied the snippet.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);

  await expect(page.getByTestId('dev-type-Svc')).toContainText('export interface Svc {');
  await expect(page.getByTestId('dev-events')).toContainText('svc:ready');
  await expect(page.getByTestId('dev-events')).toContainText('SvcPersonalizedDetail');
  await expect(page.getByTestId('dev-type-SvcErrorDetail')).toContainText('status: number;');
  await expect(page.getByTestId('dev-datalayer-match')).toContainText('"event": "svc_company_details_loaded"');
  await expect(page.getByTestId('dev-webhook-events')).toContainText('account.visited');
  await expect(page.getByTestId('dev-webhook-events')).toContainText('account.hot');
  await expect(page.getByTestId(`dev-webhook-account.visited-v1`)).toContainText(`"customer_id": "${CUSTOMER}"`);
  await expect(page.getByRole('link', { name: '/tag/v1/svc.d.ts' })).toHaveAttribute('href', '/tag/v1/svc.d.ts');
  expect((await request.get('/tag/v1/svc.d.ts')).status()).toBe(200);

  // A reload without a page named lands on the checklist again while it is not complete.
  await page.goto('/console/');
  await expect(page.getByRole('heading', { level: 1, name: 'Get started' })).toBeVisible();
  expect(problems).toEqual([]);
});

test('a complete checklist is no longer the landing page, but stays one link away', async ({ page, request }) => {
  const id = `${CUSTOMER}-done`;
  const tag = `${id}-tag`;
  const post = async (path: string, data: unknown) => expect((await request.post(path, { headers: admin, data })).status()).toBe(201);
  await post('/admin/api/customers', { id, name: `Done ${RUN}`, packages: ['platform'], identification_credits: 1000 });
  await post('/admin/api/tags', { customer_id: id, tag_id: tag, allowed_domains: ['localhost', '127.0.0.1'], demo: true });
  await post(`/admin/api/customers/${id}/segments`, { name: 'Software', match: { industry: ['Software'] } });
  await post(`/admin/api/customers/${id}/webhooks`, { url: `https://hooks.example.com/svc/${RUN}`, events: ['account.visited'] });
  // One identified page view, sent as the tag sends it (from a page of the site: its origin is the sighting).
  const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');
  await page.goto('/');
  const status = await page.evaluate(
    async ({ tag, ip }) =>
      (
        await fetch(`/v1/events?tag=${tag}&test_ip=${ip}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify({ type: 'pageview', path: '/pricing', session: 'e2e-onboarding-done' }),
        })
      ).status,
    { tag, ip: company.ip },
  );
  expect(status).toBe(204);
  const checklist = async () => (await (await request.get(`/admin/api/customers/${id}/onboarding`, { headers: admin })).json()).complete;
  await expect.poll(checklist).toBe(true);

  const invitation = await request.post(`/admin/api/customers/${id}/invitations`, {
    headers: admin,
    data: { email: `viewer-${RUN}@onboarding.example`, role: 'viewer' },
  });
  await page.goto((await invitation.json()).url);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Home' })).toBeVisible();
  const started = page.getByRole('navigation', { name: 'Guides' }).getByRole('link', { name: 'Get started' });
  await expect(started).toHaveText('Get started');
  await started.click();
  await expect(page.getByRole('heading', { level: 1, name: 'Get started' })).toBeVisible();
  await expect(page.getByTestId('onboarding-complete')).toBeVisible();
  // A viewer's checklist holds only the steps a viewer can do (it creates no segment or webhook).
  await expect(steps(page)).toHaveCount(2);
  for (const id of ['install', 'identified_visit']) await expect(step(page, id)).toHaveAttribute('data-done', 'true');
});

test('the operator signing in sees a customer picker and the customers, never an empty page', async ({ page }) => {
  const problems = watchConsoleProblems(page);
  await page.goto('/console/');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Choose a customer' })).toBeVisible();
  const list = page.getByTestId('customer-list');
  await expect(list.getByRole('link', { name: 'Acme Analytics' })).toBeVisible();
  await list.getByRole('link', { name: 'Acme Analytics' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'API tokens' })).toBeVisible();
  await expect(page.getByLabel('Customer', { exact: true })).toHaveValue('demo');
  expect(problems).toEqual([]);
});
