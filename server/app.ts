/**
 * The HTTP application: the route table (server/routes.ts) on find-my-way over `node:http`, every API route
 * through the one pipeline (server/http/run-route.ts), and the Express app shell behind the router's
 * fallback for what Express is good at — static files, the console, /docs, the tag bundle, the demo page.
 */
import type { RequestListener } from 'node:http';
import { createShell } from './app-shell.ts';
import { trustProxySetting } from './config.ts';
import { openGeoIp } from './geoip/geoip.ts';
import { compileTrust } from './http/api-request.ts';
import { createMeteringSteps } from './http/metering-steps.ts';
import { createRouter } from './http/router.ts';
import { createObserver } from './observability/request-observer.ts';
import { openApiDocument } from './openapi/document.ts';
import { ROUTES } from './routes.ts';
import type { AppDeps, Services } from './services.ts';
import { createMailer } from './users/mailer.ts';

export type { AppDeps } from './services.ts';

/** What the routes run on: the dependencies and what is built from them once. */
export function createServices(deps: AppDeps): Services {
  const { config, log } = deps;
  return {
    ...deps,
    pipeline: createMeteringSteps(deps.store),
    geoip: config.SVC_GEOIP_DB ? openGeoIp(config.SVC_GEOIP_DB, (m) => log.error(m)) : null,
    trustProxy: compileTrust(trustProxySetting(config.SVC_TRUST_PROXY)),
    mailer: createMailer(config, (m) => log.error(m)),
  };
}

/** What the HTTP server runs: every request gets a request id, one log line and its metrics. */
export function createRequestListener(deps: AppDeps): RequestListener {
  const services = createServices(deps);
  const shell = createShell(services, () => openApiDocument());
  return createRouter(ROUTES, services, shell, createObserver(deps.log));
}
