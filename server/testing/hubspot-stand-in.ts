/**
 * A local stand-in for the HubSpot APIs svc's CRM sync uses (server/crm/hubspot.ts drives it through
 * `@hubspot/api-client`): real HTTP on 127.0.0.1 and a random port, one private app's token, companies with
 * their properties, property groups, owners, and the faults a sync must survive (429s, refused records, a
 * deleted property, a revoked token, stalls, malformed answers).
 *
 * It follows HubSpot's published contracts where they are published; each behaviour names its source:
 *   [objects]  CRM objects API, developers.hubspot.com/docs/api/crm/companies (batch read/update/create,
 *              100 inputs a call; 200, or 207 Multi-Status with `errors`; 201 for batch create)
 *   [search]   CRM search API, developers.hubspot.com/docs/api/crm/search ("Limitations": 200 a page,
 *              10,000 results a query, a 400 past them; search requests rate limited per second and
 *              answered without the X-HubSpot-RateLimit headers) and the changelog "Expanded filtering
 *              capabilities" (Aug 2024: 5 filterGroups, 10 filters a group, 25 in all)
 *   [props]    Properties API, developers.hubspot.com/docs/api/crm/properties (groups, create, batch create,
 *              409 for a name that exists)
 *   [owners]   Owners API, developers.hubspot.com/docs/api/crm/owners (paged by `after`, limit ≤ 500,
 *              `archived=true` lists deactivated owners)
 *   [limits]   API usage guidelines, developers.hubspot.com/docs/api/usage-details (private apps 100 requests
 *              per 10 s, headers X-HubSpot-RateLimit-Max / -Remaining / -Interval-Milliseconds, the 429 body
 *              with `errorType: RATE_LIMIT` and `policyName` TEN_SECONDLY_ROLLING; the SDK's RetryDecorator
 *              matches the same policyName and the search limit's "You have reached your secondly limit.")
 *   [token]    Private apps, developers.hubspot.com/docs/api/private-apps (end of page): POST
 *              /oauth/v2/private-apps/get/access-token-info with `{tokenKey}` → `{userId, hubId, appId, scopes}`
 *   [errors]   the error body every v3 API answers: `{status: 'error', message, correlationId, category}`
 *              (categories VALIDATION_ERROR, OBJECT_NOT_FOUND, OBJECT_ALREADY_EXISTS, MISSING_SCOPES,
 *              INVALID_AUTHENTICATION …), as the SDK's `Error`/`StandardError` models read it.
 *
 * Where HubSpot publishes nothing, the stand-in chooses and says so (marked "unpublished"): how a batch
 * update answers an id HubSpot does not have, how `domain IN` compares a value saved as a URL, the text of
 * validation messages. Indexed by domain and id, so a search over 100,000 companies looks up its values
 * instead of scanning.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normaliseDomain } from '../crm/domain.ts';

export interface StandInOwner {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  userId?: number;
  /** A deactivated user: listed only with `archived=true` [owners]. */
  archived?: boolean;
}

export interface StandInCompany {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
}

export interface StandInProperty {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  options: { label: string; value: string; displayOrder: number; hidden: boolean }[];
  displayOrder: number;
  hubspotDefined: boolean;
  readOnlyValue: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface StandInGroup {
  name: string;
  label: string;
  displayOrder: number;
}

export interface StandInRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** The JSON body, parsed (undefined when there was none or it was not JSON). */
  body: unknown;
  /** When the request arrived (epoch ms, from the monotonic clock: performance.timeOrigin + performance.now()). */
  at: number;
  /** The status answered (0 while the request is stalled or unanswered). */
  status: number;
}

export interface Rate {
  requests: number;
  perMs: number;
}

export interface HubSpotStandInOptions {
  /** The private app's token (default a fresh `pat-na1-…`). */
  token?: string;
  /** The token's scopes (default everything svc uses). */
  scopes?: string[];
  hubId?: number;
  /** The app's rolling limit (default 100 per 10,000 ms [limits]). */
  rate?: Rate;
  /** The search endpoints' own limit (default 5 per 1,000 ms [search]). */
  searchRate?: Rate;
  owners?: StandInOwner[];
}

