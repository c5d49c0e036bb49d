/**
 * The tag and the page's analytics tools (feature `integrations`) in Chromium against the real server: a
 * page whose stub `gtag` and `analytics` (Segment) record their calls, the demo customer's tags with the
 * visitor chosen by `svc_test_ip`. The account is told once to each tool asked for — by the tag's
 * setting or the `integrations` command — with what the `fields` allow-list lets out; nothing when the
 * tools are absent; a tool that loads late is told by the one retry; a tool that throws breaks nothing;
 * and the tag never adds a script element. Their code is the integrations chunk (`/tag/v1/integrations.<hash>.js`),
 * which the bundle imports only when a tool is asked for on a Match, once per page, under the page's CSP nonce.
 */
import { expect, type Page, test } from '@playwright/test';
import { flatten } from '../tag/src/datalayer.ts';
import { ga4Value, type Properties, tell } from '../tag/src/integrations.ts';
import {
  ADMIN_TOKEN,
  answerFor,
  ensureVariantTag,
  FULL,
  failOnPageErrors,
  pick,
  recordEvents,
  serve,
  type Visitor,
  variant,
  visitors,
  waitForEvent,
} from './helpers.ts';

/** Every feature and integrations, the tools chosen by the page's command. */
const WITH_CODE = variant({ integrations: true }, FULL.features);
/** A tag whose setting names the tools: told without any page command. */
const BY_SETTING = 'e2e-integrations-setting';
/** The tag retries once, this long after the answer (tag/src/tag.ts INTEGRATIONS_RETRY_MS), plus a margin. */
const AFTER_RETRY_MS = 2600;

let company: Visitor;
let isp: Visitor;
let answer: any;
test.beforeAll(async ({ request }) => {
  const list = await visitors(request);
  company = pick(list, (v) => v.kind === 'company', 'company');
  isp = pick(list, (v) => v.kind === 'isp', 'ISP');
  answer = await answerFor(request, company.ip);
  await ensureVariantTag(request, WITH_CODE);
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const tags = await (await request.get('/admin/api/tags?customer=demo', { headers })).json();
  if (!tags.some((t: { tag_id: string }) => t.tag_id === BY_SETTING)) {
    const res = await request.post('/admin/api/tags', {
      headers,
      data: {
        customer_id: 'demo',
        tag_id: BY_SETTING,
        allowed_domains: ['localhost', '127.0.0.1'],
        scores: true,
        segment_names: true,
        demo: true,
        settings: { features: { integrations: { ga4: true, segment: true } }, fields: ['name', 'domain', 'industry', 'employee_range', 'segments'] },
      },
    });
    expect(res.status()).toBe(201);
  }
});
failOnPageErrors();

/**
 * Stub tools recording their calls (as the GA4 and Segment snippets define their globals: at once), and a
 * record of every script element added to the page after the HTML (the tag must add none).
 */
async function stubTools(page: Page, tools: { gtag?: 'ok' | 'throws'; analytics?: 'ok' | 'late' } = { gtag: 'ok', analytics: 'ok' }): Promise<void> {
  await page.addInitScript((t) => {
    const w = window as any;
    w.__calls = [];
    if (t.gtag)
      w.gtag = (...args: unknown[]) => {
        w.__calls.push(['gtag', ...args]);
        if (t.gtag === 'throws') throw new Error('gtag is broken');
      };
    const analytics = { group: (...args: unknown[]) => w.__calls.push(['analytics.group', ...args]) };
    if (t.analytics === 'ok') w.analytics = analytics;
    if (t.analytics === 'late') addEventListener('load', () => setTimeout(() => (w.analytics = analytics), 500));
    // Scripts added once the HTML is parsed (the page's own are parsed before): when the answer arrives and
    // when the tag retries, the moments it would add a tool's script.
    w.__scripts = [];
    document.addEventListener('DOMContentLoaded', () =>
      new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) if (n.nodeName === 'SCRIPT') w.__scripts.push((n as HTMLScriptElement).src || 'inline');
      }).observe(document, { childList: true, subtree: true }),
    );
  }, tools);
}

const calls = (page: Page): Promise<unknown[][]> => page.evaluate(() => (window as any).__calls);
/** Scripts added after the HTML was parsed (the snippet's bundle script, were it late, aside). */
const addedScripts = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).__scripts.filter((s: string) => !s.includes('/tag/v1/')));

