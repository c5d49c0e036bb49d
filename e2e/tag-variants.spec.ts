/**
 * Every bundle variant that ships (all 32 feature combinations, core/tag-features.ts) in Chromium, against the
 * real server: a tag of the demo customer per variant, one page carrying every feature's markup. Each
 * variant identifies the visitor and pushes to dataLayer (the core), and does exactly what its features
 * say — personalisation, form fill, page views, SPA navigations and late elements, debug logging — and
 * nothing a missing feature would do. The behaviour of each feature in depth is in the other tag-* specs.
 */
import { expect, test } from '@playwright/test';
import { ALL_VARIANTS } from '../core/tag-features.ts';
import {
  answerFor,
  captureBeacons,
  dataLayer,
  ensureVariantTag,
  events,
  failOnPageErrors,
  pick,
  recordEvents,
  serve,
  type Visitor,
  variant,
  visitors,
  waitForEvent,
} from './helpers.ts';

const VARIANTS = ALL_VARIANTS.map((features) => variant(features));

let company: Visitor;
let companyName: string;
test.beforeAll(async ({ request }) => {
  company = pick(await visitors(request), (v) => v.kind === 'company', 'company');
  companyName = (await answerFor(request, company.ip)).company.name;
  for (const v of VARIANTS) await ensureVariantTag(request, v);
});
failOnPageErrors();

const BODY = '<h1 id="title" data-svc-text="Hello {company.name|there}">Hello there</h1>' + '<form data-svc-fill><input name="company" id="company"></form>';

/** Long enough for a feature that is there to have acted (the observer and the beacon act at once). */
const SETTLE_MS = 300;

for (const v of VARIANTS) {
  const { personalisation, form_fill, spa, page_views, debug } = v.features;
  test(`variant ${v.name}: identifies, and does what its features say and nothing else`, async ({ page }) => {
    const { beacons } = await captureBeacons(page);
    await recordEvents(page);
    const logs: string[] = [];
    page.on('console', (m) => {
      if (m.text().startsWith('[svc]')) logs.push(m.text());
    });
    const url = await serve(page, '/t/variants', { body: BODY, snippet: { tagId: v.tag } });
    await page.goto(`${url}?svc_test_ip=${company.ip}&svc_debug=1`);
    await waitForEvent(page, 'svc:ready');
    await page.waitForLoadState('load');

    // The core: the answer on window.svc and in dataLayer.
    expect(await page.evaluate(() => (window as any).svc.data.company.company_match)).toBe('Match');
    expect((await dataLayer(page))[0]).toMatchObject({ event: 'svc_company_details_loaded', svc_company_name: companyName });

    await expect(page.locator('#title')).toHaveText(personalisation ? `Hello ${companyName}` : 'Hello there');
    await expect(page.locator('#company')).toHaveValue(form_fill ? companyName : '');
    expect((await events(page, 'svc:personalized')).length > 0).toBe(personalisation || form_fill);
    await expect.poll(() => beacons().filter((b) => b.body.type === 'pageview').length).toBe(page_views ? 1 : 0);

    // A single-page-app navigation that renders a new element.
    await page.evaluate(() => {
      history.pushState({}, '', '/t/variants-next');
      const late = document.createElement('p');
      late.id = 'late';
      late.dataset.svcText = 'company.name';
      late.textContent = 'late';
      document.body.append(late);
    });
    await page.waitForTimeout(SETTLE_MS);
    await expect(page.locator('#late')).toHaveText(spa && personalisation ? companyName : 'late');
    const sent = (type: string) => beacons().filter((b) => b.body.type === type);
    expect(sent('pageview').map((b) => b.body.path)).toEqual(page_views ? (spa ? ['/t/variants', '/t/variants-next'] : ['/t/variants']) : []);
    // The navigation ended the first page view's engaged time (page views' feature, with spa).
    expect(sent('engagement').map((b) => b.body.path)).toEqual(page_views && spa ? ['/t/variants'] : []);

    expect(logs.length > 0, logs.join('\n')).toBe(debug);
  });
}
