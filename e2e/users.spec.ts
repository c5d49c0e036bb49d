/**
 * Users of the console in a real Chromium against the demo-mode server. The operator (admin token, from
 * the test) invites people of the demo customer; the browser opens the one-time link, chooses a password
 * and is signed in with the session cookie:
 *   - a marketer lands on Home of its own customer, sees the Web tags page with tag settings it may
 *     change (no create form), no Tokens or Webhooks page, no token secrets, nothing of another customer;
 *     after signing out the session is gone (GET /auth/me → 401);
 *   - an owner manages users (invite → link shown once, role change, password reset, removal), single
 *     sign-on and reads the audit log (CSV too); a cross-site form post riding on its cookie is refused and
 *     changes nothing.
 */
import { readFileSync } from 'node:fs';
import { type Browser, type BrowserContext, expect, type Page, type Route, test } from '@playwright/test';
import { ADMIN_TOKEN, ORIGIN, UA, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const PASSWORD = 'e2e correct horse battery';
const PORT = Number(new URL(ORIGIN).port);

/** A fresh address per run (the e2e server starts empty, but a re-run against it must not collide). */
const address = (who: string) => `${who}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@acme.example`;

async function invite(request: import('@playwright/test').APIRequestContext, email: string, role: string): Promise<string> {
  const res = await request.post('/admin/api/customers/demo/invitations', { headers: admin, data: { email, role } });
  expect(res.status()).toBe(201);
  const body = await res.json();
  expect(body.url).toBe(`${ORIGIN}/console/#accept=${body.token}`);
  return body.url;
}

/** Opens a one-time link and chooses the password; the console opens signed in. */
async function accept(page: Page, url: string, password = PASSWORD): Promise<void> {
  await page.goto(url);
  await expect(page.getByRole('heading', { name: 'Choose a password' })).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
}

/** What the page's own fetch gets (same origin, with its cookie). */
const status = (page: Page, path: string, init: RequestInit = {}) =>
  page.evaluate(async ({ path, init }) => (await fetch(path, { credentials: 'same-origin', ...init })).status, { path, init });

const tabs = (page: Page) => page.getByRole('navigation', { name: 'Console pages' }).getByRole('link');

const today = () => new Date().toISOString().slice(0, 10);

test('a marketer joins by invitation, sees only its own customer and pages, and signs out for good', async ({ page, request, context }) => {
  const problems = watchConsoleProblems(page);
  const email = address('marketer');
  const url = await invite(request, email, 'marketer');
  // A tag of the demo customer whose settings the marketer changes (the demo tag stays as the other specs expect it).
  const tagId = `e2e-users-${Date.now()}`;
  expect(
    (await request.post('/admin/api/tags', { headers: admin, data: { customer_id: 'demo', tag_id: tagId, allowed_domains: ['www.acme.example'] } })).status(),
  ).toBe(201);

  // A password the server would refuse is caught before sending; the link is not used up.
  await page.goto(url);
  await page.getByLabel('Password', { exact: true }).fill('too short');
  await page.getByLabel('Confirm password').fill('too short');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByTestId('accept-error')).toContainText('at least 12 characters');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(`${PASSWORD}!`);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByTestId('accept-error')).toContainText('differ');

  await accept(page, url);
  await expect(page.getByTestId('signed-in-as')).toHaveText(`${email} · marketer`);
  // Its own customer, no picker: the onboarding checklist while the customer's is not complete, else its
  // Home (what the other specs left on the shared server decides); the link's token has left the address bar.
  // Its own checklist decides: the steps are its role's (no webhook step for a marketer).
  const { complete } = await page.evaluate(async () => (await (await fetch('/admin/api/customers/demo/onboarding')).json()) as { complete: boolean });
  await expect(page.getByRole('heading', { level: 1, name: complete ? 'Home' : 'Get started' })).toBeVisible();
  await expect(page.getByTestId('workspace')).toContainText('Acme Analytics');
  await expect(page.getByTestId('customer-picker')).toHaveCount(0);
  expect(page.url()).toBe(`${ORIGIN}/console/`);
  await expect(tabs(page)).toHaveText([
    'Home',
    'Accounts',
    'Visitors',
    'Segments',
    'Lists',
    'Alerts',
    'Notifications',
    'Integrations',
    'Enrich a file',
    'Web tags',
    'Settings',
    'Developers',
  ]);
  await tabs(page).filter({ hasText: 'Visitors' }).click();
  await expect(page.getByTestId('visitors-page')).toBeVisible();
  // The session is an HttpOnly cookie; nothing is kept in the page's storage.
  const cookies = await context.cookies();
  expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['svc_session', true, 'Lax']]);
  expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([0, 0, '']);

  // No Tokens page: asking for it says the role may not open it (no other page instead), and the API refuses the tokens (no secrets, not even prefixes).
  await page.goto('/console/#customer=demo&page=tokens');
  await expect(page.getByRole('heading', { level: 1, name: 'API tokens: not available to your role' })).toBeVisible();
  await expect(page.getByTestId('page-unavailable')).toContainText('not available to your role (marketer)');
  await expect(page.getByTestId('tokens-table')).toHaveCount(0);
  await expect(page.getByTestId('create-token-form')).toHaveCount(0);
  expect(await status(page, '/admin/api/tokens?customer=demo')).toBe(403);
  expect(await status(page, '/admin/api/customers/demo/webhooks')).toBe(403);
  expect(await status(page, '/admin/api/customers/demo/users')).toBe(403);
  expect(await status(page, '/admin/api/customers/demo/audit')).toBe(403);

  // Web tags: listed with settings it may change, but no create form.
  await tabs(page).filter({ hasText: 'Web tags' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Web tags' })).toBeVisible();
  await expect(page.getByTestId('create-tag-form')).toHaveCount(0);
  const card = page.getByTestId(`tag-${tagId}`);
  await card.getByText('Settings', { exact: true }).click();
  const settings = card.getByTestId('tag-settings-form');
  await settings.getByLabel('Single-page app navigations').uncheck();
  await settings.getByLabel('Consent before the lookup').selectOption('pending');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await expect(settings.getByRole('status')).toContainText('Settings saved');
  const tag = await (await request.get(`/admin/api/tags/${tagId}`, { headers: admin })).json();
  expect(tag.settings).toMatchObject({ consent_default: 'pending', features: { spa: false, page_views: true } });
  // The card shows the saved tag.
  await expect(card.getByTestId('tag-features')).toContainText('Page views');
  await expect(card.getByTestId('tag-features')).not.toContainText('Single-page app navigations');

  // Another customer: not found, nothing of it shown; its ids answer 404 to this session.
  await page.goto('/console/#customer=globex&page=visitors');
  await expect(page.getByTestId('unknown-customer')).toContainText('No customer with the id “globex”');
  await expect(page.getByTestId('visitors-page')).toHaveCount(0);
  expect(await page.content()).not.toContain('Globex Corporation');
  expect(await status(page, '/admin/api/customers/globex')).toBe(404);
  expect(await status(page, `/admin/api/customers/globex/visits?from=${today()}&to=${today()}`)).toBe(404);
  expect(await page.evaluate(async () => (await (await fetch('/admin/api/customers')).json()).map((c: { id: string }) => c.id))).toEqual(['demo']);
  await page.getByRole('link', { name: 'Open your workspace' }).click();
  await expect(page.getByTestId('home-page')).toBeVisible();

  // Sign out: the session ends on the server; a reload shows the sign-in form.
  expect(await status(page, '/auth/me')).toBe(200);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Email')).toBeVisible();
  expect(await status(page, '/auth/me')).toBe(401);
  expect(await status(page, '/admin/api/customers')).toBe(401);
  await page.reload();
  await expect(page.getByLabel('Email')).toBeVisible();

  // Signing in again with the password: a wrong one is refused with the server's message.
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not the password at all');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('signin-error')).toHaveText('wrong email or password');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('home-page')).toBeVisible();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('Email')).toBeVisible();
  expect(problems).toEqual([]);
});

