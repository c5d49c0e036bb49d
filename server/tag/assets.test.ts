/** The tag bundle over HTTP: /tag/v1/svc.js and /tag/v1/<tagId>.js with the tag's settings inlined. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TagSettings } from '../../core/access-records.ts';
import { DEFAULT_FEATURES, variantName } from '../../core/tag-features.ts';
import { buildTag, type TagSizes } from '../../tag/build.ts';
import { SETTINGS_PLACEHOLDER } from '../../tag/settings-placeholder.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { ifNoneMatchHolds, initOptions, inlineSettings, settingsLiteral } from './assets.ts';

let srv: TestServer;
let sizes: TagSizes;
const dist = mkdtempSync(join(tmpdir(), 'svc-dist-'));
beforeAll(async () => {
  sizes = await buildTag(join(dist, 'tag'));
  srv = await startTestServer({ env: { SVC_DIST: dist } });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dist, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${srv.url}${path}`, { headers });

/** The settings object the bundle was given: the last call's argument, `…})(<settings>)})();` (an object literal). */
const inlined = (js: string) => {
  const start = js.lastIndexOf('})({');
  const end = js.lastIndexOf(')})();');
  return start < 0 || end < start ? null : vm.runInNewContext(`(${js.slice(start + 3, end)})`); // settingsLiteral's output
};

