/**
 * Declarative personalisation in Chromium against the real server and the minified bundle: the rule
 * language, templates (text, never HTML), attributes, form fill, single-page apps (elements added later,
 * history navigations) and the svc:personalized exposure event. Rules, templates and attributes run on
 * the full bundle and the personalisation-only variant, form fill on the full bundle and the
 * form-fill-only variant, single-page apps on the full bundle.
 */
import { expect, test } from '@playwright/test';
import {
  answerFor,
  countRequests,
  delayApi,
  ensureVariantTag,
  events,
  FULL,
  failOnPageErrors,
  pick,
  recordEvents,
  serve,
  type Variant,
  type Visitor,
  variant,
  visitors,
  waitForEvent,
} from './helpers.ts';

/** Each feature alone (no spa: what is parsed after the bundle ran is personalised at DOMContentLoaded). */
const PERSONALISATION_ONLY = variant({ personalisation: true });
const FORM_FILL_ONLY = variant({ form_fill: true });

let company: Visitor;
let isp: Visitor;
let answer: any;
test.beforeAll(async ({ request }) => {
  for (const v of [PERSONALISATION_ONLY, FORM_FILL_ONLY]) await ensureVariantTag(request, v);
  const list = await visitors(request);
  company = pick(list, (v) => v.label.startsWith('In segment'), 'in-segment company');
  isp = pick(list, (v) => v.kind === 'isp', 'ISP');
  answer = await answerFor(request, company.ip);
});

test.beforeEach(({ page }) => recordEvents(page));
failOnPageErrors();