test('a refused single sign-on shows its reason; single sign-on starts at the workspace of the link', async ({ page }) => {
  await page.goto(`/console/#signin-error=${encodeURIComponent('email_domain: this email belongs to another workspace')}`);
  await expect(page.getByTestId('signin-error')).toHaveText('Single sign-on failed: email_domain: this email belongs to another workspace');
  expect(page.url()).toBe(`${ORIGIN}/console/`);

  await page.goto('/console/#customer=globex');
  await page.reload();
  await expect(page.getByLabel('Workspace id')).toHaveValue('globex');
  const [start] = await Promise.all([
    page.waitForRequest((r) => r.url().includes('/auth/sso/')),
    page.getByRole('button', { name: 'Sign in with single sign-on' }).click(),
  ]);
  expect(new URL(start.url()).pathname).toBe('/auth/sso/globex/start');
  expect(start.isNavigationRequest()).toBe(true);
});

/** A page on another origin (served by the test, not by the server) that posts a form to an admin write route. */
async function crossSitePost(context: BrowserContext, pageOrigin: string, email: string) {
  const attacker = await context.newPage();
  await attacker.route(`${pageOrigin}/e2e-csrf`, (route: Route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      // text/plain smuggles a JSON body: {"email":"…","role":"owner","x":"="}
      body:
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>win a prize</title></head><body>` +
        `<form method="POST" action="${ORIGIN}/admin/api/customers/demo/invitations" enctype="text/plain">` +
        `<input type="hidden" name='{"email":"${email}","role":"owner","x":"' value='"}'><button>Claim</button></form></body></html>`,
    }),
  );
  await attacker.goto(`${pageOrigin}/e2e-csrf`);
  const [response] = await Promise.all([
    attacker.waitForResponse((r) => r.url().endsWith('/admin/api/customers/demo/invitations')),
    attacker.getByRole('button', { name: 'Claim' }).click(),
  ]);
  const sent = await response.request().allHeaders();
  const answer = { status: response.status(), body: await response.text(), origin: sent.origin, cookie: sent.cookie ?? '' };
  await attacker.close();
  return answer;
}

async function newUserContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ baseURL: ORIGIN, userAgent: UA });
}

test('an owner manages users, single sign-on and the audit log; a cross-site form post on its cookie is refused', async ({
  page,
  request,
  context,
  browser,
}) => {
  test.setTimeout(90_000);
  const problems = watchConsoleProblems(page);
  const ownerEmail = address('owner');
  await accept(page, await invite(request, ownerEmail, 'owner'));
  await expect(page.getByTestId('signed-in-as')).toHaveText(`${ownerEmail} · owner`);
  await expect(tabs(page)).toHaveText([
    'Home',
    'Accounts',
    'Visitors',
    'Segments',
    'Lists',
    'Alerts',
    'Notifications',
    'Integrations',
    'Enrich a file',
    'Web tags',
    'Webhooks',
    'API tokens',
    'Users',
    'Single sign-on',
    'Audit log',
    'Settings',
    'Developers',
  ]);

  // Invite a viewer from the Users page: the link is shown once.
  await tabs(page).filter({ hasText: 'Users' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
  await expect(page.getByTestId('user-row').filter({ hasText: ownerEmail })).toContainText('(you)');
  // Single sign-on (a page of its own): set up (the client secret is write-only). Its allowed domain is the workspace's own: an owner's
  // invitation of an address there answers the link (of another domain it would only be mailed).
  await tabs(page).filter({ hasText: 'Single sign-on' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Single sign-on' })).toBeVisible();
  const sso = page.getByTestId('sso-form');
  await expect(sso).toContainText('Not set up.');
  await sso.getByLabel('Issuer URL').fill('https://login.acme.example');
  await sso.getByLabel('Client id').fill('svc-console');
  await sso.getByRole('button', { name: 'Set up single sign-on' }).click();
  await expect(sso.getByRole('alert')).toContainText('Client secret');
  await sso.getByLabel('Client secret').fill('e2e-client-secret-value');
  await sso.getByLabel('Allowed email domains').fill('acme.example');
  await sso.getByLabel('Default role').selectOption('marketer');
  await sso.getByLabel('Display name').fill('Acme Okta');
  await sso.getByRole('button', { name: 'Set up single sign-on' }).click();
  await expect(page.getByTestId('sso-saved')).toHaveText('Single sign-on saved.');
  await expect(page.getByTestId('sso-form')).toContainText('Sign in with Acme Okta');
  await expect(page.getByTestId('sso-form').getByLabel('Client secret')).toHaveValue('');
  await expect(page.getByTestId('sso-form').getByLabel('Default role')).toHaveValue('marketer');
  const shown = await (await request.get('/admin/api/customers/demo/sso', { headers: admin })).json();
  expect(shown).toMatchObject({ issuer: 'https://login.acme.example', client_id: 'svc-console', allowed_domains: ['acme.example'], display_name: 'Acme Okta' });
  expect(JSON.stringify(shown)).not.toContain('e2e-client-secret-value');
  expect(await page.content()).not.toContain('e2e-client-secret-value');
  const viewerEmail = address('viewer');
  await tabs(page).filter({ hasText: 'Users' }).click();
  const form = page.getByTestId('invite-form');
  await form.getByLabel('Role').selectOption('viewer');
  await form.getByLabel(/^Email/).fill(viewerEmail);
  await form.getByRole('button', { name: 'Invite' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(`Invitation for ${viewerEmail} (viewer)`);
  await expect(dialog).toContainText('you will not see it again');
  const link = (await dialog.getByTestId('secret-value').textContent())?.trim() ?? '';
  expect(link).toMatch(new RegExp(`^${ORIGIN}/console/#accept=[A-Za-z0-9_-]{43}$`));
  await dialog.getByRole('button', { name: /close/ }).click();
  await expect(page.getByTestId('secret-dialog')).toHaveCount(0);
  expect(await page.content()).not.toContain(link.split('#accept=')[1]);

  // The viewer joins in its own browser: reports only, read-only.
  const viewerContext = await newUserContext(browser);
  const viewerPage = await viewerContext.newPage();
  await accept(viewerPage, link);
  await expect(viewerPage.getByTestId('signed-in-as')).toHaveText(`${viewerEmail} · viewer`);
  await expect(tabs(viewerPage)).toHaveText([
    'Home',
    'Accounts',
    'Visitors',
    'Segments',
    'Lists',
    'Alerts',
    'Notifications',
    'Enrich a file',
    'Web tags',
    'Settings',
    'Developers',
  ]);
  await tabs(viewerPage).filter({ hasText: 'Web tags' }).click();
  await expect(viewerPage.getByTestId('web-tags-page')).toBeVisible();
  await expect(viewerPage.getByTestId('create-tag-form')).toHaveCount(0);
  await expect(viewerPage.getByTestId('tag-settings-form')).toHaveCount(0);
  await expect(viewerPage.getByTestId('web-tags-page').getByText('Settings', { exact: true })).toHaveCount(0);

  // The owner makes the viewer a marketer: the viewer's session ends, its next request signs it out with the reason.
  await page.getByRole('button', { name: 'Refresh' }).first().click();
  const row = page.getByTestId('user-row').filter({ hasText: viewerEmail });
  await row.getByLabel(`Role of ${viewerEmail}`).selectOption('marketer');
  await expect(row.getByLabel(`Role of ${viewerEmail}`)).toHaveValue('marketer');
  await expect(row.getByTestId('user-row-error')).toHaveCount(0);
  await tabs(viewerPage).filter({ hasText: 'Visitors' }).click();
  await expect(viewerPage.getByTestId('signin-error')).toContainText('sign in again');
  await viewerContext.close();

  // A password reset link, shown once.
  await row.getByRole('button', { name: `Reset the password of ${viewerEmail}` }).click();
  await expect(dialog).toContainText(`Password reset for ${viewerEmail}`);
  await expect(dialog.getByTestId('secret-value')).toContainText('/console/#accept=');
  await dialog.getByRole('button', { name: /close/ }).click();
  await expect(page.getByTestId('secret-dialog')).toHaveCount(0);

  // Remove the (former) viewer.
  await row.getByRole('button', { name: `Remove ${viewerEmail}` }).click();
  await row
    .getByRole('group', { name: `Confirm removal of ${viewerEmail}` })
    .getByRole('button', { name: `Remove ${viewerEmail}` })
    .click();
  await expect(page.getByTestId('user-row').filter({ hasText: viewerEmail })).toHaveCount(0);

  // The audit log: who did what, before → after; and as CSV.
  await tabs(page).filter({ hasText: 'Audit log' }).click();
  const audit = page.getByTestId('audit-table');
  const roleChange = audit.getByTestId('audit-row').filter({ hasText: 'user.role' }).filter({ hasText: viewerEmail });
  await expect(roleChange).toHaveCount(1);
  await expect(roleChange).toContainText(ownerEmail);
  await expect(roleChange).toContainText('role: viewer → marketer');
  await expect(audit.getByTestId('audit-row').filter({ hasText: 'user.invite' }).filter({ hasText: viewerEmail })).toContainText('role: viewer');
  await expect(audit.getByTestId('audit-row').filter({ hasText: 'user.remove' }).filter({ hasText: viewerEmail })).toHaveCount(1);
  await expect(audit.getByTestId('audit-row').filter({ hasText: 'sso.set' })).toHaveCount(1);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toBe(`audit-demo-${new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10)}-${today()}.csv`);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\n')[0]).toBe('at,actor,ip,action,target,before,after,id');
  expect(csv).toContain('user.role');
  expect(csv).not.toContain('e2e-client-secret-value');

  // Cross-site form posts riding on the owner's cookie change nothing.
  // 1. Same site, other origin (another port of localhost): the cookie goes along (SameSite=Lax allows it),
  //    the server sees a foreign Origin and refuses.
  const sameSite = address('csrf-samesite');
  const fromOtherPort = await crossSitePost(context, `http://localhost:${PORT + 1}`, sameSite);
  expect(fromOtherPort.origin).toBe(`http://localhost:${PORT + 1}`);
  expect(fromOtherPort.cookie).toContain('svc_session=');
  expect(fromOtherPort.status).toBe(403);
  expect(fromOtherPort.body).toContain("this server's own pages");
  // 2. Another site (127.0.0.1 is not localhost): the browser does not send the Lax cookie at all.
  const crossSite = address('csrf-crosssite');
  const fromOtherSite = await crossSitePost(context, `http://127.0.0.1:${PORT}`, crossSite);
  expect(fromOtherSite.cookie).not.toContain('svc_session=');
  expect(fromOtherSite.status).toBe(401);
  // Nothing changed: no invitation was made for either address (the audit log records every one).
  const events = (await (await request.get('/admin/api/customers/demo/audit', { headers: admin })).json()).events as { action: string; target: string }[];
  expect(events.filter((e) => e.target === sameSite || e.target === crossSite)).toEqual([]);
  expect(events.some((e) => e.action === 'user.invite' && e.target === viewerEmail)).toBe(true);
  // …while the same request from the console's own page, with the same cookie, goes through.
  expect(
    await status(page, '/admin/api/customers/demo/invitations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: address('control'), role: 'viewer' }),
    }),
  ).toBe(201);

  // Single sign-on, set up above (its allowed domain let the owner's invitations answer the link): removed.
  await tabs(page).filter({ hasText: 'Single sign-on' }).click();
  await page.getByTestId('sso-form').getByRole('button', { name: 'Remove single sign-on' }).click();
  await page.getByTestId('sso-form').getByRole('button', { name: 'Confirm: remove single sign-on' }).click();
  await expect(page.getByTestId('sso-form')).toContainText('Not set up.');

  await page.getByRole('button', { name: 'Sign out' }).click();
  expect(await status(page, '/auth/me')).toBe(401);
  expect(problems).toEqual([]);
});
