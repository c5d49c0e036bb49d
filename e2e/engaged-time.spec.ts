/**
 * Engaged time and custom events from a real Chromium page (the demo tag, its minified bundle, from the real
 * server in demo mode; the company visitor chosen with `svc_test_ip`): a page kept visible for a measured time,
 * then hidden or left (a navigation), reports that time once, and the
 * server records it for the account within ± 1 s; a custom event tracked from the page arrives and counts,
 * a burst of them counts exactly, bad ones are refused (400) and a value that looks like an email is not
 * kept; segment rules `engaged` and `event` then hold for the account; the account page shows its engagement
 * (axe-core: no serious or critical violation), and the segment builder offers both conditions.
 */
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type LaunchOptions, type Page, test } from '@playwright/test';
import config from '../playwright.config.ts';
import { ADMIN_TOKEN, answerFor, failOnPageErrors, ORIGIN, pick, serve, signInAsNew, UA, visitors } from './helpers.ts';

// The browser's own user agent too, not only the pages': a beacon sent as a page unloads leaves with the
// browser's ("HeadlessChrome", a bot to the server: an anonymous visitor, nothing kept), where a real
// browser sends the one its pages have.
const launch = config.use?.launchOptions as LaunchOptions;
test.use({ launchOptions: { ...launch, args: [...(launch.args ?? []), `--user-agent=${UA}`] } });

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
// Paths and event names of this run: a rerun against the same server state has its own.
const RUN = Date.now().toString(36);
const today = () => new Date().toISOString().slice(0, 10);

failOnPageErrors();

/** A company visitor of the sample data and its company id (as the tag's lookup answers it). */
async function companyVisitor(request: APIRequestContext): Promise<{ ip: string; companyId: string; name: string }> {
  const v = pick(await visitors(request), (x) => x.kind === 'company' && !!x.company, 'company');
  const answer = await answerFor(request, v.ip);
  return { ip: v.ip, companyId: answer.company.companyId, name: answer.company.name };
}

/** The account's engagement rows of today, from the events export (`kind=engagement`). */
async function engagementRows(request: APIRequestContext, companyId: string): Promise<Record<string, any>[]> {
  const res = await request.get(`/admin/api/customers/demo/events?kind=engagement&from=${today()}&to=${today()}`, { headers: admin });
  expect(res.status()).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
    .filter((r) => r.company_id === companyId);
}

const engagedMs = async (request: APIRequestContext, companyId: string, path: string) =>
  (await engagementRows(request, companyId)).find((r) => r.kind === 'engaged_time' && r.path === path)?.engaged_ms ?? 0;
const eventCount = async (request: APIRequestContext, companyId: string, name: string) =>
  (await engagementRows(request, companyId)).find((r) => r.kind === 'event_count' && r.name === name)?.count ?? 0;

/** Opens the test page as the company visitor and waits until the tag counted its page view. */
async function openPage(page: Page, path: string, ip: string): Promise<void> {
  const url = await serve(page, `${path}?svc_test_ip=${ip}`, { body: `<main><h1>Pricing</h1><p>Read me.</p></main>` });
  const counted = page.waitForResponse((r) => r.url().includes('/v1/events') && (r.request().postData() ?? '').includes('"pageview"'));
  await page.goto(url);
  expect((await counted).status()).toBe(204);
}

/** How long the page has been visible: since its navigation started (the tag counts from when it runs, a little later). */
const visibleSoFar = (page: Page) => page.evaluate(() => performance.now());

/**
 * Leaves the page as a visitor does: a navigation (pagehide, then visibilitychange to hidden: the tag's beacon
 * goes as the page unloads). The route that served the test page goes first: a request the page makes while
 * unloading would otherwise wait for Playwright's interception, which its detached document never gets.
 */
async function leave(page: Page): Promise<void> {
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.goto('about:blank');
}

/**
 * Hides or shows the page as a browser does when its tab goes to the back or the front: the visibility state
 * changes, then `visibilitychange` fires. Headless Chromium keeps every tab visible (another tab brought to the
 * front, a minimised window: still "visible"), so the state is set on the document here.
 */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((h) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  }, hidden);

