/**
 * Page views (feature `page_views`) in Chromium against the real server and the minified bundle
 * variants: the beacon is captured with `page.route` (answered 204 as the service does) and checked:
 * method, text/plain body (a simple CORS request: no preflight), path with only utm_*, referrer host,
 * a per-tab session id; one per SPA navigation (with `spa`); none without permission (opt-out, consent
 * denied or pending, GPC) and none from a variant without the feature (the tag setting off). The
 * customer's kept query parameters (inlined into the bundle) go out too, to the real server, and keep
 * their pages apart on the account page.
 */
import { expect, test } from '@playwright/test';
import {
  ADMIN_TOKEN,
  answerFor,
  captureBeacons,
  ensureVariantTag,
  FULL,
  failOnPageErrors,
  ORIGIN,
  pick,
  serve,
  type Variant,
  type Visitor,
  variant,
  visitors,
} from './helpers.ts';

/** Every feature; page views without SPA; every feature but page views (the setting off). */
const WITH_PAGE_VIEWS: Variant[] = [FULL, variant({ page_views: true })];
const PAGE_VIEWS_OFF = variant({ page_views: false }, FULL.features);

let company: Visitor;
test.beforeAll(async ({ request }) => {
  company = pick(await visitors(request), (v) => v.kind === 'company', 'company');
  for (const v of [...WITH_PAGE_VIEWS, PAGE_VIEWS_OFF]) await ensureVariantTag(request, v);
});
failOnPageErrors();

const BODY = '<h1 id="title" data-svc-text="Hello {company.name|there}">Hello there</h1><a id="next" href="/t/pv-next">next</a>';
const SESSION = /^[A-Za-z0-9_-]{8,64}$/;

for (const v of WITH_PAGE_VIEWS) {
  test.describe(`variant ${v.name}`, () => {
    test('one beacon per page view: POST text/plain (no preflight), path with only utm_*, referrer host, session per tab', async ({ page }) => {
      const { beacons, preflights } = await captureBeacons(page);
      const url = await serve(page, '/t/pv', { body: BODY, snippet: { tagId: v.tag } });
      await serve(page, '/t/pv-next', { body: BODY, snippet: { tagId: v.tag } });
      await page.goto(`${url}?plan=pro&utm_source=news&email=jane%40example.com&utm_campaign=spring&svc_test_ip=${company.ip}`, {
        referer: 'https://news.example/story?id=7',
      });
      await expect.poll(() => beacons().length).toBe(1);
      const [first] = beacons();
      expect(first.method).toBe('POST');
      expect(first.url).toBe(`${ORIGIN}/v1/events?tag=${v.tag}&test_ip=${company.ip}`);
      expect(first.contentType).toMatch(/^text\/plain/);
      expect(first.body).toEqual({
        type: 'pageview',
        path: '/t/pv?utm_source=news&utm_campaign=spring',
        referrer: 'news.example',
        session: expect.stringMatching(SESSION),
      });
      // A link to another page of the site: a new page view, same tab session, no own-site referrer.
      await page.click('#next');
      await expect.poll(() => beacons().length).toBe(2);
      expect(beacons()[1].body).toEqual({ type: 'pageview', path: '/t/pv-next', session: first.body.session });
      // A reload is a page view too; a new tab is a new session.
      await page.reload();
      await expect.poll(() => beacons().length).toBe(3);
      const other = await page.context().newPage();
      const otherBeacons = await captureBeacons(other);
      await other.goto(await serve(other, '/t/pv-next', { body: BODY, snippet: { tagId: v.tag } }));
      await expect.poll(() => otherBeacons.beacons().length).toBe(1);
      expect(otherBeacons.beacons()[0].body.session).not.toBe(first.body.session);
      await page.waitForTimeout(200);
      expect(beacons()).toHaveLength(3);
      expect(preflights()).toEqual([]);
      // No cookie was set: the session lives in sessionStorage only.
      expect(await page.context().cookies()).toEqual([]);
      expect(await page.evaluate(() => sessionStorage.getItem('svc:session'))).toBe(first.body.session);
    });

    test('no page view without permission: opt-out, consent denied, GPC; pending waits for granted', async ({ page }) => {
      const { beacons } = await captureBeacons(page);
      const denied = await serve(page, '/t/pv-denied', { body: BODY, snippet: { tagId: v.tag }, head: '<script>svc.push(["consent","denied"])</script>' });
      await page.goto(denied);
      const pending = await serve(page, '/t/pv-pending', { body: BODY, snippet: { tagId: v.tag }, head: '<script>svc.push(["consent","pending"])</script>' });
      await page.goto(pending);
      await page.waitForTimeout(300);
      expect(beacons()).toEqual([]);
      await page.evaluate(() => (window as any).svc.push(['consent', 'granted']));
      await expect.poll(() => beacons().length).toBe(1);
      expect(beacons()[0].body.path).toBe('/t/pv-pending');
      // Opted out: persisted, so the next page sends nothing.
      await page.evaluate(() => (window as any).svc.push(['optOut', true]));
      const optedOut = await serve(page, '/t/pv-optout', { body: BODY, snippet: { tagId: v.tag } });
      await page.goto(optedOut);
      await page.waitForTimeout(300);
      expect(beacons()).toHaveLength(1);
    });

    test('no page view with Global Privacy Control on (unless the tag ignores GPC)', async ({ browser }) => {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
      const { beacons } = await captureBeacons(page);
      await page.goto(await serve(page, '/t/pv-gpc', { body: BODY, snippet: { tagId: v.tag } }));
      await page.waitForTimeout(300);
      expect(beacons()).toEqual([]);
      await page.goto(await serve(page, '/t/pv-gpc-off', { body: BODY, snippet: { tagId: v.tag }, head: '<script>svc.push(["init",{"gpc":false}])</script>' }));
      await expect.poll(() => beacons().length).toBe(1);
      await ctx.close();
    });
  });
}

