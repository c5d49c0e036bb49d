/**
 * A web tag's settings after creation, in a real Chromium against the demo-mode server: the operator edits
 * a tag's own fields (limits, answers) and its server-managed settings (minimum confidence, dataLayer
 * fields) on the Web tags page, then disables it — lookups and page views are refused with a message that
 * says so, its script loads nothing and a page using it keeps its default content — enables it again and
 * deletes it. The snippet and the install check stay on the card throughout.
 */
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, html, ORIGIN, UA, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function signInAsOperator(page: Page): Promise<void> {
  await page.goto('/console/#customer=demo&page=tags');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Web tags' })).toBeVisible();
}

test('edit a tag and its settings, disable it and see it stop answering, enable it, delete it', async ({ page, request, browser }) => {
  const problems = watchConsoleProblems(page);
  const tagId = `e2e-edit-${Date.now()}`;
  expect(
    (
      await request.post('/admin/api/tags', { headers: admin, data: { customer_id: 'demo', tag_id: tagId, allowed_domains: ['localhost', '127.0.0.1'] } })
    ).status(),
  ).toBe(201);
  const lookup = () => request.get(`/v3/company/details?tag=${tagId}`, { headers: { origin: ORIGIN, 'user-agent': UA } });
  expect((await lookup()).status()).toBe(200);

  await signInAsOperator(page);
  const card = page.getByTestId(`tag-${tagId}`);
  await expect(card.getByTestId('tag-limits')).toHaveText('6000 per minute for the tag, 300 per visitor address');

  // The tag's own fields.
  await card.getByText('Edit tag', { exact: true }).click();
  const edit = card.getByTestId('tag-edit-form');
  await edit.getByLabel('Per-visitor rate limit (requests per minute)').fill('0');
  await edit.getByRole('button', { name: 'Save tag' }).click();
  await expect(edit.getByRole('status')).toContainText('Per-visitor rate limit');
  await edit.getByLabel('Per-visitor rate limit (requests per minute)').fill('120');
  await edit.getByLabel('Allowed domains').fill('localhost, 127.0.0.1, shop.e2e.test');
  await edit.getByLabel('Segment names').check();
  await edit.getByRole('button', { name: 'Save tag' }).click();
  await expect(edit.getByRole('status')).toContainText('Tag saved');
  await expect(card.getByTestId('tag-limits')).toHaveText('6000 per minute for the tag, 120 per visitor address');
  await expect(card).toContainText('localhost, 127.0.0.1, shop.e2e.test');
  await expect(card).toContainText('segment names');

  // Its server-managed settings.
  await card.getByText('Settings', { exact: true }).click();
  const settings = card.getByTestId('tag-settings-form');
  await settings.getByLabel('Minimum confidence').selectOption('High');
  await settings.getByLabel('dataLayer fields').fill('name, domain industry');
  await settings.getByLabel('Anti-flicker timeout (ms)').fill('20000');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toContainText('Anti-flicker timeout');
  await settings.getByLabel('Anti-flicker timeout (ms)').fill('800');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toContainText('Settings saved');
  const saved = await (await request.get(`/admin/api/tags/${tagId}`, { headers: admin })).json();
  expect(saved).toMatchObject({
    visitor_rate_limit: 120,
    segment_names: true,
    allowed_domains: ['localhost', '127.0.0.1', 'shop.e2e.test'],
    disabled: false,
    settings: { min_confidence: 'High', fields: ['name', 'domain', 'industry'], anti_flicker_timeout_ms: 800 },
  });
  // The bundle carries the settings.
  expect(await (await request.get(`/tag/v1/${tagId}.js`)).text()).toContain('minConfidence:"High"');

  // A page using the tag (a fresh browser each time: nothing cached): the script loads, or not.
  const url = `${ORIGIN}/e2e-tag-editing-${tagId}`;
  const visit = async () => {
    const ctx = await browser.newContext({ userAgent: UA });
    const p = await ctx.newPage();
    await p.route(url, (r) =>
      r.fulfill({ contentType: 'text/html; charset=utf-8', body: html({ body: '<h1 id="title">Hello there</h1>', snippet: { tagId, endpoint: ORIGIN } }) }),
    );
    const script = p.waitForResponse((r) => r.url().endsWith(`/tag/v1/${tagId}.js`));
    await p.goto(url);
    const status = (await script).status();
    // Whatever the tag does, the page shows (the snippet's fail-safe ends the anti-flicker hiding).
    await expect(p.locator('#title')).toBeVisible();
    await ctx.close();
    return status;
  };
  expect(await visit()).toBe(200);

  // Disabled in the console: lookups and page views refused with a clear message, the script loads nothing.
  await card.getByRole('button', { name: 'Disable tag' }).click();
  await expect(card.getByTestId('tag-disabled')).toHaveText('disabled');
  await expect(card.getByTestId('tag-disabled-note')).toContainText('refused');
  await expect(card.getByRole('button', { name: 'Enable tag' })).toBeVisible();
  const refused = await lookup();
  expect(refused.status()).toBe(403);
  expect((await refused.json()).message).toContain(`web tag ${tagId} is disabled`);
  const beacon = await request.post(`/v1/events?tag=${tagId}`, {
    headers: { origin: ORIGIN, 'user-agent': UA, 'content-type': 'text/plain' },
    data: JSON.stringify({ type: 'pageview', path: '/', session: 'e2e-tag-editing' }),
  });
  expect(beacon.status()).toBe(403);
  expect(await visit()).toBe(404);
  // The snippet and the install check stay on the card.
  await expect(card.getByTestId('tag-snippet')).toContainText(`/tag/v1/${tagId}.js`);
  await expect(card.getByTestId('tag-seen-on')).toBeVisible();

  // Enabled again: answers at once.
  await card.getByRole('button', { name: 'Enable tag' }).click();
  await expect(card.getByTestId('tag-disabled')).toHaveCount(0);
  expect((await lookup()).status()).toBe(200);

  // Deleted (after a confirmation): gone from the page, unknown to the API.
  await card.getByRole('button', { name: 'Delete tag' }).click();
  await card.getByRole('button', { name: 'Delete for good' }).click();
  await expect(page.getByTestId(`tag-${tagId}`)).toHaveCount(0);
  expect((await lookup()).status()).toBe(401);
  expect((await request.get(`/admin/api/tags/${tagId}`, { headers: admin })).status()).toBe(404);
  expect(problems).toEqual([]);
});

