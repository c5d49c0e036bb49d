/**
 * Every workspace route of the route table × the operator and every role × its own customer, another
 * customer, and its own customer naming another customer's record — on both state backends.
 *
 * The routes come from ROUTES (every `admin` route), so a new route is covered as soon as it is in the table
 * (and this file fails until its path parameters have fixtures here). A write carries `{}` (JSON, invalid for
 * every route that creates something), so a permitted request is refused by validation instead of creating
 * records; the requests that succeed on `{}` (DELETE, the token actions, a password reset link) get records
 * made for that one request.
 *
 * What is asserted:
 * - own customer: a permission the role lacks (or an operator-only route) → 403; a permitted request is
 *   never 401/403 nor the scope's 404 (`unknown customer|token|tag|user <id>`), and creates nothing;
 * - another customer: 404 for every role (never 403: ids are not probed), with the scope's message, and
 *   nothing of the other customer changed (records, users, sessions, SSO, audit log);
 * - own customer, another customer's record in the path (a webhook, a user): 404 when permitted, else 403,
 *   and nothing of the other customer changed;
 * - the operator: never 401/403, never the scope's 404;
 * - listings (tokens, tags, customers) as a user hold only the user's customer's records.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response as InjectResponse } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role, roleMay } from '../../core/roles.ts';
import type { SsoProvider } from '../../core/user-records.ts';
import { hashPassword } from '../auth/password.ts';
import { sessionSecretHash } from '../auth/session.ts';
import type { ApiRouteDef, CustomerScope } from '../http/route-def.ts';
import { ROUTES } from '../routes.ts';
import { newId } from '../state/users/service.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { generateSigningSecret } from '../webhooks/signature.ts';

const OWN = 'acme';
const OTHER = 'globex';
const PASSWORD = 'a long enough passphrase';

const GLOBEX = {
  ...TEST_CUSTOMER,
  id: OTHER,
  name: 'Globex',
  tags: [{ tag_id: 'globex-tag', allowed_domains: ['*.globex.test'], scores: false, segment_names: false }],
};

/** Every workspace route of the table (fixed at import: the tests are generated from it). */
const ADMIN_ROUTES = ROUTES.filter((r): r is ApiRouteDef => !r.shell && r.auth.kind === 'admin');

type Principal = 'operator' | Role;
const PRINCIPALS: readonly Principal[] = ['operator', ...ROLES];

/** What a path parameter names. */
type Kind = 'customer' | 'token' | 'tag' | 'user' | 'webhook' | 'session' | 'segment' | 'company' | 'person' | 'list' | 'job' | 'provider' | 'run' | 'alert';

/** Parameters the route's `access` does not name, by name; then by route. Add a route's new parameter here. */
const PARAM_KIND: Readonly<Record<string, Kind>> = {
  userId: 'user',
  webhookId: 'webhook',
  tagId: 'tag',
  segmentId: 'segment',
  companyId: 'company',
  listId: 'list',
  jobId: 'job',
  /** A CRM (`hubspot`): every customer's to connect, no customer's record. */
  provider: 'provider',
  runId: 'run',
  alertId: 'alert',
  personId: 'person',
};
/** A company of the catalog: every customer's to look at (the account page), no customer's record. */
const CATALOG_COMPANY = '900001';
/** A people id of the catalog (none in this one: a reveal is then 404 whoever asks, as a record beside the customer). */
const CATALOG_PERSON = 'P1001';
const ROUTE_PARAM_KIND: Readonly<Record<string, Kind>> = { '/auth/sessions/:id#id': 'session' };

function paramKind(route: ApiRouteDef, name: string): Kind {
  const scope = route.access?.customer;
  if (scope && 'name' in scope && scope.name === name) {
    return scope.from === 'param' ? 'customer' : scope.from === 'token-param' ? 'token' : scope.from === 'tag-param' ? 'tag' : 'user';
  }
  const kind = ROUTE_PARAM_KIND[`${route.path}#${name}`] ?? PARAM_KIND[name];
  if (!kind) throw new Error(`role matrix: no fixture for :${name} of ${route.method} ${route.path} (add it to PARAM_KIND or ROUTE_PARAM_KIND)`);
  return kind;
}

