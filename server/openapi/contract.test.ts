/**
 * The contract, checked by a validator that is not ours: real requests, sent the way clients send them
 * (form, JSON and multipart bodies, tag mode with an Origin, beacons as text/plain, body-less admin
 * actions …), go through Stoplight Prism's validation proxy to a real server, and Prism compares request
 * and answer with the generated document. Zero violations allowed.
 *
 * Two Prisms, because a request the document itself forbids (no credential, an over-long field, a body
 * type it does not list) is refused by `prism proxy --errors` before it reaches the server:
 *   - `strict` (`--errors`): every request that follows the document; any violation, request or
 *     response, error or warning, fails — and so does an answer Prism wrote itself (problem+json);
 *   - `lenient` (no `--errors`): requests the document forbids, forwarded anyway. Each must show a
 *     request violation (the document declares the rule the server enforced) and no response violation.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../deploy/processes.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { FIXTURE_PEOPLE } from '../testing/fixtures.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { openApiDocument } from './document.ts';

const PRISM = join(import.meta.dirname, '../../node_modules/.bin/prism');
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const PAGE = 'http://localhost';
const FOREIGN = 'https://evil.example';
const DOC = openApiDocument();

interface Violation {
  location?: string[];
  severity?: string;
  message?: string;
}

interface Sent {
  /** What the request is, for the report. */
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  /** The status the server answers (one of, when it depends on whether the bundles are built). */
  status: number | number[];
  /** The document forbids the request: sent through the lenient Prism, a request violation expected. */
  forbidden?: true;
}

interface Prism {
  url: string;
  child: ChildProcess;
}

let srv: TestServer;
let dir: string;
let strict: Prism;
let lenient: Prism;
const tokens: Record<string, string> = {};
/** What went wrong with the requests of the current test: printed whole when it fails. */
const problems: string[] = [];
beforeEach(() => void (problems.length = 0));
/** Requests sent, by where they went. */
const sent = { strict: 0, lenient: 0, direct: 0 };