test('turn the analytics tools on in the settings form: the served bundle gains the integrations code, a later save keeps them', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const tagId = `e2e-integrations-${Date.now()}`;
  const created = await request.post('/admin/api/tags', {
    headers: admin,
    data: { customer_id: 'demo', tag_id: tagId, allowed_domains: ['localhost', '127.0.0.1'], settings: { features: { debug: false } } },
  });
  expect(created.status()).toBe(201);
  const bundle = async () => (await request.get(`/tag/v1/${tagId}.js`)).text();
  const stored = async () => (await (await request.get(`/admin/api/tags/${tagId}`, { headers: admin })).json()).settings;
  // Off until chosen: the bundle does not import the integrations chunk (GA4's and Segment's code).
  const importsChunk = /\/tag\/v1\/integrations\.[\w-]{6}\.js/;
  expect(await bundle()).not.toMatch(importsChunk);

  await signInAsOperator(page);
  const card = page.getByTestId(`tag-${tagId}`);
  await expect(card.getByTestId('tag-integrations')).toHaveText('none');
  await card.getByText('Settings', { exact: true }).click();
  const settings = card.getByTestId('tag-settings-form');
  const tools = settings.getByTestId('tag-settings-integrations');
  await tools.getByRole('checkbox', { name: /^GA4/ }).check();
  await tools.getByRole('checkbox', { name: /^Segment/ }).check();
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toContainText('Settings saved');
  expect(await stored()).toMatchObject({ features: { debug: false, integrations: { ga4: true, segment: true } } });
  await expect(card.getByTestId('tag-integrations')).toHaveText("told: GA4 (gtag('set', 'user_properties', …)), Segment (analytics.group(…))");
  const withTools = await bundle();
  expect(withTools).toMatch(importsChunk); // the integrations code (loaded as its chunk)
  expect(withTools).toMatch(/integrations:\{"?ga4"?:true,"?segment"?:true\}/); // the tools told by default

  // Another setting saved later leaves the tools as they were.
  if (!(await settings.isVisible())) await card.getByText('Settings', { exact: true }).click();
  await settings.getByLabel('Minimum confidence').selectOption('High');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toContainText('Settings saved');
  expect(await stored()).toMatchObject({ min_confidence: 'High', features: { debug: false, integrations: { ga4: true, segment: true } } });

  // Both unticked (and no code-only choice): off again, the code gone from the bundle.
  if (!(await settings.isVisible())) await card.getByText('Settings', { exact: true }).click();
  await tools.getByRole('checkbox', { name: /^GA4/ }).uncheck();
  await tools.getByRole('checkbox', { name: /^Segment/ }).uncheck();
  await tools.getByRole('checkbox', { name: /^Code only/ }).uncheck();
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toContainText('Settings saved');
  expect((await stored()).features).toEqual({ personalisation: true, form_fill: true, spa: true, page_views: true, debug: false });
  expect(await bundle()).not.toMatch(importsChunk);

  expect((await request.delete(`/admin/api/tags/${tagId}`, { headers: admin })).status()).toBe(204);
  expect(problems).toEqual([]);
});
