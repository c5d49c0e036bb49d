/**
 * GET /v3/company/details — tag mode (`?tag=`, browser) and token mode (`Authorization: Token`, `?ip=`):
 * the route table's entries (GET, which answers HEAD too, and the OPTIONS preflight) and their handlers.
 */

import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { isHostAllowed } from '../auth/allowed-origin.ts';
import type { Caller, HeaderSource } from '../auth/authenticate.ts';
import type { Config } from '../config.ts';
import { followedTopics } from '../data/catalog-topics.ts';
import type { Dataset } from '../data/dataset.ts';
import { networkCompany } from '../data/network-company.ts';
import { type GeoIp, overlayGeo } from '../geoip/geoip.ts';
import type { RawQuery } from '../http/api-request.ts';
import { apiRoute, JSON_TYPE, type RouteDef } from '../http/route-def.ts';
import { corsPreflight, type PreflightRule, tagVisitorAddress } from '../http/tag-mode.ts';
import { clientIp } from '../net/visitor-ip.ts';
import { recentPageViews } from '../scoring/first-party.ts';
import { gatherAccountFacts } from '../segments/account-facts.ts';
import { needsAccountFacts } from '../segments/evaluate.ts';
import type { AccessRecords } from '../state/access/service.ts';
import type { CrmStore } from '../state/crm/store.ts';
import type { PageViewRecorder } from '../visits/recorder.ts';
import { answerJson } from './answer-json.ts';
import { isBotAgent } from './bot-agent.ts';
import { identificationDocs } from './docs.ts';
import { identify } from './identify.ts';
import { type IdentificationAnswer, IdentificationQuery, VISITOR_USER_AGENT_HEADER } from './schema.ts';

export interface IdentificationDeps {
  config: Config;
  store: AccessRecords;
  dataset: Dataset;
  /** Tag sightings ("installed on") and the account's own page views for first-party intent. */
  recorder?: PageViewRecorder;
  /** SVC_GEOIP_DB, when configured: the geoIP_* fields come from it (server/geoip/). */
  geoip?: GeoIp | null;
  /** The CRM sync, whose store holds the CRM side segment rules may read (`crm_owner`, `crm_stage`); absent: none. */
  crm?: { readonly deps: { readonly crm: CrmStore } };
}

/** What the route reads of a request. */
export interface IdentificationRequest extends HeaderSource {
  /** The client address (trust proxy, X-Forwarded-For). */
  readonly ip: string | undefined;
}

const VARY_ORIGIN = { Vary: 'Origin' } as const;

export const identificationRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/v3/company/details',
    auth: { kind: 'tag-or-token' },
    headers: VARY_ORIGIN,
    charges: 'identification',
    // A lookup: its rate-limit hit and charge go to the store as one operation (one Redis round trip).
    meterAfterHandler: true,
    doc: identificationDocs.get,
    headDoc: identificationDocs.head,
    handler: (ctx) => identificationAnswer(ctx.services, ctx.req, ctx.req.query, ctx.caller!),
  }),
  apiRoute({
    method: 'OPTIONS',
    path: '/v3/company/details',
    auth: { kind: 'public' },
    headers: VARY_ORIGIN,
    doc: identificationDocs.options,
    handler: (ctx) => corsPreflight(ctx, PREFLIGHT),
  }),
];

/** The answer (after authentication and rate limiting), and the record it exports when it is chargeable. */
export async function identificationAnswer(
  deps: IdentificationDeps,
  req: IdentificationRequest,
  rawQuery: RawQuery,
  caller: Caller,
): Promise<{ status: 200; body: IdentificationAnswer; text: string; type: string; charge?: { api: 'identification'; record: string } }> {
  const query = parseQuery(rawQuery);
  const ip = visitorAddress(deps.config, req, caller, query);
  const { body, company } = await lookup(deps, caller, ip, visitorUserAgent(req, caller, query));
  if (deps.geoip && ip) body.company = overlayGeo(body.company, deps.geoip.lookup(ip), null);
  return {
    status: 200,
    body,
    text: answerJson(body, company),
    type: JSON_TYPE,
    // 1 credit per Match; Non-actionable Match and No Match are free. Every Match is charged, even a repeat.
    charge: body.company.company_match === 'Match' && ip ? { api: 'identification', record: ip } : undefined,
  };
}

function parseQuery(rawQuery: RawQuery) {
  const parsed = IdentificationQuery.safeParse(rawQuery);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue.code === 'too_big') throw new ApiError('invalid', `validation error: ${issue.path.join('.')} ${issue.message}`);
  // A repeated parameter cannot be read as one value: it keeps the 400 it had before the codes.
  throw new ApiError('invalid', 'query parameters tag, ip and test_ip must each be given at most once', {}, 400);
}

/**
 * Token mode may name the address (`?ip=`, server-side lookups, read by `clientIp`: 422 for anything but
 * an address); otherwise the address is the visitor's, as for every tag request (`tagVisitorAddress`: a
 * demo tag in demo mode may name a sample one in `test_ip`).
 */
