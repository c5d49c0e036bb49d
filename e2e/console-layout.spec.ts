/**
 * The console at the widths marketers use — a 1,366 × 768 laptop and a 768 px tablet — in a real
 * Chromium: the webhook URL field is styled like every other field and spans its form; the tokens table
 * shows every column, Actions included, at 1,366 px without scrolling; a table too wide for the screen
 * (Visitors at 768 px) keeps every column, scrolls inside its box and says so (edge shade and hint), never
 * the page; the chart legend shows the range's totals before anything is hovered.
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, pick, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const LAPTOP = { width: 1366, height: 768 };
const TABLET = { width: 768, height: 1024 };

async function signIn(page: Page, hash: string) {
  await page.goto(`/console/#customer=demo&page=${hash}`);
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
}

/** The page itself never scrolls sideways. */
async function expectNoPageScroll(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, 'the page scrolls sideways').toBeLessThanOrEqual(client);
}

/** The element's box lies inside the viewport's width. */
async function expectInsideViewport(page: Page, element: Locator, what: string) {
  const box = await element.boundingBox();
  expect(box, `${what} has a box`).not.toBeNull();
  const width = page.viewportSize()!.width;
  expect(box!.x, `${what} starts inside the viewport`).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, `${what} ends inside the viewport`).toBeLessThanOrEqual(width);
}

/** Sends page views from the demo page with the browser's own sendBeacon, as the tag does, and waits until they are counted. */
async function visit(page: Page, ip: string, path: string, company: string) {
  await page.goto('/');
  const sent = await page.evaluate(
    ({ tag, ip, path }) =>
      [1, 2, 3].map(() =>
        navigator.sendBeacon(`/v1/events?tag=${tag}&test_ip=${ip}`, JSON.stringify({ type: 'pageview', path, session: `layout-${ip.replace(/\./g, '-')}` })),
      ),
    { tag: TAG, ip, path },
  );
  expect(sent.every(Boolean)).toBe(true);
  const today = new Date().toISOString().slice(0, 10);
  await expect
    .poll(async () => {
      const report = await (await page.request.get(`/admin/api/customers/demo/visits?from=${today}&to=${today}`, { headers: admin })).json();
      return report.accounts.some((a: { name: string }) => a.name === company);
    })
    .toBe(true);
}

