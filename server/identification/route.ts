/** GET /v3/company/details — tag mode (`?tag=`, browser) and token mode (`Authorization: Token`, `?ip=`). */
import type { Request, RequestHandler, Response, Router } from 'express';
import { isbot } from 'isbot';
import { authenticateTag, authenticateToken, type Caller } from '../auth/authenticate.ts';
import { apiRoute, type Pipeline } from '../http/api-route.ts';
import type { Config } from '../config.ts';
import type { Dataset } from '../data/dataset.ts';
import { overlayGeo, type GeoIp } from '../geoip/geoip.ts';
import { HttpError } from '../http/errors.ts';
import { toIPv4 } from '../http/visitor-ip.ts';
import type { AccessRecords } from '../state/store.ts';
import { identify } from './identify.ts';
import { IdentificationQuery, type IdentificationResponse } from './schema.ts';

export interface IdentificationDeps {
  config: Config;
  store: AccessRecords;
  dataset: Dataset;
  pipeline: Pipeline;
  /** SVC_GEOIP_DB, when configured: the geoIP_* fields come from it (server/geoip/). */
  geoip?: GeoIp | null;
}

/** Mounts the route; returns its GET handler, which server/app.ts also runs in the fast lane. */
export function mountIdentification(router: Router, deps: IdentificationDeps): RequestHandler {
  router.options('/v3/company/details', preflight);
  const handler = apiRoute(
    deps.pipeline,
    async (req, res) => {
      res.vary('Origin');
      const tag = typeof req.query.tag === 'string' ? req.query.tag : undefined;
      // Tag mode is the tokenless browser path; an Authorization header always means token mode.
      return req.get('authorization') === undefined && tag ? authenticateTag(deps.store, req, tag) : authenticateToken(deps.store, req, 'identification');
    },
    (req, caller) => {
      const query = parseQuery(req);
      const ip = visitorAddress(deps.config, req, caller, query);
      const body = lookup(deps, caller, ip, req.get('user-agent'));
      if (deps.geoip && ip) body.company = overlayGeo(body.company, deps.geoip.lookup(ip), '');
      // 1 credit per Match; Non-actionable Match and No Match are free. Every Match is charged, even a repeat.
      return { status: 200, body, charge: body.company.company_match === 'Match' && ip ? { api: 'identification', record: ip } : undefined };
    },
  );
  router.get('/v3/company/details', handler);
  return handler;
}

function parseQuery(req: Request) {
  const parsed = IdentificationQuery.safeParse(req.query);
  if (!parsed.success) throw new HttpError(400, 'query parameters tag, ip and test_ip must each be given at most once');
  return parsed.data;
}

/**
 * Token mode may name the address (`?ip=`, server-side lookups); tag mode is always the visitor itself,
 * except in demo mode where the demo page's visitor switcher asks as a sample address (`test_ip`).
 */
function visitorAddress(config: Config, req: Request, caller: Caller, query: { ip?: string; test_ip?: string }): string | null {
  if (caller.token && query.ip !== undefined) return toIPv4(query.ip);
  if (caller.tag && config.SVC_DEMO && query.test_ip !== undefined) return toIPv4(query.test_ip);
  return toIPv4(req.ip);
}

function lookup(deps: IdentificationDeps, caller: Caller, ip: string | null, userAgent: string | undefined): IdentificationResponse {
  const { index, catalog } = deps.dataset.current;
  const network = ip ? index.lookup(ip) : null;
  const company = network?.kind === 'company' && network.company_id ? catalog.company(network.company_id) : null;
  return identify({
    ip,
    network,
    company,
    signals: company && caller.settings.scores ? catalog.intent(company.company_id) : [],
    customer: caller.customer,
    settings: caller.settings,
    isBot: userAgent !== undefined && isbot(userAgent),
    now: new Date(),
  });
}

/**
 * Tag requests are simple CORS requests and need no preflight; a domain-restricted token used from a
 * browser sends Authorization, which does. The preflight cannot see the token, so it only permits the
 * header; the real request is then checked against the token's allowed domains.
 */
function preflight(req: Request, res: Response): void {
  const origin = req.get('origin');
  res.vary('Origin');
  if (origin) {
    res.set({
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': 'GET',
      'Access-Control-Allow-Headers': 'Authorization, SvcCookie',
      'Access-Control-Max-Age': '600',
    });
  }
  res.status(204).end();
}
