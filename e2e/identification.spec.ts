/**
 * The whole path in a real Chromium: demo page → snippet → /tag/v1/svc.js → /v3/company/details (real
 * server, demo mode, committed sample data) → window.svc, personalisation, events, dataLayer.
 */
import { expect, type Page, test } from '@playwright/test';
import { displayName } from '../core/company-name.ts';
import { countRequests, pick, visitors as sampleVisitors, type Visitor } from './helpers.ts';

let visitors: Visitor[];
test.beforeAll(async ({ request }) => {
  visitors = await sampleVisitors(request);
});

const visitor = (pred: (v: Visitor) => boolean, what: string) => pick(visitors, pred, what);

const dataLayerEvents = (page: Page) =>
  page.evaluate(() =>
    ((window as unknown as { dataLayer?: Record<string, unknown>[] }).dataLayer ?? []).filter((e) => typeof e.event === 'string' && e.event.startsWith('svc_')),
  );

test('a visitor from a sample company in the segment sees the personalised hero, the segment section and the dataLayer event', async ({ page }) => {
  const v = visitor((x) => x.label.startsWith('In segment'), 'in-segment company');
  const requests = countRequests(page);
  await page.goto(`/?svc_test_ip=${v.ip}`);
  await expect(page.getByTestId('hero-title')).toHaveText(`Customer data ${displayName(v.company!)} can trust`);
  await expect(page.getByTestId('segment-section')).toBeVisible();
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { svc: { data: { company: { company_match: string } } | null } }).svc.data?.company.company_match))
    .toBe('Match');
  const events = await dataLayerEvents(page);
  expect(events).toContainEqual(expect.objectContaining({ event: 'svc_company_details_loaded', svc_company_name: v.company }));
  // Address and phone never reach the dataLayer.
  expect(JSON.stringify(events)).not.toMatch(/svc_(address|phone|zip)"/);
  expect(requests()).toHaveLength(1);

  // A reload is served from the tag's cache: no second request, no second credit.
  await page.reload();
  await expect(page.getByTestId('hero-title')).toHaveText(`Customer data ${displayName(v.company!)} can trust`);
  await expect(page.getByTestId('segment-section')).toBeVisible();
  expect(requests()).toHaveLength(1);
});

test('window.svc exposes data, push, on and a ready that also fires for late subscribers', async ({ page }) => {
  const v = visitor((x) => x.label.startsWith('In segment'), 'in-segment company');
  await page.addInitScript(() => {
    const w = window as unknown as { svc: unknown[]; early: unknown[] };
    w.early = [];
    (w.svc = w.svc || []).push(['onReady', (d: { data: { company: { name: string } } }) => w.early.push(d.data.company.name)]);
  });
  await page.goto(`/?svc_test_ip=${v.ip}`);
  await expect.poll(() => page.evaluate(() => (window as unknown as { early: unknown[] }).early)).toEqual([v.company]);
  const late = await page.evaluate(
    () =>
      new Promise<{ name: string; keys: string[] }>((resolve) => {
        const svc = (window as unknown as { svc: { ready(cb: (d: { data: { company: { name: string } } }) => void): void } }).svc;
        svc.ready((d) => resolve({ name: d.data.company.name, keys: Object.keys(svc).sort() }));
      }),
  );
  expect(late.name).toBe(v.company);
  expect(late.keys).toEqual(expect.arrayContaining(['data', 'on', 'push', 'ready']));
  // on(): every later event, e.g. a re-personalisation after new content.
  const personalized = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const svc = (window as unknown as { svc: { on(e: string, cb: (d: { elements: unknown[] }) => void): void } }).svc;
        svc.on('personalized', (d) => resolve(d.elements.length));
        const p = document.createElement('p');
        p.setAttribute('data-svc-text', 'company.name');
        document.body.append(p);
      }),
  );
  expect(personalized).toBeGreaterThan(0);
});

test('a visitor from an ISP network sees the default content and the not-identified event', async ({ page }) => {
  const v = visitor((x) => x.kind === 'isp', 'ISP');
  await page.goto(`/?svc_test_ip=${v.ip}`);
  await expect.poll(async () => (await dataLayerEvents(page)).map((e) => e.event)).toContain('svc_company_not_identified');
  const events = await dataLayerEvents(page);
  expect(events).toContainEqual(expect.objectContaining({ event: 'svc_company_not_identified', svc_company_match: 'Non-actionable Match' }));
  await expect(page.getByTestId('hero-title')).toHaveText('Customer data your whole team can trust');
  await expect(page.getByTestId('segment-section')).toBeHidden();
});

test('a visitor from nowhere gets No Match and default content', async ({ page }) => {
  const v = visitor((x) => x.kind === 'none', 'unknown-address');
  await page.goto(`/?svc_test_ip=${v.ip}`);
  await expect.poll(async () => (await dataLayerEvents(page)).map((e) => e.event)).toContain('svc_company_not_identified');
  await expect(page.getByTestId('hero-title')).toHaveText('Customer data your whole team can trust');
});

test('a page on a domain the tag does not allow gets no data and stays intact', async ({ page, baseURL }) => {
  const v = visitor((x) => x.label.startsWith('In segment'), 'in-segment company');
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const statuses: number[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/v3/company/details')) statuses.push(r.status());
  });
  await page.addInitScript(() => {
    document.addEventListener('svc:error', (e) => ((window as unknown as { svcErrors: unknown[] }).svcErrors ??= []).push((e as CustomEvent).detail));
  });
  const foreign = baseURL!.replace('localhost', 'shop.example.test');
  await page.goto(`${foreign}/?svc_test_ip=${v.ip}`);
  await expect.poll(() => page.evaluate(() => ((window as unknown as { svcErrors?: unknown[] }).svcErrors ?? []).length)).toBeGreaterThan(0);
  expect(statuses).toEqual([403]);
  await expect(page.getByTestId('hero-title')).toHaveText('Customer data your whole team can trust');
  await expect(page.getByTestId('segment-section')).toBeHidden();
  expect(await page.evaluate(() => (window as unknown as { svc: { data: unknown } }).svc.data)).toBeNull();
  expect(errors).toEqual([]);
});

test('the visitor switcher lists sample visitors and reloads the page as one of them', async ({ page }) => {
  await page.goto('/');
  const switcher = page.getByTestId('visitor-switcher');
  await expect(switcher).toBeVisible();
  const v = visitor((x) => x.kind === 'hosting', 'hosting');
  await switcher
    .getByRole('button', { name: new RegExp(v.label.split(':')[0]) })
    .first()
    .click();
  await expect(page).toHaveURL(new RegExp(`svc_test_ip=${v.ip.replace(/\./g, '\\.')}`));
  await expect(page.getByTestId('svc-data-panel')).toContainText('Non-actionable Match');
});
