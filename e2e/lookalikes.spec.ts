/**
 * Lookalike segments in a real Chromium against the demo-mode server, as a marketer (invited through the
 * admin API, signed in with the one-time link): with a list of "best customers" (software companies of the
 * sample data, made through the lists API), build a segment "accounts like the list, score ≥ 0.6" in the
 * builder, see the sample of the accounts most like it — the scores and reasons the lookalike preview API
 * gives, the seed itself absent — and the builder's preview count the segment's members as the segment
 * preview API does, save it and find it in the segments table in words. axe-core finds no serious or
 * critical violation at 1,366 × 768 and 390 × 844, and the phone page does not scroll sideways.
 */
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, signInAsNew, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const RUN = Date.now().toString(36);
const LOOKALIKE = 'Lookalike accounts';

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

async function expectNoPageScroll(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, `${what} scrolls sideways`).toBeLessThanOrEqual(client);
}

/** A named list of the demo customer holding the first software companies of the catalog: the seed. */
async function bestCustomers(request: APIRequestContext): Promise<{ id: string; name: string; ids: string[] }> {
  const preview = await request.post('/admin/api/customers/demo/segments/preview', { headers: admin, data: { match: { industry: ['Software'] } } });
  expect(preview.status()).toBe(200);
  const ids = ((await preview.json()).accounts as { companyId: string }[]).map((a) => a.companyId);
  expect(ids.length).toBeGreaterThan(5);
  const name = `Best customers ${RUN}`;
  const created = await request.post('/admin/api/customers/demo/lists', { headers: admin, data: { name } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).id as string;
  expect((await request.put(`/admin/api/customers/demo/lists/${id}`, { headers: admin, data: { company_ids: ids } })).status()).toBe(200);
  return { id, name, ids };
}

test('a marketer builds a lookalike segment from a list, sees the accounts most like it with scores and reasons, and saves it', async ({ page, request }) => {
  // Sign-in, two viewports and two axe passes: more than the default 30 s on a busy 2-core machine.
  test.setTimeout(120_000);
  const problems = watchConsoleProblems(page);
  const list = await bestCustomers(request);
  const segmentName = `Like our best ${RUN}`;
  try {
    // What the server ranks for the seed: the sample must show exactly these, in this order.
    const api = await request.post('/admin/api/customers/demo/lookalikes/preview', { headers: admin, data: { seed: { list: list.id }, limit: 10 } });
    expect(api.status(), await api.text()).toBe(200);
    const expected = (await api.json()).accounts as { company_id: string; name: string; score: number; reasons: string[] }[];
    expect(expected).toHaveLength(10);
    expect(expected.some((a) => list.ids.includes(a.company_id))).toBe(false);
    const rule = { lookalike: { list: list.id, min_score: 0.6 } };
    const sizeRes = await request.post('/admin/api/customers/demo/segments/preview', { headers: admin, data: { match: rule } });
    expect(sizeRes.status()).toBe(200);
    const size = (await sizeRes.json()).size as number;
    expect(size).toBeGreaterThan(0);

    await page.setViewportSize(LAPTOP);
    await signInAsNew(page, request, 'marketer', 'lookalikes');
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Segments' }).click();
    const builder = page.getByTestId('segment-builder');
    await builder.getByLabel('Name').fill(segmentName);
    await builder.getByLabel('Add a condition on').selectOption({ label: LOOKALIKE });
    await builder.getByRole('button', { name: 'Add condition' }).click();
    const condition = builder.getByTestId('condition-lookalike');
    await expect(condition.getByLabel('An account list')).toBeChecked();
    // The seed not chosen yet: the rule says where to choose it.
    await expect(builder.getByTestId('segment-preview')).toContainText('The rule has a problem');
    await condition.getByLabel('List', { exact: true }).selectOption({ label: `${list.name} (${list.ids.length})` });
    await condition.getByLabel('Minimum score (0–1)').fill('0.6');

    // The accounts most like the list: the server's ranking, scores and reasons.
    const sample = condition.getByTestId('lookalike-preview');
    await expect(sample.getByTestId('lookalike-row')).toHaveCount(10);
    await expect(sample.locator('caption')).toContainText(`The 10 accounts most like list “${list.name}” (${list.ids.length} seed accounts)`);
    for (const [i, a] of expected.entries()) {
      const row = sample.getByTestId('lookalike-row').nth(i);
      await expect(row.getByRole('rowheader')).toContainText(a.name);
      await expect(row.locator('td').nth(1)).toContainText(a.score.toFixed(2));
      await expect(row.locator('td').nth(2)).toHaveText(a.reasons.join('; ') || '—');
    }
    // The builder's own preview counts the segment's members as the API does.
    const preview = builder.getByTestId('segment-preview');
    await expect(preview.getByTestId('segment-rule-words')).toHaveText(`Accounts like list ${list.id}, score at least 0.6`);
    await expect(preview.getByTestId('preview-size')).toHaveText(`${size.toLocaleString('en-US')} ${size === 1 ? 'account matches' : 'accounts match'}`);
    await expectAccessible(page, 'the builder with a lookalike condition at 1366');
    await page.screenshot({ path: `${SHOTS}/lookalikes-1366.png`, fullPage: true });

    await builder.getByRole('button', { name: 'Save segment' }).click();
    await expect(page.getByTestId('segments-notice')).toContainText(`Segment “${segmentName}” created`);
    const saved = page.getByTestId('segments-table').getByRole('row', { name: new RegExp(segmentName) });
    await expect(saved).toContainText(`Accounts like list ${list.id}, score at least 0.6`);
    await expect(saved.getByTestId('segment-size')).toHaveText(size.toLocaleString('en-US'));

    // On a phone: the same builder with the condition and its sample fits and passes axe.
    await page.setViewportSize(PHONE);
    await builder.getByLabel('Add a condition on').selectOption({ label: LOOKALIKE });
    await builder.getByRole('button', { name: 'Add condition' }).click();
    await condition.getByLabel('List', { exact: true }).selectOption({ label: `${list.name} (${list.ids.length})` });
    await expect(condition.getByTestId('lookalike-preview').getByTestId('lookalike-row')).toHaveCount(10);
    await expectAccessible(page, 'the builder with a lookalike condition at 390');
    await expectNoPageScroll(page, 'the builder at 390');
    await page.screenshot({ path: `${SHOTS}/lookalikes-390.png`, fullPage: true });
    expect(problems).toEqual([]);
  } finally {
    const segments = (await (await request.get('/admin/api/customers/demo/segments', { headers: admin })).json()) as { id: number; name: string }[];
    for (const s of segments.filter((x) => x.name === segmentName)) await request.delete(`/admin/api/customers/demo/segments/${s.id}`, { headers: admin });
    await request.delete(`/admin/api/customers/demo/lists/${list.id}`, { headers: admin });
  }
});
