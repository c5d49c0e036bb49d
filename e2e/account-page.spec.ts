/**
 * The Accounts page in a real Chromium against the demo-mode server, as a marketer would use it: page
 * views are sent the way the tag sends them (navigator.sendBeacon from the demo site, demo mode's test_ip
 * standing in for the company network), then the account is opened from a row of the Visitors table and
 * shows its journey (the session's pages in the order viewed) and its top pages, each view under its page
 * (UTM parameters collapsed), its scores' factors, and downloads as CSV; the search box finds it by name too.
 */
import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, pick, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
// One session and one set of paths per run: a rerun against the same server state has a journey of its own.
const RUN = Date.now().toString(36);
const SESSION = `e2e-account-journey-${RUN}`;
const BASE = `/e2e-acct-${RUN}`;
const JOURNEY = [`${BASE}/home`, `${BASE}/pricing?utm_source=ad&utm_medium=cpc`, `${BASE}/features`, `${BASE}/pricing?utm_source=mail`];
/** The journey as the account page shows it: each view under its page (server/visits/page-path.ts). */
const PAGES = JOURNEY.map((p) => p.split('?')[0]);

/**
 * One page view after the other, from the demo page, with the beacon's body and type (text/plain). Each is
 * awaited: sendBeacon is fire-and-forget, and under load two beacons can reach the server out of order —
 * the journey's order is the server's arrival order, which is what this test reads.
 */
async function journey(page: Page, ip: string): Promise<void> {
  for (const path of JOURNEY) {
    const status = await page.evaluate(
      async ({ tag, ip, path, session }) =>
        (
          await fetch(`/v1/events?tag=${tag}&test_ip=${ip}`, {
            method: 'POST',
            keepalive: true,
            headers: { 'content-type': 'text/plain;charset=UTF-8' },
            body: JSON.stringify({ type: 'pageview', path, session }),
          })
        ).status,
      { tag: TAG, ip, path, session: SESSION },
    );
    expect(status).toBe(204);
    // Distinct times: the journey is ordered by when each page was viewed.
    await page.waitForTimeout(30);
  }
}

test('open an account from the Visitors table and see its journey', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const list = await visitors(request);
  const company = pick(list, (v) => v.kind === 'company' && !!v.company, 'company');

  await page.goto('/');
  await journey(page, company.ip);
  const today = new Date().toISOString().slice(0, 10);
  let companyId = '';
  await expect
    .poll(async () => {
      const report = await (await request.get(`/admin/api/customers/demo/visits?from=${today}&to=${today}`, { headers: admin })).json();
      const row = report.accounts.find((a: { name: string }) => a.name === company.company);
      companyId = row?.company_id ?? '';
      if (!row) return 0;
      const account = await (await request.get(`/admin/api/customers/demo/accounts/${companyId}`, { headers: admin })).json();
      return account.sessions.find((s: { session_id: string }) => s.session_id === SESSION)?.pages.length ?? 0;
    })
    .toBe(JOURNEY.length);

  await page.goto('/console/#customer=demo&page=visitors');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Visitors' })).toBeVisible();

  // The account's row links to its page.
  const row = page.getByTestId('visits-table').getByRole('row').filter({ hasText: company.company! });
  await row.getByRole('link', { name: company.company! }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Accounts' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Accounts' })).toHaveAttribute('aria-current', 'page');
  expect(new URL(page.url()).hash).toBe(`#customer=demo&page=accounts&account=${companyId}`);
  await expect(page.getByRole('heading', { level: 2, name: company.company! })).toBeVisible();

  // The journey: this session's pages in the order they were viewed, UTM parameters collapsed into the page.
  const session = page.getByTestId('account-session').filter({ hasText: `${BASE}/home` });
  await expect(session.locator('ol > li code')).toHaveText(PAGES);
  await expect(session).toContainText(`${JOURNEY.length} pages`);

  // Top pages: <base>/pricing?utm_… twice counts as one page.
  const top = page.getByTestId('account-top-pages');
  await expect(top.getByText(`${BASE}/pricing`, { exact: true })).toBeVisible();
  await expect(top).not.toContainText('utm_source');
  await expect(top.locator('li').filter({ hasText: `${BASE}/pricing` })).toContainText('(2)');

  await expect(page.getByTestId('account-firmographics')).toContainText('Industry');
  await expect(page.getByTestId('account-totals')).toContainText('page views');

  // CSV: the days, then the session's pages in order.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(new RegExp(`^account-demo-${companyId}-\\d{4}-\\d\\d-\\d\\d-${today}\\.csv$`));
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\n')[0]).toBe('record,day,page_views,session_id,at,path');
  const pages = csv
    .split('\n')
    .filter((l) => l.includes(SESSION))
    .map((l) => l.split(',').at(-1));
  expect(pages).toEqual(PAGES);

  // The search box finds it by the start of its name.
  await page.getByLabel('Company name, domain or id').fill(company.company!.slice(0, 6).toLowerCase());
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId('account-search-results').getByRole('link', { name: company.company! })).toBeVisible();
  expect(problems).toEqual([]);
});