test('the tag setting: one gtag set user_properties and one analytics.group, with the allow-listed fields', async ({ page }) => {
  await stubTools(page);
  await recordEvents(page);
  await page.goto(`${await serve(page, '/t/int-setting', { body: '<h1>hi</h1>', snippet: { tagId: BY_SETTING } })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  await page.waitForTimeout(AFTER_RETRY_MS); // the retry tells nobody twice
  const c = answer.company;
  expect(await calls(page)).toEqual([
    [
      'gtag',
      'set',
      'user_properties',
      {
        svc_company_name: ga4Value(c.name),
        svc_company_domain: c.domain,
        svc_industry: c.industry,
        svc_employee_range: c.employee_range,
        svc_segment_ids: answer.segments?.ids?.join() ?? null,
        svc_segment_names: ga4Value(answer.segments?.names?.join() ?? null),
      },
    ],
    [
      'analytics.group',
      c.companyId,
      {
        name: c.name,
        domain: c.domain,
        industry: c.industry,
        employee_range: c.employee_range,
        segment_ids: answer.segments?.ids?.join() ?? null,
        segment_names: answer.segments?.names?.join() ?? null,
      },
    ],
  ]);
  expect(await addedScripts(page)).toEqual([]);
});

test('the integrations command: only the tools asked for; none when the tools are absent', async ({ page }) => {
  await stubTools(page);
  await recordEvents(page);
  const head = '<script>svc.push(["integrations",{"segment":true}])</script>';
  await page.goto(`${await serve(page, '/t/int-command', { body: '<h1>hi</h1>', snippet: { tagId: WITH_CODE.tag }, head })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  await page.waitForTimeout(AFTER_RETRY_MS);
  const told = await calls(page);
  expect(told.map((call) => call[0])).toEqual(['analytics.group']);
  expect(told[0][1]).toBe(answer.company.companyId);
  expect(told[0][2]).toMatchObject({ name: answer.company.name, domain: answer.company.domain });

  // No tools on the page: nothing called, nothing thrown, the tag answers as ever, no script added.
  const bare = await page.context().newPage();
  const errors: string[] = [];
  bare.on('pageerror', (e) => errors.push(e.message));
  await stubTools(bare, {});
  await recordEvents(bare);
  const both = '<script>svc.push(["integrations",{"ga4":true,"segment":true}])</script>';
  await bare.goto(`${await serve(bare, '/t/int-none', { body: '<h1>hi</h1>', snippet: { tagId: WITH_CODE.tag }, head: both })}?svc_test_ip=${company.ip}`);
  await waitForEvent(bare, 'svc:ready');
  await bare.waitForTimeout(AFTER_RETRY_MS);
  expect(await calls(bare)).toEqual([]);
  expect(await addedScripts(bare)).toEqual([]);
  expect(await bare.evaluate(() => [typeof (window as any).gtag, typeof (window as any).analytics])).toEqual(['undefined', 'undefined']);
  expect(errors).toEqual([]);
});

test('by default GA4 gets at most 25 properties, names of 24 characters, values of 36, every product by its stage and intent', async ({ page }) => {
  await stubTools(page, { gtag: 'ok' });
  await recordEvents(page);
  const head = '<script>svc.push(["integrations",{"ga4":true}])</script>';
  await page.goto(`${await serve(page, '/t/int-ga4-default', { body: '<h1>hi</h1>', snippet: { tagId: WITH_CODE.tag }, head })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  // (told once the chunk is in: just after svc:ready)
  await expect.poll(async () => (await calls(page)).map((call) => call.slice(0, 3))).toEqual([['gtag', 'set', 'user_properties']]);
  const told = await calls(page);
  const properties = told[0][3] as Record<string, unknown>;
  // GA4's documented collection limits (support.google.com/analytics/answer/9267744).
  expect(Object.keys(properties).length).toBeLessThanOrEqual(25);
  for (const [name, value] of Object.entries(properties)) {
    expect(name.length, name).toBeLessThanOrEqual(24);
    if (typeof value === 'string') expect([...value].length, name).toBeLessThanOrEqual(36);
  }
  // The answer the tag got (page views raise the intent score between two lookups).
  const got = await page.evaluate(() => (window as any).svc.data);
  const c = got.company;
  expect(properties).toMatchObject({ svc_company_id: c.companyId, svc_company_name: ga4Value(c.name), svc_company_domain: c.domain, svc_industry: c.industry });
  expect(got.scores.length).toBeGreaterThanOrEqual(2); // the demo customer's two products
  for (const score of got.scores) {
    const product = `svc_${score.product.replace(/\W+/g, '_').toLowerCase().slice(0, 13)}`;
    expect(properties[`${product}_stage`], product).toBe(score.buying_stage);
    expect(properties[`${product}_intent`], product).toBe(score.intent_score);
  }
});

test('a tool that loads late (a tag manager) is told once by the retry', async ({ page }) => {
  await stubTools(page, { analytics: 'late' });
  await recordEvents(page);
  await page.goto(`${await serve(page, '/t/int-late', { body: '<h1>hi</h1>', snippet: { tagId: BY_SETTING } })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  expect(await calls(page)).toEqual([]);
  await expect.poll(async () => (await calls(page)).map((call) => call[0]), { timeout: 5000 }).toEqual(['analytics.group']);
  await page.waitForTimeout(AFTER_RETRY_MS);
  expect((await calls(page)).length).toBe(1);
});

test('a tool that throws breaks neither the page nor the tag: svc:ready fires, the other tool is told', async ({ page }) => {
  const logged: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') logged.push(m.text());
  });
  await stubTools(page, { gtag: 'throws', analytics: 'ok' });
  await recordEvents(page);
  await page.goto(`${await serve(page, '/t/int-throws', { body: '<h1>hi</h1>', snippet: { tagId: BY_SETTING } })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  await page.waitForTimeout(AFTER_RETRY_MS);
  expect((await calls(page)).map((call) => call[0])).toEqual(['gtag', 'analytics.group']); // gtag tried once, not again
  expect(logged.some((text) => text.includes('[svc]') && text.includes('gtag is broken'))).toBe(true);
  expect(await page.evaluate(() => (window as any).svc.data.company.company_match)).toBe('Match');
});

/** The integrations chunk's requests of a page (the bundle imports it from its endpoint's /tag/v1/). */
function chunkRequests(page: Page): () => string[] {
  const urls: string[] = [];
  page.on('request', (r) => {
    if (/\/tag\/v1\/integrations\.[\w-]+\.js$/.test(r.url())) urls.push(r.url());
  });
  return () => urls;
}

test('the chunk is fetched only when a tool is asked for on a Match, once, and the tools get what tell gives them for that answer', async ({ page }) => {
  // The code is in (WITH_CODE) but no tool asked for: no chunk, before or after the retry.
  const quiet = chunkRequests(page);
  await stubTools(page);
  await recordEvents(page);
  await page.goto(`${await serve(page, '/t/int-chunk-none', { body: '<h1>hi</h1>', snippet: { tagId: WITH_CODE.tag } })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  await page.waitForTimeout(AFTER_RETRY_MS);
  expect(quiet()).toEqual([]);
  expect(await calls(page)).toEqual([]);

  // Both tools asked for, but no Match (an ISP): no chunk either.
  const noMatch = await page.context().newPage();
  const unmatched = chunkRequests(noMatch);
  await stubTools(noMatch);
  await recordEvents(noMatch);
  const both = '<script>svc.push(["integrations",{"ga4":true,"segment":true}])</script>';
  await noMatch.goto(
    `${await serve(noMatch, '/t/int-chunk-isp', { body: '<h1>hi</h1>', snippet: { tagId: WITH_CODE.tag }, head: both })}?svc_test_ip=${isp.ip}`,
  );
  await waitForEvent(noMatch, 'svc:ready');
  await noMatch.waitForTimeout(AFTER_RETRY_MS);
  expect(unmatched()).toEqual([]);
  expect(await calls(noMatch)).toEqual([]);

  // Asked for on a Match: one request (the retry reuses the module), served for a year, and each tool told once
  // exactly what `tell` (tag/src/integrations.ts) gives it for the answer the page got.
  const asked = await page.context().newPage();
  const fetched = chunkRequests(asked);
  const responses: { status: number; cache: string | undefined; type: string | undefined }[] = [];
  asked.on('response', (r) => {
    if (/\/tag\/v1\/integrations\./.test(r.url()))
      responses.push({ status: r.status(), cache: r.headers()['cache-control'], type: r.headers()['content-type'] });
  });
  await stubTools(asked);
  await recordEvents(asked);
  await asked.goto(
    `${await serve(asked, '/t/int-chunk-match', { body: '<h1>hi</h1>', snippet: { tagId: WITH_CODE.tag }, head: both })}?svc_test_ip=${company.ip}`,
  );
  await waitForEvent(asked, 'svc:ready');
  await asked.waitForTimeout(AFTER_RETRY_MS);
  expect(fetched()).toHaveLength(1);
  expect(new URL(fetched()[0]).origin).toBe(new URL(asked.url()).origin); // the tag's endpoint
  expect(responses).toEqual([{ status: 200, cache: 'public, max-age=31536000, immutable', type: 'application/javascript; charset=utf-8' }]);
  const got = await asked.evaluate(() => (window as any).svc.data);
  const expected: unknown[][] = [];
  const page0 = {
    gtag: (...args: unknown[]) => expected.push(['gtag', ...args]),
    analytics: { group: (id: string, traits: Properties) => expected.push(['analytics.group', id, traits]) },
  };
  tell(page0, { ga4: true, segment: true }, {}, got.company.companyId, flatten(got));
  expect(expected.map((call) => call[0])).toEqual(['gtag', 'analytics.group']);
  expect(await calls(asked)).toEqual(expected);
  expect(await addedScripts(asked)).toEqual([]); // an import, no script element
});

test("under a strict CSP with a nonce the chunk loads with the bundle's nonce and the tools are told, without a violation", async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  const fetched = chunkRequests(page);
  await stubTools(page, { gtag: 'ok' });
  await recordEvents(page);
  await page.addInitScript(() => {
    const w = window as any;
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const csp = "default-src 'none'; script-src 'nonce-r4nd0m'; style-src 'nonce-r4nd0m'; connect-src 'self'; img-src 'self' data:; base-uri 'none'";
  const head =
    '<script nonce="r4nd0m">svc.push(["integrations",{"ga4":true}])</script>' +
    // a control: a script without the nonce is refused (the policy is enforced on this page)
    '<script>window.__unnonced = true</script>';
  const url = await serve(page, '/t/int-chunk-csp', {
    body: '<h1>hi</h1>',
    snippet: { tagId: WITH_CODE.tag, nonce: 'r4nd0m' },
    head,
    headers: { 'Content-Security-Policy': csp },
  });
  await page.goto(`${url}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  await expect.poll(async () => (await calls(page)).map((call) => call.slice(0, 3))).toEqual([['gtag', 'set', 'user_properties']]);
  expect(fetched()).toHaveLength(1);
  expect(await page.evaluate(() => (window as any).__unnonced)).toBeUndefined();
  const seen = await page.evaluate(() => (window as any).__violations as string[]);
  expect(seen.filter((v) => v.includes('/tag/v1/'))).toEqual([]); // the bundle and the chunk were allowed
  expect(seen.some((v) => v.startsWith('script-src'))).toBe(true); // the control was refused
  expect(violations.filter((v) => v.includes('/tag/v1/'))).toEqual([]);
});

test('a chunk that cannot load (blocked, offline) breaks nothing: svc:ready fires, nothing is told, no error reaches the page', async ({ page }) => {
  const fetched = chunkRequests(page);
  await page.route('**/tag/v1/integrations.*', (route) => route.abort('blockedbyclient'));
  await page.addInitScript(() => {
    const w = window as any;
    w.__rejections = [];
    addEventListener('unhandledrejection', (e) => w.__rejections.push(String(e.reason)));
  });
  await stubTools(page);
  await recordEvents(page);
  await page.goto(`${await serve(page, '/t/int-chunk-blocked', { body: '<h1>hi</h1>', snippet: { tagId: BY_SETTING } })}?svc_test_ip=${company.ip}`);
  await waitForEvent(page, 'svc:ready');
  await page.waitForTimeout(AFTER_RETRY_MS);
  expect(fetched().length).toBeGreaterThanOrEqual(1); // asked for, and refused by the network
  expect(await calls(page)).toEqual([]);
  expect(await page.evaluate(() => (window as any).__rejections)).toEqual([]); // the import's failure is handled
  expect(await page.evaluate(() => (window as any).svc.data.company.company_match)).toBe('Match');
});