const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
const isWrite = (route: ApiRouteDef) => route.method !== 'GET';

/** The scope's own 404 (server/http/run-route.ts notFoundMessage). */
const SCOPE_404 = /^unknown (customer|token|tag|user) /;

/** Whether a request can be about another customer at all (a customer in the path, query or body, or a record of one). */
const hasOtherVariant = (route: ApiRouteDef) => route.access?.customer.from !== 'none' || paramsOf(route.path).length > 0;
/** Own customer in the path, and a record of the customer named beside it (a webhook, a user). */
const hasMixedVariant = (route: ApiRouteDef) =>
  route.access?.customer.from === 'param' && paramsOf(route.path).some((p) => !['customer', 'company', 'person', 'provider'].includes(paramKind(route, p)));

type Variant = 'own' | 'other' | 'mixed';
/** A row of a listing (a token, a tag or a customer). */
type Row = { id?: string; customer_id?: string };

describe.each(['sqlite', 'redis'] as const)('the role matrix on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;
  let host: string;

  /** Each role's user of acme, signed in. */
  const members = new Map<Role, { id: string; cookie: string }>();
  /** Records read (never changed) by the requests that only read. */
  const shared: Record<string, { token: string; tag: string; webhook: string; user: string; segment: string; list: string; job: string; alert: string }> = {};
  /** A user of each customer whose sessions are the ones other principals try to end. */
  const bystanders: Record<string, string> = {};

  const sso = (customer: string): SsoProvider => ({
    customer_id: customer,
    issuer: 'https://idp.example.com',
    client_id: `svc-${customer}`,
    client_secret: `secret-of-${customer}-0123456789`,
    allowed_domains: [`${customer}.test`],
    default_role: 'viewer',
    display_name: `${customer} SSO`,
  });

  async function newToken(customer: string): Promise<string> {
    return (await srv.store.createToken({ customer_id: customer, api_group: 'identification', name: `matrix ${randomBytes(3).toString('hex')}` })).record.id;
  }
  async function newWebhook(customer: string): Promise<string> {
    const hook = await srv.webhookStore.createEndpoint({
      customer_id: customer,
      url: `https://hooks.${customer}.test/svc`,
      events: ['account.visited'],
      hot_paths: [],
      description: 'role matrix',
      secret: generateSigningSecret(),
    });
    return hook.id;
  }
  /** An alert (an outbox endpoint with settings.alert) posting to an email address. */
  async function newAlert(customer: string): Promise<string> {
    const alert = await srv.webhookStore.createEndpoint({
      customer_id: customer,
      url: '',
      events: ['account.visited'],
      hot_paths: [],
      description: 'alert: role matrix',
      secret: generateSigningSecret(),
      settings: {
        event_versions: {},
        segment_names: true,
        scores: false,
        format: 'email',
        filters: {},
        alert: {
          name: 'role matrix',
          trigger: { type: 'visited', path: '/pricing*' },
          filter: {},
          destination_type: 'email',
          to: [`sales@${customer}.test`],
          route_to_owner: null,
          paused: false,
          created_by: null,
        },
      },
    });
    return alert.id;
  }
  async function newTag(customer: string): Promise<string> {
    return (await srv.store.createTag({ customer_id: customer, allowed_domains: [`matrix.${customer}.test`] })).tag_id;
  }
  /** A segment of the customer (globex's ids start at 1001, so no id of one customer is also the other's). */
  async function newSegment(customer: string): Promise<string> {
    const c = await srv.store.changeSegments(customer, ({ segments, segment_seq }) => {
      const id = Math.max(segment_seq, customer === OTHER ? 1000 : 0) + 1;
      return { segments: [...segments, { id, name: `matrix ${id}`, match: { industry: ['Software'] } }], segment_seq: id };
    });
    return String(c.segment_seq);
  }
  /** A named account list of the customer (ids are random: no id of one customer is also the other's). */
  async function newList(customer: string): Promise<string> {
    const id = `matrix-${customer}-${randomBytes(3).toString('hex')}`;
    await srv.store.changeAccountLists(customer, (s) => ({ ...s, account_lists: [...s.account_lists, { id, name: id, company_ids: ['900001'] }] }));
    return id;
  }
  /** An enrichment job of the customer (a two-row upload, as the operator). */
  async function newJob(customer: string): Promise<string> {
    const res = await srv.inject({
      method: 'POST',
      url: `/admin/api/customers/${customer}/enrichment-jobs`,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      payload: 'email\nann@northwind.example\nbob@unknown.example\n',
    });
    expect(res.statusCode, res.body).toBe(202);
    return res.json().id;
  }
  async function newUser(customer: string, role: Role = 'viewer', password: string | null = null): Promise<string> {
    const email = `${role}.${randomBytes(4).toString('hex')}@${customer}.test`;
    return (await srv.users.createUser({ customer_id: customer, email, role, password_hash: password, sso: false })).id;
  }
  async function newSession(userId: string, customer: string): Promise<string> {
    const now = new Date();
    const id = newId('ses_');
    await srv.users.createSession(sessionSecretHash(randomBytes(32).toString('base64url')), {
      id,
      user_id: userId,
      customer_id: customer,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
      ip: null,
      user_agent: 'role matrix',
      method: 'password',
    });
    return id;
  }

  async function signIn(email: string): Promise<{ cookie: string; session: string }> {
    const res = await srv.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: { email, password: PASSWORD },
    });
    expect(res.statusCode, res.body).toBe(204);
    const setCookie = res.headers['set-cookie'];
    const cookie = String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;
    const me = await srv.inject({ method: 'GET', url: '/auth/me', headers: { cookie } });
    return { cookie, session: me.json().session_id };
  }

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({
      env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {},
      customers: [TEST_CUSTOMER, GLOBEX],
    });
    host = new URL(srv.url).host;
    const hash = await hashPassword(PASSWORD);
    for (const customer of [OWN, OTHER]) {
      const tag = customer === OWN ? 'acme-tag' : 'globex-tag';
      shared[customer] = {
        token: await newToken(customer),
        tag,
        webhook: await newWebhook(customer),
        user: await newUser(customer),
        segment: await newSegment(customer),
        list: await newList(customer),
        job: await newJob(customer),
        alert: await newAlert(customer),
      };
      bystanders[customer] = await newUser(customer, 'viewer');
      await srv.users.setSsoProvider(sso(customer));
    }
    // An owner of globex with a live session: what acme's users must not be able to see or end.
    const globexOwner = await srv.users.createUser({ customer_id: OTHER, email: 'owner@globex.test', role: 'owner', password_hash: hash, sso: false });
    await signIn(globexOwner.email);
    for (const role of ROLES) {
      const user = await srv.users.createUser({ customer_id: OWN, email: `${role}@acme.test`, role, password_hash: hash, sso: false });
      members.set(role, { id: user.id, cookie: (await signIn(user.email)).cookie });
    }
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  /** Everything of a customer a request could change. */
  async function snapshot(customer: string) {
    const users = await srv.users.listUsers(customer);
    return {
      customer: await srv.store.getCustomer(customer),
      tokens: await srv.store.listTokens(customer),
      tags: await srv.store.listTags(customer),
      webhooks: await srv.webhookStore.listEndpoints(customer),
      users,
      sessions: await Promise.all(users.map((u) => srv.users.listSessions(u.id))),
      sso: await srv.users.getSsoProvider(customer),
      audit: await srv.users.listAudit(customer, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 10_000),
    };
  }
  /**
   * How many records the customer has. The Lead Scoring token is left out: a customer with `advanced` gets
   * it on its first change, `{}` included (server/customers/provision.ts), and the fixture is seeded without.
   */
  const counts = async (customer: string) => {
    const s = await snapshot(customer);
    const tokens = s.tokens.filter((t) => t.api_group !== 'lead-scoring').length;
    return { tokens, tags: s.tags.length, webhooks: s.webhooks.length, users: s.users.length };
  };

  /** The records a request names: the shared ones for reads, new ones for writes (which may succeed on `{}`). */
  async function recordFor(kind: Kind, customer: string, write: boolean, who: Principal): Promise<string> {
    switch (kind) {
      case 'customer':
        return customer;
      case 'company':
        return CATALOG_COMPANY;
      case 'person':
        return CATALOG_PERSON;
      case 'provider':
        return 'hubspot';
      case 'run':
        // No connection is made here: a run of either customer is unknown (404 whoever asks, as a record beside the customer).
        return 'run_of_no_connection';
      case 'tag':
        // A write may delete or disable what it names.
        return write ? newTag(customer) : shared[customer]!.tag;
      case 'token':
        return write ? newToken(customer) : shared[customer]!.token;
      case 'webhook':
        return write ? newWebhook(customer) : shared[customer]!.webhook;
      case 'user':
        return write ? newUser(customer) : shared[customer]!.user;
      case 'segment':
        return write ? newSegment(customer) : shared[customer]!.segment;
      case 'list':
        return write ? newList(customer) : shared[customer]!.list;
      case 'job':
        return write ? newJob(customer) : shared[customer]!.job;
      case 'alert':
        return write ? newAlert(customer) : shared[customer]!.alert;
      case 'session': {
        // One's own session, for one's own customer; else a bystander's.
        const userId = customer === OWN && who !== 'operator' ? members.get(who)!.id : bystanders[customer]!;
        return newSession(userId, customer);
      }
    }
  }

  interface Built {
    url: string;
    payload: unknown;
    /** The scope's 404 message this request should get from a user of acme, when it names another customer. */
    notFound: string | null;
  }

  async function build(route: ApiRouteDef, variant: Variant, who: Principal): Promise<Built> {
    const write = isWrite(route);
    // Writes may change what they name: re-establish what a DELETE may have removed.
    if (write) for (const c of [OWN, OTHER]) if (!(await srv.users.getSsoProvider(c))) await srv.users.setSsoProvider(sso(c));
    const scope: CustomerScope | undefined = route.access?.customer;
    let notFound: string | null = null;
    let url = route.path;
    for (const name of paramsOf(route.path)) {
      const kind = paramKind(route, name);
      const customer = variant === 'own' || (variant === 'mixed' && kind === 'customer') ? OWN : OTHER;
      const id = await recordFor(kind, customer, write, who);
      url = url.replace(`:${name}`, encodeURIComponent(id));
      if (variant === 'other' && scope && 'name' in scope && scope.name === name) notFound = `unknown ${kind} ${id}`;
      if (variant === 'other' && kind === 'session') notFound = `unknown session ${id}`;
    }
    const customer = variant === 'own' ? OWN : OTHER;
    if (scope?.from === 'query') {
      url += `?customer=${customer}`;
      if (variant === 'other') notFound = `unknown customer ${OTHER}`;
    }
    let payload: unknown;
    if (route.body) payload = scope?.from === 'body' ? { customer_id: customer } : {};
    if (scope?.from === 'body' && variant === 'other') notFound = `unknown customer ${OTHER}`;
    return { url, payload, notFound };
  }

  function send(route: ApiRouteDef, who: Principal, built: Built): Promise<InjectResponse> {
    const headers: Record<string, string> = { host };
    if (who === 'operator') headers.authorization = `Bearer ${TEST_ADMIN_TOKEN}`;
    else headers.cookie = members.get(who)!.cookie;
    if (isWrite(route)) headers.origin = srv.url;
    if (built.payload !== undefined) headers['content-type'] = 'application/json';
    return srv.inject({ method: route.method, url: built.url, headers, ...(built.payload !== undefined ? { payload: JSON.stringify(built.payload) } : {}) });
  }

  const messageOf = (res: InjectResponse): string => {
    try {
      return String(res.json()?.message ?? '');
    } catch {
      return '';
    }
  };
  const describeAnswer = (route: ApiRouteDef, who: Principal, variant: Variant, built: Built, res: InjectResponse) =>
    `${who}, ${variant}: ${route.method} ${built.url} ${JSON.stringify(built.payload ?? null)} → ${res.statusCode} ${res.body.slice(0, 300)}`;

  it('covers every workspace route of the table, each with its access', () => {
    expect(ADMIN_ROUTES.length).toBeGreaterThan(30);
    for (const route of ADMIN_ROUTES) expect(route.access, `${route.method} ${route.path} has no access`).toBeDefined();
    // Every path parameter has a fixture (paramKind throws otherwise).
    for (const route of ADMIN_ROUTES) for (const p of paramsOf(route.path)) paramKind(route, p);
  });

  it('asks a write for more than a read permission (the exceptions: a user ending a session of their own, or changing their own notifications)', () => {
    const ownSessionsOnly = new Set(['DELETE /auth/sessions/:id', 'PATCH /auth/me/notifications']);
    for (const route of ADMIN_ROUTES.filter(isWrite)) {
      const name = `${route.method} ${route.path}`;
      if (!ownSessionsOnly.has(name)) expect(route.access!.permission, name).not.toMatch(/:read$/);
    }
  });

  for (const route of ADMIN_ROUTES) {
    const variants: Variant[] = ['own', ...(hasOtherVariant(route) ? (['other'] as const) : []), ...(hasMixedVariant(route) ? (['mixed'] as const) : [])];
    describe(`${route.method} ${route.path}`, () => {
      for (const who of PRINCIPALS) {
        it(`as ${who}: ${variants.join(', ')}`, async () => {
          const access = route.access!;
          const permitted = who === 'operator' || (!access.operatorOnly && roleMay(who, access.permission));
          for (const variant of variants) {
            const built = await build(route, variant, who);
            const watched = who === 'operator' ? null : await snapshot(OTHER);
            const ownBefore = await counts(OWN);
            const res = await send(route, who, built);
            const what = describeAnswer(route, who, variant, built, res);
            const message = messageOf(res);

            if (who === 'operator') {
              if (variant === 'mixed') {
                // The path names a record the customer beside it does not have.
                expect(route.body?.schema ? [404, 422] : [404], what).toContain(res.statusCode);
              } else {
                expect([401, 403], what).not.toContain(res.statusCode);
                if (res.statusCode === 404) expect(message, what).not.toMatch(SCOPE_404);
              }
            } else if (variant === 'other') {
              expect(res.statusCode, what).toBe(404);
              expect(message, what).toBe(built.notFound);
            } else if (variant === 'mixed') {
              // A body schema is judged before the handler looks the record up: `{}` is then 422 either way.
              expect(permitted ? (route.body?.schema ? [404, 422] : [404]) : [403], what).toContain(res.statusCode);
            } else if (!permitted) {
              expect(res.statusCode, what).toBe(403);
            } else {
              expect([401, 403], what).not.toContain(res.statusCode);
              if (res.statusCode === 404) expect(message, what).not.toMatch(SCOPE_404);
              expect(res.statusCode, what).toBeLessThan(500);
            }
            // `{}` creates nothing, whoever sends it.
            const ownAfter = await counts(OWN);
            expect(ownAfter.tokens, what).toBeLessThanOrEqual(ownBefore.tokens);
            expect(ownAfter.tags, what).toBeLessThanOrEqual(ownBefore.tags);
            expect(ownAfter.webhooks, what).toBeLessThanOrEqual(ownBefore.webhooks);
            expect(ownAfter.users, what).toBeLessThanOrEqual(ownBefore.users);
            if (watched !== null) expect(await snapshot(OTHER), `${what}: globex changed`).toEqual(watched);
          }
        });
      }
    });
  }

  describe('valid changes aimed at another customer', () => {
    const write = (who: Principal, method: string, url: string, payload: unknown) =>
      srv.inject({
        method: method as 'POST',
        url,
        headers: {
          host,
          origin: srv.url,
          'content-type': 'application/json',
          ...(who === 'operator' ? { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } : { cookie: members.get(who)!.cookie }),
        },
        payload: JSON.stringify(payload),
      });

    it('are 404 for every role, and change nothing of the other customer', async () => {
      const globexUser = await newUser(OTHER, 'viewer');
      const cases: Array<[string, string, unknown]> = [
        ['POST', '/admin/api/tokens', { customer_id: OTHER, api_group: 'identification', name: 'stolen' }],
        ['POST', '/admin/api/tags', { customer_id: OTHER, allowed_domains: ['evil.test'] }],
        ['PATCH', `/admin/api/tags/${shared[OTHER]!.tag}`, { allowed_domains: ['evil.test'] }],
        ['PATCH', `/admin/api/tags/${shared[OTHER]!.tag}/settings`, { anti_flicker_timeout_ms: 1234 }],
        ['PATCH', `/admin/api/tags/${shared[OTHER]!.tag}`, { disabled: true }],
        ['DELETE', `/admin/api/tags/${shared[OTHER]!.tag}`, undefined],
        ['POST', `/admin/api/customers/${OTHER}/webhooks`, { url: 'https://evil.test/hook', events: ['account.visited'] }],
        ['POST', `/admin/api/customers/${OTHER}/invitations`, { email: 'mole@globex.test', role: 'owner' }],
        ['PATCH', `/admin/api/customers/${OTHER}/users/${globexUser}`, { role: 'owner' }],
        ['PUT', `/admin/api/customers/${OTHER}/sso`, { ...sso(OTHER), customer_id: undefined, issuer: 'https://evil.test' }],
        ['PATCH', `/admin/api/customers/${OTHER}`, { name: 'Pwned' }],
        // The own customer in the path, the other's user beside it.
        ['PATCH', `/admin/api/customers/${OWN}/users/${globexUser}`, { role: 'owner' }],
      ];
      for (const role of ROLES) {
        for (const [method, url, payload] of cases) {
          const before = await snapshot(OTHER);
          const res = await write(role, method, url, payload);
          const what = `${role}: ${method} ${url} ${JSON.stringify(payload)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
          const ownPathOtherUser = url.startsWith(`/admin/api/customers/${OWN}/`);
          // Naming the own customer, a role without users:manage learns nothing from a 403.
          expect(res.statusCode, what).toBe(ownPathOtherUser && !roleMay(role, 'users:manage') ? 403 : 404);
          expect(await snapshot(OTHER), `${what}: globex changed`).toEqual(before);
        }
      }
      // The operator naming acme with globex's user beside it: 404 too.
      const before = await snapshot(OTHER);
      const res = await write('operator', 'PATCH', `/admin/api/customers/${OWN}/users/${globexUser}`, { role: 'owner' });
      expect(res.statusCode, res.body).toBe(404);
      expect(await snapshot(OTHER)).toEqual(before);
    });
  });

  describe('listings as a user hold only the own customer', () => {
    /** A listing, the permission it needs, and the customer of each of its rows. */
    const LISTINGS = [
      { path: '/admin/api/tokens', permission: 'tokens:read', customerOf: (r: Row) => r.customer_id },
      { path: '/admin/api/tags', permission: 'tags:read', customerOf: (r: Row) => r.customer_id },
      { path: '/admin/api/customers', permission: 'reports:read', customerOf: (r: Row) => r.id },
    ] as const;
    for (const role of ROLES) {
      it(`as ${role}`, async () => {
        for (const listing of LISTINGS) {
          for (const query of ['', `?customer=${OWN}`]) {
            const res = await srv.inject({ method: 'GET', url: listing.path + query, headers: { host, cookie: members.get(role)!.cookie } });
            const what = `${role}: GET ${listing.path}${query} → ${res.statusCode} ${res.body.slice(0, 200)}`;
            if (!roleMay(role, listing.permission)) {
              expect(res.statusCode, what).toBe(403);
              continue;
            }
            expect(res.statusCode, what).toBe(200);
            const rows = res.json() as Row[];
            expect(rows.length, what).toBeGreaterThan(0);
            expect(new Set(rows.map(listing.customerOf)), what).toEqual(new Set([OWN]));
          }
        }
      });
    }

    it('the operator lists every customer', async () => {
      const headers = { host, authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      for (const path of ['/admin/api/tokens', '/admin/api/tags', '/admin/api/customers']) {
        const res = await srv.inject({ method: 'GET', url: path, headers });
        expect(res.statusCode).toBe(200);
        const rows = res.json() as Array<{ id: string; customer_id?: string }>;
        expect(new Set(rows.map((r) => r.customer_id ?? r.id))).toEqual(new Set([OWN, OTHER]));
      }
    });
  });
});
