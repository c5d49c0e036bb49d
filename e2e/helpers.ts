/**
 * Helpers of the browser tests: test pages served on the real server's origin (so the tag's
 * allowed-domain check passes), the sample visitors, request counting, events, page-error guard.
 * Every page loads the minified bundle from the real server (`/tag/v1/demo-web-tag.js`).
 */
import { type APIRequestContext, expect, type Page, type Route, test } from '@playwright/test';
import { CORE_FEATURES, DEFAULT_FEATURES, type FeatureSet, variantName } from '../core/tag-features.ts';
import { BROWSER_UA } from '../server/testing/browser-agent.ts';
import { renderSnippet, type SnippetOptions } from '../tag/snippet.ts';

export const TAG = 'demo-web-tag';
export const ORIGIN = `http://localhost:${process.env.SVC_E2E_PORT ?? 18080}`;
export const UA = BROWSER_UA;

/** The admin token playwright.config.ts gives the server. */
export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

/**
 * A bundle variant under test: a web tag of the demo customer whose `features` setting selects it
 * (`/tag/v1/<tag>.js` serves that variant). The demo tag itself is the default, every feature.
 */
export interface Variant {
  name: string;
  tag: string;
  features: FeatureSet;
}

export function variant(features: Partial<FeatureSet>, base: FeatureSet = CORE_FEATURES): Variant {
  const all = { ...base, ...features };
  const name = variantName(all);
  return { name, tag: name === variantName(DEFAULT_FEATURES) ? TAG : `e2e-${name}`, features: all };
}

/** Every feature (the demo tag, the default), and none (the core). */
export const FULL = variant({}, DEFAULT_FEATURES);
export const CORE = variant({});

/** Creates the variant's tag (like the demo tag: same domains, scores, segment names) unless it exists. */
export async function ensureVariantTag(request: APIRequestContext, v: Variant): Promise<void> {
  if (v.tag === TAG) return;
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const existing = await request.get('/admin/api/tags?customer=demo', { headers });
  expect(existing.ok()).toBe(true);
  if ((await existing.json()).some((t: { tag_id: string }) => t.tag_id === v.tag)) return;
  const res = await request.post('/admin/api/tags', {
    headers,
    // A demo tag, like the seeded one: the specs choose the visitor with `svc_test_ip` (demo mode only).
    data: {
      customer_id: 'demo',
      tag_id: v.tag,
      allowed_domains: ['localhost', '127.0.0.1'],
      scores: true,
      segment_names: true,
      demo: true,
      settings: { features: v.features },
    },
  });
  expect(res.status()).toBe(201);
}

export interface Visitor {
  label: string;
  ip: string;
  kind: string;
  company?: string;
}

export async function visitors(request: APIRequestContext): Promise<Visitor[]> {
  const res = await request.get('/demo/api/visitors');
  expect(res.ok()).toBe(true);
  return (await res.json()).visitors;
}

export function pick(list: Visitor[], pred: (v: Visitor) => boolean, what: string): Visitor {
  const v = list.find(pred);
  if (!v) throw new Error(`the sample data has no ${what} visitor: ${JSON.stringify(list)}`);
  return v;
}

/** The answer the tag gets for a test IP (asked like the tag does: from the demo page's origin). */
export async function answerFor(request: APIRequestContext, ip: string): Promise<any> {
  const res = await request.get(`/v3/company/details?tag=${TAG}&test_ip=${ip}`, { headers: { origin: ORIGIN, 'user-agent': UA } });
  expect(res.status()).toBe(200);
  return res.json();
}

export interface TestPage {
  /** Markup of <body>. */
  body: string;
  /** Extra markup in <head> after the snippet (e.g. a script queueing commands). */
  head?: string;
  /** Snippet options (default: the demo tag, same origin). False: no snippet. */
  snippet?: Partial<SnippetOptions> | false;
  /** Response headers (e.g. Content-Security-Policy). */
  headers?: Record<string, string>;
}

