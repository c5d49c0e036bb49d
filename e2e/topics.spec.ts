/**
 * Third-party intent topics in a real Chromium against the demo-mode server (the sample dataset's
 * topics.csv). A marketer (invited and signed in, not an admin) opens Settings, finds topics in the picker
 * and follows two of them; the account page of an account surging on one shows it in its Topics tab —
 * this week's score, the Surging flag and the trend by week (a sparkline named by its scores) — while a
 * topic it was not chosen is not shown. A viewer sees the choice read only. axe-core finds no serious or
 * critical violation at 1,366 × 768 and 390 × 844, and the phone pages do not scroll sideways.
 */
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, signInAsNew, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const RUN = Date.now().toString(36);

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

async function expectNoPageScroll(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, `${what} scrolls sideways`).toBeLessThanOrEqual(client);
}

const setTopics = async (request: APIRequestContext, topics: string[]) => {
  const res = await request.put('/admin/api/customers/demo/topics', { headers: admin, data: { topics } });
  expect(res.status(), await res.text()).toBe(200);
};

/** An account of the sample surging on the topic this week (found with the topic rule segments use). */
async function surgingAccount(request: APIRequestContext, topic: string): Promise<{ companyId: string }> {
  const preview = await request.post('/admin/api/customers/demo/segments/preview', { headers: admin, data: { match: { topic: { name: topic } } } });
  expect(preview.status()).toBe(200);
  const { accounts } = await preview.json();
  expect(accounts.length, `an account of the sample surges on ${topic}`).toBeGreaterThan(0);
  return { companyId: accounts[0].companyId };
}

test('a marketer follows topics in Settings and sees an account surging on them, with the trend', async ({ page, request }) => {
  test.setTimeout(90_000);
  const problems = watchConsoleProblems(page);
  const before = (await (await request.get('/admin/api/customers/demo/topics', { headers: admin })).json()).topics as string[];
  await setTopics(request, []);
  try {
    const { companyId } = await surgingAccount(request, 'customer data platform');

    await page.setViewportSize(LAPTOP);
    await signInAsNew(page, request, 'marketer', `topics-${RUN}`);
    await page.goto('/console/#customer=demo&page=settings');
    const settings = page.getByTestId('topics-settings');
    await expect(settings.getByRole('heading', { name: 'Intent topics' })).toBeVisible();
    await expect(settings.getByTestId('topics-none')).toHaveText('No topics followed yet.');
    await expect(settings.getByRole('button', { name: 'Save topics' })).toBeDisabled();

    // Type to narrow the picker, tick two topics, save.
    await settings.getByLabel('Find a topic').fill('customer data');
    await settings.getByRole('checkbox', { name: /^customer data platform/ }).check();
    await settings.getByLabel('Find a topic').fill('identity');
    await settings.getByRole('checkbox', { name: /^identity resolution/ }).check();
    await expect(settings.getByTestId('topics-chosen').getByRole('listitem')).toHaveText(['customer data platform×', 'identity resolution×']);
    await expectAccessible(page, 'Settings at 1,366 px');
    await settings.getByRole('button', { name: 'Save topics' }).click();
    await expect(settings.getByTestId('topics-status')).toHaveText('Saved: 2 topics followed.');
    expect((await (await request.get('/admin/api/customers/demo/topics', { headers: admin })).json()).topics).toEqual([
      'customer data platform',
      'identity resolution',
    ]);
    await page.screenshot({ path: `${SHOTS}/topics-settings-${LAPTOP.width}.png`, fullPage: true });

    // The account page: the Topics tab shows the surging topic with this week's score and its trend.
    await page.goto(`/console/#customer=demo&page=accounts&account=${companyId}`);
    await page.reload();
    await page.getByRole('tablist', { name: 'About this account' }).getByRole('tab', { name: 'Topics' }).click();
    const surge = page.getByTestId('account-surge');
    await expect(surge.getByRole('heading', { name: 'Surging topics' })).toBeVisible();
    const row = surge.getByTestId('account-surge-row').filter({ hasText: 'customer data platform' });
    await expect(row).toHaveCount(1);
    await expect(row.getByText('Surging', { exact: true })).toBeVisible();
    const expected = (await (await request.get(`/admin/api/customers/demo/accounts/${companyId}`, { headers: admin })).json()).topics.topics.find(
      (t: { name: string }) => t.name === 'customer data platform',
    ) as { score: number; trend: { week: string; score: number | null }[] };
    expect(expected.score).toBeGreaterThanOrEqual(60);
    await expect(row.getByRole('cell').nth(0)).toHaveText(String(expected.score));
    const trend = row.getByRole('img', { name: /^Scores by week: / });
    await expect(trend).toBeVisible();
    const scored = expected.trend.filter((w) => w.score !== null);
    expect(scored.length).toBeGreaterThan(1);
    await expect(trend).toHaveAccessibleName(new RegExp(`${scored[scored.length - 1]!.score}$`));
    // A topic it researches that the workspace does not follow is not shown.
    await expect(surge.getByTestId('account-surge-row').filter({ hasText: 'marketing automation' })).toHaveCount(0);
    await expectAccessible(page, 'the account’s Topics tab at 1,366 px');
    await page.screenshot({ path: `${SHOTS}/topics-account-${LAPTOP.width}.png`, fullPage: true });

    // On a phone: the same, accessible, nothing scrolls sideways.
    await page.setViewportSize(PHONE);
    await expect(row).toBeVisible();
    await expectAccessible(page, 'the account’s Topics tab at 390 px');
    await expectNoPageScroll(page, 'the account’s Topics tab at 390 px');
    await page.screenshot({ path: `${SHOTS}/topics-account-${PHONE.width}.png`, fullPage: true });
    await page.goto('/console/#customer=demo&page=settings');
    await page.reload();
    await expect(page.getByTestId('topics-chosen').getByRole('listitem')).toHaveCount(2);
    await expectAccessible(page, 'Settings at 390 px');
    await expectNoPageScroll(page, 'Settings at 390 px');
    await page.screenshot({ path: `${SHOTS}/topics-settings-${PHONE.width}.png`, fullPage: true });
    expect(problems).toEqual([]);
  } finally {
    await setTopics(request, before);
  }
});

test('a viewer sees the followed topics read only', async ({ page, request }) => {
  // Its own topics: what other specs left on the shared server (or the seed) does not decide it.
  const before = (await (await request.get('/admin/api/customers/demo/topics', { headers: admin })).json()).topics as string[];
  await setTopics(request, ['customer data platform']);
  try {
    await page.setViewportSize(LAPTOP);
    await signInAsNew(page, request, 'viewer', `topics-${RUN}`);
    await page.goto('/console/#customer=demo&page=settings');
    const settings = page.getByTestId('topics-settings');
    await expect(settings.getByTestId('topics-chosen')).toBeVisible();
    await expect(settings.getByRole('button', { name: 'Save topics' })).toHaveCount(0);
    await expect(settings.getByRole('button', { name: /^Stop following/ })).toHaveCount(0);
    await expectAccessible(page, 'Settings (viewer) at 1,366 px');
  } finally {
    await setTopics(request, before);
  }
});
