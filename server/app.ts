/**
 * The HTTP application: one Express 5 app for the APIs, the tag, the demo site and (later) the console.
 * Route modules mount themselves; cross-cutting concerns (errors, CORS, body limits) live here once.
 */
import type { RequestListener } from 'node:http';
import express, { Router } from 'express';
import type { AdminAuth } from './admin/credentials.ts';
import { mountAdmin } from './admin/routes.ts';
import type { Config } from './config.ts';
import { trustProxySetting } from './config.ts';
import { mountConsole } from './console/serve.ts';
import { mountUsage } from './credits/usage-route.ts';
import type { Dataset } from './data/dataset.ts';
import { mountDemoSite } from './demo/site.ts';
import { mountDemo } from './demo/visitors.ts';
import { mountEnrichment } from './enrichment/route.ts';
import { openGeoIp } from './geoip/geoip.ts';
import { errorHandler, notFoundHandler } from './http/errors.ts';
import { type ExpressRoutes, type FastRoutes, fastLane, postRoutesOf } from './http/fast-lane.ts';
import type { Logger } from './http/logger.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { createMeteringSteps } from './http/pipeline.ts';
import { identificationFastRoute } from './identification/fast-route.ts';
import { mountIdentification } from './identification/route.ts';
import { mountHealth } from './observability/health.ts';
import { mountMetrics } from './observability/metrics-route.ts';
import { createObserver } from './observability/request-observer.ts';
import { mountDocs } from './openapi/docs.ts';
import { mountPeople } from './people/route.ts';
import type { StateStore } from './state/store.ts';
import type { WebhookStore } from './state/webhooks.ts';
import { mountTagAssets } from './tag/assets.ts';
import { mountEvents } from './visits/events-route.ts';
import type { PageViewRecorder } from './visits/recorder.ts';
import type { WebhookService } from './webhooks/service.ts';

export interface AppDeps {
  config: Config;
  store: StateStore;
  dataset: Dataset;
  log: Logger;
  adminAuth: AdminAuth;
  /** Signed webhooks: the outbox and its dispatcher (absent in tests that build the app without them). */
  webhooks?: { webhookStore: WebhookStore; webhooks: WebhookService };
  /** Page views and tag sightings (server/visits/). */
  recorder: PageViewRecorder;
}

export function createApp(deps: AppDeps): express.Express {
  return assemble(deps).app;
}

/**
 * What the HTTP server runs: the app, with `GET /v3/company/details` (every page view of every tag) and the
 * server-to-server POST routes in the fast lane ahead of Express's router (server/http/fast-lane.ts) —
 * same handlers, same error handler.
 */
export function createRequestListener(deps: AppDeps): RequestListener {
  const { app, fast, posts } = assemble(deps);
  // Every request — fast lane included — gets a request id, one log line and its metrics.
  return fastLane(app, fast, errorHandler(deps.log), createObserver(deps.log), posts);
}

/** The server-to-server POST routes the fast lane runs on their own Express handlers, outside the router. */
const FAST_POSTS = ['/v1/enrichment/company', '/v2/people/enrichment', '/v2/people/full', '/v2/people/score', '/v2/enrichment/people', '/v2/search/people'];

function assemble(deps: AppDeps): { app: express.Express; fast: FastRoutes; posts: ExpressRoutes } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxySetting(deps.config.SVC_TRUST_PROXY));
  app.set('etag', false);

  const api = Router();
  const pipeline = createMeteringSteps(deps.store);
  const identificationDeps = { ...deps, pipeline, geoip: deps.config.SVC_GEOIP_DB ? openGeoIp(deps.config.SVC_GEOIP_DB, (m) => deps.log.error(m)) : null };
  mountIdentification(api, identificationDeps);
  const identification = identificationFastRoute(identificationDeps);
  mountEnrichment(api, { ...deps, pipeline });
  mountPeople(api, { ...deps, pipeline });
  mountUsage(api, { store: deps.store, pipeline });
  mountEvents(api, { ...deps, pipeline });
  mountTagAssets(api, deps);
  mountAdmin(api, deps);
  if (deps.config.SVC_DEMO) mountDemo(api, deps);
  // Nothing app-level may run before `api`: the fast lane answers GET /v3/company/details and the
  // FAST_POSTS routes without it.
  app.use(api);
  mountHealth(app, deps);
  mountMetrics(app, deps.adminAuth);
  mountDocs(app);

  mountDemoSite(app, deps.config.SVC_DIST); // the demo page at /: CSP with a per-answer nonce, X-Frame-Options
  mountConsole(app, deps.config.SVC_DIST); // /console/: the token-management console (dist/console), strict CSP

  // A known route with another method: 405 + Allow, not 404 — every route of the app (API, health, metrics, docs, demo page).
  app.use(methodNotAllowed(app.router));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return { app, fast: new Map([['/v3/company/details', identification]]), posts: postRoutesOf(api, FAST_POSTS) };
}
