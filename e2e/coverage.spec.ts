/**
 * Coverage on the Visitors page in a real Chromium against the demo-mode server, at a 1,366 × 768 laptop
 * and a 390 × 844 phone: after page views sent the way the tag sends them (navigator.sendBeacon; demo mode's
 * test_ip standing in for the visitor's network) from a company, an ISP, a hosting network, a bot network,
 * a VPN of the sample data and an address in no network, the page shows the match rate as the API answers
 * it, its chart per day, and the unidentified page views by reason — each row the API's count, the rows
 * adding up to the anonymous page views. axe-core finds no serious or critical violation; the phone page
 * does not scroll sideways. Screenshots go to test-results/screenshots/.
 */
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, answerFor, pick, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const REASON_LABELS: Record<string, string> = {
  isp: 'Internet service provider',
  hosting: 'Hosting or cloud provider',
  bot: 'Bot',
  vpn: 'VPN',
  proxy: 'Proxy',
  tor: 'Tor exit node',
  relay: 'Privacy relay',
  no_data: 'No data for the address',
};

async function beacons(page: Page, ip: string, path: string, n: number): Promise<void> {
  const sent = await page.evaluate(
    ({ tag, ip, path, n }) =>
      Array.from({ length: n }, () =>
        navigator.sendBeacon(
          `/v1/events?tag=${tag}&test_ip=${ip}`,
          JSON.stringify({ type: 'pageview', path, session: `e2e-coverage-${ip.replace(/\W/g, '-')}` }),
        ),
      ),
    { tag: TAG, ip, path, n },
  );
  expect(sent.every(Boolean)).toBe(true);
}

/** The second address of each IPv4 VPN network of the sample data (data/sample/networks.csv). */
function sampleVpns(): string[] {
  return readFileSync('data/sample/networks.csv', 'utf8')
    .split('\n')
    .flatMap((l) => {
      const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+),[a-z]+,,.*,vpn$/.exec(l);
      if (!m) return [];
      const n = m.slice(1, 5).reduce((a, o) => a * 256 + Number(o), 0) + (Number(m[5]) === 32 ? 0 : 1);
      return [[24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.')];
    });
}

const today = new Date().toISOString().slice(0, 10);
const report = async (request: APIRequestContext) =>
  (await request.get(`/admin/api/customers/demo/visits?from=${today}&to=${today}`, { headers: admin })).json();

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
  const company = pick(list, (v) => v.kind === 'company' && !!v.company, 'company');
  const isp = pick(list, (v) => v.kind === 'isp', 'ISP');
  const hosting = pick(list, (v) => v.kind === 'hosting', 'hosting');
  const bot = pick(list, (v) => v.kind === 'bot', 'bot network');
  const nowhere = pick(list, (v) => v.kind === 'none', 'unknown address');
  // One a tag lookup answers as a VPN (a nested network may own an address): the reason its page views get.
  let vpn = '';
  for (const ip of sampleVpns()) {
    if ((await answerFor(request, ip)).company.privacy === 'vpn') {
      vpn = ip;
      break;
    }
  }
  expect(vpn, 'a VPN address of the sample data').not.toBe('');
  const before = await report(request);
  const page = await browser.newPage();
  await page.goto('/');
  await beacons(page, company.ip, '/coverage', 3);
  await beacons(page, isp.ip, '/coverage', 2);
  await beacons(page, hosting.ip, '/coverage', 1);
  await beacons(page, bot.ip, '/coverage', 1);
  await beacons(page, vpn, '/coverage', 2);
  await beacons(page, nowhere.ip, '/coverage', 1);
  const added = { isp: 2, hosting: 1, bot: 1, vpn: 2, no_data: 1 };
  await expect
    .poll(async () => {
      const now = await report(request);
      return (
        now.totals.identified >= before.totals.identified + 3 &&
        Object.entries(added).every(([r, n]) => now.coverage.unidentified[r] >= before.coverage.unidentified[r] + n)
      );
    })
    .toBe(true);
  await page.close();
});

for (const [name, size] of [
  ['laptop', LAPTOP],
  ['phone', PHONE],
] as const) {
  test(`the Visitors page on a ${name} (${size.width}×${size.height}): the match rate, its chart and the split by reason`, async ({ page, request }) => {
    const problems = watchConsoleProblems(page);
    await page.setViewportSize(size);
    const answer = await report(request);
    await page.goto('/console/#customer=demo&page=visitors');
    await page.getByText('Operator token', { exact: true }).click();
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Visitors' })).toBeVisible();
    // Today only: the figures compare with the answer read above.
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByLabel('To', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Show' }).click();

    const coverage = page.getByTestId('visits-coverage');
    await expect(coverage.getByRole('heading', { level: 2, name: 'How many of your visitors you see' })).toBeVisible();
    await expect(page.getByTestId('visits-match-rate')).toContainText(`${(answer.coverage.match_rate * 100).toFixed(1)}%`);
    await expect(page.getByTestId('visits-match-rate')).toContainText(`of ${answer.totals.page_views.toLocaleString('en-US')}`);
    const chart = page.getByTestId('visits-match-rate-chart');
    await expect(chart.locator('canvas')).toBeVisible();
    const rate = ((answer.totals.identified / answer.totals.page_views) * 100).toFixed(1);
    await expect(chart).toHaveAttribute('aria-label', `Match rate per day: ${rate}% of ${answer.totals.page_views} page views identified over 1 days.`);

    // The split: one row per reason with the API's count, and a total that is the anonymous page views.
    const table = page.getByTestId('visits-unidentified');
    let sum = 0;
    for (const [reason, label] of Object.entries(REASON_LABELS)) {
      const row = table.locator(`tr[data-reason="${reason}"]`);
      await expect(row.getByRole('rowheader')).toHaveText(label);
      const n = answer.coverage.unidentified[reason] as number;
      await expect(row.locator('td').first()).toHaveText(n.toLocaleString('en-US'));
      sum += n;
    }
    for (const reason of ['isp', 'hosting', 'bot', 'vpn', 'no_data']) expect(answer.coverage.unidentified[reason]).toBeGreaterThan(0);
    expect(sum + answer.coverage.unidentified.other + answer.coverage.unidentified.unclassified).toBe(answer.totals.anonymous);
    await expect(
      table
        .getByRole('row', { name: /All unidentified/ })
        .locator('td')
        .first(),
    ).toHaveText(answer.totals.anonymous.toLocaleString('en-US'));

    await page.screenshot({ path: `${SHOTS}/coverage-${name}-${size.width}.png`, fullPage: true });
    await expectAccessible(page, `Visitors at ${size.width}`);
    if (size === PHONE) {
      const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(scroll, 'Visitors scrolls sideways').toBeLessThanOrEqual(client);
    }

    // The days with their split as CSV.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download days CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`visits-demo-${today}-${today}-days.csv`);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe('day,page_views,identified,anonymous,match_rate,isp,hosting,bot,vpn,proxy,tor,relay,no_data,other,unclassified');
    const cells = csv[1]!.split(',');
    expect(cells.slice(5).reduce((n, c) => n + Number(c), 0)).toBe(Number(cells[3]));
    expect(problems).toEqual([]);
  });
}
