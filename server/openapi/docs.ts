/**
 * `GET /openapi.json` (./document.ts) and `GET /docs`, the rendered reference: Scalar's standalone
 * bundle, served from this server (no CDN, no font service), with "try it" against this server.
 * The document comes in as a function (the app shell passes ./document.ts's): document.ts reads the route
 * table, which holds the app shell's routes, so importing it here would be an import cycle.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Express } from 'express';
import { sendError } from '../http/errors.ts';
import { errors, json } from './kit.ts';

/** The operations of the routes mountDocs serves (the app shell lists them in the route table). */
export const openApiDocs = {
  get: {
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } },
  },
};

export const apiReferenceDocs = {
  get: {
    operationId: 'getApiReference',
    summary: 'The rendered API reference (Scalar), with "try it" against this server',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
};

export const apiReferenceRendererDocs = {
  get: {
    operationId: 'getApiReferenceRenderer',
    summary: 'The reference renderer, served from this server (no CDN)',
    tags: ['Operating'],
    security: [],
    responses: { 200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' } } } }, ...errors([404]) },
  },
};

/** Scalar reads its configuration from this tag; no inline script, so the page's CSP can forbid them. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
</head>
<body>
<script id="api-reference" data-url="/openapi.json" data-configuration='{"withDefaultFonts":false,"telemetry":false,"agent":{"disabled":true},"showDeveloperTools":"never"}'></script>
<script src="/docs/scalar.js"></script>
</body>
</html>
`;

/** Scalar injects its styles at runtime; every fetch (the document, "try it") stays on this origin. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

function scalarBundle(): Buffer | null {
  try {
    return readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'));
  } catch {
    return null;
  }
}

export function mountDocs(app: Express, document: () => Record<string, unknown>): void {
  const doc = JSON.stringify(document());
  let bundle: Buffer | null | undefined;
  app.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(doc);
  });
  app.get('/docs', (_req, res) => {
    res.set({ 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }).type('html').send(PAGE);
  });
  app.get('/docs/scalar.js', (_req, res) => {
    bundle ??= scalarBundle();
    if (!bundle) return sendError(res, 404, 'the API reference renderer (@scalar/api-reference) is not installed: run npm install');
    res.set({ 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' }).type('application/javascript').send(bundle);
  });
}