test('a page visible for a measured time, then left: the engaged seconds recorded equal it ± 1 s', async ({ page, request }) => {
  const visitor = await companyVisitor(request);
  const path = `/e2e-engaged-${RUN}-left`;
  await openPage(page, path, visitor.ip);
  await page.waitForTimeout(3200);
  const measured = await visibleSoFar(page);
  await leave(page); // pagehide: the tag's beacon goes as the page is left
  await expect.poll(() => engagedMs(request, visitor.companyId, path), { timeout: 10_000 }).toBeGreaterThan(0);
  const recorded = await engagedMs(request, visitor.companyId, path);
  expect(Math.abs(recorded - measured), `recorded ${recorded} ms, measured ${measured} ms`).toBeLessThanOrEqual(1000);
  // Sent once: nothing more arrives for the page.
  await page.waitForTimeout(500);
  expect(await engagedMs(request, visitor.companyId, path)).toBe(recorded);
});

test('a page visible for a measured time, then hidden: reported once, ± 1 s; hidden time not counted; shown again, its new time adds when left', async ({
  page,
  request,
}) => {
  const visitor = await companyVisitor(request);
  const path = `/e2e-engaged-${RUN}-hidden`;
  await openPage(page, path, visitor.ip);
  await page.waitForTimeout(2500);
  const measured = await visibleSoFar(page);
  await setHidden(page, true);
  await expect.poll(() => engagedMs(request, visitor.companyId, path), { timeout: 10_000 }).toBeGreaterThan(0);
  const first = await engagedMs(request, visitor.companyId, path);
  expect(Math.abs(first - measured), `recorded ${first} ms, measured ${measured} ms`).toBeLessThanOrEqual(1000);
  // Hidden: the time does not run, nothing more is sent.
  await page.waitForTimeout(1500);
  expect(await engagedMs(request, visitor.companyId, path)).toBe(first);
  // Shown again for a measured while, then left: that time adds, once.
  await setHidden(page, false);
  const shownAt = await visibleSoFar(page);
  await page.waitForTimeout(2000);
  const again = (await visibleSoFar(page)) - shownAt;
  await leave(page);
  await expect.poll(() => engagedMs(request, visitor.companyId, path), { timeout: 10_000 }).toBeGreaterThan(first);
  const total = await engagedMs(request, visitor.companyId, path);
  expect(Math.abs(total - first - again), `added ${total - first} ms, shown ${again} ms`).toBeLessThanOrEqual(1000);
  await page.waitForTimeout(500);
  expect(await engagedMs(request, visitor.companyId, path)).toBe(total);
});

test('custom events from the page arrive and count, a burst exactly; bad ones are refused, emails not kept; segments hold', async ({ page, request }) => {
  const visitor = await companyVisitor(request);
  const path = `/e2e-events-${RUN}`;
  const name = `demo_requested_${RUN}`;
  const burst = `burst_${RUN}`;
  await openPage(page, path, visitor.ip);
  const tracked = page.waitForResponse((r) => r.url().includes('/v1/events') && (r.request().postData() ?? '').includes(`"${name}"`));
  await page.evaluate((n) => (window as any).svc.push(['track', n, { plan: 'pro', contact: 'jane@northwind.example', seats: 25 }]), name);
  expect((await tracked).status()).toBe(204);
  await expect.poll(() => eventCount(request, visitor.companyId, name), { timeout: 10_000 }).toBe(1);
  const account = await (await request.get(`/admin/api/customers/demo/accounts/${visitor.companyId}`, { headers: admin })).json();
  const event = account.engagement.recent_events.find((e: { name: string }) => e.name === name);
  expect(event).toMatchObject({ name, path, properties: { plan: 'pro', seats: 25 } });
  expect(event.properties).not.toHaveProperty('contact');

  // Bad events: the tag sends them, the server says why (400) and counts nothing.
  const refused: number[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/v1/events') && r.status() === 400) refused.push(r.status());
  });
  await page.evaluate(() => {
    const svc = (window as any).svc;
    svc.push(['track', 'Bad Name']);
    svc.push(['track', 'too_many', Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`p${i}`, i]))]);
    svc.push(['track', 'nested', { plan: { tier: 'pro' } }]);
  });
  await expect.poll(() => refused.length).toBe(3);

  // A burst: every one counts, once.
  await page.evaluate((n) => {
    for (let i = 0; i < 40; i++) (window as any).svc.push(['track', n, { i }]);
  }, burst);
  await expect.poll(() => eventCount(request, visitor.companyId, burst), { timeout: 15_000 }).toBe(40);
  const rows = await engagementRows(request, visitor.companyId);
  expect(rows.filter((r) => r.kind === 'event_count' && ['too_many', 'nested'].includes(r.name))).toEqual([]);

  // Segment rules on what was tracked and read.
  await page.waitForTimeout(1200);
  await leave(page);
  await expect.poll(() => engagedMs(request, visitor.companyId, path), { timeout: 10_000 }).toBeGreaterThan(1000);
  const preview = async (match: object) => {
    const res = await request.post('/admin/api/customers/demo/segments/preview', { headers: admin, data: { match } });
    expect(res.status()).toBe(200);
    return ((await res.json()).accounts as { companyId: string }[]).map((a) => a.companyId);
  };
  expect(await preview({ event: { name: burst, min_count: 40, days: 1 } })).toEqual([visitor.companyId]);
  expect(await preview({ event: { name: burst, min_count: 41, days: 1 } })).toEqual([]);
  expect(await preview({ engaged: { path: `${path}*`, min_seconds: 1, days: 1 } })).toEqual([visitor.companyId]);
});

