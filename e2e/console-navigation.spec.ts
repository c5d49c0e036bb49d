/**
 * The console's navigation by job, its accessibility and its phone layout, in a real Chromium at a
 * 1,366 × 768 laptop and a 390 × 844 phone: each role's sidebar lists exactly the pages it may open, grouped
 * (Audience, Engage, Data, Setup), the current one marked; deep links keep working and a forbidden one says
 * so; on the phone the sidebar is a drawer behind a Menu button; the account page reads as a profile and its
 * search suggests accounts as you type (an ARIA combobox, driven by the keyboard); axe-core finds no serious
 * or critical violation on any page; no page scrolls sideways on the phone. Screenshots of every page and
 * size are written to test-results/screenshots/ for a reviewer.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, pick, signInAsNew, visitors, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function signInAsOperator(page: Page, hash: string) {
  await page.goto(`/console/${hash}`);
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText('Operator (admin token)');
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console pages' });

/** The sidebar as a reader sees it: each group's title and its links. */
async function sidebar(page: Page): Promise<Record<string, string[]>> {
  const groups = nav(page).locator('.side-group');
  const out: Record<string, string[]> = {};
  for (const g of await groups.all()) {
    out[(await g.locator('.side-group-title').textContent()) ?? ''] = (await g.getByRole('link').allTextContents()).map((t) => t.trim());
  }
  return out;
}

/** The page itself never scrolls sideways (wide tables scroll inside their own box). */
async function expectNoPageScroll(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, `${what} scrolls sideways`).toBeLessThanOrEqual(client);
}

/** axe-core on the page as it is now: no serious or critical violation (the moderate and minor ones are listed in the message only). */
async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

const EXPECTED: Record<string, Record<string, string[]>> = {
  owner: {
    Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
    Engage: ['Alerts', 'Notifications', 'Integrations'],
    Data: ['Enrich a file'],
    Setup: ['Web tags', 'Webhooks', 'API tokens', 'Users', 'Single sign-on', 'Audit log', 'Settings', 'Developers'],
  },
  admin: {
    Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
    Engage: ['Alerts', 'Notifications', 'Integrations'],
    Data: ['Enrich a file'],
    Setup: ['Web tags', 'Webhooks', 'API tokens', 'Audit log', 'Settings', 'Developers'],
  },
  marketer: {
    Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
    Engage: ['Alerts', 'Notifications', 'Integrations'],
    Data: ['Enrich a file'],
    Setup: ['Web tags', 'Settings', 'Developers'],
  },
  viewer: {
    Audience: ['Home', 'Accounts', 'Visitors', 'Segments', 'Lists'],
    Engage: ['Alerts', 'Notifications'],
    Data: ['Enrich a file'],
    Setup: ['Web tags', 'Settings', 'Developers'],
  },
};
/** A page each role may not open (none for the owner). */
const FORBIDDEN: Record<string, [page: string, title: string] | null> = {
  owner: null,
  admin: ['users', 'Users'],
  marketer: ['webhooks', 'Webhooks'],
  viewer: ['integrations', 'Integrations'],
};

for (const role of Object.keys(EXPECTED)) {
  test(`the ${role}'s sidebar lists exactly its pages by job, marks the current one, and says so of a page it may not open`, async ({ page, request }) => {
    const problems = watchConsoleProblems(page);
    await page.setViewportSize(LAPTOP);
    await signInAsNew(page, request, role, `nav-${role}`);
    await expect(nav(page)).toBeVisible();
    expect(await sidebar(page)).toEqual(EXPECTED[role]);
    await expect(page.getByRole('navigation', { name: 'Guides' }).getByRole('link', { name: /^Get started/ })).toBeVisible();

    // Following a link shows its page and marks it current, nothing else.
    await nav(page).getByRole('link', { name: 'Segments', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Segments' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Segments', exact: true })).toHaveAttribute('aria-current', 'page');
    await expect(nav(page).locator('[aria-current="page"]')).toHaveCount(1);
    await page.screenshot({ path: `${SHOTS}/sidebar-${role}-1366.png` });

    // A deep link keeps working; one the role may not open says so instead of showing another page.
    await page.goto('/console/#customer=demo&page=lists');
    await expect(page.getByRole('heading', { level: 1, name: 'Lists' })).toBeVisible();
    await expect(nav(page).getByRole('link', { name: 'Lists', exact: true })).toHaveAttribute('aria-current', 'page');
    const forbidden = FORBIDDEN[role];
    if (forbidden) {
      await page.goto(`/console/#customer=demo&page=${forbidden[0]}`);
      await expect(page.getByRole('heading', { level: 1, name: `${forbidden[1]}: not available to your role` })).toBeVisible();
      await expect(page.getByTestId('page-unavailable')).toContainText(`not available to your role (${role})`);
      await expect(nav(page).locator('[aria-current="page"]')).toHaveCount(0);
    }
    await page.goto('/console/#customer=demo&page=nonsense');
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();

    // The keyboard reaches every link of the sidebar.
    await page.goto('/console/#customer=demo&page=visitors');
    await expect(page.getByRole('heading', { level: 1, name: 'Visitors' })).toBeVisible();
    const links = await nav(page).getByRole('link').count();
    await page.getByRole('button', { name: 'Sign out' }).focus();
    const reached = new Set<string>();
    for (let i = 0; i < links + 2; i++) {
      await page.keyboard.press('Tab');
      const text = await page.evaluate(() => (document.activeElement?.closest('nav[aria-label="Console pages"]') ? document.activeElement.textContent : null));
      if (text) reached.add(text.trim());
    }
    expect([...reached].sort()).toEqual(Object.values(EXPECTED[role]!).flat().sort());
    expect(problems).toEqual([]);
  });
}

