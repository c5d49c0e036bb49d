/**
 * The tag's behaviour in Chromium against the real server (demo mode) and the minified bundle: starts
 * before the load event, one request per cache TTL per visitor, blocked storage, included twice, Global
 * Privacy Control, consent, opt-out, minimum confidence, dataLayer fields and a GTM that loads later,
 * debug logging, unknown commands. Run against the bundle with every feature (the demo tag) and the
 * core variant (no feature: nothing is personalised, everything else the same).
 */
import { expect, type Page, test } from '@playwright/test';
import {
  answerFor,
  CORE,
  countRequests,
  dataLayer,
  ensureVariantTag,
  events,
  FULL,
  failOnPageErrors,
  ORIGIN,
  pick,
  recordEvents,
  serve as serveOn,
  type TestPage,
  type Visitor,
  visitors,
  waitForEvent,
} from './helpers.ts';

const SCALE = ['Low', 'Moderate', 'High', 'Very High'];
let company: Visitor;
let isp: Visitor;
let answer: any;
/** A company visitor whose answer is below Very High, and that answer. */
let modest: { visitor: Visitor; answer: any } | undefined;
test.beforeAll(async ({ request }) => {
  await ensureVariantTag(request, CORE);
  const list = await visitors(request);
  company = pick(list, (v) => v.label.startsWith('In segment'), 'in-segment company');
  isp = pick(list, (v) => v.kind === 'isp', 'ISP');
  answer = await answerFor(request, company.ip);
  for (const v of list.filter((x) => x.kind === 'company')) {
    const a = await answerFor(request, v.ip);
    if (a.company.company_match === 'Match' && SCALE.indexOf(a.confidence) < 3) {
      modest = { visitor: v, answer: a };
      break;
    }
  }
});

const BODY = `<h1 id="title" data-svc-text="Hello {company.name|there}">Hello there</h1>
  <p id="welcome" data-svc-show="match" hidden>Welcome back</p>`;

test.beforeEach(({ page }) => recordEvents(page));
failOnPageErrors();