function visitorAddress(config: Config, req: IdentificationRequest, caller: Caller, query: { ip?: string; test_ip?: string }): string | null {
  if (isServerSideLookup(caller, query)) {
    // A token with allowed domains sits in page source: whoever copies it could look up any address
    // and spend the customer's credits, so it answers only for the visitor's own address.
    if (caller.token && caller.token.allowed_domains.length > 0) {
      throw new ApiError(
        'forbidden',
        "this token is restricted to allowed domains and answers only for the visitor's own address: ?ip= needs a token without allowed domains",
      );
    }
    return clientIp(query.ip, 'ip');
  }
  return tagVisitorAddress(config, caller, req.ip, query.test_ip);
}

/** Token mode with `?ip=`: a server (CRM, integration) asks about someone else's address. */
function isServerSideLookup(caller: Caller, query: { ip?: string }): query is { ip: string } {
  return caller.token !== null && query.ip !== undefined;
}

/**
 * The User-Agent bot detection classifies. On a server-side lookup (`?ip=`) the request's own User-Agent
 * is the integrator's (curl, python-requests, Java, Salesforce …), never the visitor's: only a visitor
 * User-Agent passed explicitly in X-svc-Visitor-User-Agent is classified. Otherwise (tag mode, token mode
 * without `?ip=`) the caller is the visitor, and its User-Agent is classified.
 */
function visitorUserAgent(req: IdentificationRequest, caller: Caller, query: { ip?: string }): string | undefined {
  return isServerSideLookup(caller, query) ? req.get(VISITOR_USER_AGENT_HEADER) : req.get('user-agent');
}

async function lookup(
  deps: IdentificationDeps,
  caller: Caller,
  ip: string | null,
  userAgent: string | undefined,
): Promise<{ body: IdentificationAnswer; company: CompanyRow | null }> {
  const { index, catalog } = deps.dataset.current;
  const network = ip ? index.lookup(ip) : null;
  const company = networkCompany(network, catalog);
  const now = new Date();
  const scored = company !== null && caller.settings.scores && caller.customer.products.length > 0;
  // Only a customer whose segment rules read behaviour, intent or the CRM side reads the account's facts;
  // they hold the scores' page views too, so the visit store is read once either way.
  const need = company ? needsAccountFacts(caller.customer.segments) : null;
  const facts =
    need && company
      ? await gatherAccountFacts(
          {
            catalog,
            visits: deps.recorder?.visits,
            engagement: deps.recorder?.engagement,
            crm: deps.crm?.deps.crm,
            onError: (e) => deps.recorder?.reportError(e),
          },
          caller.customer,
          company.company_id,
          now,
          need,
        )
      : undefined;
  const body: IdentificationAnswer = identify({
    ip,
    network,
    company,
    signals: company && caller.settings.scores ? catalog.intent(company.company_id) : [],
    pageViews: scored && deps.recorder ? (facts?.scoringPages ?? (await recentPageViews(deps.recorder, caller.customer.id, company.company_id, now))) : [],
    facts,
    customer: caller.customer,
    settings: caller.settings,
    isBot: isBotAgent(userAgent),
    now,
  });
  // Only a token that may carry them has the field (restrictive by default, as segment names): the spec's
  // answer is unchanged for every other caller.
  if (caller.settings.intent_topics) {
    body.intent_topics = company && body.company.company_match === 'Match' ? followedTopics(catalog.topics, caller.customer.topics, company.company_id) : [];
  }
  return { body, company };
}

/**
 * CORS preflight. Tag requests are simple CORS requests and need none; a domain-restricted token used
 * from a browser sends Authorization, which does. The preflight cannot know the token: the page's origin
 * is allowed when the tag named in the URL (`?tag=`) allows it, or (no tag named) when an active
 * domain-restricted identification token or a web tag allows it. (Listing tokens per preflight is cheap
 * at our token counts, and browsers cache an allowed preflight for Access-Control-Max-Age.)
 */
const PREFLIGHT: PreflightRule = {
  methods: 'GET',
  headers: 'Authorization, SvcCookie',
  allowed: (host, ctx) => {
    const tag = ctx.req.query.tag;
    return originAllowed(ctx.services.store, host, typeof tag === 'string' ? tag : undefined);
  },
  refusal: (host) => `${host} is not an allowed domain of any web tag or token for this API`,
};

async function originAllowed(store: AccessRecords, host: string, tagId: string | undefined): Promise<boolean> {
  if (tagId !== undefined) {
    const tag = await store.getTag(tagId);
    return tag !== null && isHostAllowed(host, tag.allowed_domains);
  }
  const tokens = await store.listTokens();
  if (tokens.some((t) => t.status === 'active' && t.api_group === 'identification' && t.allowed_domains.length > 0 && isHostAllowed(host, t.allowed_domains)))
    return true;
  return (await store.listTags()).some((t) => isHostAllowed(host, t.allowed_domains));
}