async function startPrism(document: string, upstream: string, errors: boolean): Promise<Prism> {
  const port = await freePort();
  // --cors false: Prism would otherwise answer preflights itself and never forward them.
  const args = ['proxy', document, upstream, '--port', String(port), '--host', '127.0.0.1', '--cors', 'false', ...(errors ? ['--errors'] : [])];
  const child = spawn(PRISM, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log}`)), 30_000);
    const check = () => {
      if (/Prism is listening on/.test(log)) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code}):\n${log}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback', SVC_DEMO: '1' }, people: FIXTURE_PEOPLE });
  for (const g of ['identification', 'company-firmographics', 'lead-scoring-firmographics', 'lead-scoring', 'people-enrichment', 'people-search'] as const) {
    tokens[g] = (await srv.store.createToken({ customer_id: 'acme', api_group: g, name: 'crm' })).secret;
  }
  tokens.restricted = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'page', allowed_domains: ['localhost'] })).secret;
  dir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
  const document = join(dir, 'openapi.json');
  writeFileSync(document, JSON.stringify(DOC));
  [strict, lenient] = await Promise.all([startPrism(document, srv.url, true), startPrism(document, srv.url, false)]);
});

afterAll(async () => {
  for (const p of [strict, lenient]) p?.child.kill();
  await srv?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function violationsOf(res: Response): Violation[] {
  const header = res.headers.get('sl-violations');
  if (!header) return [];
  try {
    return JSON.parse(header) as Violation[];
  } catch {
    return [{ message: header }];
  }
}

const describeViolation = (v: Violation) => `${v.severity ?? '?'} ${(v.location ?? []).join('.')}: ${v.message}`;

/** Sends one request through its Prism and notes every way it broke the contract; returns the answer's body. */
async function send(r: Sent): Promise<{ status: number; body: unknown }> {
  sent[r.forbidden ? 'lenient' : 'strict']++;
  const prism = r.forbidden ? lenient : strict;
  const res = await fetch(prism.url + r.path, { method: r.method, headers: { 'user-agent': BROWSER_UA, ...r.headers }, body: r.body });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const body: unknown = type.includes('json') && text ? JSON.parse(text) : text;
  const label = `${r.method} ${r.path.slice(0, 80)} (${r.name}) → ${res.status}`;
  const expected = [r.status].flat();
  if (type.startsWith('application/problem+json')) {
    // Prism answered itself: a violation under --errors, or a request it could not forward.
    const p = body as { title?: string; detail?: string; validation?: Violation[] };
    problems.push(`${label}: Prism refused: ${p.title} ${p.detail ?? ''}\n    ${(p.validation ?? []).map(describeViolation).join('\n    ')}`);
    return { status: res.status, body };
  }
  if (!expected.includes(res.status)) problems.push(`${label}: expected ${expected.join(' or ')}: ${text.slice(0, 200)}`);
  const violations = violationsOf(res);
  const onRequest = violations.filter((v) => v.location?.[0] === 'request');
  const others = violations.filter((v) => v.location?.[0] !== 'request');
  if (r.forbidden) {
    if (onRequest.length === 0) problems.push(`${label}: the document does not forbid this request, yet the test says it does`);
    for (const v of others) problems.push(`${label}: ${describeViolation(v)}`);
  } else {
    for (const v of violations) problems.push(`${label}: ${describeViolation(v)}`);
  }
  return { status: res.status, body };
}

/**
 * HEAD, checked here against the document without Prism: Prism 5.14's proxy parses every upstream answer
 * typed application/json as JSON unless it is a 204 (prism-http's parseResponse), so the empty body of a
 * HEAD fails it with its own 500. What it would check: a documented status, the required headers, no body.
 */
async function sendHead(r: { name: string; route: string; path: string; headers: Record<string, string>; status: number }): Promise<void> {
  sent.direct++;
  const res = await fetch(srv.url + r.path, { method: 'HEAD', headers: { 'user-agent': BROWSER_UA, ...r.headers } });
  const label = `HEAD ${r.path} (${r.name}) → ${res.status}`;
  if (res.status !== r.status) problems.push(`${label}: expected ${r.status}`);
  const response = (
    DOC.paths as Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, { $ref?: string; required?: boolean }>; content?: unknown }> }>
    >
  )[r.route]?.head?.responses[String(res.status)];
  if (!response) return void problems.push(`${label}: the document lists no such answer to HEAD`);
  if (response.content) problems.push(`${label}: the document gives HEAD a body`);
  for (const [name, h] of Object.entries(response.headers ?? {}))
    if (h.required && !res.headers.has(name)) problems.push(`${label}: required header ${name} missing`);
  if ((await res.text()) !== '') problems.push(`${label}: HEAD answered a body`);
}

const token = (group: string) => ({ authorization: `Token ${tokens[group]}` });
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const adminJson = (body: unknown) => ({ headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => ({ headers: FORM, body: new URLSearchParams(fields).toString() });
const jsonOf = (fields: Record<string, unknown>) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) });
function multipart(fields: Record<string, string>): { body: FormData } {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  return { body: data };
}

/** Fails with every problem of this test's requests, numbered. */
function expectNoProblems(): void {
  expect(problems, `\n${problems.map((p, i) => `${i + 1}. ${p}`).join('\n')}\n`).toEqual([]);
}

describe('real requests through Prism against the document', () => {
  it('identification: token and tag mode, HEAD, preflights, every refusal', async () => {
    const D = '/v3/company/details';
    await send({ name: 'token mode, Match', method: 'GET', path: `${D}?ip=${IPS.northwind}`, headers: token('identification'), status: 200 });
    await send({ name: 'token mode, No Match', method: 'GET', path: `${D}?ip=${IPS.nowhere}`, headers: token('identification'), status: 200 });
    await send({
      name: 'visitor user agent of a bot',
      method: 'GET',
      path: `${D}?ip=${IPS.northwind}`,
      headers: { ...token('identification'), 'x-svc-visitor-user-agent': BOT_UA },
      status: 200,
    });
    await send({
      name: 'partner on its own behalf',
      method: 'GET',
      path: `${D}?ip=${IPS.bluepeak}`,
      headers: { ...token('identification'), 'x-svc-customid': `acme-${tokens.identification}` },
      status: 200,
    });
    await send({ name: 'tag mode', method: 'GET', path: `${D}?tag=acme-tag`, headers: { origin: PAGE, 'x-forwarded-for': IPS.northwind }, status: 200 });
    await send({ name: 'usage of an identification token', method: 'GET', path: '/v3/usage', headers: token('identification'), status: 200 });
    await send({ name: 'usage of a free group', method: 'GET', path: '/v3/usage', headers: token('lead-scoring'), status: 200 });
    await send({ name: 'usage with an unknown token', method: 'GET', path: '/v3/usage', headers: { authorization: `Token ${'x'.repeat(40)}` }, status: 401 });
    await sendHead({ name: 'HEAD, never charged', route: D, path: `${D}?ip=${IPS.northwind}`, headers: token('identification'), status: 200 });
    await sendHead({
      name: 'HEAD, unknown token',
      route: D,
      path: `${D}?ip=${IPS.northwind}`,
      headers: { authorization: `Token ${'x'.repeat(40)}` },
      status: 401,
    });
    await send({ name: 'unknown token', method: 'GET', path: `${D}?ip=${IPS.northwind}`, headers: { authorization: `Token ${'x'.repeat(40)}` }, status: 401 });
    await send({ name: 'unknown tag', method: 'GET', path: `${D}?tag=no-such-tag`, headers: { origin: PAGE }, status: 401 });
    await send({ name: 'token of another API group', method: 'GET', path: `${D}?ip=${IPS.northwind}`, headers: token('lead-scoring'), status: 403 });
    await send({ name: 'tag from a foreign page', method: 'GET', path: `${D}?tag=acme-tag`, headers: { origin: FOREIGN }, status: 403 });
    await send({
      name: 'domain-restricted token naming an address',
      method: 'GET',
      path: `${D}?ip=${IPS.northwind}`,
      headers: { ...token('restricted'), origin: PAGE },
      status: 403,
    });
    await send({
      name: 'preflight from an allowed page',
      method: 'OPTIONS',
      path: D,
      headers: { origin: PAGE, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      status: 204,
    });
    await send({
      name: 'preflight from a foreign page',
      method: 'OPTIONS',
      path: D,
      headers: { origin: FOREIGN, 'access-control-request-method': 'GET' },
      status: 403,
    });
    await send({ name: 'no credential', method: 'GET', path: D, status: 401, forbidden: true });
    await send({
      name: 'repeated ?ip=',
      method: 'GET',
      path: `${D}?ip=${IPS.northwind}&ip=${IPS.bluepeak}`,
      headers: token('identification'),
      status: 400,
      forbidden: true,
    });
    await send({ name: 'over-long ?ip=', method: 'GET', path: `${D}?ip=${'1'.repeat(65)}`, headers: token('identification'), status: 422, forbidden: true });

    // 402 and 429 on a customer of their own: no credits, and a token allowed one request a minute.
    await send({
      name: 'customer without credits',
      method: 'POST',
      path: '/admin/api/customers',
      ...adminJson({ id: 'broke', name: 'Broke Ltd', packages: ['platform'] }),
      status: 201,
    });
    const created = await send({
      name: 'its token, one request a minute',
      method: 'POST',
      path: '/admin/api/tokens',
      ...adminJson({ customer_id: 'broke', api_group: 'identification', name: 'crm', rate_limit: 1 }),
      status: 201,
    });
    const broke = { authorization: `Token ${(created.body as { token: string }).token}` };
    await send({ name: 'quota exhausted', method: 'GET', path: `${D}?ip=${IPS.northwind}`, headers: broke, status: 402 });
    await send({ name: 'rate limited', method: 'GET', path: `${D}?ip=${IPS.northwind}`, headers: broke, status: 429 });
    expectNoProblems();
  });

  it('enrichment, scoring and people: form, JSON and multipart bodies, not found, every refusal', async () => {
    const email = FIXTURE_PEOPLE[0]!.email;
    const routes: [string, string, Record<string, string>][] = [
      ['/v1/enrichment/company', 'company-firmographics', { email }],
      ['/v2/people/enrichment', 'company-firmographics', { email }],
      ['/v2/people/full', 'lead-scoring-firmographics', { email, country: 'United States' }],
      ['/v2/people/score', 'lead-scoring', { email, country: 'United States' }],
      ['/v2/enrichment/people', 'people-enrichment', { email }],
      ['/v2/search/people', 'people-search', { domain: 'northwind.example', page_size: '2' }],
    ];
    for (const [path, group, fields] of routes) {
      await send({ name: 'form', method: 'POST', path, headers: { ...token(group), ...FORM }, body: new URLSearchParams(fields).toString(), status: 200 });
      await send({ name: 'JSON', method: 'POST', path, headers: { ...token(group), ...jsonOf(fields).headers }, body: jsonOf(fields).body, status: 200 });
      await send({ name: 'multipart', method: 'POST', path, headers: token(group), ...multipart(fields), status: 200 });
    }
    const post = (name: string, path: string, group: string, fields: Record<string, string>, status: number, forbidden?: true) =>
      send({
        name,
        method: 'POST',
        path,
        headers: { ...token(group), ...form(fields).headers },
        body: form(fields).body,
        status,
        ...(forbidden ? { forbidden } : {}),
      });
    await post('v3 by domain, unknown', '/v1/enrichment/company', 'company-firmographics', { domain: 'unknown.example' }, 404);
    await post('v2, unknown', '/v2/people/enrichment', 'company-firmographics', { email: 'nobody@unknown.example' }, 404);
    await post('combined, unknown', '/v2/people/full', 'lead-scoring-firmographics', { email: 'nobody@unknown.example', country: 'Germany' }, 404);
    await post('scoring, not an email', '/v2/people/score', 'lead-scoring', { email: 'not-an-email', country: 'Germany' }, 404);
    await post('person, unknown', '/v2/enrichment/people', 'people-enrichment', { email: 'nobody@northwind.example' }, 404);
    await post('search, unknown domain', '/v2/search/people', 'people-search', { domain: 'unknown.example' }, 404);
    await post('search, page size 0', '/v2/search/people', 'people-search', { domain: 'northwind.example', page_size: '0' }, 422);
    await post('token of another API group', '/v1/enrichment/company', 'lead-scoring', { email }, 403);
    await send({
      name: 'unknown token',
      method: 'POST',
      path: '/v2/people/full',
      headers: { authorization: `Token ${'y'.repeat(40)}`, ...FORM },
      body: `email=${encodeURIComponent(email)}`,
      status: 401,
    });
    await post('body over 16 KB (an unknown field)', '/v1/enrichment/company', 'company-firmographics', { email, note: 'n'.repeat(20_000) }, 413);
    await send({ name: 'no credential', method: 'POST', path: '/v1/enrichment/company', ...form({ email }), status: 401, forbidden: true });
    await post('blank email', '/v2/people/enrichment', 'company-firmographics', { email: ' ' }, 400, true);
    await post('scoring without country', '/v2/people/score', 'lead-scoring', { email }, 400, true);
    await post('over-long email', '/v1/enrichment/company', 'company-firmographics', { email: `${'x'.repeat(300)}@example.com` }, 422, true);
    await send({ name: 'no body', method: 'POST', path: '/v2/people/full', headers: token('lead-scoring-firmographics'), status: 400, forbidden: true });
    await send({
      name: 'text/plain body',
      method: 'POST',
      path: '/v1/enrichment/company',
      headers: { ...token('company-firmographics'), 'content-type': 'text/plain' },
      body: `email=${email}`,
      status: 415,
      forbidden: true,
    });

    // 402: a customer with a package but no enrichment credits.
    const created = await send({
      name: 'token of the customer without credits',
      method: 'POST',
      path: '/admin/api/tokens',
      ...adminJson({ customer_id: 'broke', api_group: 'company-firmographics', name: 'crm' }),
      status: 201,
    });
    await send({
      name: 'quota exhausted',
      method: 'POST',
      path: '/v1/enrichment/company',
      headers: { authorization: `Token ${(created.body as { token: string }).token}`, ...FORM },
      body: `email=${encodeURIComponent(email)}`,
      status: 402,
    });
    expectNoProblems();
  });

  it('web tag: beacons, preflights, bundles', async () => {
    const beacon = JSON.stringify({ type: 'pageview', path: '/pricing?utm_source=x', referrer: 'news.example', session: 'sess-0123456789' });
    const E = '/v1/events?tag=acme-tag';
    await send({
      name: 'beacon (text/plain)',
      method: 'POST',
      path: E,
      headers: { origin: PAGE, 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': IPS.northwind },
      body: beacon,
      status: 204,
    });
    await send({ name: 'JSON sender', method: 'POST', path: E, headers: { origin: PAGE, 'content-type': 'application/json' }, body: beacon, status: 204 });
    await send({
      name: 'not a page view',
      method: 'POST',
      path: E,
      headers: { origin: PAGE, 'content-type': 'text/plain' },
      body: '{"type":"click"}',
      status: 400,
    });
    await send({
      name: 'beacon over 4 KB',
      method: 'POST',
      path: E,
      headers: { origin: PAGE, 'content-type': 'text/plain' },
      body: 'x'.repeat(5000),
      status: 413,
    });
    await send({
      name: 'unknown tag',
      method: 'POST',
      path: '/v1/events?tag=no-such-tag',
      headers: { origin: PAGE, 'content-type': 'text/plain' },
      body: beacon,
      status: 401,
    });
    await send({ name: 'foreign page', method: 'POST', path: E, headers: { origin: FOREIGN, 'content-type': 'text/plain' }, body: beacon, status: 403 });
    await send({
      name: 'preflight of a JSON sender',
      method: 'OPTIONS',
      path: E,
      headers: { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      status: 204,
    });
    await send({
      name: 'preflight from a foreign page',
      method: 'OPTIONS',
      path: E,
      headers: { origin: FOREIGN, 'access-control-request-method': 'POST' },
      status: 403,
    });
    await send({
      name: 'no tag',
      method: 'POST',
      path: '/v1/events',
      headers: { origin: PAGE, 'content-type': 'text/plain' },
      body: beacon,
      status: 401,
      forbidden: true,
    });

    // Built or not (npm run build:tag), both answers are documented; identity: Prism's fetch would unzip a gzip body.
    const plain = { 'accept-encoding': 'identity' };
    await send({ name: 'the bundle', method: 'GET', path: '/tag/v1/svc.js', headers: plain, status: [200, 404] });
    await send({ name: "a tag's bundle", method: 'GET', path: '/tag/v1/acme-tag.js', headers: plain, status: [200, 404] });
    await send({ name: 'unknown tag: a JavaScript comment', method: 'GET', path: '/tag/v1/no-such-tag.js', headers: plain, status: 404 });
    await send({ name: 'demo visitors', method: 'GET', path: '/demo/api/visitors', status: 200 });
    expectNoProblems();
  });

  it('admin API: reads and writes, body-less token actions, refusals', async () => {
    await send({ name: 'customers', method: 'GET', path: '/admin/api/customers', headers: admin, status: 200 });
    const beta = await send({
      name: 'create with advanced: Lead Scoring token',
      method: 'POST',
      path: '/admin/api/customers',
      ...adminJson({ id: 'beta', name: 'Beta Ltd', packages: ['platform', 'advanced'] }),
      status: 201,
    });
    expect((beta.body as { lead_scoring_token: { id: string; token: string } }).lead_scoring_token).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
    });
    await send({ name: 'create again', method: 'POST', path: '/admin/api/customers', ...adminJson({ id: 'beta', name: 'Beta Ltd' }), status: 409 });
    await send({ name: 'a customer', method: 'GET', path: '/admin/api/customers/acme', headers: admin, status: 200 });
    await send({ name: 'unknown customer', method: 'GET', path: '/admin/api/customers/nope', headers: admin, status: 404 });
    await send({ name: 'change a customer', method: 'PATCH', path: '/admin/api/customers/beta', ...adminJson({ name: 'Beta Limited' }), status: 200 });
    await send({ name: 'credits', method: 'GET', path: '/admin/api/customers/acme/credits', headers: admin, status: 200 });
    await send({ name: 'visitors', method: 'GET', path: '/admin/api/customers/acme/visits', headers: admin, status: 200 });
    await send({ name: 'visitors as CSV', method: 'GET', path: '/admin/api/customers/acme/visits', headers: { ...admin, accept: 'text/csv' }, status: 200 });
    await send({ name: 'visitors.csv of a segment', method: 'GET', path: '/admin/api/customers/acme/visits.csv?segment=101', headers: admin, status: 200 });
    await send({
      name: 'visitors.csv, the days and their coverage',
      method: 'GET',
      path: '/admin/api/customers/acme/visits.csv?rows=days',
      headers: admin,
      status: 200,
    });
    await send({ name: 'visitors of an unknown segment', method: 'GET', path: '/admin/api/customers/acme/visits?segment=999', headers: admin, status: 422 });
    await send({ name: 'tag sightings', method: 'GET', path: '/admin/api/customers/acme/tag-sightings', headers: admin, status: 200 });

    await send({ name: 'tokens', method: 'GET', path: '/admin/api/tokens?customer=acme', headers: admin, status: 200 });
    const created = await send({
      name: 'create a token',
      method: 'POST',
      path: '/admin/api/tokens',
      ...adminJson({ customer_id: 'acme', api_group: 'identification', name: 'contract test', scores: true }),
      status: 201,
    });
    const { id, token: secret } = created.body as { id: string; token: string };
    await send({
      name: 'a package not bought',
      method: 'POST',
      path: '/admin/api/tokens',
      ...adminJson({ customer_id: 'beta', api_group: 'people-search', name: 'x' }),
      status: 403,
    });
    await send({
      name: 'unknown customer',
      method: 'POST',
      path: '/admin/api/tokens',
      ...adminJson({ customer_id: 'nope', api_group: 'identification', name: 'x' }),
      status: 404,
    });
    await send({ name: 'a token', method: 'GET', path: `/admin/api/tokens/${id}`, headers: admin, status: 200 });
    await send({ name: 'unknown token', method: 'GET', path: '/admin/api/tokens/tok_nope', headers: admin, status: 404 });
    // The token actions take no body: sent as curl and python-requests send them, with and without a type.
    const lookup = () =>
      send({
        name: 'lookup with the token',
        method: 'GET',
        path: `/v3/company/details?ip=${IPS.northwind}`,
        headers: { authorization: `Token ${secret}` },
        status: [200, 401],
      });
    await send({ name: 'deactivate, no body, no type', method: 'POST', path: `/admin/api/tokens/${id}/deactivate`, headers: admin, status: 200 });
    expect((await lookup()).status, 'a deactivated token answers 401').toBe(401);
    await send({
      name: 'activate, no body, JSON type',
      method: 'POST',
      path: `/admin/api/tokens/${id}/activate`,
      headers: { ...admin, 'content-type': 'application/json' },
      status: 200,
    });
    expect((await lookup()).status, 'an active token answers').toBe(200);
    const rotated = await send({ name: 'rotate, no body', method: 'POST', path: `/admin/api/tokens/${id}/rotate`, headers: admin, status: 200 });
    expect((rotated.body as { token?: string }).token).toMatch(/^[A-Za-z0-9]{40}$/);
    await send({ name: 'deactivate an unknown token', method: 'POST', path: '/admin/api/tokens/tok_nope/deactivate', headers: admin, status: 404 });
    await send({ name: 'delete the token', method: 'DELETE', path: `/admin/api/tokens/${id}`, headers: admin, status: 204 });

    await send({ name: 'tags', method: 'GET', path: '/admin/api/tags?customer=acme', headers: admin, status: 200 });
    await send({
      name: 'create a tag',
      method: 'POST',
      path: '/admin/api/tags',
      ...adminJson({ customer_id: 'acme', tag_id: 'contract-tag', allowed_domains: ['docs.example'] }),
      status: 201,
    });
    await send({
      name: 'create it again',
      method: 'POST',
      path: '/admin/api/tags',
      ...adminJson({ customer_id: 'acme', tag_id: 'contract-tag', allowed_domains: ['docs.example'] }),
      status: 409,
    });
    await send({ name: 'a tag', method: 'GET', path: '/admin/api/tags/contract-tag', headers: admin, status: 200 });
    await send({
      name: 'change a tag',
      method: 'PATCH',
      path: '/admin/api/tags/contract-tag',
      ...adminJson({ scores: true, visitor_rate_limit: 50 }),
      status: 200,
    });
    await send({
      name: "replace a tag's settings",
      method: 'PATCH',
      path: '/admin/api/tags/contract-tag/settings',
      ...adminJson({ min_confidence: 'High', features: { debug: false } }),
      status: 200,
    });
    await send({ name: 'settings of an unknown tag', method: 'PATCH', path: '/admin/api/tags/nope-tag/settings', ...adminJson({}), status: 404 });

    const hook = await send({
      name: 'register a webhook',
      method: 'POST',
      path: '/admin/api/customers/acme/webhooks',
      ...adminJson({ url: 'http://127.0.0.1:9/hook', events: ['account.visited'] }),
      status: 201,
    });
    const webhookId = (hook.body as { id: string }).id;
    await send({ name: 'webhooks', method: 'GET', path: '/admin/api/customers/acme/webhooks', headers: admin, status: 200 });
    await send({ name: 'a webhook', method: 'GET', path: `/admin/api/customers/acme/webhooks/${webhookId}`, headers: admin, status: 200 });
    await send({
      name: 'its deliveries',
      method: 'GET',
      path: `/admin/api/customers/acme/webhooks/${webhookId}/deliveries?limit=10`,
      headers: admin,
      status: 200,
    });
    // The 21st endpoint of a customer is a 409 the document declares.
    const more: string[] = [];
    for (let i = 0; i < 19; i++) {
      const extra = { customer_id: 'acme', url: `http://127.0.0.1:9/hook/${i}`, events: ['account.visited' as const], hot_paths: [], description: '' };
      more.push((await srv.webhookStore.createEndpoint({ ...extra, secret: `whsec_contract_${i}_0123456789` })).id);
    }
    await send({
      name: 'a 21st webhook',
      method: 'POST',
      path: '/admin/api/customers/acme/webhooks',
      ...adminJson({ url: 'http://127.0.0.1:9/hook/21', events: ['account.visited'] }),
      status: 409,
    });
    for (const id of more) await srv.webhookStore.deleteEndpoint('acme', id);
    await send({ name: 'remove it', method: 'DELETE', path: `/admin/api/customers/acme/webhooks/${webhookId}`, headers: admin, status: 204 });
    await send({ name: 'removed', method: 'GET', path: `/admin/api/customers/acme/webhooks/${webhookId}`, headers: admin, status: 404 });

    const tag = adminJson({ customer_id: 'acme', allowed_domains: ['docs.example'] });
    await send({
      name: 'cross-origin write',
      method: 'POST',
      path: '/admin/api/tags',
      headers: { ...tag.headers, origin: FOREIGN },
      body: tag.body,
      status: 403,
    });
    await send({ name: 'no credential', method: 'GET', path: '/admin/api/customers', status: 401, forbidden: true });
    await send({
      name: 'a body that is not JSON',
      method: 'POST',
      path: '/admin/api/tokens',
      headers: { ...admin, 'content-type': 'text/plain' },
      body: 'x',
      status: 415,
      forbidden: true,
    });
    await send({
      name: 'a token without its group',
      method: 'POST',
      path: '/admin/api/tokens',
      ...adminJson({ customer_id: 'acme', name: 'x' }),
      status: 422,
      forbidden: true,
    });
    expectNoProblems();
  });

  it('operating endpoints, then the admin throttle', async () => {
    await send({ name: 'liveness', method: 'GET', path: '/healthz', status: 200 });
    await send({ name: 'readiness', method: 'GET', path: '/readyz', status: 200 });
    await send({ name: 'metrics', method: 'GET', path: '/metrics', headers: admin, status: 200 });
    await send({ name: 'the document', method: 'GET', path: '/openapi.json', status: 200 });
    await send({ name: 'the reference', method: 'GET', path: '/docs', status: 200 });
    await send({ name: 'its renderer', method: 'GET', path: '/docs/scalar.js', status: 200 });
    // Last: ten wrong admin credentials block this address (the server sees Prism's) for a minute.
    const wrong = { authorization: 'Bearer wrong-admin-token' };
    await send({ name: 'wrong metrics credential', method: 'GET', path: '/metrics', headers: wrong, status: 401 });
    for (let i = 0; i < 9; i++)
      await send({ name: `wrong admin credential ${i + 1}`, method: 'GET', path: '/admin/api/customers', headers: wrong, status: 401 });
    await send({ name: 'throttled', method: 'GET', path: '/admin/api/customers', headers: admin, status: 429 });
    await send({ name: 'throttled metrics', method: 'GET', path: '/metrics', headers: admin, status: 429 });
    expectNoProblems();
  });

  it('sent well over a hundred requests, all but HEAD through Prism', () => {
    expect(sent.strict).toBeGreaterThan(100);
    expect(sent.lenient).toBeGreaterThan(10);
    expect(sent.direct).toBe(2);
  });
});