for (const v of [FULL, CORE]) {
  test.describe(`variant ${v.name}`, () => {
    /** The test page on this variant's tag. */
    const serve = (page: Page, path: string, content: TestPage) => serveOn(page, path, { snippet: { tagId: v.tag }, ...content });
    /** The personalised title; the core variant personalises nothing, so the page keeps its default. */
    const expectTitle = (page: Page, text: string) => expect(page.locator('#title')).toHaveText(v.features.personalisation ? text : 'Hello there');
    const expectWelcome = (page: Page, visible: boolean) => expect(page.locator('#welcome')).toBeVisible({ visible: v.features.personalisation && visible });

    test('asks as soon as it runs, long before the load event', async ({ page }) => {
      // A slow image holds the load event back by 1.5 s.
      await page.route('**/slow.png', async (r) => {
        await new Promise((res) => setTimeout(res, 1500));
        await r.fulfill({
          status: 200,
          contentType: 'image/png',
          body: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'),
        });
      });
      let askedAt = 0;
      page.on('request', (r) => {
        if (r.url().includes('/v3/company/details')) askedAt = Date.now();
      });
      const url = await serve(page, '/t/early', { body: BODY + '<img src="/slow.png" alt="">' });
      await page.goto(`${url}?svc_test_ip=${company.ip}`, { waitUntil: 'load' });
      const [origin, loadStart] = await page.evaluate(() => [
        performance.timeOrigin,
        (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventStart,
      ]);
      expect(askedAt).toBeGreaterThan(0);
      expect(origin + loadStart - askedAt).toBeGreaterThan(1000); // asked more than a second before load
      const [ready] = await events(page, 'svc:ready');
      expect(ready.at).toBeLessThan(loadStart); // and personalised before it
    });

    test('one request per cache TTL per visitor: reloads and other pages use the cache', async ({ page }) => {
      const requests = countRequests(page);
      const a = await serve(page, '/t/cache-a', { body: BODY });
      const b = await serve(page, '/t/cache-b', { body: BODY });
      await page.goto(`${a}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect((await events(page, 'svc:ready'))[0].detail.cached).toBe(false);
      await page.reload();
      await waitForEvent(page, 'svc:ready');
      await page.goto(`${b}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      await expectTitle(page, `Hello ${answer.company.name}`);
      expect((await events(page, 'svc:ready'))[0].detail.cached).toBe(true);
      expect(requests()).toHaveLength(1);
      expect(requests()[0]).toBe(`${ORIGIN}/v3/company/details?tag=${v.tag}&test_ip=${company.ip}`);
      // Another visitor (test IP) is another cache entry.
      await page.goto(`${b}?svc_test_ip=${isp.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect(requests()).toHaveLength(2);
    });

    test('asks again once the TTL (setCacheTTL) has passed', async ({ page }) => {
      const requests = countRequests(page);
      const url = await serve(page, '/t/ttl', { body: BODY, head: '<script>svc.push(["setCacheTTL",800])</script>' });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      await page.reload();
      await waitForEvent(page, 'svc:ready');
      expect(requests()).toHaveLength(1);
      await page.waitForTimeout(900);
      await page.reload();
      await waitForEvent(page, 'svc:ready');
      expect(requests()).toHaveLength(2);
    });

    test('works when storage is blocked (memory for the page view)', async ({ page }) => {
      await page.addInitScript(() => {
        Object.defineProperty(window, 'localStorage', {
          get() {
            throw new DOMException('The operation is insecure.', 'SecurityError');
          },
        });
      });
      const requests = countRequests(page);
      const url = await serve(page, '/t/nostorage', { body: BODY });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      await expectTitle(page, `Hello ${answer.company.name}`);
      await expectWelcome(page, true);
      // Opt-out is kept in memory for the rest of the page view.
      await page.evaluate(() => (window as any).svc.push(['optOut', true]));
      await waitForEvent(page, 'svc:error');
      expect((await events(page, 'svc:error'))[0].detail).toEqual({ status: 0, message: 'opted out' });
      expect(requests()).toHaveLength(1);
    });

    test('included twice (snippet and bundle): one request, one answer, no error', async ({ page }) => {
      test.skip(v !== FULL, 'the generic bundle / debug logging: the full bundle only');
      const requests = countRequests(page);
      const url = await serve(page, '/t/twice', {
        body: BODY + `<script async src="/tag/v1/${v.tag}.js"></script><script src="/tag/v1/svc.js"></script>`,
        head: `<script>window.svc.push(["init",{"tag":"${v.tag}"}])</script>`,
      });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      await page.waitForTimeout(300);
      expect(await events(page, 'svc:ready')).toHaveLength(1);
      expect(await dataLayer(page)).toHaveLength(1);
      expect(requests()).toHaveLength(1);
      await expectTitle(page, `Hello ${answer.company.name}`);
      expect(await page.evaluate(() => document.querySelectorAll('style').length)).toBe(1);
    });

    test('honours Global Privacy Control by default: no lookup, default content, svc:error "gpc"', async ({ page }) => {
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
      const requests = countRequests(page);
      const url = await serve(page, '/t/gpc', { body: BODY });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:error');
      expect((await events(page, 'svc:error'))[0].detail).toEqual({ status: 0, message: 'gpc' });
      expect(requests()).toEqual([]);
      await expectTitle(page, 'Hello there');
      await expect(page.locator('#title')).toBeVisible(); // revealed at once, no waiting for the timeout
      expect(await page.evaluate(() => (window as any).svc.data)).toBeNull();
    });

    test('a documented setting ignores Global Privacy Control ({ gpc: false })', async ({ page }) => {
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }));
      const requests = countRequests(page);
      const url = await serve(page, '/t/gpc-off', { body: BODY, head: '<script>svc.push(["init",{"gpc":false}])</script>' });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect(requests()).toHaveLength(1);
    });

    test('consent pending holds the lookup until granted; denied never asks', async ({ page }) => {
      const requests = countRequests(page);
      const url = await serve(page, '/t/consent', { body: BODY, head: '<script>svc.push(["consent","pending"])</script>' });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await page.waitForTimeout(1200);
      expect(requests()).toEqual([]);
      expect(await events(page)).toEqual([]);
      await expect(page.locator('#title')).toBeVisible(); // the anti-flicker timeout still reveals
      await page.evaluate(() => (window as any).svc.push(['consent', 'granted']));
      await waitForEvent(page, 'svc:ready');
      await expectTitle(page, `Hello ${answer.company.name}`);
      expect(requests()).toHaveLength(1);

      const denied = await serve(page, '/t/consent-denied', { body: BODY, head: '<script>svc.push(["consent","denied"])</script>' });
      await page.goto(`${denied}?svc_test_ip=${isp.ip}`);
      await waitForEvent(page, 'svc:error');
      expect((await events(page, 'svc:error'))[0].detail).toEqual({ status: 0, message: 'consent denied' });
      expect(requests()).toHaveLength(1);
    });

    test('opt-out is persisted: no lookup and default content on later pages, until opted in again', async ({ page }) => {
      const requests = countRequests(page);
      const url = await serve(page, '/t/optout', { body: BODY });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      await page.evaluate(() => (window as any).svc.push(['optOut', true]));
      expect(await page.evaluate(() => localStorage.getItem('svc:optout'))).toBe('1');
      await page.reload();
      await waitForEvent(page, 'svc:error');
      expect((await events(page, 'svc:error'))[0].detail).toEqual({ status: 0, message: 'opted out' });
      await expectTitle(page, 'Hello there');
      await expectWelcome(page, false);
      expect(await dataLayer(page)).toEqual([]);
      expect(requests()).toHaveLength(1); // the cached answer was dropped too, and nothing was asked
      await page.evaluate(() => (window as any).svc.push(['optOut', false]));
      await waitForEvent(page, 'svc:ready');
      expect(requests()).toHaveLength(2);
    });

    test('answers below the minimum confidence are treated as no match', async ({ page }) => {
      test.skip(!modest, 'the sample data has no company answer below Very High');
      const { visitor, answer: a } = modest!;
      const above = SCALE[SCALE.indexOf(a.confidence) + 1];
      const url = await serve(page, '/t/minconf', { body: BODY, head: `<script>svc.push(["setMinConfidence",${JSON.stringify(above)}])</script>` });
      await page.goto(`${url}?svc_test_ip=${visitor.ip}`);
      await waitForEvent(page, 'svc:ready');
      await expectTitle(page, 'Hello there');
      await expectWelcome(page, false);
      expect(await dataLayer(page)).toEqual([{ event: 'svc_company_not_identified', svc_company_match: 'No Match' }]);
      expect(await page.evaluate(() => (window as any).svc.data)).toEqual({ company: { company_match: 'No Match' } });
      // At the answer's own level it is a match.
      const same = await serve(page, '/t/minconf-same', {
        body: BODY,
        head: `<script>svc.push(["setMinConfidence",${JSON.stringify(a.confidence)}])</script>`,
      });
      await page.goto(`${same}?svc_test_ip=${visitor.ip}`);
      await waitForEvent(page, 'svc:ready');
      await expectTitle(page, `Hello ${a.company.name}`);
    });

    test('dataLayer: flat svc_ keys without address or phone, created if absent, seen by a GTM that loads later', async ({ page }) => {
      const url = await serve(page, '/t/datalayer', { body: BODY });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      const [entry] = await dataLayer(page);
      const c = answer.company;
      expect(entry).toMatchObject({
        event: 'svc_company_details_loaded',
        svc_company_name: c.name,
        svc_company_domain: c.domain,
        svc_industry: c.industry,
        svc_employee_range: c.employee_range,
        svc_segment_names: answer.segments.names.join(','),
        svc_confidence: answer.confidence,
      });
      // Scores as the page got them: the page views of earlier tests raise the visitor's first-party intent.
      const { scores } = await page.evaluate(() => (window as any).svc.data);
      expect(scores.length).toBe(answer.scores.length);
      for (const s of scores) {
        expect(entry[`svc_${s.product.replace(/\W+/g, '_').toLowerCase()}_buying_stage`]).toBe(s.buying_stage);
      }
      for (const key of Object.keys(entry)) if (key !== 'event') expect(key).toMatch(/^svc_[a-z0-9_]+$/);
      expect(Object.keys(entry).filter((k) => /address|zip|phone|geoip/.test(k))).toEqual([]);
      // A tag manager that loads after the answer (like gtm.js) processes what is already in the array.
      await page.addScriptTag({
        content: `(function(){var dl=window.dataLayer;window.__gtm=[];dl.forEach(function(e){__gtm.push(e.event)});var p=dl.push;dl.push=function(e){__gtm.push(e.event);return p.apply(dl,arguments)}})()`,
      });
      expect(await page.evaluate(() => (window as any).__gtm)).toEqual(['svc_company_details_loaded']);
    });

    test('setFields chooses what goes to the dataLayer (address and phone only when asked)', async ({ page }) => {
      const url = await serve(page, '/t/fields', { body: BODY, head: '<script>svc.push(["setFields",["name","industry","phone"]])</script>' });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect(await dataLayer(page)).toEqual([
        {
          event: 'svc_company_details_loaded',
          svc_company_match: 'Match',
          svc_company_name: answer.company.name,
          svc_industry: answer.company.industry,
          svc_phone: answer.company.phone,
        },
      ]);
    });

    test('?svc_debug=1 logs each decision and event; unknown commands are reported there and ignored', async ({ page }) => {
      test.skip(v !== FULL, 'the generic bundle / debug logging: the full bundle only');
      const logs: string[] = [];
      /** [rule, shown] of each element a logged `personalized` event reports. */
      const ruleResults: [string | undefined, boolean][] = [];
      page.on('console', async (m) => {
        if (!m.text().startsWith('[svc]')) return;
        logs.push(m.text());
        const [, name, detail] = m.args();
        if (detail && (await name!.jsonValue()) === 'personalized') {
          ruleResults.push(...(await detail.evaluate((d: any) => d.elements.map((e: any) => [e.show, e.shown] as [string | undefined, boolean]))));
        }
      });
      const head = '<script>svc.push(["frobnicate",1],["setMinConfidence","Low"])</script>';
      const url = await serve(page, '/t/debug', { body: BODY, head });
      await page.goto(`${url}?svc_test_ip=${company.ip}&svc_debug=1`);
      await waitForEvent(page, 'svc:ready');
      await expect.poll(() => logs.length).toBeGreaterThan(2);
      expect(logs).toContain('[svc] unknown command frobnicate');
      expect(logs.some((l) => l.includes(`svc:${v.tag}:${company.ip}`))).toBe(true); // the cache/lookup decision
      expect(logs.some((l) => l.startsWith('[svc] ready'))).toBe(true); // each event, with its detail
      await expect.poll(() => ruleResults).toContainEqual(['match', true]); // a rule decision: data-svc-show="match" → shown
      // Without the flag: silent.
      logs.length = 0;
      const quiet = await serve(page, '/t/quiet', { body: BODY, head });
      await page.goto(`${quiet}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect(logs).toEqual([]);
      // The debug command turns it on later.
      await page.evaluate(() => (window as any).svc.push(['debug', true], ['nope']));
      await expect.poll(() => logs).toContain('[svc] unknown command nope');
    });

    test('the generic bundle, configured live: commands pushed after it loaded run at once', async ({ page }) => {
      test.skip(v !== FULL, 'the generic bundle / debug logging: the full bundle only');
      const requests = countRequests(page);
      const url = await serve(page, '/t/generic', { body: BODY + '<script src="/tag/v1/svc.js"></script>', snippet: false });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      expect(await page.evaluate(() => typeof (window as any).svc.push)).toBe('function');
      expect(requests()).toEqual([]); // no tag yet: nothing asked
      await page.evaluate((tag) => {
        const svc = (window as any).svc;
        svc.push(['onReady', (d: any) => ((window as any).__ready = d.data.company.name)]);
        svc.push(['setTag', tag]);
      }, v.tag);
      await waitForEvent(page, 'svc:ready');
      expect(await page.evaluate(() => (window as any).__ready)).toBe(answer.company.name);
      await expectTitle(page, `Hello ${answer.company.name}`);
      expect(requests()).toHaveLength(1);
    });

    test('in demo mode ?svc_test_ip= asks as that address (the server honours it only there)', async ({ page }) => {
      const requests = countRequests(page);
      const url = await serve(page, '/t/testip', { body: BODY });
      await page.goto(`${url}?svc_test_ip=${isp.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect(requests()[0]).toContain(`test_ip=${isp.ip}`);
      expect(await page.evaluate(() => (window as any).svc.data.company.company_match)).toBe('Non-actionable Match');
      await expectTitle(page, 'Hello there');
    });
  });
}