export interface HubSpotStandIn {
  url: string;
  /** The app's current token (rotateToken changes it). */
  readonly token: string;
  companies: {
    /** Adds a company (properties as HubSpot stores them: strings) and returns its id. */
    add(properties: Record<string, string | null>): string;
    get(id: string): StandInCompany | undefined;
    all(): StandInCompany[];
    readonly size: number;
    delete(id: string): boolean;
  };
  owners: {
    add(owner: StandInOwner): void;
    all(): StandInOwner[];
  };
  properties: {
    /** Creates a property as POST /crm/v3/properties/companies would (e.g. one of the customer's own). */
    add(def: {
      name: string;
      label: string;
      type: string;
      fieldType: string;
      groupName: string;
      options?: { label: string; value: string }[];
    }): StandInProperty;
    get(name: string): StandInProperty | undefined;
    all(): StandInProperty[];
    groups(): StandInGroup[];
  };
  /** Every request, in arrival order. */
  requests: StandInRequest[];
  faults: {
    /** The next `n` requests get a 429 (policy TEN_SECONDLY_ROLLING unless told; Retry-After only when given). */
    rateLimitNext(n: number, opts?: { retryAfterSeconds?: number; policyName?: 'TEN_SECONDLY_ROLLING' | 'SECONDLY' | 'DAILY' }): void;
    /**
     * Batch writes refuse these records from now on: in a 207 beside the written ones (default), or — with
     * `wholeBatch` — by refusing the whole batch with a 400 naming them in `context.ids`.
     */
    failRecords(ids: readonly string[], opts?: { message?: string; category?: string; wholeBatch?: boolean }): void;
    /** The property is deleted (purged: its name is free again); writes naming it are refused. */
    deleteProperty(name: string): void;
    /** Every request is answered 401 from now on. */
    revokeToken(): void;
    /** A new token for the app (returned, and `token` from now on): the old one is refused, a revocation lifted. */
    rotateToken(): string;
    /**
     * The next `count` (default 1) requests — of those `match` accepts (default all), after letting `skip`
     * of them through — are held for `ms`, or until release(), then handled as usual. `reached()`: one is held.
     */
    stallNext(opts?: { ms?: number; count?: number; match?: (r: StandInRequest) => boolean; skip?: number }): { release(): void; reached(): boolean };
    /** The next `n` requests are answered 200 with a truncated JSON body (nothing is handled). */
    malformedNext(n: number): void;
    /** The next `n` requests are answered `status` (default 502) with an error body (nothing is handled). */
    serverErrorNext(n: number, status?: number): void;
  };
  close(): Promise<void>;
}

export const STAND_IN_SCOPES = [
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.schemas.companies.read',
  'crm.schemas.companies.write',
  'crm.objects.owners.read',
];

const SEARCH_MAX_LIMIT = 200;
const SEARCH_MAX_RESULTS = 10_000;
const SEARCH_MAX_GROUPS = 5;
const SEARCH_MAX_FILTERS_PER_GROUP = 10;
const SEARCH_MAX_FILTERS = 25;
const SEARCH_MAX_IN_VALUES = 100;
const BATCH_MAX = 100;
const OWNERS_MAX_LIMIT = 500;

/** Properties every HubSpot portal has on companies (a subset: the ones a sync reads or sets). */
const DEFAULT_PROPERTIES: Array<Pick<StandInProperty, 'name' | 'label' | 'type' | 'fieldType' | 'readOnlyValue'> & { options?: string[] }> = [
  { name: 'name', label: 'Name', type: 'string', fieldType: 'text', readOnlyValue: false },
  { name: 'domain', label: 'Company Domain Name', type: 'string', fieldType: 'text', readOnlyValue: false },
  { name: 'website', label: 'Website URL', type: 'string', fieldType: 'text', readOnlyValue: false },
  { name: 'hubspot_owner_id', label: 'Company owner', type: 'enumeration', fieldType: 'select', readOnlyValue: false },
  {
    name: 'lifecyclestage',
    label: 'Lifecycle Stage',
    type: 'enumeration',
    fieldType: 'radio',
    readOnlyValue: false,
    options: ['subscriber', 'lead', 'marketingqualifiedlead', 'salesqualifiedlead', 'opportunity', 'customer', 'evangelist', 'other'],
  },
  {
    name: 'type',
    label: 'Type',
    type: 'enumeration',
    fieldType: 'select',
    readOnlyValue: false,
    options: ['PROSPECT', 'PARTNER', 'RESELLER', 'VENDOR', 'OTHER'],
  },
  { name: 'industry', label: 'Industry', type: 'string', fieldType: 'text', readOnlyValue: false },
  { name: 'hs_object_id', label: 'Record ID', type: 'number', fieldType: 'number', readOnlyValue: true },
  { name: 'createdate', label: 'Create Date', type: 'datetime', fieldType: 'date', readOnlyValue: true },
  { name: 'hs_lastmodifieddate', label: 'Last Modified Date', type: 'datetime', fieldType: 'date', readOnlyValue: true },
];