test('single-page apps: each history navigation sends one page view (pushState, replaceState, back)', async ({ page }) => {
  const captured = await captureBeacons(page);
  const { preflights } = captured;
  // Each navigation also ends the previous page view's engaged time (its own beacon, with its path: e2e/engaged-time.spec.ts).
  const beacons = () => captured.beacons().filter((b) => b.body.type === 'pageview');
  const url = await serve(page, '/t/pv-spa', { body: BODY, snippet: { tagId: FULL.tag } });
  await page.goto(`${url}?utm_source=ad`);
  await expect.poll(() => beacons().length).toBe(1);
  await page.evaluate(() => history.pushState({}, '', '/t/pv-spa/pricing?tab=annual'));
  await expect.poll(() => beacons().length).toBe(2);
  // replaceState that keeps the path (scroll state, a non-utm parameter) and a hash change: no page view.
  await page.evaluate(() => {
    history.replaceState({ scroll: 10 }, '', '/t/pv-spa/pricing?tab=monthly');
    location.hash = 'faq';
  });
  await page.evaluate(() => history.replaceState({}, '', '/t/pv-spa/contact?utm_medium=cta'));
  await expect.poll(() => beacons().length).toBe(3);
  await page.goBack(); // popstate
  await expect.poll(() => beacons().length).toBe(4);
  await page.waitForTimeout(200);
  expect(beacons().map((b) => b.body.path)).toEqual(['/t/pv-spa?utm_source=ad', '/t/pv-spa/pricing', '/t/pv-spa/contact?utm_medium=cta', '/t/pv-spa/pricing']);
  expect(new Set(beacons().map((b) => b.body.session)).size).toBe(1);
  expect(
    beacons()
      .slice(1)
      .every((b) => b.body.referrer === undefined),
  ).toBe(true);
  expect(preflights()).toEqual([]);
  const engaged = captured.beacons().filter((b) => b.body.type === 'engagement');
  expect(engaged.map((b) => b.body.path)).toEqual(['/t/pv-spa?utm_source=ad', '/t/pv-spa/pricing', '/t/pv-spa/contact?utm_medium=cta']);
  expect(engaged.every((b) => b.body.engaged_ms > 0 && b.body.session === beacons()[0]!.body.session)).toBe(true);
});

