/**
 * `POST /v1/events?tag=<tagId>` — page views from the web tag (`navigator.sendBeacon`, a `text/plain` JSON
 * body, so no preflight). The same checks as a tag lookup, in the documented order: 401 unknown tag →
 * 403 page not on an allowed domain (no CORS header then) → 429 the tag's rate limits (page views and
 * lookups of a tag share its counters) → 400 bad body / 413 over BEACON_LIMIT_BYTES. Then 204 at once;
 * the visitor's company is resolved and the view recorded after the answer has gone. Never charged.
 * A tag whose settings turn page views off (`features.page_views: false`) records nothing.
 */
import express, { type Request, type Response, type Router } from 'express';
import { isbot } from 'isbot';
import { ApiError } from '../../core/error-codes.ts';
import type { CompanyRow } from '../../data/sources/schema.ts';
import { isHostAllowed, requestHost } from '../auth/allowed-origin.ts';
import { authenticateTag, type Caller } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import type { Dataset } from '../data/dataset.ts';
import type { Logger } from '../http/logger.ts';
import { type MeteringSteps, rateLimitHeaders } from '../http/pipeline.ts';
import { toIPv4 } from '../http/visitor-ip.ts';
import type { AccessRecords } from '../state/store.ts';
import { BEACON_LIMIT_BYTES, cleanPath, parseBeacon, referrerHost } from './beacon.ts';
import type { PageViewRecorder } from './recorder.ts';

export interface EventsDeps {
  config: Config;
  store: AccessRecords;
  dataset: Dataset;
  pipeline: MeteringSteps;
  recorder: PageViewRecorder;
  log: Logger;
}

// Any Content-Type: sendBeacon sends text/plain, a hand-written client may send application/json.
const readText = express.text({ type: () => true, limit: BEACON_LIMIT_BYTES, defaultCharset: 'utf-8' });

export function mountEvents(router: Router, deps: EventsDeps): void {
  router.options('/v1/events', (req, res) => preflight(deps.store, req, res));
  router.post('/v1/events', async (req, res) => {
    res.vary('Origin');
    const caller = await authenticateTag(deps.store, req, tagParam(req));
    if (caller.corsOrigin) res.set('Access-Control-Allow-Origin', caller.corsOrigin);
    await deps.pipeline.rateLimit(caller, req.ip ?? '', (hit) => void res.set(rateLimitHeaders(hit)));
    const parsed = parseBeacon(await bodyText(req, res));
    if (!parsed.ok) throw new ApiError('invalid', parsed.message, {}, 400);
    const at = new Date();
    const ip = visitorAddress(deps.config, req, caller);
    const bot = isbot(req.get('user-agent') ?? '');
    const origin = pageOrigin(req);
    res.set('Cache-Control', 'no-store').status(204).end();

    const tag = caller.tag!;
    deps.recorder.tagSeen(tag.tag_id, origin, at);
    // The tag's setting turned page views off: a beacon from a page still holding an older bundle is dropped.
    if (tag.settings.features?.page_views === false) return;
    setImmediate(() => {
      deps.recorder
        .record({
          customer: caller.customer,
          tag_id: tag.tag_id,
          company: bot ? null : resolveCompany(deps.dataset, ip),
          path: cleanPath(parsed.beacon.path),
          referrer_host: referrerHost(parsed.beacon.referrer),
          session_id: parsed.beacon.session,
          origin,
          at,
        })
        .catch((e: Error) => deps.log.error(`page view not recorded (tag ${tag.tag_id}): ${e.stack ?? e.message}`));
    });
  });
}

function tagParam(req: Request): string {
  const tag = req.query.tag;
  if (typeof tag !== 'string' || tag === '') throw new ApiError('unauthenticated', 'page views need the web tag: POST /v1/events?tag=<tag id>');
  return tag;
}

async function bodyText(req: Request, res: Response): Promise<string> {
  await new Promise<void>((resolve, reject) => readText(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  return typeof req.body === 'string' ? req.body : '';
}

/** As identification in tag mode: the visitor itself; a demo tag in demo mode may name a sample address. */
function visitorAddress(config: Config, req: Request, caller: Caller): string | null {
  const testIp = req.query.test_ip;
  if (caller.tag?.demo && config.SVC_DEMO && typeof testIp === 'string') return toIPv4(testIp);
  return toIPv4(req.ip);
}

/** Match only: a company network's company; ISP, hosting, bot networks and no match are anonymous. */
export function resolveCompany(dataset: Dataset, ip: string | null): CompanyRow | null {
  if (!ip) return null;
  const { index, catalog } = dataset.current;
  const network = index.lookup(ip);
  return network?.kind === 'company' && network.company_id ? catalog.company(network.company_id) : null;
}

/** The page's origin (Origin, else the Referer's), for the "installed on" display. */
function pageOrigin(req: Request): string | null {
  for (const candidate of [req.get('origin'), req.get('referer')]) {
    if (!candidate || candidate === 'null') continue;
    try {
      const o = new URL(candidate).origin;
      if (o !== 'null') return o;
    } catch {
      // unreadable: try the next
    }
  }
  return null;
}

/**
 * A beacon never needs a preflight, but a client posting `application/json` from a page does; it is
 * allowed exactly when the tag's allowed domains allow the page. A refusal is the JSON error of its
 * sibling on /v3/company/details, and a store that cannot answer is a 503 there as here, not a refusal.
 */
async function preflight(store: AccessRecords, req: Request, res: Response): Promise<void> {
  res.vary('Origin');
  const origin = req.get('origin');
  const host = requestHost(origin, undefined);
  if (!origin || !host) throw new ApiError('forbidden', 'CORS preflight without a usable Origin');
  const tag = typeof req.query.tag === 'string' ? await store.getTag(req.query.tag) : null;
  if (!tag || !isHostAllowed(host, tag.allowed_domains)) throw new ApiError('forbidden', `${host} is not an allowed domain of the web tag named in ?tag=`);
  res.set({
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'POST',
    'Access-Control-Allow-Headers': 'Content-Type',
    'Access-Control-Max-Age': '600',
  });
  res.status(204).end();
}