test('the account page shows the engagement in its journey, and the segment builder offers both conditions', async ({ page, request }) => {
  test.setTimeout(120_000); // a sign-in, two console pages and two axe runs
  const visitor = await companyVisitor(request);
  const path = `/e2e-console-${RUN}`;
  await openPage(page, path, visitor.ip);
  await page.evaluate((n) => (window as any).svc.push(['track', n, { plan: 'team' }]), `console_seen_${RUN}`);
  await page.waitForTimeout(2200);
  await leave(page);
  await expect.poll(() => engagedMs(request, visitor.companyId, path), { timeout: 10_000 }).toBeGreaterThan(1000);

  await signInAsNew(page, request, 'marketer', `engaged-${RUN}`);
  await page.goto(`${ORIGIN}/console/#customer=demo&page=accounts&account=${visitor.companyId}`);
  await expect(page.getByRole('heading', { level: 2, name: visitor.name })).toBeVisible();
  const section = page.getByTestId('account-engagement');
  await expect(section.getByRole('heading', { name: 'Engagement' })).toBeVisible();
  await expect(section.getByTestId('account-engaged-pages').getByRole('row').filter({ hasText: path })).toContainText(/\d+ s|min/);
  await expect(section.getByTestId('account-events')).toContainText(`console_seen_${RUN}`);
  await expect(section.getByTestId('account-recent-events')).toContainText('plan: team');
  const results = await new AxeBuilder({ page }).include('[data-testid="account-engagement"]').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Segments' }).click();
  const builder = page.getByTestId('segment-builder');
  await builder.getByLabel('Add a condition on').selectOption({ label: 'Engaged time on pages' });
  await builder.getByRole('button', { name: 'Add condition' }).click();
  await builder.getByLabel('Page path pattern').fill(`${path}*`);
  await builder.getByLabel('Minimum engaged seconds').fill('1');
  await expect(builder.getByTestId('segment-rule-words')).toHaveText(`Engaged at least 1 second on ${path}* in the last 30 days`);
  await expect(builder.getByTestId('preview-size')).toHaveText('1 account matches');
  await builder.getByLabel('Add a condition on').selectOption({ label: 'Custom event' });
  await builder.getByRole('button', { name: 'Add condition' }).click();
  await builder.getByLabel('Event name').fill(`console_seen_${RUN}`);
  await expect(builder.getByTestId('segment-rule-words')).toContainText(`Sent the event console_seen_${RUN} at least once in the last 30 days`);
  await expect(builder.getByTestId('preview-size')).toHaveText('1 account matches');
  const results2 = await new AxeBuilder({ page }).include('[data-testid="segment-builder"]').analyze();
  expect(results2.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});