test('without the spa feature, history navigations send no page view (the load still does)', async ({ page, request }) => {
  const v = variant({ page_views: true });
  await ensureVariantTag(request, v);
  const { beacons } = await captureBeacons(page);
  await page.goto(await serve(page, '/t/pv-nospa', { body: BODY, snippet: { tagId: v.tag } }));
  await expect.poll(() => beacons().length).toBe(1);
  await page.evaluate(() => history.pushState({}, '', '/t/pv-nospa/next'));
  await page.waitForTimeout(300);
  expect(beacons()).toHaveLength(1);
});

test('the page_views setting off: the tag works and sends no page view', async ({ page }) => {
  const { beacons } = await captureBeacons(page);
  await page.goto(`${await serve(page, '/t/pv-off', { body: BODY, snippet: { tagId: PAGE_VIEWS_OFF.tag } })}?svc_test_ip=${company.ip}`);
  await expect(page.locator('#title')).not.toHaveText('Hello there');
  await page.evaluate(() => history.pushState({}, '', '/t/pv-off/next'));
  await page.waitForTimeout(300);
  expect(beacons()).toEqual([]);
  expect(await page.evaluate(() => document.querySelector('script[src*="/tag/v1/"]')!.getAttribute('src'))).toBe(`/tag/v1/${PAGE_VIEWS_OFF.tag}.js`);
});

test.describe("the customer's kept query parameters (kept_query_params)", () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  // A path of its own per run: the account page counts every run's views on the same server.
  const PATH = `/t/pv-kept-${Date.now().toString(36)}`;
  test.afterAll(async ({ request }) => {
    await request.patch('/admin/api/customers/demo', { headers: { ...admin, origin: ORIGIN }, data: { kept_query_params: [] } });
  });

  test('a kept parameter reaches the server and keeps its page apart on the account page; any other is stripped', async ({ page, request }) => {
    // Another company than the other specs' (the first): its top 20 pages are this test's.
    const visitor = (await visitors(request)).filter((v) => v.kind === 'company' && !/excluded/i.test(v.label)).at(-1)!;
    const patched = await request.patch('/admin/api/customers/demo', { headers: { ...admin, origin: ORIGIN }, data: { kept_query_params: ['plan'] } });
    expect(patched.status()).toBe(200);
    // The real beacons (not intercepted), as the browser sent them.
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/v1/events')) sent.push(JSON.parse(r.postData() ?? '{}').path);
    });
    const url = await serve(page, PATH, { body: BODY, snippet: { tagId: FULL.tag } });
    const views = [
      `?plan=pro&email=jane%40example.com&utm_source=news&svc_test_ip=${visitor.ip}`,
      `?email=jane%40example.com&utm_source=ad&svc_test_ip=${visitor.ip}`,
      `?plan=basic&token=s3cr3t&svc_test_ip=${visitor.ip}`,
    ];
    for (const [i, query] of views.entries()) {
      await page.goto(url + query);
      await expect.poll(() => sent.length).toBe(i + 1);
    }
    expect(sent).toEqual([`${PATH}?plan=pro&utm_source=news`, `${PATH}?utm_source=ad`, `${PATH}?plan=basic`]);

    const companyId = (await answerFor(request, visitor.ip)).company.companyId;
    const mine = async () => {
      const account = await (await request.get(`/admin/api/customers/demo/accounts/${companyId}`, { headers: admin })).json();
      return (account.top_pages as { path: string; page_views: number }[]).filter((p) => p.path.startsWith(PATH)).sort((a, b) => (a.path < b.path ? -1 : 1));
    };
    // UTM collapsed into the path, each kept value a page of its own; no email, no token anywhere.
    await expect.poll(mine).toEqual([
      { path: PATH, page_views: 1 },
      { path: `${PATH}?plan=basic`, page_views: 1 },
      { path: `${PATH}?plan=pro`, page_views: 1 },
    ]);
  });
});
