/**
 * The Express app shell: what Express is good at, behind the router's fallback (server/http/router.ts) —
 * the web tag's files (server/tag/assets.ts), the OpenAPI document and the rendered reference
 * (server/openapi/docs.ts), the demo page and its static files (server/demo/site.ts) and the console
 * (server/console/serve.ts); anything else is the JSON 404, and a thrown error takes the API's error path.
 *
 * `shellRoutes` are the paths it serves that the router must know, so another method on them is 405 +
 * `Allow` and they are documented like any route. Static files of the demo site are not listed: an
 * unknown path goes to the shell anyway. The demo page and the console are listed only when they are
 * built, as they are only mounted then.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express from 'express';
import { trustProxySetting } from './config.ts';
import { mountConsole } from './console/serve.ts';
import { demoSiteDocs } from './demo/docs.ts';
import { mountDemoSite } from './demo/site.ts';
import { errorHandler, notFoundHandler } from './http/errors.ts';
import { type RouteDef, shellRoute } from './http/route-def.ts';
import { apiReferenceDocs, apiReferenceRendererDocs, mountDocs, openApiDocs } from './openapi/docs.ts';
import type { Services } from './services.ts';
import { mountTagAssets } from './tag/assets.ts';
import { tagBundleDocs, tagBundleForTagDocs, tagPreactTypesDocs, tagTypesDocs } from './tag/docs.ts';

/** Whether `<SVC_DIST>/<dir>` is built (what mountDemoSite and mountConsole check before mounting). */
const built =
  (dir: string) =>
  (services: Services): boolean =>
    existsSync(join(services.config.SVC_DIST, dir));

export const shellRoutes: RouteDef[] = [
  // find-my-way: the static paths win over the parametric one.
  shellRoute('GET', '/tag/v1/svc.js', tagBundleDocs.get),
  shellRoute('GET', '/tag/v1/svc.d.ts', tagTypesDocs.get),
  shellRoute('GET', '/tag/v1/preact.d.ts', tagPreactTypesDocs.get),
  shellRoute('GET', '/tag/v1/:file', tagBundleForTagDocs.get),
  shellRoute('GET', '/', demoSiteDocs('/').get, { enabled: built('demo-site') }),
  shellRoute('GET', '/index.html', demoSiteDocs('/index.html').get, { enabled: built('demo-site') }),
  shellRoute('GET', '/openapi.json', openApiDocs.get),
  shellRoute('GET', '/docs', apiReferenceDocs.get),
  shellRoute('GET', '/docs/scalar.js', apiReferenceRendererDocs.get),
  shellRoute('GET', '/console', null, { enabled: built('console') }),
  shellRoute('GET', '/console/*', null, { enabled: built('console') }),
];

/** The Express app the router hands the shell routes and every path it does not know. */
export function createShell(services: Services, document: () => Record<string, unknown>): express.Express {
  const { config } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(config.SVC_TRUST_PROXY));
  app.set('etag', false);

  mountTagAssets(app, services);
  mountDocs(app, document);
  mountDemoSite(app, config.SVC_DIST); // the demo page at /: CSP with a per-answer nonce, X-Frame-Options
  mountConsole(app, config.SVC_DIST); // /console/: the token-management console (dist/console), strict CSP

  app.use(notFoundHandler);
  app.use(errorHandler(services.log));
  return app;
}
