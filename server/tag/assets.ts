/**
 * Serves the web tag (built by `npm run build:tag` into dist/tag):
 *
 * - `GET /tag/v1/svc.js`: the generic bundle, every feature (configured only by the page's commands);
 * - `GET /tag/v1/<tagId>.js`: the bundle variant with only the features the tag's `features` setting
 *   enables (core/tag-features.ts: prebuilt as dist/tag/variants/<name>.js, all 64, chosen per request), with
 *   that tag's id and server-managed settings inlined (`TagSettings`: fields, min_confidence,
 *   cache_ttl_ms, consent_default, anti_flicker_timeout_ms, honor_gpc, the tools `features.integrations`
 *   names) and its customer's `kept_query_params` (the query parameters a page view keeps besides
 *   `utm_*`), so changing a setting never needs a page edit. The build leaves one placeholder string in
 *   the bundle; it is replaced by a JSON object of `init` options (the page's own commands run after it
 *   and win). Unknown or disabled tag: 404 with a
 *   JavaScript comment and `no-store` (a <script> that loads it does nothing, the snippet's fail-safe
 *   reveals the page, and enabling the tag again takes effect on the next page load).
 *
 * - `GET /tag/v1/integrations.<hash>.js`: the integrations chunk (GA4 and Segment), an ES module the
 *   bundle imports the first time a tool is asked for (tag/src/tag.ts); built into dist/tag/chunks/, named
 *   by its content, so it is `Cache-Control: public, max-age=31536000, immutable` (a new build is a new URL).
 *   Earlier builds' chunks stay servable while they are in dist/tag/chunks (a bundle cached before a
 *   rebuild asks for its own); any other name: 404 with a JavaScript comment and `no-store`.
 *
 * The bundles: `Cache-Control: public, max-age=300` plus an ETag of the bytes (`If-None-Match` → 304), so pages
 * pick up fixes and settings within minutes and revalidate cheaply: the per-tag body is made from the
 * tag and customer records on every request (both cached per process behind their version), so a changed
 * setting or kept parameter is a new body and a new ETag at once, and in browsers within the 5 minutes.
 * Compressed once per body, with the settings the build measures (tag/compress.ts), so the bytes on the
 * wire are the ones it reports even without a compressing proxy in front: Brotli (quality 11, about 10 %
 * smaller) when the client accepts it — every current browser does over HTTPS — else gzip (level 9, the
 * encoding the size budgets are in), else the plain bytes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Express, Request, Response } from 'express';
import Negotiator from 'negotiator';
import type { TagSettings } from '../../core/access-records.ts';
import { resolveFeatures, settingIntegrations, variantName } from '../../core/tag-features.ts';
import { brotliBytes, gzipBytes } from '../../tag/compress.ts';
import { SETTINGS_PLACEHOLDER } from '../../tag/settings-placeholder.ts';
import { scriptJson } from '../../tag/snippet.ts';
import type { SvcInitOptions } from '../../tag/src/types.ts';
import { BoundedCache } from '../cache/bounded-cache.ts';
import type { Config } from '../config.ts';
import { sendError } from '../http/errors.ts';
import type { AccessRecords } from '../state/access/service.ts';

const TAG_FILE = /^([A-Za-z0-9_-]{1,64})\.js$/;
/** A chunk's file name (tag/build.ts integrationsChunk: its content hash, base64url); never a tag id, which has no dot. */
const CHUNK_FILE = /^integrations\.[A-Za-z0-9_-]{6}\.js$/;
/** Content-addressed: the same URL is always the same bytes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** What a page gets for a script that is not there: a comment, which runs nothing, never cached. */
const MISSING_SCRIPT = { 'Content-Type': 'application/javascript; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

/**
 * A tag's server settings, and its customer's kept query parameters, as the bundle's `init` options
 * (absent settings keep the bundle's defaults; no kept parameter: none inlined).
 */
export function initOptions(tagId: string, s: TagSettings, keptParams: readonly string[] = []): SvcInitOptions {
  return {
    tag: tagId,
    fields: s.fields,
    minConfidence: s.min_confidence,
    cacheTTL: s.cache_ttl_ms,
    consent: s.consent_default,
    timeout: s.anti_flicker_timeout_ms,
    gpc: s.honor_gpc,
    keptParams: keptParams.length ? [...keptParams] : undefined,
    integrations: settingIntegrations(s.features),
  };
}

/**
 * `options` as a JavaScript object literal: keys bare, as the bundle's code spells them (so gzip finds them
 * there: about 10 B less on the wire than JSON's quoted keys), values as script-safe JSON; absent ones left out.
 */
export function settingsLiteral(options: SvcInitOptions): string {
  const entries = Object.entries(options).filter(([, value]) => value !== undefined);
  for (const [key] of entries) if (!/^[A-Za-z]\w*$/.test(key)) throw new Error(`not an option name: ${key}`);
  return '{' + entries.map(([key, value]) => key + ':' + scriptJson(value)).join(',') + '}';
}

/** The bundle with `options` inlined in place of the placeholder. */
export function inlineSettings(bundle: string, options: SvcInitOptions): string {
  const at = bundle.indexOf(SETTINGS_PLACEHOLDER);
  if (at < 0) throw new Error('the tag bundle has no settings placeholder: rebuild it with npm run build:tag');
  return bundle.slice(0, at) + settingsLiteral(options) + bundle.slice(at + SETTINGS_PLACEHOLDER.length);
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

/** A body as served: its bytes and their ETag. */
interface Representation {
  body: Buffer;
  etag: string;
}

const representationOf = (body: Buffer): Representation => ({ body, etag: etagOf(body) });

/** The content codings the tag is served in, best first (the server's preference among equal q-values). */
const CODINGS = ['br', 'gzip'] as const;
type Coding = (typeof CODINGS)[number];
/** What the server offers, in its order of preference (the plain bytes last). */
const OFFERED = [...CODINGS, 'identity'];
const COMPRESS: Record<Coding, (body: Buffer) => Buffer> = { br: brotliBytes, gzip: gzipBytes };

/**
 * Each served body's compressed representations, by coding and the body's ETag: a tag's bundle is
 * compressed once per coding, not per request. Bounded: a few thousand tags' bundles at about 3.5 KB each.
 */
const compressed = new BoundedCache<string, Representation>(8192);
const compressedOf = (plain: Representation, coding: Coding): Representation => {
  const key = `${coding} ${plain.etag}`;
  return compressed.get(key) ?? compressed.set(key, representationOf(COMPRESS[coding](plain.body)));
};

/** negotiator 1.x's `encoding` with the server's tie-break order (`preferred`), which @types/negotiator 0.6 predates. */
interface PreferringNegotiator {
  encoding(available: string[], options: { preferred: string[] }): string | undefined;
}

/**
 * The coding to send: the client's most preferred of br and gzip; among equal q-values Brotli first (a
 * browser lists `gzip, deflate, br, zstd`: the client's order is not a preference, RFC 9110 12.5.3).
 * Undefined: the plain bytes (none accepted, or `identity` preferred).
 */
function codingFor(req: Request): Coding | undefined {
  const best = (new Negotiator(req) as unknown as PreferringNegotiator).encoding(OFFERED, { preferred: OFFERED });
  return best === 'br' || best === 'gzip' ? best : undefined;
}

/**
 * If-None-Match (RFC 9110 13.1.2: a list, weak comparison, `*`) against the representation's ETag. By hand
 * rather than Express's `req.fresh`: that also treats `Cache-Control: no-cache` as "not fresh", and fetch()
 * sends it with every conditional request, so such revalidations would never get their 304.
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

function sendScript(req: Request, res: Response, plain: Representation, cacheControl = 'public, max-age=300'): void {
  // Each encoding is its own representation with its own strong ETag (RFC 9110 8.8.3).
  const coding = codingFor(req);
  const { body, etag } = coding ? compressedOf(plain, coding) : plain;
  res.set({
    'Content-Type': 'application/javascript; charset=utf-8',
    'Cache-Control': cacheControl,
    ETag: etag,
    // (also what lets a page import the chunk, an ES module, from the service's origin: modules are fetched with CORS)
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Type-Options': 'nosniff',
  });
  res.vary('Accept-Encoding');
  if (coding) res.set('Content-Encoding', coding);
  if (ifNoneMatchHolds(req.get('if-none-match'), etag)) return void res.status(304).end();
  res.send(body);
}

interface Asset extends Representation {
  mtime: number;
  text: string;
}

export function mountTagAssets(app: Express, deps: { config: Config; store: AccessRecords }): void {
  const dir = join(deps.config.SVC_DIST, 'tag');
  // Read once, again only when the build replaced the file (mtime).
  const cache = new Map<string, Asset>();
  const load = (file: string): Asset | null => {
    const path = join(dir, file);
    if (!existsSync(path)) return null;
    const mtime = statSync(path).mtimeMs;
    let asset = cache.get(file);
    if (!asset || asset.mtime !== mtime) {
      const body = readFileSync(path);
      asset = { mtime, text: body.toString('utf8'), ...representationOf(body) };
      cache.set(file, asset);
    }
    return asset;
  };

  app.get('/tag/v1/svc.js', (req, res) => {
    const asset = load('svc.js');
    if (!asset) return sendError(res, 404, 'the tag bundle is not built: run npm run build:tag', 'not_found');
    sendScript(req, res, asset);
  });

  // The public types for front-end developers (`window.svc`, answers, events, dataLayer pushes), as the tag build writes them.
  for (const file of ['svc.d.ts', 'preact.d.ts']) {
    app.get(`/tag/v1/${file}`, (req, res) => {
      const asset = load(file);
      if (!asset) return sendError(res, 404, 'the tag types are not built: run npm run build:tag', 'not_found');
      res.set({
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        ETag: asset.etag,
        'Access-Control-Allow-Origin': '*',
        'X-Content-Type-Options': 'nosniff',
      });
      if (ifNoneMatchHolds(req.get('if-none-match'), asset.etag)) return void res.status(304).end();
      res.send(asset.body);
    });
  }

  app.get('/tag/v1/:file', async (req, res, next) => {
    if (CHUNK_FILE.test(req.params.file)) {
      const chunk = load(join('chunks', req.params.file));
      if (!chunk) return void res.status(404).set(MISSING_SCRIPT).send(`/* svc: no chunk ${req.params.file} in this build */\n`);
      return sendScript(req, res, chunk, IMMUTABLE);
    }
    const m = TAG_FILE.exec(req.params.file);
    if (!m) return next();
    const tag = await deps.store.getTag(m[1]);
    if (!tag || tag.disabled) {
      res.status(404).set(MISSING_SCRIPT);
      const what = tag ? 'disabled tag' : 'unknown tag';
      return void res.send(`/* svc: ${what} ${JSON.stringify(m[1]).replace(/\*\//g, '*\\/')} */\n`);
    }
    const asset = load(join('variants', variantName(resolveFeatures(tag.settings.features)) + '.js'));
    if (!asset) return sendError(res, 404, 'the tag bundle is not built: run npm run build:tag', 'not_found');
    const customer = await deps.store.getCustomer(tag.customer_id);
    const options = initOptions(tag.tag_id, tag.settings, customer?.kept_query_params);
    sendScript(req, res, representationOf(Buffer.from(inlineSettings(asset.text, options))));
  });
}
