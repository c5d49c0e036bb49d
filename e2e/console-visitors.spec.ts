/**
 * The console's Visitors page in a real Chromium against the demo-mode server: page views are sent the
 * way the tag sends them (navigator.sendBeacon from the demo site, a text/plain JSON body, no preflight;
 * demo mode's test_ip stands in for the visitor's company network), then the page shows them as a uPlot
 * chart and an accounts table, filters by segment and date range, and downloads the same rows as CSV.
 */
import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, pick, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** Sends page views from the demo page with the browser's own sendBeacon, as the tag does. */
async function beacons(page: Page, ip: string, path: string, n: number): Promise<void> {
  const sent = await page.evaluate(
    ({ tag, ip, path, n }) => {
      const results: boolean[] = [];
      for (let i = 0; i < n; i++) {
        const body = JSON.stringify({ type: 'pageview', path, referrer: 'news.example', session: `e2e-session-${ip.replace(/\./g, '-')}` });
        results.push(navigator.sendBeacon(`/v1/events?tag=${tag}&test_ip=${ip}`, body));
      }
      return results;
    },
    { tag: TAG, ip, path, n },
  );
  expect(sent.every(Boolean)).toBe(true);
}

test('daily chart, accounts table, segment and date filters, CSV download', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const list = await visitors(request);
  const inSegment = pick(list, (v) => v.kind === 'company' && v.label.startsWith('In segment "Enterprise Software"'), 'Enterprise Software company');
  const outside = pick(list, (v) => v.kind === 'company' && v.label.startsWith('Company outside the segments'), 'unsegmented company');
  const isp = pick(list, (v) => v.kind === 'isp', 'ISP');

  await page.goto('/');
  const preflights: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'OPTIONS' && r.url().includes('/v1/events')) preflights.push(r.url());
  });
  await beacons(page, inSegment.ip, '/e2e-pricing', 8);
  await beacons(page, outside.ip, '/e2e-careers', 3);
  await beacons(page, isp.ip, '/e2e-anonymous', 2);
  const today = new Date().toISOString().slice(0, 10);
  await expect
    .poll(async () => {
      const report = await (await request.get(`/admin/api/customers/demo/visits?from=${today}&to=${today}`, { headers: admin })).json();
      return report.accounts.filter((a: { name: string }) => a.name === inSegment.company || a.name === outside.company).length;
    })
    .toBe(2);
  expect(preflights).toEqual([]);

  await page.goto('/console/#customer=demo&page=visitors');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Visitors' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Visitors' })).toHaveAttribute('aria-current', 'page');

  // The chart: uPlot draws on a canvas inside the labelled box.
  const chart = page.getByTestId('visits-chart');
  await expect(chart.locator('canvas')).toBeVisible();
  await expect(chart).toHaveAttribute('aria-label', /identified, \d+ anonymous over 30 days/);
  await expect(page.getByTestId('visits-totals')).toContainText('anonymous');

  const table = page.getByTestId('visits-table');
  const segRow = table.getByRole('row').filter({ hasText: inSegment.company! });
  const outRow = table.getByRole('row').filter({ hasText: outside.company! });
  await expect(segRow).toContainText('/e2e-pricing');
  await expect(segRow).toContainText('Enterprise Software');
  await expect(outRow).toContainText('/e2e-careers');

  // Segment filter: only accounts in the segment remain.
  await page.getByLabel('Segment').selectOption({ label: 'Enterprise Software' });
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(outRow).toHaveCount(0);
  await expect(segRow).toHaveCount(1);
  await expect(page.getByTestId('visits-totals')).toContainText('in Enterprise Software');

  // CSV download of what the table shows.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^visits-demo-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d-segment-101\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\n')[0]).toBe('company_id,name,domain,page_views,sessions,first_seen,last_seen,top_pages,segment_ids,hot_account,excluded');
  expect(csv).toContain(inSegment.company!);
  expect(csv).not.toContain(outside.company!);

  // A date range without visits: an empty table, a chart of zeros.
  await page.getByLabel('From', { exact: true }).fill('2020-01-01');
  await page.getByLabel('To', { exact: true }).fill('2020-01-31');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(table).toContainText('No identified accounts visited in this range.');
  await expect(chart).toHaveAttribute('aria-label', 'Page views per day: 0 identified, 0 anonymous over 31 days.');

  // A range the API refuses shows its message.
  await page.getByLabel('From', { exact: true }).fill('2026-03-02');
  await page.getByLabel('To', { exact: true }).fill('2026-03-01');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(page.getByRole('alert')).toContainText('from must not be after to');
  expect(problems).toEqual([]);
});
