/**
 * A digest's HTML (the preview route: what the mail's HTML part is) rendered in a real Chromium at a phone's
 * width: a signed-in user of the demo customer, an account's page views sent as the tag sends them (demo
 * mode's test_ip standing in for its network) with a very long path, then the digest of today so far —
 * no horizontal scrolling at 390 px, and the account linked to its page in the console.
 */
import { expect, test } from '@playwright/test';
import { ADMIN_TOKEN, pick, signInAsNew, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const RUN = Date.now().toString(36);
// No hyphen or slash to break at: only the digest's own wrapping keeps it inside a phone's width.
const LONG_PATH = `/e2e-digest-${RUN}/${'averylongpathsegment'.repeat(15)}`;

test('a digest reads on a phone: no horizontal scroll, every account linked to its page', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  await signInAsNew(page, request, 'viewer', 'digest');
  const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');

  await page.goto('/');
  // Many views of the long path: the digest lists the day's top pages and most active accounts, and other
  // specs on the same server send views of their own (one view would fall out of the lists).
  for (const path of [...Array.from({ length: 40 }, () => LONG_PATH), `/e2e-digest-${RUN}/pricing`]) {
    const status = await page.evaluate(
      async ({ tag, ip, path, session }) =>
        (
          await fetch(`/v1/events?tag=${tag}&test_ip=${ip}`, {
            method: 'POST',
            headers: { 'content-type': 'text/plain;charset=UTF-8' },
            body: JSON.stringify({ type: 'pageview', path, session }),
          })
        ).status,
      { tag: TAG, ip: company.ip, path, session: `e2e-digest-${RUN}` },
    );
    expect(status).toBe(204);
  }
  const today = new Date().toISOString().slice(0, 10);
  let companyId = '';
  await expect
    .poll(async () => {
      const res = await request.get(`/admin/api/customers/demo/visits?from=${today}&to=${today}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
      companyId = (await res.json()).accounts.find((a: { name: string }) => a.name === company.company)?.company_id ?? '';
      return companyId;
    })
    .not.toBe('');

  await page.setViewportSize({ width: 390, height: 844 });
  // The user's time zone is UTC until set: the period holding today is today's digest so far.
  const res = await page.goto(`/auth/me/digest/preview?date=${today}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-type']).toMatch(/^text\/html/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('your daily digest');

  const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(width.scroll).toBeLessThanOrEqual(width.view);
  await expect(page.getByText(LONG_PATH).first()).toBeVisible();

  const links = page.getByRole('link', { name: company.company!, exact: true });
  expect(await links.count()).toBeGreaterThan(0);
  for (const href of await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))) {
    expect(new URL(href).pathname).toBe('/console/');
    expect(new URL(href).hash).toBe(`#customer=demo&page=accounts&account=${companyId}`);
  }
  // Each link on the page stays inside the phone's width.
  for (const box of await page.getByRole('link').evaluateAll((as) => as.map((a) => a.getBoundingClientRect().right))) expect(box).toBeLessThanOrEqual(390);
  expect(problems).toEqual([]);
});