for (const size of [LAPTOP, TABLET]) {
  test(`the webhook URL field is a styled input as wide as its form at ${size.width} px`, async ({ page }) => {
    const problems = watchConsoleProblems(page);
    await page.setViewportSize(size);
    await signIn(page, 'webhooks');
    const form = page.getByTestId('create-webhook-form');
    const url = form.getByLabel(/^Receiver URL/);
    const hotPages = form.getByLabel('Hot pages');
    await expect(url).toBeVisible();

    const style = (l: Locator) =>
      l.evaluate((el) => {
        const s = getComputedStyle(el);
        return {
          border: s.borderTopWidth + s.borderTopStyle + s.borderTopColor,
          radius: s.borderTopLeftRadius,
          padding: s.padding,
          font: s.fontSize,
          height: el.getBoundingClientRect().height,
        };
      });
    const urlStyle = await style(url);
    expect(urlStyle).toEqual(await style(hotPages));
    expect(urlStyle.radius).not.toBe('0px');
    expect(urlStyle.height).toBeGreaterThanOrEqual(34);

    // Full width of the form's content box.
    const inner = await form.evaluate((el) => {
      const s = getComputedStyle(el);
      return el.clientWidth - Number.parseFloat(s.paddingLeft) - Number.parseFloat(s.paddingRight);
    });
    const box = (await url.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(inner - 1);
    await expectInsideViewport(page, url, 'the URL field');
    await expectNoPageScroll(page);
    expect(problems).toEqual([]);
  });
}

test('the tokens table shows every column, Actions included, at 1,366 × 768 without scrolling', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  // The widest rows a customer has: a long name, many domains and integrations, rotation advice.
  const long = await request.post('/admin/api/tokens', {
    headers: admin,
    data: {
      customer_id: 'demo',
      api_group: 'identification',
      name: `marketing-automation-production-eu-${Date.now()}`,
      allowed_domains: ['www.northwind-traders.example.com', 'shop.northwind-traders.example.com', '*.campaigns.northwind-traders.example.com'],
      integrations: ['salesforce-marketing-cloud', 'hubspot', 'google-tag-manager'],
      scores: true,
      segment_names: true,
    },
  });
  expect(long.status()).toBe(201);
  const advised = await request.post('/admin/api/tokens', {
    headers: admin,
    data: { customer_id: 'demo', api_group: 'identification', name: 'default_existing_token' },
  });
  expect(advised.status()).toBe(201);

  await page.setViewportSize(LAPTOP);
  await signIn(page, 'tokens');
  const table = page.getByTestId('tokens-table');
  await expect(table.getByTestId('token-row').first()).toBeVisible();
  const headers = table.locator('thead th');
  await expect(headers).toHaveText([
    'Name',
    'API group',
    'Prefix',
    'Integrations',
    'Allowed domains',
    'Answers',
    'Rate limit',
    'Status',
    'Dates',
    'Advice',
    'Actions',
  ]);
  for (const header of await headers.all()) await expectInsideViewport(page, header, `column ${await header.textContent()}`);

  const row = table.locator(`[data-testid="token-row"][data-token-id="${(await long.json()).id}"]`);
  for (const name of ['Deactivate', 'Rotate', 'Delete']) {
    await expectInsideViewport(page, row.getByRole('button', { name: new RegExp(`^${name} marketing-automation`) }), `the ${name} button`);
  }
  await expectInsideViewport(page, table.locator(`[data-token-id="${(await advised.json()).id}"]`).getByTestId('rotation-advice'), 'the advice');
  // Nothing hidden inside the table's own box either, so no cue.
  const wrap = page.locator('.scroll-table').filter({ has: table });
  expect(await wrap.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  await expect(wrap.getByTestId('scroll-hint')).toBeHidden();

  // Asking to rotate keeps the confirmation inside the screen too.
  await row.getByRole('button', { name: /^Rotate marketing-automation/ }).click();
  await expectInsideViewport(page, row.getByRole('button', { name: /^Rotate .* now$/ }), 'the confirm button');
  await expectInsideViewport(page, row.getByRole('button', { name: 'Cancel' }), 'the cancel button');
  await row.getByRole('button', { name: 'Cancel' }).click();
  await expectNoPageScroll(page);
  expect(problems).toEqual([]);
});

test('at 768 px the Visitors and tokens tables keep every column and scroll inside a box that says so', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');
  await visit(page, company.ip, '/pricing/enterprise-plans-and-volume-discounts', company.company!);

  await page.setViewportSize(TABLET);
  await signIn(page, 'visitors');
  const table = page.getByTestId('visits-table');
  await expect(table.getByRole('row').filter({ hasText: company.company! })).toBeVisible();
  await expect(table.locator('thead th')).toHaveText(['Account', 'Page views', 'Sessions', 'First seen', 'Last seen', 'Top pages', 'Segments', 'Flags']);

  const scroller = page.getByTestId('visits-scroll');
  const box = scroller.locator('.table-wrap');
  expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await expectNoPageScroll(page);
  await expectInsideViewport(page, box, 'the table box');
  // The cue: a hint and a shade on the right edge, none on the left.
  await expect(scroller.getByTestId('scroll-hint')).toBeVisible();
  await expect(scroller.getByTestId('scroll-hint')).toHaveText(/Scroll sideways for more columns →/);
  await expect(scroller).toHaveAttribute('data-more-right', '');
  const shade = (side: '::before' | '::after') => scroller.locator('.scroll-frame').evaluate((el, s) => getComputedStyle(el, s).opacity, side);
  await expect.poll(() => shade('::after')).toBe('1');
  expect(await shade('::before')).toBe('0');

  // Scrolled to the end: the last column is on screen, the shade moves to the left edge.
  await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  await expect(scroller).toHaveAttribute('data-more-left', '');
  await expect(scroller).not.toHaveAttribute('data-more-right', '');
  await expectInsideViewport(page, table.locator('thead th', { hasText: 'Flags' }), 'the Flags column');
  await expect.poll(() => shade('::before')).toBe('1');
  await expect(scroller.getByTestId('scroll-hint')).toHaveText(/Scroll back/);
  // Keyboard users scroll it too: the box is a focusable, named region.
  await expect(scroller.getByRole('region', { name: 'Accounts that visited' })).toHaveAttribute('tabindex', '0');

  // The same box around the tokens table: all columns there, scrolling inside, the page still.
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Tokens' }).click();
  const tokens = page.locator('.scroll-table').filter({ has: page.getByTestId('tokens-table') });
  await expect(tokens.getByTestId('scroll-hint')).toBeVisible();
  await expect(page.getByTestId('tokens-table').locator('thead th')).toHaveCount(11);
  await expectNoPageScroll(page);
  expect(problems).toEqual([]);
});

for (const size of [LAPTOP, TABLET]) {
  test(`the chart legend shows the range's totals before any hover at ${size.width} px`, async ({ page, request }) => {
    const problems = watchConsoleProblems(page);
    const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');
    await visit(page, company.ip, '/legend', company.company!);

    await page.setViewportSize(size);
    await signIn(page, 'visitors');
    const chart = page.getByTestId('visits-chart');
    await expect(chart.locator('canvas')).toBeVisible();
    const legend = chart.locator('.u-legend');
    await expectInsideViewport(page, chart, 'the chart');
    const values = legend.locator('.u-value');
    await expect(values).toHaveCount(3);
    const [day, identified, anonymous] = await values.allTextContents();
    expect(day).toMatch(/^\d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2} \(total\)$/);
    for (const v of [identified, anonymous]) {
      expect(v).toMatch(/^[\d,]+$/);
      expect(v).not.toMatch(/^(—|--)$/);
    }
    // The totals are the report's: the same numbers as the stats above the chart.
    await expect(page.getByTestId('visits-totals')).toContainText(`${identified} identified`);
    await expect(page.getByTestId('visits-totals')).toContainText(`${anonymous} anonymous`);

    // Hovering a day shows that day; leaving the chart brings the totals back.
    const plot = chart.locator('.u-over');
    const b = (await plot.boundingBox())!;
    await page.mouse.move(b.x + b.width - 4, b.y + b.height / 2);
    await expect(values.first()).toHaveText(/^\d{4}-\d{2}-\d{2}$/);
    await page.mouse.move(0, 0);
    await expect(values.first()).toHaveText(/\(total\)$/);
    await expectNoPageScroll(page);
    expect(problems).toEqual([]);
  });
}