const q = (s: string) => JSON.stringify(String(s)).replace(/'/g, '&#39;');

for (const v of [FULL, PERSONALISATION_ONLY] as Variant[]) {
  test.describe(`variant ${v.name}`, () => {
    test('the rule language: field comparisons, stages at or above, match / no match, and / or', async ({ page, request }) => {
      // Read now: the page views of earlier tests raise the visitor's first-party intent (buying stage).
      const answer = await answerFor(request, company.ip);
      const c = answer.company;
      const product = answer.scores[0];
      const stages = ['Target', 'Awareness', 'Consideration', 'Decision', 'Purchase'];
      const next = stages[stages.indexOf(product.buying_stage) + 1];
      // [rule, expected for this company visitor, expected for an ISP visitor]
      const rules: [string, boolean, boolean][] = [
        ['match', true, false],
        ['no match', false, true],
        [`industry = ${q(c.industry)}`, true, false],
        ['industry = "No Such Industry"', false, false],
        [`industry != "No Such Industry"`, true, true],
        [`employee_range = ${q(c.employee_range)}`, true, false],
        [`country = ${q(c.country)}`, true, false],
        [`country_iso_code = ${c.country_iso_code.toLowerCase()}`, true, false],
        [`segment = ${q(answer.segments.names[0])}`, true, false],
        [`segment = ${answer.segments.ids[0]}`, true, false],
        [`buying_stage >= ${product.buying_stage}`, true, false],
        [`${product.product}.buying_stage >= ${product.buying_stage}`, true, false],
        ...(next ? ([[`${product.product}.buying_stage >= ${next}`, false, false]] as [string, boolean, boolean][]) : []),
        [`profile_fit = ${product.profile_fit}`, true, false],
        [`match and confidence >= ${answer.confidence}`, true, false],
        ['match and industry = "No Such Industry"', false, false],
        ['industry = "No Such Industry" or match', true, false],
        ['no match or segment = "No Such Segment" and match', false, true],
        ['not match', false, true],
        [`not (industry = ${q(c.industry)} or segment = "No Such Segment")`, false, true],
        [`(no match or industry = ${q(c.industry)}) and not segment = "No Such Segment"`, true, true],
        ['industry = ', false, false], // malformed: false, never throws
        ['(match', false, false],
      ];
      const body = rules.map(([rule], i) => `<p id="r${i}" data-svc-show='${rule}' hidden>${i}</p>`).join('\n');
      const url = await serve(page, '/t/rules', { body: body + '<p id="hideme" data-svc-hide="match">generic</p>', snippet: { tagId: v.tag } });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      const shown = async () =>
        page.evaluate((n) => Array.from({ length: n }, (_, i) => !(document.getElementById('r' + i) as HTMLElement).hidden), rules.length);
      expect(await shown()).toEqual(rules.map((r) => r[1]));
      await expect(page.locator('#hideme')).toBeHidden();

      await page.goto(`${url}?svc_test_ip=${isp.ip}`);
      await waitForEvent(page, 'svc:ready');
      expect(await shown()).toEqual(rules.map((r) => r[2]));
      await expect(page.locator('#hideme')).toBeVisible();
    });

    test('templates with fallbacks; text is inserted as text, never HTML', async ({ page }) => {
      const body = `
      <h1 id="hello" data-svc-text="Hello {company.name|there}">Hello there</h1>
      <span id="name" data-svc-text="company.name">your company</span>
      <span id="fallback" data-svc-text="company.name|your team">your team</span>
      <span id="multi" data-svc-text="{industry} in {company.country} ({confidence})">default</span>
      <span id="keep" data-svc-text="company.nope">kept default</span>
      <p id="html" data-svc-text="<img src=x onerror=window.__pwned=1>{company.name}">x</p>`;
      const url = await serve(page, '/t/templates', { body, snippet: { tagId: v.tag } });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      const c = answer.company;
      await expect(page.locator('#hello')).toHaveText(`Hello ${c.name}`);
      await expect(page.locator('#name')).toHaveText(c.name);
      await expect(page.locator('#fallback')).toHaveText(c.name);
      await expect(page.locator('#multi')).toHaveText(`${c.industry} in ${c.country} (${answer.confidence})`);
      await expect(page.locator('#keep')).toHaveText('kept default');
      await expect(page.locator('#html')).toHaveText(`<img src=x onerror=window.__pwned=1>${c.name}`);
      expect(await page.locator('#html img').count()).toBe(0);
      expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();

      await page.goto(`${url}?svc_test_ip=${isp.ip}`);
      await waitForEvent(page, 'svc:ready');
      await expect(page.locator('#hello')).toHaveText('Hello there');
      await expect(page.locator('#name')).toHaveText('your company');
      await expect(page.locator('#fallback')).toHaveText('your team');
    });

    test('data-svc-attr sets attributes from templates, never event handlers or javascript: URLs', async ({ page }) => {
      const body = `<a id="cta" href="/contact" data-svc-attr="title:Demo for {company.name|you}; href:/contact?account={company.domain|none}; onclick:alert(1); data-industry:{industry}">Contact</a>
      <a id="js" href="/safe" data-svc-attr="href:{company.nope|javascript:alert(1)}">x</a>`;
      const url = await serve(page, '/t/attr', { body, snippet: { tagId: v.tag } });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      await waitForEvent(page, 'svc:ready');
      const cta = page.locator('#cta');
      await expect(cta).toHaveAttribute('title', `Demo for ${answer.company.name}`);
      await expect(cta).toHaveAttribute('href', `/contact?account=${answer.company.domain}`);
      await expect(cta).toHaveAttribute('data-industry', answer.company.industry);
      expect(await cta.getAttribute('onclick')).toBeNull();
      await expect(page.locator('#js')).toHaveAttribute('href', '/safe');
    });
  });
}

for (const v of [FULL, FORM_FILL_ONLY] as Variant[]) {
  test.describe(`variant ${v.name}`, () => {
    test('form fill: fills empty fields once data arrives, never what the visitor typed, fires input/change, hides filled fields', async ({ page }) => {
      await delayApi(page, 800);
      const body = `
      <form id="f" data-svc-fill>
        <label>Email <input id="email" name="email"></label>
        <label id="company-row" data-svc-hide-when-filled>Company <input id="company" name="company"></label>
        <label>Industry <input id="industry" name="Industry"></label>
        <label id="emp-row" data-svc-hide-when-filled>Employees <input id="employees" name="NumberOfEmployees"></label>
        <input id="website" type="hidden" name="website">
        <input id="react" name="organization">
      </form>
      <input id="explicit" data-svc-fill="company.industry">
      <input id="unknown" data-svc-fill="company.nope" value="">`;
      const head = `<script>
      window.__changes = [];
      document.addEventListener('input', e => __changes.push('input:' + e.target.id), true);
      document.addEventListener('change', e => __changes.push('change:' + e.target.id), true);
      // A miniature of React's value tracking: the framework sees a change only if the DOM value differs
      // from what it last set through the element's own "value" property.
      document.addEventListener('DOMContentLoaded', () => {
        const el = document.getElementById('react'), native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
        let tracked = el.value;
        Object.defineProperty(el, 'value', { configurable: true, get() { return native.get.call(this) }, set(v) { tracked = v; native.set.call(this, v) } });
        el.addEventListener('input', () => { if (el.value !== tracked) { tracked = el.value; window.__reactOnChange = el.value } });
      });
    </script>`;
      const url = await serve(page, '/t/form', { body, head, snippet: { tagId: v.tag } });
      await page.goto(`${url}?svc_test_ip=${company.ip}`);
      // The visitor types into Industry before the answer arrives.
      await page.locator('#industry').fill('My own industry');
      await waitForEvent(page, 'svc:ready');
      const c = answer.company;
      await expect(page.locator('#company')).toHaveValue(c.name);
      await expect(page.locator('#industry')).toHaveValue('My own industry');
      await expect(page.locator('#employees')).toHaveValue(c.employee_count);
      await expect(page.locator('#website')).toHaveValue(c.domain);
      await expect(page.locator('#email')).toHaveValue('');
      await expect(page.locator('#explicit')).toHaveValue(c.industry);
      await expect(page.locator('#unknown')).toHaveValue('');
      await expect(page.locator('#company-row')).toBeHidden();
      await expect(page.locator('#emp-row')).toBeHidden();
      const changes: string[] = await page.evaluate(() => (window as any).__changes);
      for (const id of ['company', 'employees', 'website', 'explicit']) {
        expect(changes).toContain(`input:${id}`);
        expect(changes).toContain(`change:${id}`);
      }
      expect(await page.evaluate(() => (window as any).__reactOnChange)).toBe(c.name);
      // Filled once: a visitor who clears the field keeps it cleared when the page changes later.
      await page.locator('#explicit').fill('');
      await page.evaluate(() => document.body.append(Object.assign(document.createElement('p'), { textContent: 'later' })));
      await page.waitForTimeout(100);
      await expect(page.locator('#explicit')).toHaveValue('');
    });
  });
}

test('single-page apps: elements added later and history navigations are personalised without a new request', async ({ page }) => {
  const requests = countRequests(page);
  const url = await serve(page, '/t/spa', { body: '<main id="app"><h1 id="t1" data-svc-text="Hi {company.name|there}">Hi there</h1></main>' });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  const name = answer.company.name;
  await expect(page.locator('#t1')).toHaveText(`Hi ${name}`);
  // The app renders a new route: pushState, then new elements.
  await page.evaluate(() => {
    history.pushState({}, '', '/t/spa/pricing' + location.search);
    document.getElementById('app')!.innerHTML =
      '<h2 id="t2" data-svc-text="Plans for {company.name|you}">Plans for you</h2><p id="s2" data-svc-show="match" hidden>For you</p>';
  });
  await expect(page.locator('#t2')).toHaveText(`Plans for ${name}`);
  await expect(page.locator('#s2')).toBeVisible();
  // A framework re-rendering a text node in place is corrected again.
  await page.evaluate(() => ((document.getElementById('t2')!.firstChild as Text).data = 'Plans for you'));
  await expect(page.locator('#t2')).toHaveText(`Plans for ${name}`);
  // Back: the previous view, same answer.
  await page.goBack();
  await page.evaluate(() => (document.getElementById('app')!.innerHTML = '<h1 id="t3" data-svc-text="Back, {company.name|friend}">Back</h1>'));
  await expect(page.locator('#t3')).toHaveText(`Back, ${name}`);
  expect(requests()).toHaveLength(1);
  expect(await events(page, 'svc:ready')).toHaveLength(1);
});

test('svc:personalized reports which elements and rules applied, each once per view', async ({ page }) => {
  const body = `<h1 id="h" data-svc-text="Hello {company.name|there}">Hello there</h1>
    <p id="s" data-svc-show="match" hidden>hi</p><p id="n" data-svc-show="no match" hidden>new here?</p><p id="plain">plain</p>`;
  const url = await serve(page, '/t/exposure', { body });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:personalized');
  const [first] = await events(page, 'svc:personalized');
  expect(first.detail.elements).toEqual([
    { element: 'h', shown: true, text: 'Hello {company.name|there}' },
    { element: 's', shown: true, show: 'match' },
    { element: 'n', shown: false, show: 'no match' },
  ]);
  // Later elements come in a later event, alone.
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<b id="late" data-svc-text="company.industry">x</b>'));
  await waitForEvent(page, 'svc:personalized', 2);
  expect((await events(page, 'svc:personalized'))[1].detail.elements).toEqual([{ element: 'late', shown: true, text: 'company.industry' }]);
  // A history navigation is a new view: everything is reported again; so is personalize().
  await page.evaluate(() => {
    history.pushState({}, '', location.pathname + '/next' + location.search);
    document.body.append(document.createElement('hr'));
  });
  await waitForEvent(page, 'svc:personalized', 3);
  expect((await events(page, 'svc:personalized'))[2].detail.elements.map((e: any) => e.element)).toEqual(['h', 's', 'n', 'late']);
  await page.evaluate(() => (window as any).svc.push(['personalize']));
  await waitForEvent(page, 'svc:personalized', 4);
  const ready = (await events(page)).findIndex((e) => e.type === 'svc:ready');
  expect((await events(page)).findIndex((e) => e.type === 'svc:personalized')).toBeLessThan(ready); // personalised, then ready
});
