/**
 * The OpenAPI document cannot drift from the code: it is valid OpenAPI 3.1 (swagger-parser), every schema
 * in it compiles under a strict JSON Schema 2020-12 validator, it names every route the app registers,
 * its examples validate against it, and real answers of a real server — every route, success and error
 * statuses, through plain HTTP like a CRM — validate against it (ajv). contract.test.ts sends real
 * requests through Prism against it.
 */
import { PassThrough } from 'node:stream';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALSO_STATUS, ERROR_CODES, ERROR_MEANING, ERROR_STATUS, type ErrorCode } from '../../core/error-codes.ts';
import { createLogger } from '../observability/logger.ts';
import { ROUTES } from '../routes.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { FIXTURE_PEOPLE } from '../testing/fixtures.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { openApiDocument } from './document.ts';

type Json = Record<string, any>;
const doc = openApiDocument() as Json;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(doc, 'openapi');
const pointer = (...parts: string[]) => 'openapi#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Validates a real answer against the document's response for that route, status and media type. */
function expectConforms(method: string, route: string, status: number, contentType: string | null, body: unknown): void {
  // A 405 answers a method the path does not serve: every operation of the path documents it.
  const op = doc.paths[route]?.[method.toLowerCase()] ?? (status === 405 ? Object.values(doc.paths[route] ?? {})[0] : undefined);
  expect(op, `${method} ${route} is not in the document`).toBeDefined();
  const response = op.responses[String(status)];
  expect(response, `${method} ${route} answered ${status}, which the document does not list`).toBeDefined();
  const media = (contentType ?? '').split(';')[0]!.trim();
  if (!response.content) return;
  expect(Object.keys(response.content), `${method} ${route} ${status} answered ${media}`).toContain(media);
  if (media !== 'application/json') return;
  const opMethod = Object.entries(doc.paths[route] as Json).find(([, o]) => o === op)![0];
  const validate = ajv.getSchema(pointer('paths', route, opMethod, 'responses', String(status), 'content', media, 'schema'))!;
  expect(validate(body), `${method} ${route} ${status}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
}

/**
 * Ajv as strict as it comes about schemas (unknown keywords and formats are errors, not silently ignored
 * as by the validators clients and Prism run with `strict: false`); the one extension the renderer reads is declared.
 */
function strictAjv(): Ajv2020 {
  const strict = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(strict);
  strict.addKeyword('x-enumDescriptions');
  return strict;
}

/** Every schema object of the document (components, parameters, headers, bodies, responses) with where it sits. */
function schemasOf(document: Json): [string, Json][] {
  const found: [string, Json][] = [];
  const media = (where: string, content: Json | undefined) => {
    for (const [type, m] of Object.entries(content ?? {})) if ((m as Json).schema) found.push([`${where} ${type}`, (m as Json).schema]);
  };
  const headers = (where: string, hs: Json | undefined) => {
    for (const [name, h] of Object.entries(hs ?? {})) if ((h as Json).schema) found.push([`${where} header ${name}`, (h as Json).schema]);
  };
  headers('components', document.components.headers);
  for (const [route, item] of Object.entries(document.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const where = `${method} ${route}`;
      for (const p of (op as Json).parameters ?? []) found.push([`${where} parameter ${p.name}`, p.schema]);
      media(`${where} body`, (op as Json).requestBody?.content);
      for (const [status, r] of Object.entries((op as Json).responses as Json)) {
        media(`${where} ${status}`, (r as Json).content);
        headers(`${where} ${status}`, (r as Json).headers);
      }
    }
  }
  return found;
}

describe('the document', () => {
  it('is valid OpenAPI 3.1', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(['Token', 'TagMode']));
  });

  it('has schemas that all compile under strict JSON Schema 2020-12 (no unknown formats or keywords)', () => {
    // The check bites: zod's `format: "starts_with"` (what `.startsWith()` became) is refused.
    expect(() => strictAjv().compile({ type: 'string', format: 'starts_with' })).toThrow(/unknown format "starts_with"/);
    const root = 'https://svc.invalid/openapi';
    // The components as one schema resource, and every $ref into them made absolute, so each schema compiles on its own.
    const rebased = JSON.parse(JSON.stringify(doc).replaceAll('"#/components/schemas/', `"${root}#/$defs/`)) as Json;
    const strict = strictAjv();
    strict.addSchema({ $id: root, $defs: rebased.components.schemas });
    const failures: string[] = [];
    const attempt = (where: string, compile: () => unknown) => {
      try {
        compile();
      } catch (e) {
        failures.push(`${where}: ${(e as Error).message}`);
      }
    };
    for (const name of Object.keys(doc.components.schemas)) attempt(`components.schemas.${name}`, () => strict.getSchema(`${root}#/$defs/${name}`));
    const inline = schemasOf(rebased);
    for (const [where, s] of inline) attempt(where, () => strict.compile(s));
    expect(failures).toEqual([]);
    expect(inline.length).toBeGreaterThan(100);
  });

  it('names every operation (unique operationIds) and describes every field of every request body', () => {
    const ids = Object.values(doc.paths as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)),
      ids.join(', '),
    ).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const bodies = new Set<string>();
    for (const item of Object.values(doc.paths as Json)) {
      for (const op of Object.values(item as Json)) {
        for (const m of Object.values(((op as Json).requestBody?.content ?? {}) as Json)) {
          const s = (m as Json).schema;
          const r: string | undefined = s.$ref ?? s.contentSchema?.$ref;
          if (r) bodies.add(r.split('/').pop()!);
        }
      }
    }
    expect(bodies.size).toBeGreaterThan(10);
    for (const name of bodies) {
      for (const [field, s] of Object.entries(doc.components.schemas[name].properties as Json))
        expect((s as Json).description, `${name}.${field}`).toBeTruthy();
    }
  });

  it('documents the error codes, and every error answer carries one its status can have', () => {
    expect(doc.components.schemas.ErrorCode.enum).toEqual([...ERROR_CODES]);
    expect(doc.components.schemas.ErrorCode['x-enumDescriptions']).toEqual(ERROR_MEANING);
    expect(doc.components.schemas.Error.required).toEqual(['status', 'message', 'code']);
    let dataAnswers = 0;
    for (const [route, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        for (const [status, r] of Object.entries((op as Json).responses as Json)) {
          const s = (r as Json).content?.['application/json']?.schema;
          if (Number(status) < 400 || !s) continue;
          // The lead routes' 404 is a data answer in the spec's shape, and carries its code like every other non-2xx body.
          if (status === '404' && /NotFound$/.test(s.$ref ?? '')) {
            const notFound = doc.components.schemas[s.$ref.split('/').pop()];
            expect(notFound.required, `${method} ${route} 404`).toContain('code');
            expect(notFound.properties.code.const, `${method} ${route} 404`).toBe('not_found');
            dataAnswers++;
            continue;
          }
          const codes: string[] = s.allOf?.[1]?.properties?.code?.enum ?? s.properties?.code?.enum;
          expect(codes, `${method} ${route} ${status}`).toBeDefined();
          for (const c of codes)
            expect(
              [ERROR_STATUS[c as ErrorCode], ...((ALSO_STATUS as Record<string, readonly number[]>)[c] ?? [])],
              `${method} ${route} ${status} ${c}`,
            ).toContain(Number(status));
        }
      }
    }
    expect(dataAnswers).toBe(6);
  });

  it('has examples (real answers on the sample data) that validate against their schemas', () => {
    let checked = 0;
    for (const [route, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        for (const [status, response] of Object.entries((op as Json).responses as Json)) {
          for (const [media, content] of Object.entries(((response as Json).content ?? {}) as Json)) {
            const values = [content.example, ...Object.values(content.examples ?? {}).map((e) => (e as Json).value)].filter((v) => v !== undefined);
            for (const value of values) {
              const validate = ajv.getSchema(pointer('paths', route, method, 'responses', status, 'content', media, 'schema'))!;
              expect(validate(value), `${method} ${route} ${status} example: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

let srv: TestServer;
const tokens: Record<string, string> = {};
/** Everything this file's server logged, and every secret it handed out: the last test greps one for the other. */
let logged = '';
const secrets = new Set<string>([TEST_ADMIN_TOKEN]);

beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (d: Buffer) => (logged += d.toString()));
  srv = await startTestServer({
    env: { SVC_TRUST_PROXY: 'loopback', SVC_DEMO: '1' },
    people: FIXTURE_PEOPLE,
    log: createLogger('info', { destination: sink }),
  });
  for (const g of ['identification', 'company-firmographics', 'lead-scoring-firmographics', 'lead-scoring', 'people-enrichment', 'people-search'] as const) {
    tokens[g] = (await srv.store.createToken({ customer_id: 'acme', api_group: g, name: 'crm' })).secret;
    secrets.add(tokens[g]!);
  }
});
afterAll(() => srv?.close());

describe('routes', () => {
  it('every route of the table is in the document with its method and its own operationId (the console pages aside)', () => {
    const undocumented = ROUTES.filter((r) => r.doc === null).map((r) => `${r.method} ${r.path}`);
    expect(undocumented.every((r) => r.startsWith('GET /console'))).toBe(true);
    const documented = new Set(
      Object.entries(doc.paths as Json).flatMap(([p, item]) => Object.keys(item as Json).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`)),
    );
    const routes = ROUTES.filter((r) => r.doc !== null).map((r) => `${r.method} ${r.path}`);
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => !documented.has(r))).toEqual([]);
    const ids = Object.values(doc.paths as Json).flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('serves the document and the rendered reference from this server', async () => {
    const res = await fetch(`${srv.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    const page = await fetch(`${srv.url}/docs`);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    expect(html).toContain('data-url="/openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${srv.url}/docs/scalar.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
  });
});

describe('real answers validate against the document', () => {
  const call = async (method: string, route: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    const res = await fetch(srv.url + path, { method, ...init, headers: { 'user-agent': BROWSER_UA, ...init.headers } });
    const text = await res.text();
    const type = res.headers.get('content-type');
    const body = type?.startsWith('application/json') ? JSON.parse(text) : text;
    if (typeof body?.token === 'string') secrets.add(body.token);
    if (typeof body?.lead_scoring_token?.token === 'string') secrets.add(body.lead_scoring_token.token);
    expectConforms(method, route, res.status, type, body);
    return res.status;
  };
  const form = (token: string | null, body: Record<string, string>) => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? { authorization: `Token ${token}` } : {}) },
    body: new URLSearchParams(body).toString(),
  });
  const adminH = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const adminJson = (body: unknown) => ({ headers: { ...adminH, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('identification: token and tag mode, matches and every error', async () => {
    const D = '/v3/company/details';
    const auth = { authorization: `Token ${tokens.identification}` };
    expect(await call('GET', D, `${D}?ip=${IPS.northwind}`, { headers: auth })).toBe(200);
    expect(await call('GET', D, `${D}?ip=${IPS.nowhere}`, { headers: auth })).toBe(200);
    expect(await call('GET', D, `${D}?tag=acme-tag`, { headers: { origin: 'http://localhost', 'x-forwarded-for': IPS.northwind } })).toBe(200);
    expect(await call('GET', D, `${D}?ip=1&ip=2`, { headers: auth })).toBe(400);
    expect(await call('GET', D, D)).toBe(401);
    expect(await call('GET', D, `${D}?ip=${IPS.northwind}`, { headers: { authorization: `Token ${tokens['lead-scoring']}` } })).toBe(403);
    expect(await call('GET', D, `${D}?tag=acme-tag`, { headers: { origin: 'https://evil.example' } })).toBe(403);
    expect(await call('OPTIONS', D, D, { headers: { origin: 'http://localhost' } })).toBe(204);
    expect(await call('DELETE', D, D)).toBe(405);
  });

  it('enrichment, scoring and people: found, not found and input errors', async () => {
    const email = FIXTURE_PEOPLE[0]!.email;
    expect(await call('POST', '/v1/enrichment/company', '/v1/enrichment/company', form(tokens['company-firmographics']!, { email }))).toBe(200);
    expect(await call('POST', '/v1/enrichment/company', '/v1/enrichment/company', form(tokens['company-firmographics']!, { domain: 'unknown.example' }))).toBe(
      404,
    );
    expect(
      await call(
        'POST',
        '/v1/enrichment/company',
        '/v1/enrichment/company',
        form(tokens['company-firmographics']!, { email: 'x'.repeat(300) + '@example.com' }),
      ),
    ).toBe(422);
    expect(await call('POST', '/v1/enrichment/company', '/v1/enrichment/company', form(null, { email }))).toBe(401);
    expect(
      await call('POST', '/v1/enrichment/company', '/v1/enrichment/company', {
        ...form(tokens['company-firmographics']!, {}),
        body: 'email=' + 'x'.repeat(300_000),
      }),
    ).toBe(413);
    expect(
      await call('POST', '/v1/enrichment/company', '/v1/enrichment/company', {
        headers: { authorization: `Token ${tokens['company-firmographics']}`, 'content-type': 'application/json' },
        body: '{"email":',
      }),
    ).toBe(400);
    expect(await call('POST', '/v2/people/enrichment', '/v2/people/enrichment', form(tokens['company-firmographics']!, { email }))).toBe(200);
    expect(
      await call('POST', '/v2/people/enrichment', '/v2/people/enrichment', form(tokens['company-firmographics']!, { email: 'nobody@unknown.example' })),
    ).toBe(404);
    expect(await call('POST', '/v2/people/full', '/v2/people/full', form(tokens['lead-scoring-firmographics']!, { email }))).toBe(200);
    expect(await call('POST', '/v2/people/score', '/v2/people/score', form(tokens['lead-scoring']!, { email, country: 'United States' }))).toBe(200);
    expect(await call('POST', '/v2/enrichment/people', '/v2/enrichment/people', form(tokens['people-enrichment']!, { email }))).toBe(200);
    expect(
      await call('POST', '/v2/enrichment/people', '/v2/enrichment/people', form(tokens['people-enrichment']!, { email: 'nobody@northwind.example' })),
    ).toBe(404);
    expect(await call('POST', '/v2/search/people', '/v2/search/people', form(tokens['people-search']!, { domain: 'northwind.example' }))).toBe(200);
    expect(await call('POST', '/v2/search/people', '/v2/search/people', form(tokens['people-search']!, { domain: 'unknown.example' }))).toBe(404);
  });

  it('admin API, tag assets, demo and operating endpoints', async () => {
    expect(await call('GET', '/admin/api/customers', '/admin/api/customers', { headers: adminH })).toBe(200);
    expect(await call('GET', '/admin/api/customers', '/admin/api/customers')).toBe(401);
    expect(await call('GET', '/admin/api/customers/{id}', '/admin/api/customers/acme', { headers: adminH })).toBe(200);
    expect(await call('GET', '/admin/api/customers/{id}', '/admin/api/customers/nope', { headers: adminH })).toBe(404);
    expect(await call('GET', '/admin/api/customers/{id}/credits', '/admin/api/customers/acme/credits', { headers: adminH })).toBe(200);
    expect(await call('POST', '/admin/api/customers', '/admin/api/customers', adminJson({ id: 'beta', name: 'Beta Ltd', packages: ['platform'] }))).toBe(201);
    expect(
      await call('POST', '/admin/api/tokens', '/admin/api/tokens', adminJson({ customer_id: 'acme', api_group: 'identification', name: 'doc test' })),
    ).toBe(201);
    expect(await call('POST', '/admin/api/tokens', '/admin/api/tokens', { headers: { ...adminH, 'content-type': 'text/plain' }, body: 'x' })).toBe(415);
    expect(await call('POST', '/admin/api/tokens', '/admin/api/tokens', adminJson({ customer_id: 'acme' }))).toBe(422);
    const list = await (await fetch(`${srv.url}/admin/api/tokens?customer=acme`, { headers: adminH })).json();
    expect(await call('GET', '/admin/api/tokens', '/admin/api/tokens?customer=acme', { headers: adminH })).toBe(200);
    const id = list[0].id as string;
    expect(await call('GET', '/admin/api/tokens/{id}', `/admin/api/tokens/${id}`, { headers: adminH })).toBe(200);
    for (const action of ['deactivate', 'activate', 'rotate'])
      expect(await call('POST', `/admin/api/tokens/{id}/${action}`, `/admin/api/tokens/${id}/${action}`, { headers: adminH })).toBe(200);
    expect(await call('DELETE', '/admin/api/tokens/{id}', `/admin/api/tokens/${id}`, { headers: adminH })).toBe(204);
    expect(await call('GET', '/admin/api/tags', '/admin/api/tags', { headers: adminH })).toBe(200);
    expect(await call('POST', '/admin/api/tags', '/admin/api/tags', adminJson({ customer_id: 'acme', allowed_domains: ['docs.example'] }))).toBe(201);
    expect(
      await call('PATCH', '/admin/api/tags/{id}/settings', '/admin/api/tags/acme-tag/settings', { ...adminJson({ min_confidence: 'High' }), method: 'PATCH' }),
    ).toBe(200);
    expect(await call('PATCH', '/admin/api/tags/{id}/settings', '/admin/api/tags/nope/settings', { ...adminJson({}), method: 'PATCH' })).toBe(404);
    expect([200, 404]).toContain(await call('GET', '/tag/v1/svc.js', '/tag/v1/svc.js'));
    expect([200, 404]).toContain(await call('GET', '/tag/v1/{file}', '/tag/v1/acme-tag.js'));
    expect(await call('GET', '/demo/api/visitors', '/demo/api/visitors')).toBe(200);
    expect(await call('GET', '/healthz', '/healthz')).toBe(200);
    expect(await call('GET', '/readyz', '/readyz')).toBe(200);
    expect(await call('GET', '/metrics', '/metrics', { headers: adminH })).toBe(200);
    expect(await call('GET', '/metrics', '/metrics')).toBe(401);
    expect(await call('GET', '/openapi.json', '/openapi.json')).toBe(200);
    expect(await call('GET', '/docs', '/docs')).toBe(200);
  });
});

describe('the logs of everything above', () => {
  it('hold a line per request but no secret, admin token or full email address', async () => {
    await new Promise((r) => setTimeout(r, 100));
    expect(logged.split('\n').filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThan(40);
    expect(secrets.size).toBeGreaterThan(8);
    for (const s of secrets) expect(logged).not.toContain(s);
    for (const p of FIXTURE_PEOPLE) expect(logged.toLowerCase()).not.toContain(p.email.toLowerCase());
  });
});