test('on a phone the sidebar is a drawer behind the Menu button; no page scrolls sideways', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  await page.setViewportSize(PHONE);
  await signInAsNew(page, request, 'marketer', 'nav-phone');
  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(nav(page)).toBeHidden();
  await expectNoPageScroll(page, 'the landing page');
  await page.screenshot({ path: `${SHOTS}/phone-menu-closed-390.png` });

  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await expect(nav(page)).toBeVisible();
  // The drawer takes the focus to its first link and fits the screen.
  await expect(page.getByRole('navigation', { name: 'Guides' }).getByRole('link', { name: /^Get started/ })).toBeFocused();
  const box = (await page.getByTestId('sidebar').boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  await page.screenshot({ path: `${SHOTS}/phone-menu-open-390.png` });

  // Choosing a page closes the drawer and shows the page.
  await nav(page).getByRole('link', { name: 'Segments', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Segments' })).toBeVisible();
  await expect(nav(page)).toBeHidden();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');

  // Escape closes it too, and gives the focus back to the button.
  await menu.click();
  await expect(nav(page)).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(nav(page)).toBeHidden();
  await expect(menu).toBeFocused();

  for (const [hash, title] of [
    ['home', 'Home'],
    ['accounts', 'Accounts'],
    ['visitors', 'Visitors'],
    ['segments', 'Segments'],
    ['lists', 'Lists'],
    ['alerts', 'Alerts'],
    ['notifications', 'Notifications'],
    ['integrations', 'Integrations'],
    ['enrich', 'Enrich a file'],
    ['tags', 'Web tags'],
    ['developers', 'Developers'],
    ['start', 'Get started'],
  ]) {
    await page.goto(`/console/#customer=demo&page=${hash}`);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await page.waitForLoadState('networkidle');
    await expectNoPageScroll(page, title);
  }
  expect(problems).toEqual([]);
});

for (const size of [LAPTOP, PHONE]) {
  test(`the account page is a profile, found with suggestions as you type, at ${size.width} px`, async ({ page, request }) => {
    const problems = watchConsoleProblems(page);
    const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');
    const found = await (await request.get(`/admin/api/customers/demo/accounts?q=${encodeURIComponent(company.company!)}`, { headers: admin })).json();
    const companyId: string = found.accounts.find((a: { name: string }) => a.name === company.company).company_id;

    await page.setViewportSize(size);
    await signInAsOperator(page, '#customer=demo&page=accounts');
    await expect(page.getByRole('heading', { level: 1, name: 'Accounts' })).toBeVisible();

    // Typing suggests accounts in a listbox tied to the box; ↓ then Enter opens the one chosen.
    const box = page.getByRole('combobox', { name: 'Company name, domain or id' });
    await expect(box).toHaveAttribute('aria-expanded', 'false');
    await box.pressSequentially(company.company!.slice(0, 5).toLowerCase());
    const listbox = page.getByRole('listbox', { name: 'Suggested accounts' });
    await expect(listbox).toBeVisible();
    await expect(box).toHaveAttribute('aria-expanded', 'true');
    await expect(box).toHaveAttribute('aria-controls', 'account-suggestions');
    const options = listbox.getByRole('option');
    await expect(options.filter({ hasText: company.company! })).toHaveCount(1);
    await expectAccessible(page, 'the open suggestions');
    await page.screenshot({ path: `${SHOTS}/account-suggestions-${size.width}.png` });
    const texts = await options.allTextContents();
    const at = texts.findIndex((t) => t.includes(company.company!));
    for (let i = 0; i <= at; i++) await box.press('ArrowDown');
    await expect(options.nth(at)).toHaveAttribute('aria-selected', 'true');
    await expect(box).toHaveAttribute('aria-activedescendant', `account-suggestion-${at}`);
    await box.press('Enter');
    await expect.poll(() => new URL(page.url()).hash).toBe(`#customer=demo&page=accounts&account=${companyId}`);
    await expect(listbox).toBeHidden();

    // The header card: logo placeholder, name, domain, facts, chips; score cards with their why.
    const profile = page.getByTestId('account-profile');
    await expect(profile.getByRole('heading', { level: 2, name: company.company! })).toBeVisible();
    await expect(profile.locator('.profile-logo')).toHaveText(/^[\p{Lu}\p{N}?]{1,2}$/u);
    for (const fact of ['Industry', 'Size', 'Country', 'Owner']) await expect(profile.getByTestId('account-firmographics')).toContainText(fact);
    await expect(profile.getByRole('list', { name: 'Segments and lists' })).toBeVisible();
    const scores = page.getByTestId('account-score');
    if ((await scores.count()) > 0) await expect(scores.first()).toContainText('Why:');

    // Tabs: the journey (with the only date range), topics, deliveries; ← / → move between them.
    const tabs = page.getByRole('tablist', { name: 'About this account' });
    await expect(tabs.getByRole('tab', { name: 'Journey' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('form', { name: 'Account range' })).toBeVisible();
    await expectAccessible(page, 'the account page');
    await expectNoPageScroll(page, 'the account page');
    await page.screenshot({ path: `${SHOTS}/account-profile-${size.width}.png`, fullPage: true });
    await tabs.getByRole('tab', { name: 'Journey' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(tabs.getByRole('tab', { name: 'Topics' })).toBeFocused();
    await expect(tabs.getByRole('tab', { name: 'Topics' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tabpanel')).toContainText('Intent topics');
    await expect(page.getByRole('form', { name: 'Account range' })).toHaveCount(0);
    await expectAccessible(page, 'the topics tab');
    await tabs.getByRole('tab', { name: 'Deliveries' }).click();
    await expect(page.getByRole('tabpanel')).toContainText('Webhooks raised');
    await expectNoPageScroll(page, 'the deliveries tab');
    expect(problems).toEqual([]);
  });
}

/** Every page of the console, as the operator sees it (every page there is), and the views around them. */
const PAGES: [hash: string, title: string][] = [
  ['home', 'Home'],
  ['accounts', 'Accounts'],
  ['visitors', 'Visitors'],
  ['segments', 'Segments'],
  ['lists', 'Lists'],
  ['alerts', 'Alerts'],
  ['notifications', 'Notifications'],
  ['integrations', 'Integrations'],
  ['enrich', 'Enrich a file'],
  ['tags', 'Web tags'],
  ['webhooks', 'Webhooks'],
  ['tokens', 'API tokens'],
  ['users', 'Users'],
  ['sso', 'Single sign-on'],
  ['audit', 'Audit log'],
  ['settings', 'Settings'],
  ['developers', 'Developers'],
  ['start', 'Get started'],
  ['nonsense', 'Page not found'],
];

for (const size of [LAPTOP, PHONE]) {
  test(`axe finds no serious or critical violation on any console page at ${size.width} px`, async ({ page }) => {
    test.setTimeout(120_000);
    const problems = watchConsoleProblems(page);
    await page.setViewportSize(size);
    await page.goto('/console/');
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await expectAccessible(page, 'the sign-in form');
    await page.screenshot({ path: `${SHOTS}/signin-${size.width}.png`, fullPage: true });
    await page.getByText('Operator token', { exact: true }).click();
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Choose a customer' })).toBeVisible();
    await expectAccessible(page, 'the customer picker');

    for (const [hash, title] of PAGES) {
      await page.goto(`/console/#customer=demo&page=${hash}`);
      await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
      await page.waitForLoadState('networkidle');
      await expect(page.getByText(/^Loading/)).toHaveCount(0);
      await expectAccessible(page, title);
      if (size === PHONE) await expectNoPageScroll(page, title);
      await page.screenshot({ path: `${SHOTS}/page-${hash}-${size.width}.png`, fullPage: true });
    }
    expect(problems).toEqual([]);
  });
}
