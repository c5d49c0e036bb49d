/**
 * Home in a real Chromium against the demo-mode server, at a 1,366 × 768 laptop and a 390 × 844 phone:
 * after page views sent the way the tag sends them (navigator.sendBeacon, demo mode's test_ip standing in
 * for the visitor's network), it shows this week's figures against last week's as the API answers them,
 * the accounts to act on linking to their account pages, and the identified vs anonymous chart; axe-core
 * finds no serious or critical violation; the phone page does not scroll sideways. Screenshots are written
 * to test-results/screenshots/ for a reviewer.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, pick, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function beacons(page: Page, ip: string, path: string, n: number): Promise<void> {
  const sent = await page.evaluate(
    ({ tag, ip, path, n }) =>
      Array.from({ length: n }, () =>
        navigator.sendBeacon(`/v1/events?tag=${tag}&test_ip=${ip}`, JSON.stringify({ type: 'pageview', path, session: `e2e-home-${ip.replace(/\W/g, '-')}` })),
      ),
    { tag: TAG, ip, path, n },
  );
  expect(sent.every(Boolean)).toBe(true);
}

async function signInAsOperator(page: Page, hash: string) {
  await page.goto(`/console/${hash}`);
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText('Operator (admin token)');
}

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

test.beforeAll(async ({ browser, request }) => {
  const list = await visitors(request);
  const hot = pick(list, (v) => v.kind === 'company' && v.label.startsWith('In segment "Enterprise Software"'), 'Enterprise Software company');
  const other = pick(list, (v) => v.kind === 'company' && v.label.startsWith('Company outside the segments'), 'unsegmented company');
  const isp = pick(list, (v) => v.kind === 'isp', 'ISP');
  const page = await browser.newPage();
  await page.goto('/');
  await beacons(page, hot.ip, '/pricing', 6);
  await beacons(page, other.ip, '/careers', 2);
  await beacons(page, isp.ip, '/blog', 3);
  await expect
    .poll(async () => (await (await request.get('/admin/api/customers/demo/home', { headers: admin })).json()).current.identified_accounts)
    .toBeGreaterThanOrEqual(2);
  await page.close();
});

for (const [name, size] of [
  ['laptop', LAPTOP],
  ['phone', PHONE],
] as const) {
  test(`Home on a ${name} (${size.width}×${size.height}): the figures, an account to act on, the chart`, async ({ page, request }) => {
    const problems = watchConsoleProblems(page);
    await page.setViewportSize(size);
    const answer = await (await request.get('/admin/api/customers/demo/home', { headers: admin })).json();
    await signInAsOperator(page, '#customer=demo&page=home');
    await expect(page.getByRole('heading', { level: 1, name: 'Home' })).toBeVisible();

    // The figures as the API answers them, this week beside last week.
    const figures = page.getByTestId('home-figures');
    await expect(figures.getByTestId('figure-identified_accounts').getByTestId('figure-value')).toHaveText(String(answer.current.identified_accounts));
    await expect(figures.getByTestId('figure-new_accounts').getByTestId('figure-value')).toHaveText(String(answer.current.new_accounts));
    await expect(figures.getByTestId('figure-match_rate').getByTestId('figure-value')).toHaveText(`${(answer.current.match_rate * 100).toFixed(1)}%`);
    await expect(figures.getByTestId('figure-identified_accounts')).toContainText(String(answer.previous.identified_accounts));

    // The chart of identified vs anonymous page views (the Visitors page's).
    const chart = page.getByTestId('visits-chart');
    await expect(chart.locator('canvas')).toBeVisible();
    await expect(chart).toHaveAttribute('aria-label', /identified, \d+ anonymous over 7 days/);

    const accounts = page.getByTestId('home-account');
    await expect(accounts).toHaveCount(answer.accounts.length);
    const first = answer.accounts[0];
    const link = accounts.first().getByRole('link', { name: first.name ?? first.company_id });
    await expect(link).toHaveAttribute('href', `#customer=demo&page=accounts&account=${first.company_id}`);
    await expect(accounts.first()).toContainText(`${first.page_views} page view`);

    await page.screenshot({ path: `${SHOTS}/home-${name}-${size.width}.png`, fullPage: true });
    await expectAccessible(page, `Home at ${size.width}`);
    if (size === PHONE) {
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(scroll, 'Home scrolls sideways').toBeLessThanOrEqual(client);
    }

    // The account to act on opens its account page.
    await link.click();
    await expect(page).toHaveURL(new RegExp(`account=${first.company_id}`));
    await expect(page.getByRole('heading', { level: 1, name: 'Accounts' })).toBeVisible();
    await expect(page.getByText(first.domain ?? first.company_id).first()).toBeVisible();
    expect(problems).toEqual([]);
  });
}