export const html = ({ body, head = '', snippet = {} }: TestPage): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>tag test</title>` +
  (snippet === false ? '' : renderSnippet({ tagId: TAG, ...snippet })) +
  `${head}</head><body>${body}</body></html>`;

/**
 * Serves `page` at `ORIGIN + path` (a path the real server does not have), leaving every other request
 * (the bundle, the API) to the real server. Returns the URL.
 */
export async function serve(page: Page, path: string, content: TestPage, origin = ORIGIN): Promise<string> {
  const url = origin + path;
  await page.route(url.split('?')[0] + '*', (route: Route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', headers: content.headers, body: html(content) }),
  );
  return url;
}

/** A page-view beacon as the browser sent it. */
export interface Beacon {
  url: string;
  method: string;
  contentType: string | undefined;
  body: any;
}

/**
 * Captures page-view beacons (`<endpoint>/v1/events?tag=…`) and answers them 204 as the service does;
 * also records any preflight (OPTIONS) to that route, which a simple CORS request never triggers.
 */
export async function captureBeacons(page: Page): Promise<{ beacons: () => Beacon[]; preflights: () => string[] }> {
  const beacons: Beacon[] = [];
  const preflights: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/v1/events') && r.method() === 'OPTIONS') preflights.push(r.url());
  });
  await page.route('**/v1/events?*', async (route) => {
    const r = route.request();
    beacons.push({ url: r.url(), method: r.method(), contentType: r.headers()['content-type'], body: JSON.parse(r.postData() ?? 'null') });
    await route.fulfill({ status: 204 });
  });
  return { beacons: () => beacons, preflights: () => preflights };
}

/** Counts identification requests (the one request the tag makes). */
export function countRequests(page: Page): () => string[] {
  const urls: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/v3/company/details')) urls.push(r.url());
  });
  return () => urls;
}

/** Records svc:* events and dataLayer pushes from the very start of every document. */
export async function recordEvents(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as any;
    w.__events = [];
    for (const type of ['svc:ready', 'svc:error', 'svc:personalized']) {
      document.addEventListener(type, (e) => {
        const d = (e as CustomEvent).detail;
        w.__events.push({
          type,
          at: performance.now(),
          detail: type === 'svc:personalized' ? { elements: d.elements.map((x: any) => ({ ...x, element: x.element.id || x.element.tagName })) } : d,
        });
      });
    }
  });
}

export const events = (page: Page, type?: string): Promise<{ type: string; at: number; detail: any }[]> =>
  page.evaluate((t) => ((window as any).__events ?? []).filter((e: any) => !t || e.type === t), type);

export const waitForEvent = (page: Page, type: string, n = 1) => expect.poll(async () => (await events(page, type)).length).toBeGreaterThanOrEqual(n);

export const dataLayer = (page: Page): Promise<Record<string, unknown>[]> =>
  page.evaluate(() => ((window as any).dataLayer ?? []).filter((e: any) => typeof e?.event === 'string' && e.event.startsWith('svc_')));

/** Delays the identification answer by `ms` (the real server still answers). */
export async function delayApi(page: Page, ms: number): Promise<void> {
  await page.route('**/v3/company/details*', async (route) => {
    await new Promise((r) => setTimeout(r, ms));
    await route.continue();
  });
}

/** Computed visibility of the element with this id. */
export const visibility = (page: Page, id: string) => page.evaluate((i) => getComputedStyle(document.getElementById(i)!).visibility, id);

/** Registers hooks that fail a test when its page throws: the tag must never throw into the host page. */
export function failOnPageErrors(): void {
  const errors = new WeakMap<Page, string[]>();
  test.beforeEach(async ({ page }) => {
    const list: string[] = [];
    errors.set(page, list);
    page.on('pageerror', (e) => list.push(e.message));
  });
  test.afterEach(async ({ page }) => {
    expect(errors.get(page)).toEqual([]);
  });
}

/** CSP violations and uncaught errors of a page (the console, the API docs): each must run under its CSP without either. */
export function watchConsoleProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/**
 * A new user of the demo customer with `role`, invited through the admin API and signed in on `page`
 * with the one-time link (a password set there); `tag` names the spec in the address. Returns the email.
 */
export async function signInAsNew(page: Page, request: APIRequestContext, role: string, tag: string): Promise<string> {
  const email = `${role}-${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@acme.example`;
  const res = await request.post('/admin/api/customers/demo/invitations', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, data: { email, role } });
  expect(res.status()).toBe(201);
  await page.goto((await res.json()).url);
  const password = `e2e ${tag} passphrase`;
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(`${email} · ${role}`);
  return email;
}
