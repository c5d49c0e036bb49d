/**
 * Workspace authorization: who is asking on an `admin` route (the operator's bearer token or a user's
 * session cookie, with the same-origin and body-type rules of a workspace write) and what that principal
 * may do there (the route's `access`: another customer's ids are 404, a missing permission 403). The
 * pipeline (./run-route.ts) calls it; kept apart so the pipeline reads as its steps and these rules as one
 * policy.
 */
import { ApiError } from '../../core/error-codes.ts';
import { requireAdminCredential } from '../auth/operator-credential.ts';
import { may, type Principal } from '../auth/principal.ts';
import { isSecureRequest, readSession, sessionSecretOf } from '../auth/session.ts';
import { adminCredentialThrottle } from '../auth/throttle.ts';
import type { Services } from '../services.ts';
import { type ApiRequest, sameOrigin } from './api-request.ts';
import { hasBody } from './body.ts';
import type { ApiRouteDef, CustomerScope } from './route-def.ts';

/** What authorization reads of a request in the pipeline, and the principal and scope it sets. */
export interface WorkspaceCall {
  readonly req: ApiRequest;
  readonly services: Services;
  readonly body: unknown;
  principal: Principal | null;
  scope: string | null;
}

/**
 * The workspace's principal: the operator's Bearer token (CLIs, scripts: same-origin check only when a
 * browser sends an Origin), else a user's session cookie (then every write must carry this server's own
 * Origin: a cross-site form post that rides on the cookie is refused). Writes are JSON or body-less, or
 * of a media type the route's `text` body names (`also`: the CSV upload's `text/csv`) — never one a
 * cross-site form or a no-preflight fetch can send (text/plain, form types: refused even when named).
 */
export async function workspacePrincipal(call: WorkspaceCall, also: readonly string[]): Promise<Principal> {
  const { req, services } = call;
  const write = req.method !== 'GET' && req.method !== 'HEAD';
  let principal: Principal;
  const secure = isSecureRequest(req.raw, services.config, services.trustProxy);
  if (req.get('authorization') !== undefined || sessionSecretOf(req.raw, secure) === null) {
    requireAdminCredential(
      req,
      services.adminAuth,
      adminCredentialThrottle,
      'admin API',
      ' (SVC_ADMIN_TOKEN, or the token printed at first start), or sign in',
    );
    if (write && !sameOrigin(req)) throw new ApiError('forbidden', 'admin API: cross-origin requests are refused');
    principal = { kind: 'operator' };
  } else {
    const found = await readSession(services.users, req.raw, secure);
    if (found === null) throw new ApiError('unauthenticated', 'your session has ended: sign in again', { 'WWW-Authenticate': 'Bearer' });
    if (write && (req.get('origin') === undefined || !sameOrigin(req))) {
      throw new ApiError('forbidden', "admin API: a signed-in change must come from this server's own pages (same-origin Origin header)");
    }
    principal = { kind: 'user', user: found.user, session: found.session };
  }
  // A body-less request has no type to check: the token actions (deactivate, activate, rotate) take
  // none, and clients send them with or without a Content-Type (curl without -d sends no length,
  // python-requests sends Content-Length: 0) — refusing those left tokens silently active.
  const type = req.get('content-type');
  if (write && req.method !== 'DELETE' && hasBody(req.raw) && !isJson(type) && !isNamedType(type, also))
    throw new ApiError('unsupported_type', `admin API: send ${['JSON (Content-Type: application/json)', ...also].join(' or ')}`);
  return principal;
}

/** The customer a workspace request is about, per the route's scope (null: not one customer's). */
async function scopeOf(scope: CustomerScope, call: WorkspaceCall): Promise<string | null> {
  const { req, services } = call;
  switch (scope.from) {
    case 'param':
      return req.params[scope.name] ?? null;
    case 'token-param':
      return (await services.store.getToken(req.params[scope.name] ?? ''))?.customer_id ?? null;
    case 'tag-param':
      return (await services.store.getTag(req.params[scope.name] ?? ''))?.customer_id ?? null;
    case 'user-param':
      return (await services.users.getUser(req.params[scope.name] ?? ''))?.customer_id ?? null;
    case 'query': {
      const c = req.query.customer;
      return typeof c === 'string' && c !== '' ? c : null;
    }
    case 'body': {
      const c = (call.body as { customer_id?: unknown } | undefined)?.customer_id;
      return typeof c === 'string' ? c : null;
    }
    case 'none':
      return null;
  }
}

/**
 * What a user may do here: a request about another customer is 404 (as if it did not exist: ids are not
 * probed), a permission their role lacks 403. The operator may do everything. Runs before the body is
 * read, except for a scope named in the body.
 */
export async function authorize(def: ApiRouteDef, call: WorkspaceCall): Promise<void> {
  const principal = call.principal;
  const access = def.access;
  if (principal === null || access === undefined) {
    if (principal?.kind === 'user') throw new ApiError('forbidden', 'this route is for the operator only');
    return;
  }
  const target = await scopeOf(access.customer, call);
  if (principal.kind === 'operator') {
    call.scope = target;
    return;
  }
  const own = principal.user.customer_id;
  // A listing, or a body that names no customer (its own validation answers 422 for a missing field).
  if (access.customer.from === 'query' || access.customer.from === 'none' || (access.customer.from === 'body' && target === null)) {
    if (target !== null && target !== own) throw new ApiError('not_found', `unknown customer ${target}`);
  } else if (target !== own) {
    throw new ApiError('not_found', notFoundMessage(access.customer, call));
  }
  call.scope = own;
  if (access.operatorOnly || !may(principal, access.permission)) {
    throw new ApiError(
      'forbidden',
      `your role (${principal.user.role}) may not do this: it needs ${access.operatorOnly ? 'the operator' : `the ${access.permission} permission`}`,
    );
  }
}

function notFoundMessage(scope: CustomerScope, call: WorkspaceCall): string {
  if (scope.from === 'body') return `unknown customer ${String((call.body as { customer_id?: unknown })?.customer_id ?? '')}`;
  const id = 'name' in scope ? (call.req.params[scope.name] ?? '') : '';
  const what = scope.from === 'param' ? 'customer' : scope.from === 'token-param' ? 'token' : scope.from === 'tag-param' ? 'tag' : 'user';
  return `unknown ${what} ${id}`;
}

/** Media types a cross-site page can send without a CORS preflight: never accepted for an admin write. */
const SIMPLE_TYPES: ReadonlySet<string> = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/** Whether the Content-Type is one of `names` (a route's extra admin body types), never a simple one. */
function isNamedType(type: string | undefined, names: readonly string[]): boolean {
  if (!type || names.length === 0) return false;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return !SIMPLE_TYPES.has(media) && names.includes(media);
}

function isJson(type: string | undefined): boolean {
  if (!type) return false;
  const media = type.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}