describe('GET /tag/v1/svc.js', () => {
  it('serves the generic bundle, cacheable, with an ETag and 304 on revalidation', async () => {
    const res = await get('/tag/v1/svc.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(await res.text()).toContain(SETTINGS_PLACEHOLDER);
    expect((await get('/tag/v1/svc.js', { 'if-none-match': etag })).status).toBe(304);
  });
});

/** A raw HTTP GET (no automatic decompression, unlike fetch): status, headers and the bytes on the wire. */
const raw = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    request(`${srv.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });

describe('the tag over the wire', () => {
  it('is Brotli for browsers (they accept br), gzip for clients that accept only that: the bytes the build reports', async () => {
    const plain = readFileSync(join(dist, 'tag/svc.js'));
    const sizes = JSON.parse(readFileSync(join(dist, 'tag/size.json'), 'utf8'));
    // What Chromium sends over HTTPS: gzip listed first, but no q-value prefers it, so the smaller coding.
    const brotli = await raw('/tag/v1/svc.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(brotli.status).toBe(200);
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers.vary).toMatch(/accept-encoding/i);
    expect(brotli.body.length).toBe(sizes.bundle.br);
    expect(Number(brotli.headers['content-length'])).toBe(sizes.bundle.br);
    expect(brotliDecompressSync(brotli.body).equals(plain)).toBe(true);
    expect(sizes.bundle.br).toBeLessThan(sizes.bundle.gzip);

    const zipped = await raw('/tag/v1/svc.js', { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.length).toBe(sizes.bundle.gzip);
    expect(Number(zipped.headers['content-length'])).toBe(sizes.bundle.gzip);
    expect(gunzipSync(zipped.body).equals(plain)).toBe(true);
    // The client's q-values decide first; the server's preference only breaks ties.
    expect((await raw('/tag/v1/svc.js', { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');

    const identity = await raw('/tag/v1/svc.js');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(plain)).toBe(true);
    // One strong ETag per encoding, and each revalidates to 304 with its own.
    expect(new Set([identity.headers.etag, zipped.headers.etag, brotli.headers.etag]).size).toBe(3);
    const again = await raw('/tag/v1/svc.js', { 'accept-encoding': 'gzip, deflate, br', 'if-none-match': brotli.headers.etag as string });
    expect(again.status).toBe(304);
    expect((await raw('/tag/v1/svc.js', { 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('serves a tag with every default feature and every setting (five dataLayer fields): the variant within the 3,500 B gzip budget, plus the settings', async () => {
    await srv.store.updateTagSettings('acme-tag', {
      fields: ['name', 'domain', 'industry', 'employee_range', 'segments'],
      min_confidence: 'Moderate',
      cache_ttl_ms: 3_600_000,
      consent_default: 'pending',
      anti_flicker_timeout_ms: 800,
      honor_gpc: true,
    });
    const zipped = await raw('/tag/v1/acme-tag.js', { 'accept-encoding': 'gzip' });
    const js = gunzipSync(zipped.body).toString();
    expect(js).toMatch(/sendBeacon/); // every feature (absent = on)
    expect(inlined(js).fields).toHaveLength(5);
    // The variant is within the budget (tag/build.ts enforces it); the settings inlined into it add what
    // they weigh (a few dozen bytes here: the variant is at about 3,460 B since page views keep the
    // customer's kept_query_params, so this tag is a little over 3,500 B on the wire).
    const variant = sizes.variants[variantName(DEFAULT_FEATURES)].gzip;
    expect(variant).toBeLessThanOrEqual(3500);
    expect(zipped.body.length).toBeLessThanOrEqual(variant + gzipSync(settingsLiteral(inlined(js))).length);
    await srv.store.updateTagSettings('acme-tag', {});
  });

  it('revalidates each encoding with its own ETag, a per-tag bundle included', async () => {
    await srv.store.updateTagSettings('acme-tag', { min_confidence: 'High' });
    const zipped = await raw('/tag/v1/acme-tag.js', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(inlined(gunzipSync(zipped.body).toString())).toEqual({ tag: 'acme-tag', minConfidence: 'High' });
    const etag = String(zipped.headers.etag);
    expect((await raw('/tag/v1/acme-tag.js', { 'accept-encoding': 'gzip', 'if-none-match': etag })).status).toBe(304);
    expect((await raw('/tag/v1/acme-tag.js', { 'accept-encoding': 'gzip', 'if-none-match': `"other", ${etag}` })).status).toBe(304);
    // The gzip representation's ETag does not validate the identity one.
    expect((await raw('/tag/v1/acme-tag.js', { 'if-none-match': etag })).status).toBe(200);
    await srv.store.updateTagSettings('acme-tag', {});
  });
});

describe('GET /tag/v1/integrations.<hash>.js', () => {
  it('serves the chunk the build wrote as JavaScript, kept for a year (its name is its content), Brotli or gzip, with 304 on revalidation', async () => {
    const plain = readFileSync(join(dist, 'tag/chunks', sizes.integrations.file));
    const path = `/tag/v1/${sizes.integrations.file}`;
    const brotli = await raw(path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(brotli.status).toBe(200);
    expect(brotli.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // An ES module: a page imports it from the service's origin with CORS.
    expect(brotli.headers['access-control-allow-origin']).toBe('*');
    expect(brotli.headers['x-content-type-options']).toBe('nosniff');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.body.length).toBe(sizes.integrations.br);
    expect(brotliDecompressSync(brotli.body).equals(plain)).toBe(true);
    const zipped = await raw(path, { 'accept-encoding': 'gzip' });
    expect(zipped.body.length).toBe(sizes.integrations.gzip);
    expect(gunzipSync(zipped.body).equals(plain)).toBe(true);
    expect((await raw(path, { 'accept-encoding': 'gzip', 'if-none-match': String(zipped.headers.etag) })).status).toBe(304);
  });

  it("serves an earlier build's chunk while it is in dist (a bundle cached before a rebuild), and 404 with a harmless comment, never cached, for any other", async () => {
    const earlier = 'integrations.Earl1-.js';
    writeFileSync(join(dist, 'tag/chunks', earlier), 'export const t = () => {};\n');
    const old = await get(`/tag/v1/${earlier}`);
    expect(old.status).toBe(200);
    expect(await old.text()).toBe('export const t = () => {};\n');
    rmSync(join(dist, 'tag/chunks', earlier));
    for (const file of ['integrations.zzzzzz.js', earlier]) {
      const res = await get(`/tag/v1/${file}`);
      expect(res.status, file).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toBe(`/* svc: no chunk ${file} in this build */\n`);
    }
    // Not a chunk's name (a tag id has no dot; nothing outside dist/tag/chunks is reachable): the tag route's answers.
    expect((await get('/tag/v1/integrations.js')).status).toBe(404); // no tag "integrations"
    expect((await get('/tag/v1/integrations.toolong1.js')).status).toBe(404);
    expect((await get('/tag/v1/integrations.%2E%2E%2Fsvc.js')).status).toBe(404);
  });
});

describe('GET /tag/v1/<tagId>.js', () => {
  it("inlines the tag's id and settings; a change on the server changes the bytes and the ETag", async () => {
    await srv.store.updateTagSettings('acme-tag', {});
    const first = await get('/tag/v1/acme-tag.js');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    const js = await first.text();
    expect(js).not.toContain(SETTINGS_PLACEHOLDER);
    expect(inlined(js)).toEqual({ tag: 'acme-tag' });
    const etag = first.headers.get('etag')!;
    expect((await get('/tag/v1/acme-tag.js', { 'if-none-match': etag })).status).toBe(304);

    await srv.store.updateTagSettings('acme-tag', {
      fields: ['name'],
      min_confidence: 'High',
      cache_ttl_ms: 60_000,
      consent_default: 'pending',
      anti_flicker_timeout_ms: 400,
      honor_gpc: false,
    });
    const second = await get('/tag/v1/acme-tag.js', { 'if-none-match': etag });
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).not.toBe(etag);
    expect(inlined(await second.text())).toEqual({
      tag: 'acme-tag',
      fields: ['name'],
      minConfidence: 'High',
      cacheTTL: 60_000,
      consent: 'pending',
      timeout: 400,
      gpc: false,
    });
  });

  it("serves the bundle variant of the tag's features (absent = every feature), settings inlined", async () => {
    await srv.store.updateTagSettings('acme-tag', { features: { page_views: false, debug: false, spa: false } });
    const lean = await (await get('/tag/v1/acme-tag.js')).text();
    expect(lean).not.toMatch(/sendBeacon|pushState|unknown command/);
    expect(lean).toContain('data-svc-text');
    expect(inlined(lean)).toEqual({ tag: 'acme-tag' }); // features are compiled in, not inlined
    await srv.store.updateTagSettings('acme-tag', { features: { personalisation: false, form_fill: false, spa: false, page_views: false, debug: false } });
    const core = await (await get('/tag/v1/acme-tag.js')).text();
    expect(core).not.toMatch(/data-svc-|sendBeacon/);
    expect(core).toContain('/v3/company/details');
    await srv.store.updateTagSettings('acme-tag', {});
    const full = await (await get('/tag/v1/acme-tag.js')).text();
    expect(full).toMatch(/sendBeacon/);
    expect(full.length).toBeGreaterThan(core.length);
    expect(() => TagSettings.parse({ features: { nope: true } })).toThrow();
  });

  it("inlines the customer's kept query parameters; a change is a new body and ETag at once", async () => {
    const before = await get('/tag/v1/acme-tag.js');
    expect(inlined(await before.text())).toEqual({ tag: 'acme-tag' });
    const customer = (await srv.store.getTag('acme-tag'))!.customer_id;
    await srv.store.updateCustomer(customer, { kept_query_params: ['plan', 'tab'] });
    const after = await get('/tag/v1/acme-tag.js', { 'if-none-match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(inlined(await after.text())).toEqual({ tag: 'acme-tag', keptParams: ['plan', 'tab'] });
    await srv.store.updateCustomer(customer, { kept_query_params: [] });
    expect(inlined(await (await get('/tag/v1/acme-tag.js')).text())).toEqual({ tag: 'acme-tag' });
  });

  it('serves the integrations variant only to a tag that asks for it, with the tools it names inlined', async () => {
    const plain = await (await get('/tag/v1/acme-tag.js')).text();
    const importsChunk = `/tag/v1/${sizes.integrations.file}`; // the integrations' code is their chunk
    expect(plain).not.toContain(importsChunk); // absent: off, no bytes for it
    await srv.store.updateTagSettings('acme-tag', { features: { integrations: { ga4: true, segment: true } } });
    const withTools = await (await get('/tag/v1/acme-tag.js')).text();
    expect(withTools).toContain(importsChunk);
    expect(inlined(withTools)).toEqual({ tag: 'acme-tag', integrations: { ga4: true, segment: true } });
    await srv.store.updateTagSettings('acme-tag', { features: { integrations: true } });
    const codeOnly = await (await get('/tag/v1/acme-tag.js')).text();
    expect(codeOnly).toContain(importsChunk);
    expect(inlined(codeOnly)).toEqual({ tag: 'acme-tag' });
    expect(() => TagSettings.parse({ features: { integrations: { ga4: true, mixpanel: true } } })).toThrow();
    expect(() => TagSettings.parse({ features: { integrations: 'yes' } })).toThrow();
    await srv.store.updateTagSettings('acme-tag', {});
  });

  it('answers an unknown tag with 404 and a harmless JavaScript comment', async () => {
    const res = await get('/tag/v1/no-such-tag.js');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    const body = await res.text();
    expect(body).toBe('/* svc: unknown tag "no-such-tag" */\n');
    expect(() => new vm.Script(body)).not.toThrow();
    expect((await get('/tag/v1/bad%20id.js')).status).toBe(404);
  });
});

describe('ifNoneMatchHolds', () => {
  it('matches one tag of a list, weakly, or any for *', () => {
    expect(ifNoneMatchHolds(undefined, '"a"')).toBe(false);
    expect(ifNoneMatchHolds('"a"', '"a"')).toBe(true);
    expect(ifNoneMatchHolds('"b", W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchHolds('*', '"a"')).toBe(true);
    expect(ifNoneMatchHolds('"b"', '"a"')).toBe(false);
    expect(ifNoneMatchHolds('"ab"', '"a"')).toBe(false);
  });
});

describe('inlineSettings', () => {
  it('escapes what could end a script or a line', () => {
    const js = inlineSettings(`x(${SETTINGS_PLACEHOLDER})`, { tag: 't', fields: ['</script><b>', 'a\u2028b'] });
    expect(js).toBe('x({tag:"t",fields:["\\u003c/script>\\u003cb>","a\\u2028b"]})');
    expect(inlineSettings(`x(${SETTINGS_PLACEHOLDER})`, { tag: 't', minConfidence: undefined, gpc: false })).toBe('x({tag:"t",gpc:false})');
    expect(() => settingsLiteral({ ['a-b' as 'tag']: 'x' })).toThrow(/option name/);
    expect(() => inlineSettings('x()', {})).toThrow(/placeholder/);
  });

  it('maps the settings to init options and leaves absent ones to the bundle defaults', () => {
    expect(JSON.parse(JSON.stringify(initOptions('t', {})))).toEqual({ tag: 't' });
    expect(JSON.parse(JSON.stringify(initOptions('t', {}, [])))).toEqual({ tag: 't' });
    expect(initOptions('t', {}, ['plan', 'tab']).keptParams).toEqual(['plan', 'tab']);
    // The tools `features.integrations` names are told by default; `true` leaves the choice to the page.
    expect(initOptions('t', { features: { integrations: { ga4: true } } }).integrations).toEqual({ ga4: true });
    expect(initOptions('t', { features: { integrations: true } }).integrations).toBeUndefined();
  });
});