/** What each route needs of the token's scopes [errors: MISSING_SCOPES]. */
const SCOPE = {
  companiesRead: 'crm.objects.companies.read',
  companiesWrite: 'crm.objects.companies.write',
  schemaRead: 'crm.schemas.companies.read',
  schemaWrite: 'crm.schemas.companies.write',
  owners: 'crm.objects.owners.read',
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

const errorBody = (message: string, category: string, extra: Record<string, unknown> = {}) => ({
  status: 'error',
  message,
  correlationId: randomUUID(),
  category,
  ...extra,
});

const validation = (message: string, extra: Record<string, unknown> = {}) => new HttpError(400, errorBody(message, 'VALIDATION_ERROR', extra));

interface ValidationResult {
  isValid: false;
  message: string;
  error: string;
  name: string;
}

/**
 * HubSpot's refusal of a write's property values: one 400 for the whole batch, its validation results as
 * JSON inside the message (the shape its v3 write endpoints answer; the wording of each result is unpublished).
 */
const invalidValues = (results: ValidationResult[]) =>
  validation(`Property values were not valid: ${JSON.stringify(results.map((r) => ({ ...r, localizedErrorMessage: r.message })))}`);

export async function startHubSpotStandIn(opts: HubSpotStandInOptions = {}): Promise<HubSpotStandIn> {
  let token = opts.token ?? `pat-na1-${randomUUID()}`;
  const scopes = new Set(opts.scopes ?? STAND_IN_SCOPES);
  const hubId = opts.hubId ?? 4_000_123;
  const rate = opts.rate ?? { requests: 100, perMs: 10_000 };
  const searchRate = opts.searchRate ?? { requests: 5, perMs: 1_000 };
  const requests: StandInRequest[] = [];

  const companies = new Map<string, StandInCompany>();
  /** Normalised host (or, for a value that is no host, its lower-case text) → ids: the domain index. */
  const byDomain = new Map<string, Set<string>>();
  let nextId = 5_000_000_001;
  const properties = new Map<string, StandInProperty>();
  const groups = new Map<string, StandInGroup>([['companyinformation', { name: 'companyinformation', label: 'Company information', displayOrder: 0 }]]);
  const owners = new Map<string, StandInOwner & { createdAt: string; updatedAt: string }>();

  const now = () => new Date().toISOString();
  for (const [i, p] of DEFAULT_PROPERTIES.entries()) {
    properties.set(p.name, {
      name: p.name,
      label: p.label,
      type: p.type,
      fieldType: p.fieldType,
      groupName: 'companyinformation',
      description: '',
      options: (p.options ?? []).map((value, order) => ({ label: value, value, displayOrder: order, hidden: false })),
      displayOrder: i,
      hubspotDefined: true,
      readOnlyValue: p.readOnlyValue,
      createdAt: '2019-08-06T02:41:52.000Z',
      updatedAt: '2019-08-06T02:41:52.000Z',
    });
  }
  for (const o of opts.owners ?? []) owners.set(o.id, { ...o, createdAt: now(), updatedAt: now() });

  // -- The domain index -----------------------------------------------------------------------------------

  // Unpublished: HubSpot does not say how `domain IN [...]` compares a value saved with a scheme, `www.` or
  // a path. The stand-in takes the lenient reading — a value matches records whose domain names the same host
  // (normaliseDomain), case-insensitively — so `acme.com` finds a record saved as `https://www.Acme.com/x`.
  // The client also searches `www.<domain>`, which the strict reading (equal text) needs.
  const domainKey = (value: string) => normaliseDomain(value) ?? value.trim().toLowerCase();
  const index = (id: string, domain: string | null | undefined) => {
    if (!domain) return;
    const key = domainKey(domain);
    let ids = byDomain.get(key);
    if (!ids) byDomain.set(key, (ids = new Set()));
    ids.add(id);
  };
  const unindex = (id: string, domain: string | null | undefined) => {
    if (!domain) return;
    const key = domainKey(domain);
    const ids = byDomain.get(key);
    ids?.delete(id);
    if (ids?.size === 0) byDomain.delete(key);
  };

  const addCompany = (props: Record<string, string | null>): StandInCompany => {
    const id = String(nextId++);
    const at = now();
    const company: StandInCompany = { id, properties: { ...props, hs_object_id: id, createdate: at, hs_lastmodifieddate: at }, createdAt: at, updatedAt: at };
    companies.set(id, company);
    index(id, company.properties.domain);
    return company;
  };

  const setProperties = (company: StandInCompany, values: Record<string, string | null>) => {
    if ('domain' in values) unindex(company.id, company.properties.domain);
    Object.assign(company.properties, values);
    if ('domain' in values) index(company.id, company.properties.domain);
    company.updatedAt = now();
    company.properties.hs_lastmodifieddate = company.updatedAt;
  };

  // -- Faults ---------------------------------------------------------------------------------------------

  let revoked = false;
  const rateLimited: Array<{ retryAfterSeconds?: number; policyName: string }> = [];
  let malformed = 0;
  const serverErrors: number[] = [];
  const stalls: Array<{ gate: Promise<void>; match: (r: StandInRequest) => boolean; skip: number; left: number; reached: boolean }> = [];
  const releases = new Set<() => void>();
  const failing = new Map<string, { message: string; category: string; wholeBatch: boolean }>();

  // -- Rate limits [limits], [search]: rolling windows over the requests let through --------------------------

  const sent: number[] = [];
  const searches: number[] = [];
  /** When the window has room again (ms from now), or 0 when it has room now. */
  const windowWait = (log: number[], r: Rate, at: number) => {
    while (log.length > 0 && log[0]! <= at - r.perMs) log.shift();
    return log.length < r.requests ? 0 : log[0]! + r.perMs - at;
  };

  // -- HTTP -----------------------------------------------------------------------------------------------

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    // A stalled request handled after its client gave up: handled, but nobody is left to answer.
    if (res.destroyed || res.socket === null || res.socket.destroyed) return status;
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { ...(text ? { 'content-type': 'application/json;charset=utf-8' } : {}), ...headers });
    res.end(text);
    return status;
  };

  const rateHeaders = (remaining: number): Record<string, string> => ({
    'x-hubspot-ratelimit-max': String(rate.requests),
    'x-hubspot-ratelimit-remaining': String(Math.max(0, remaining)),
    'x-hubspot-ratelimit-interval-milliseconds': String(rate.perMs),
  });

  const requireScope = (scope: string) => {
    if (scopes.has(scope)) return;
    // [errors]: the body HubSpot answers a call the app has no scope for.
    throw new HttpError(
      403,
      errorBody(
        "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
        'MISSING_SCOPES',
        {
          errors: [{ message: 'One or more of the following scopes are required.', context: { requiredGranularScopes: [scope] } }],
          links: { scopes: 'https://developers.hubspot.com/scopes' },
        },
      ),
    );
  };

  const unauthorized = () =>
    // [errors]: what HubSpot answers a token it does not know (a revoked or deleted private app's included).
    new HttpError(
      401,
      errorBody(
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
        'INVALID_AUTHENTICATION',
      ),
    );

  const server = createServer((req, res) => {
    const at = performance.timeOrigin + performance.now();
    res.on('error', () => {});
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const entry: StandInRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      at,
      status: 0,
    };
    requests.push(entry);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (raw) {
        try {
          entry.body = JSON.parse(raw);
        } catch {
          entry.body = undefined;
        }
      }
      void answer(req, res, entry).then(
        (status) => {
          entry.status = status;
        },
        (err: unknown) => {
          if (!res.headersSent) entry.status = json(res, 500, errorBody(String(err), 'INTERNAL_ERROR'));
        },
      );
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse, entry: StandInRequest): Promise<number> {
    const stall = stalls.find((x) => x.left > 0 && x.match(entry));
    if (stall && stall.skip > 0) stall.skip--;
    else if (stall) {
      stall.left--;
      stall.reached = true;
      await stall.gate;
    }
    try {
      const isTokenInfo = entry.method === 'POST' && entry.path === '/oauth/v2/private-apps/get/access-token-info';
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      // [token]: the token travels in the body (the header is optional for na1 tokens).
      const presented = isTokenInfo ? (entry.body as { tokenKey?: unknown } | undefined)?.tokenKey : bearer;
      if (revoked || presented !== token) throw unauthorized();

      const limited = rateLimited.shift();
      if (limited) {
        const message =
          limited.policyName === 'SECONDLY'
            ? 'You have reached your secondly limit.'
            : limited.policyName === 'DAILY'
              ? 'You have reached your daily limit.'
              : 'You have reached your ten_secondly_rolling limit.';
        return json(
          res,
          429,
          { status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName: limited.policyName, requestId: randomUUID() },
          { ...rateHeaders(0), ...(limited.retryAfterSeconds !== undefined ? { 'retry-after': String(limited.retryAfterSeconds) } : {}) },
        );
      }
      const t = performance.now();
      const isSearch = entry.method === 'POST' && entry.path.endsWith('/search');
      if (isSearch && windowWait(searches, searchRate, t) > 0) {
        return json(res, 429, {
          status: 'error',
          message: 'You have reached your secondly limit.',
          errorType: 'RATE_LIMIT',
          correlationId: randomUUID(),
          policyName: 'SECONDLY',
          requestId: randomUUID(),
        });
      }
      if (windowWait(sent, rate, t) > 0) {
        return json(
          res,
          429,
          {
            status: 'error',
            message: 'You have reached your ten_secondly_rolling limit.',
            errorType: 'RATE_LIMIT',
            correlationId: randomUUID(),
            policyName: 'TEN_SECONDLY_ROLLING',
            requestId: randomUUID(),
          },
          rateHeaders(0),
        );
      }
      sent.push(t);
      if (isSearch) searches.push(t);

      const failStatus = serverErrors.shift();
      if (failStatus !== undefined) return json(res, failStatus, errorBody('internal error', 'INTERNAL_ERROR'));
      if (malformed > 0) {
        malformed--;
        res.writeHead(200, { 'content-type': 'application/json;charset=utf-8' });
        res.end('{"status":"COMPLETE","results":[{"id":');
        return 200;
      }

      const { status, body } = route(entry);
      // [search]: search answers carry no rate-limit headers.
      return json(res, status, body, isSearch || isTokenInfo ? {} : rateHeaders(rate.requests - sent.length));
    } catch (err) {
      if (err instanceof HttpError) return json(res, err.status, err.body);
      throw err;
    }
  }

  function route(r: StandInRequest): { status: number; body?: unknown } {
    const { method, path } = r;
    const body = (r.body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/oauth/v2/private-apps/get/access-token-info') {
      return { status: 200, body: { userId: 7_000_001, hubId, appId: 3_000_001, scopes: [...scopes] } };
    }
    if (path === '/crm/v3/objects/companies' && method === 'GET') return listCompanies(r.query);
    if (path === '/crm/v3/objects/companies/search' && method === 'POST') return search(body);
    if (path === '/crm/v3/objects/companies/batch/read' && method === 'POST') return batchRead(body, r.query);
    if (path === '/crm/v3/objects/companies/batch/update' && method === 'POST') return batchUpdate(body);
    if (path === '/crm/v3/objects/companies/batch/create' && method === 'POST') return batchCreate(body);
    // The SDK asks `/crm/v3/owners/` (a trailing slash); HubSpot serves both.
    if ((path === '/crm/v3/owners' || path === '/crm/v3/owners/') && method === 'GET') return listOwners(r.query);
    if (path === '/crm/v3/properties/companies/groups') {
      requireScope(method === 'GET' ? SCOPE.schemaRead : SCOPE.schemaWrite);
      if (method === 'GET') return { status: 200, body: { results: [...groups.values()].map(groupJson) } };
      if (method === 'POST') return createGroup(body);
    }
    const group = /^\/crm\/v3\/properties\/companies\/groups\/([^/]+)$/.exec(path);
    if (group && method === 'GET') {
      requireScope(SCOPE.schemaRead);
      const g = groups.get(decodeURIComponent(group[1]!));
      if (!g) throw new HttpError(404, errorBody(`Unable to find property group ${decodeURIComponent(group[1]!)}`, 'OBJECT_NOT_FOUND'));
      return { status: 200, body: groupJson(g) };
    }
    if (path === '/crm/v3/properties/companies') {
      requireScope(method === 'GET' ? SCOPE.schemaRead : SCOPE.schemaWrite);
      if (method === 'GET') return { status: 200, body: { results: [...properties.values()].map(propertyJson) } };
      if (method === 'POST') return { status: 201, body: propertyJson(createProperty(body)) };
    }
    if (path === '/crm/v3/properties/companies/batch/create' && method === 'POST') {
      requireScope(SCOPE.schemaWrite);
      return batchCreateProperties(body);
    }
    const prop = /^\/crm\/v3\/properties\/companies\/([^/]+)$/.exec(path);
    if (prop && (method === 'GET' || method === 'DELETE')) {
      requireScope(method === 'GET' ? SCOPE.schemaRead : SCOPE.schemaWrite);
      const name = decodeURIComponent(prop[1]!);
      const p = properties.get(name);
      if (!p) throw new HttpError(404, errorBody(`Property ${name} does not exist`, 'OBJECT_NOT_FOUND'));
      if (method === 'DELETE') {
        properties.delete(name);
        return { status: 204 };
      }
      return { status: 200, body: propertyJson(p) };
    }
    throw new HttpError(404, errorBody(`No route for ${method} ${path}`, 'OBJECT_NOT_FOUND'));
  }

  // -- Companies [objects] --------------------------------------------------------------------------------

  /** A company as the objects APIs answer it: only the properties asked for, plus the three HubSpot always sends. */
  const companyJson = (c: StandInCompany, wanted: readonly string[] | undefined) => {
    const names = wanted && wanted.length > 0 ? new Set([...wanted, 'hs_object_id', 'createdate', 'hs_lastmodifieddate']) : null;
    const props: Record<string, string | null> = {};
    for (const name of names ?? ['name', 'domain', 'hs_object_id', 'createdate', 'hs_lastmodifieddate']) {
      if (names && !properties.has(name)) continue;
      props[name] = c.properties[name] ?? null;
    }
    return { id: c.id, properties: props, createdAt: c.createdAt, updatedAt: c.updatedAt, archived: false };
  };

  const stringList = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map(String) : undefined);
  const inputsOf = (body: Record<string, unknown>): Record<string, unknown>[] => {
    const inputs = body.inputs;
    if (!Array.isArray(inputs)) throw validation('Invalid input JSON on line 1: missing required field inputs');
    if (inputs.length > BATCH_MAX) throw validation(`Batch input of ${inputs.length} exceeds the limit of ${BATCH_MAX} inputs`);
    return inputs as Record<string, unknown>[];
  };

  function listCompanies(query: Record<string, string>) {
    requireScope(SCOPE.companiesRead);
    const limit = Math.min(Number(query.limit ?? 10), 100);
    const after = Number(query.after ?? 0);
    const ids = [...companies.keys()].slice(after, after + limit);
    const results = ids.map((id) => companyJson(companies.get(id)!, query.properties?.split(',')));
    const next = after + limit < companies.size ? { next: { after: String(after + limit), link: `?after=${after + limit}` } } : undefined;
    return { status: 200, body: { results, ...(next ? { paging: next } : {}) } };
  }

  function search(body: Record<string, unknown>) {
    requireScope(SCOPE.companiesRead);
    const groupsIn = (body.filterGroups ?? []) as Array<{ filters?: Array<{ propertyName?: string; operator?: string; value?: unknown; values?: unknown }> }>;
    const limit = body.limit === undefined ? 10 : Number(body.limit);
    const after = body.after === undefined || body.after === null ? 0 : Number(body.after);
    if (!Number.isInteger(limit) || limit < 0 || limit > SEARCH_MAX_LIMIT)
      throw validation(`Limit must be between 0 and ${SEARCH_MAX_LIMIT}, was ${body.limit}`);
    if (!Number.isInteger(after) || after < 0) throw validation(`Invalid paging cursor: ${String(body.after)}`);
    if (groupsIn.length > SEARCH_MAX_GROUPS) throw validation(`Too many filter groups (${groupsIn.length}); the maximum is ${SEARCH_MAX_GROUPS}`);
    let total = 0;
    for (const g of groupsIn) {
      const n = g.filters?.length ?? 0;
      if (n > SEARCH_MAX_FILTERS_PER_GROUP) throw validation(`Too many filters in a filter group (${n}); the maximum is ${SEARCH_MAX_FILTERS_PER_GROUP}`);
      total += n;
    }
    if (total > SEARCH_MAX_FILTERS) throw validation(`Too many filters (${total}); the maximum is ${SEARCH_MAX_FILTERS}`);
    // [search]: paging past 10,000 results is refused.
    if (after + limit > SEARCH_MAX_RESULTS) throw validation(`Paging past ${SEARCH_MAX_RESULTS} results is not supported (after=${after}, limit=${limit})`);

    const matches = new Set<string>();
    if (groupsIn.length === 0) for (const id of companies.keys()) matches.add(id);
    for (const g of groupsIn) {
      const filters = g.filters ?? [];
      for (const f of filters) {
        if (!f.propertyName || !properties.has(f.propertyName)) throw validation(`Property '${f.propertyName}' does not exist on companies`);
        const values = stringList(f.values);
        if (values && values.length > SEARCH_MAX_IN_VALUES)
          throw validation(`Too many values (${values.length}) in an IN filter; the maximum is ${SEARCH_MAX_IN_VALUES}`);
      }
      const domainFilter = filters.find((f) => f.propertyName === 'domain' && (f.operator === 'IN' || f.operator === 'EQ'));
      let candidates: Iterable<string>;
      if (domainFilter) {
        const values = domainFilter.operator === 'IN' ? (stringList(domainFilter.values) ?? []) : [String(domainFilter.value ?? '')];
        const found = new Set<string>();
        for (const v of values) for (const id of byDomain.get(domainKey(v)) ?? []) found.add(id);
        candidates = found;
      } else {
        candidates = companies.keys();
      }
      for (const id of candidates) {
        const c = companies.get(id)!;
        if (filters.every((f) => f === domainFilter || matchesFilter(c, f))) matches.add(id);
      }
    }
    // Stable paging: by id (HubSpot's default order is unpublished; a cursor is an offset in it).
    const ordered = [...matches].sort((a, b) => Number(a) - Number(b));
    const page = ordered.slice(after, after + limit);
    const wanted = stringList(body.properties);
    const nextAfter = after + limit;
    return {
      status: 200,
      body: {
        total: ordered.length,
        results: page.map((id) => companyJson(companies.get(id)!, wanted)),
        ...(nextAfter < ordered.length ? { paging: { next: { after: String(nextAfter) } } } : {}),
      },
    };
  }

  function matchesFilter(c: StandInCompany, f: { propertyName?: string; operator?: string; value?: unknown; values?: unknown }): boolean {
    const v = c.properties[f.propertyName!];
    const text = v === null || v === undefined ? null : v.toLowerCase();
    switch (f.operator) {
      case 'EQ':
        return text === String(f.value ?? '').toLowerCase();
      case 'NEQ':
        return text !== String(f.value ?? '').toLowerCase();
      case 'IN':
        return text !== null && (stringList(f.values) ?? []).some((x) => x.toLowerCase() === text);
      case 'NOT_IN':
        return text === null || !(stringList(f.values) ?? []).some((x) => x.toLowerCase() === text);
      case 'HAS_PROPERTY':
        return text !== null && text !== '';
      case 'NOT_HAS_PROPERTY':
        return text === null || text === '';
      default:
        throw validation(`Unsupported operator ${f.operator}`);
    }
  }

  function batchRead(body: Record<string, unknown>, query: Record<string, string>) {
    requireScope(SCOPE.companiesRead);
    const inputs = inputsOf(body);
    const wanted = stringList(body.properties);
    const archived = query.archived === 'true';
    const results: unknown[] = [];
    const missing: string[] = [];
    for (const input of inputs) {
      const c = archived ? undefined : companies.get(String(input.id));
      if (c) results.push(companyJson(c, wanted));
      else missing.push(String(input.id));
    }
    const times = { startedAt: now(), completedAt: now() };
    if (missing.length === 0) return { status: 200, body: { status: 'COMPLETE', results, ...times } };
    return {
      status: 207,
      body: {
        status: 'COMPLETE',
        results,
        numErrors: 1,
        errors: [
          {
            status: 'error',
            category: 'OBJECT_NOT_FOUND',
            message: 'Could not get some COMPANY objects, they may be deleted or not exist. Check that ids are valid.',
            context: { ids: missing },
            errors: [],
            links: {},
          },
        ],
        ...times,
      },
    };
  }

  /** Checks a write's values: one 400 for the whole batch when any is refused (nothing written). */
  function checkValues(inputs: Array<{ properties: Record<string, unknown> }>) {
    const problems = new Map<string, ValidationResult>();
    for (const input of inputs) {
      for (const [name, value] of Object.entries(input.properties)) {
        const p = properties.get(name);
        const text = value === null || value === undefined ? '' : String(value);
        let problem: Omit<ValidationResult, 'isValid' | 'name'> | null = null;
        if (!p) problem = { message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST' };
        else if (p.readOnlyValue) problem = { message: `"${name}" is a read only property; its value cannot be set.`, error: 'READ_ONLY_VALUE' };
        else if (text !== '') problem = valueProblem(p, text);
        // One result per property and problem, as HubSpot lists them (the record is not named).
        if (problem) problems.set(`${name}\u0000${problem.error}\u0000${problem.message}`, { isValid: false, name, ...problem });
      }
    }
    if (problems.size > 0) throw invalidValues([...problems.values()]);
  }

  /** Unpublished wording; the error codes are HubSpot's. */
  function valueProblem(p: StandInProperty, text: string): Omit<ValidationResult, 'isValid' | 'name'> | null {
    if (p.type === 'number' && !Number.isFinite(Number(text))) return { message: `${text} was not a valid number.`, error: 'INVALID_FLOAT' };
    if ((p.type === 'datetime' || p.type === 'date') && !/^\d+$/.test(text) && Number.isNaN(Date.parse(text))) {
      return { message: `${text} was not a valid date or timestamp.`, error: 'INVALID_DATE' };
    }
    if (p.type === 'enumeration' && p.name === 'hubspot_owner_id' && !owners.has(text))
      return { message: `${text} is not a valid owner id.`, error: 'INVALID_OWNER_ID' };
    if (p.type === 'enumeration' && p.name !== 'hubspot_owner_id' && !p.options.some((o) => o.value === text)) {
      return { message: `${text} was not one of the allowed options: ${p.options.map((o) => o.value).join(', ')}`, error: 'INVALID_OPTION' };
    }
    return null;
  }

  /** A value as HubSpot stores it: datetimes as ISO 8601 (they are written as ISO or epoch ms), '' clears. */
  function stored(name: string, value: unknown): string | null {
    const text = value === null || value === undefined ? '' : String(value);
    if (text === '') return null;
    const p = properties.get(name);
    if (p?.type === 'datetime') return new Date(/^\d+$/.test(text) ? Number(text) : text).toISOString();
    return text;
  }

  function batchUpdate(body: Record<string, unknown>) {
    requireScope(SCOPE.companiesWrite);
    const inputs = inputsOf(body).map((i) => ({ id: String(i.id), properties: (i.properties ?? {}) as Record<string, unknown> }));
    const ids = inputs.map((i) => i.id);
    const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (dup.length > 0) throw validation(`Duplicate IDs found in batch input: [${[...new Set(dup)].join(', ')}]. IDs must be unique`);
    const refusedWhole = inputs.filter((i) => failing.get(i.id)?.wholeBatch);
    if (refusedWhole.length > 0) {
      const f = failing.get(refusedWhole[0]!.id)!;
      throw new HttpError(400, errorBody(f.message, f.category, { context: { ids: refusedWhole.map((i) => i.id) } }));
    }
    checkValues(inputs);
    const results: unknown[] = [];
    const errors: unknown[] = [];
    const notFound: string[] = [];
    const at = now();
    for (const input of inputs) {
      const fault = failing.get(input.id);
      if (fault) {
        errors.push({ status: 'error', category: fault.category, message: fault.message, context: { ids: [input.id] }, errors: [], links: {} });
        continue;
      }
      const c = companies.get(input.id);
      // Unpublished: how a batch update answers an id HubSpot does not have. The stand-in answers as batch
      // read does: a 207 whose OBJECT_NOT_FOUND error lists the ids, the others written.
      if (!c) {
        notFound.push(input.id);
        continue;
      }
      setProperties(c, Object.fromEntries(Object.entries(input.properties).map(([k, v]) => [k, stored(k, v)])));
      results.push(companyJson(c, Object.keys(input.properties)));
    }
    if (notFound.length > 0) {
      errors.push({
        status: 'error',
        category: 'OBJECT_NOT_FOUND',
        message: 'Could not get some COMPANY objects, they may be deleted or not exist. Check that ids are valid.',
        context: { ids: notFound },
        errors: [],
        links: {},
      });
    }
    const times = { startedAt: at, completedAt: now() };
    if (errors.length === 0) return { status: 200, body: { status: 'COMPLETE', results, ...times } };
    return { status: 207, body: { status: 'COMPLETE', results, numErrors: errors.length, errors, ...times } };
  }

  function batchCreate(body: Record<string, unknown>) {
    requireScope(SCOPE.companiesWrite);
    const inputs = inputsOf(body).map((i) => ({ properties: (i.properties ?? {}) as Record<string, unknown> }));
    checkValues(inputs);
    const at = now();
    const results = inputs.map((input) => {
      const c = addCompany(Object.fromEntries(Object.entries(input.properties).map(([k, v]) => [k, stored(k, v)])));
      return companyJson(c, Object.keys(input.properties));
    });
    return { status: 201, body: { status: 'COMPLETE', results, startedAt: at, completedAt: now() } };
  }

  // -- Owners [owners] -------------------------------------------------------------------------------------

  function listOwners(query: Record<string, string>) {
    requireScope(SCOPE.owners);
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > OWNERS_MAX_LIMIT) throw validation(`limit must be between 1 and ${OWNERS_MAX_LIMIT}`);
    const after = Number(query.after ?? 0);
    const archived = query.archived === 'true';
    const all = [...owners.values()].filter((o) => Boolean(o.archived) === archived && (!query.email || o.email === query.email));
    const page = all.slice(after, after + limit).map((o) => ({
      id: o.id,
      email: o.email,
      type: 'PERSON',
      firstName: o.firstName ?? '',
      lastName: o.lastName ?? '',
      userId: o.userId ?? Number(o.id),
      userIdIncludingInactive: o.userId ?? Number(o.id),
      createdAt: o.createdAt,
      updatedAt: o.updatedAt,
      archived: Boolean(o.archived),
      teams: [],
    }));
    const next = after + limit < all.length ? after + limit : null;
    return {
      status: 200,
      body: {
        results: page,
        ...(next !== null ? { paging: { next: { after: String(next), link: `https://api.hubapi.com/crm/v3/owners/?after=${next}` } } } : {}),
      },
    };
  }

  // -- Properties and groups [props] --------------------------------------------------------------------------

  const groupJson = (g: StandInGroup) => ({ name: g.name, label: g.label, displayOrder: g.displayOrder, archived: false });
  const propertyJson = (p: StandInProperty) => ({
    updatedAt: p.updatedAt,
    createdAt: p.createdAt,
    name: p.name,
    label: p.label,
    type: p.type,
    fieldType: p.fieldType,
    description: p.description,
    groupName: p.groupName,
    options: p.options,
    displayOrder: p.displayOrder,
    calculated: false,
    externalOptions: false,
    hasUniqueValue: false,
    hidden: false,
    hubspotDefined: p.hubspotDefined,
    modificationMetadata: { archivable: !p.hubspotDefined, readOnlyDefinition: p.hubspotDefined, readOnlyValue: p.readOnlyValue },
    formField: !p.readOnlyValue,
    archived: false,
  });

  function createGroup(body: Record<string, unknown>) {
    const name = String(body.name ?? '');
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw validation(`Invalid property group name '${name}'`);
    if (!body.label) throw validation('Invalid input JSON: missing required field label');
    if (groups.has(name)) throw new HttpError(409, errorBody(`A property group named '${name}' already exists.`, 'OBJECT_ALREADY_EXISTS'));
    const g = { name, label: String(body.label), displayOrder: Number(body.displayOrder ?? -1) };
    groups.set(name, g);
    return { status: 201, body: groupJson(g) };
  }

  /** The type/fieldType pairs HubSpot accepts [props]. */
  const FIELD_TYPES: Record<string, string[]> = {
    string: ['text', 'textarea', 'phonenumber', 'html', 'file'],
    number: ['number', 'calculation_equation'],
    date: ['date'],
    datetime: ['date'],
    enumeration: ['booleancheckbox', 'checkbox', 'radio', 'select', 'calculation_equation'],
    bool: ['booleancheckbox'],
  };

  function createProperty(body: Record<string, unknown>): StandInProperty {
    const name = String(body.name ?? '');
    const type = String(body.type ?? '');
    const fieldType = String(body.fieldType ?? '');
    const groupName = String(body.groupName ?? '');
    if (!/^[a-z][a-z0-9_]*$/.test(name))
      throw validation(`Invalid property name '${name}': lower-case letters, digits and underscores, starting with a letter`);
    if (!body.label) throw validation('Invalid input JSON: missing required field label');
    if (!FIELD_TYPES[type]) throw validation(`Invalid property type '${type}'`);
    if (!FIELD_TYPES[type].includes(fieldType)) throw validation(`Property type '${type}' cannot have field type '${fieldType}'`);
    if (!groups.has(groupName)) throw validation(`Property group '${groupName}' does not exist`);
    const options = Array.isArray(body.options) ? (body.options as Array<Record<string, unknown>>) : [];
    if (type === 'enumeration' && options.length === 0) throw validation('Enumeration properties need options');
    if (properties.has(name)) throw new HttpError(409, errorBody(`Property named '${name}' already exists.`, 'OBJECT_ALREADY_EXISTS'));
    const at = now();
    const p: StandInProperty = {
      name,
      label: String(body.label),
      type,
      fieldType,
      groupName,
      description: String(body.description ?? ''),
      options: options.map((o, i) => ({
        label: String(o.label),
        value: String(o.value),
        displayOrder: Number(o.displayOrder ?? i),
        hidden: Boolean(o.hidden),
      })),
      displayOrder: Number(body.displayOrder ?? -1),
      hubspotDefined: false,
      readOnlyValue: false,
      createdAt: at,
      updatedAt: at,
    };
    properties.set(name, p);
    return p;
  }

  function batchCreateProperties(body: Record<string, unknown>) {
    const inputs = inputsOf(body);
    const results: unknown[] = [];
    const errors: unknown[] = [];
    for (const input of inputs) {
      try {
        results.push(propertyJson(createProperty(input)));
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        errors.push({
          status: 'error',
          category: err.body.category,
          message: err.body.message,
          context: { name: [String(input.name)] },
          errors: [],
          links: {},
        });
      }
    }
    const times = { startedAt: now(), completedAt: now() };
    if (errors.length === 0) return { status: 201, body: { status: 'COMPLETE', results, ...times } };
    return { status: 207, body: { status: 'COMPLETE', results, numErrors: errors.length, errors, ...times } };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get token() {
      return token;
    },
    companies: {
      add: (props) => addCompany(props).id,
      get: (id) => companies.get(id),
      all: () => [...companies.values()],
      get size() {
        return companies.size;
      },
      delete: (id) => {
        const c = companies.get(id);
        if (!c) return false;
        unindex(id, c.properties.domain);
        return companies.delete(id);
      },
    },
    owners: {
      add: (o) => void owners.set(o.id, { ...o, createdAt: now(), updatedAt: now() }),
      all: () => [...owners.values()],
    },
    properties: {
      add: (def) => createProperty({ ...def }),
      get: (name) => properties.get(name),
      all: () => [...properties.values()],
      groups: () => [...groups.values()],
    },
    requests,
    faults: {
      rateLimitNext(n, o = {}) {
        for (let i = 0; i < n; i++) rateLimited.push({ retryAfterSeconds: o.retryAfterSeconds, policyName: o.policyName ?? 'TEN_SECONDLY_ROLLING' });
      },
      failRecords(ids, o = {}) {
        for (const id of ids) {
          failing.set(id, {
            message: o.message ?? 'Record could not be updated',
            category: o.category ?? 'VALIDATION_ERROR',
            wholeBatch: o.wholeBatch ?? false,
          });
        }
      },
      deleteProperty(name) {
        properties.delete(name);
      },
      revokeToken() {
        revoked = true;
      },
      rotateToken() {
        // The private app's token rotated: the old one is refused, the new one works [private apps].
        token = `pat-na1-${randomUUID()}`;
        revoked = false;
        return token;
      },
      stallNext(o = {}) {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = () => {
            releases.delete(release);
            resolve();
          };
        });
        releases.add(release);
        if (o.ms !== undefined) setTimeout(release, o.ms).unref();
        const stall = { gate, match: o.match ?? (() => true), skip: o.skip ?? 0, left: o.count ?? 1, reached: false };
        stalls.push(stall);
        return { release, reached: () => stall.reached };
      },
      malformedNext(n) {
        malformed += n;
      },
      serverErrorNext(n, status = 502) {
        for (let i = 0; i < n; i++) serverErrors.push(status);
      },
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of [...releases]) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
