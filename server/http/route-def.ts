/**
 * One route, defined once: method, path, how its caller is authenticated, its input, its handler, what it
 * charges, and its OpenAPI operation. The list of every route (server/routes.ts) is the one source of the
 * router's registration (server/http/router.ts), 405 + `Allow`, HEAD, and the OpenAPI document
 * (server/openapi/document.ts).
 *
 * A route runs the one pipeline (server/http/run-route.ts): authenticate → CORS → rate limit → input →
 * handler → charge → send, with one error path and one response writer. Routes served by the Express app
 * shell (static files, the console, /docs, the tag bundle, the demo page) are in the list too — with
 * `shell: true` and no handler — so their paths answer 405 + Allow and are documented like any other.
 */
import type { z } from 'zod';
import type { TokenGroup } from '../../core/customer-records.ts';
import type { Permission } from '../../core/roles.ts';
import type { Caller } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { ChargeableApi } from '../credits/rules.ts';
import type { Services } from '../services.ts';
import type { RateLimitHit } from '../state/metering/service.ts';
import type { ApiRequest } from './api-request.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * How a route's caller proves who it is (the pipeline's first step):
 * - `public`: nobody (health, CORS preflights, the demo page's data);
 * - `token`: an API token of the group (`Authorization: Token …`), rate limited and charged per customer;
 * - `any-token`: an API token of any group (`GET /v3/usage`);
 * - `tag-or-token`: identification: `?tag=` from a browser (Origin against the tag's allowed domains), or a
 *   token when an Authorization header is sent or no tag is named;
 * - `tag`: the web tag named in `?tag=` (page views), 401 without one;
 * - `admin`: the workspace: the operator's admin token (Bearer), or a user's session cookie (then every
 *   write must come from this server's origin); writes only JSON; what a user may do is the route's `access`;
 * - `operator`: the admin token, reads only (`/metrics`).
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'token'; group: TokenGroup }
  | { kind: 'any-token' }
  | { kind: 'tag-or-token' }
  | { kind: 'tag' }
  | { kind: 'admin' }
  | { kind: 'operator' };

/** A request body a route reads: which types it accepts, how large, how it is validated. */
export interface BodySpec<B> {
  /**
   * - `fields`: form-encoded, multipart (text fields) or JSON object (the server-to-server routes);
   * - `json`: JSON only, or no body at all (the admin API);
   * - `text`: any Content-Type read as UTF-8 text (the page-view beacon, sent as text/plain);
   * - `stream`: not read by the pipeline: the handler reads `req.raw` itself, within `limit` (a file upload
   *   streamed to disk: server/enrichment/jobs/upload.ts).
   */
  types: 'fields' | 'json' | 'text' | 'stream';
  /** Largest body in bytes: larger → 413. */
  limit: number;
  /**
   * A `text` or `stream` body of an admin route: the media types the workspace's write guard accepts besides JSON
   * (server/http/run-route.ts `workspacePrincipal`; the account-list CSV upload: `text/csv`). The handler
   * checks the type it reads. None of them may be a type a cross-site form can send (text/plain, forms).
   */
  media?: readonly string[];
  /**
   * How the parsed body is validated. `fields`: the first type/length issue is 422 `invalid`, a blank
   * required field 400 `blank` (server/http/body.ts `parseFields`); `record`: the schema's first issue is
   * 422 `invalid` (`path: message`); absent: the handler reads the raw value.
   */
  schema?: z.ZodType<B>;
  validation?: 'fields' | 'record';
  /**
   * `fields` only: the schema's answer for an ordinary body, read without zod (undefined: let the schema
   * decide); equal to the schema's where it answers (server/enrichment/request-body.ts `textBody`).
   */
  fast?: (body: unknown) => B | undefined;
}

/**
 * Which customer a workspace request is about: a user of another customer gets 404 (never 403: ids are not
 * probed); the operator is about any.
 */
export type CustomerScope =
  /** A path parameter naming the customer (`/admin/api/customers/:id`). */
  | { from: 'param'; name: string }
  /** A path parameter naming a token, a tag or a user: its customer. */
  | { from: 'token-param' | 'tag-param' | 'user-param'; name: string }
  /** `?customer=` of a listing: a user's listing is always their own customer's. */
  | { from: 'query' }
  /** `customer_id` of the body (creating a token or a tag). */
  | { from: 'body' }
  /** Not one customer's (the list of customers, which the handler narrows for a user). */
  | { from: 'none' };

/** What a workspace route needs of a user: a permission of their role, and their own customer. */
export interface RouteAccess {
  permission: Permission;
  customer: CustomerScope;
  /** Only the operator (a user gets 403 whatever their role): provisioning customers, contracts. */
  operatorOnly?: boolean;
}

/** One audit record of a change the route made (core/user-records.ts AuditEvent). */
export interface AuditEntry {
  customer: string;
  action: string;
  target?: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** The user who acted when no principal was signed in yet (a sign-in names the user it signed in). */
  as?: { id: string; email: string };
}

/** The Content-Type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** What a handler answers. A JSON `body`, or `text` of a given `type`, or a `stream` of it, or nothing (204, 304). */
export interface RouteResult {
  status: number;
  body?: unknown;
  /**
   * Sent instead of `body` when both are given: a handler that serialised its JSON body itself (the
   * identification answer, `server/identification/answer-json.ts`) with `type` JSON_TYPE keeps the object
   * for its in-process callers.
   */
  text?: string | Buffer;
  /**
   * A body too large to hold (an export), of the given `type`: its chunks are written as they come, each
   * after the client took the ones before (backpressure), gzip-compressed when the client accepts gzip;
   * the consumer stopping (the client gone) ends the iteration (its `finally` runs). The first chunk is
   * read before anything is sent, so an error until then is an error answer like any other; a later one
   * cuts the connection, and the client sees an incomplete answer (chunked, no final chunk).
   */
  stream?: AsyncIterable<string | Buffer>;
  /** Content-Type of `text` or `stream`. */
  type?: string;
  /** Headers of the answer; a list for a header sent more than once (Set-Cookie). */
  headers?: Readonly<Record<string, string | readonly string[]>>;
  /** The record this answer exports, when it is chargeable (spec "Credits"): charged before it is sent. */
  charge?: { api: ChargeableApi; record: string };
  /** Work to run once the answer has been written (page views: record after the 204). */
  after?: () => void;
}

export interface RouteContext<B = unknown, Q = unknown> {
  readonly req: ApiRequest;
  /** The authenticated caller (null for `public`, `admin` and `operator` routes). */
  readonly caller: Caller | null;
  /** Who is acting on a workspace (`admin`) route: the operator or a signed-in user. */
  readonly principal: Principal | null;
  /** The customer a workspace request is about, as the route's `access` resolved it (a user's own for listings). */
  readonly scope: string | null;
  /** Records a change in the customer's audit log (who, from where and when are the pipeline's). */
  audit(entry: AuditEntry): Promise<void>;
  readonly services: Services;
  /** The body, validated by the route's body spec (undefined when the route reads none). */
  readonly body: B;
  /** The query, validated by the route's query schema (the raw query when it has none). */
  readonly query: Q;
  /** HEAD: the answer's headers without its body; never charged. */
  readonly head: boolean;
  /** The caller's own rate-limit counter as of this request (the one the RateLimit-* headers report). */
  readonly rateLimit: RateLimitHit | null;
  /** Sets a header of the answer (kept on an error answer too, as everything set before the error). */
  header(name: string, value: string): void;
  /**
   * Charges one exported record now, through the pipeline's credit step, for an answer that exports
   * several records each with its own outcome (the batch enrichment route); a single record goes in the
   * result's `charge` instead. Rejects with ApiError `quota_exhausted` (402) or `unavailable` (503).
   * Nothing is charged when the client is already gone (its answer is never received). A workspace route
   * (no customer caller) names the customer it charges as `as`: a caller without token or tag (the account
   * page's People reveal charges as People Enrichment does).
   */
  charge(charge: { api: ChargeableApi; record: string }, as?: Caller): Promise<void>;
}

/** An OpenAPI 3.1 operation object (built with server/openapi/kit.ts). */
export type OperationDoc = Record<string, unknown>;

interface RouteBase {
  method: Exclude<Method, 'HEAD'>;
  /** find-my-way syntax: `/admin/api/tokens/:id`, a trailing `*` for a wildcard. */
  path: string;
  /** The OpenAPI operation; null for a path that is not part of the API document (the demo page). */
  doc: OperationDoc | null;
  /** Whether a GET also answers HEAD (the same steps, no body, never charged); default true for GET. */
  head?: boolean;
  /** The HEAD operation's document, when it differs from what is derived from the GET's. */
  headDoc?: OperationDoc;
  /** Whether the route exists with these services (demo routes only in demo mode, webhooks with an outbox). */
  enabled?: (services: Services) => boolean;
}

/** A route of the API: runs the pipeline. */
export interface ApiRouteDef<B = unknown, Q = unknown> extends RouteBase {
  shell?: false;
  auth: RouteAuth;
  /** Headers every answer of the route carries, errors included (Vary: Origin, Cache-Control, Deprecation …). */
  headers?: Readonly<Record<string, string>>;
  /** The query's schema (422 on a failed check, unless the handler reads the raw query). */
  query?: z.ZodType<Q>;
  body?: BodySpec<B>;
  /** Workspace routes: the permission and the customer the request is about (required for `admin`). */
  access?: RouteAccess;
  /** The API whose credits it can charge (documentation: the handler names the record per answer). */
  charges?: ChargeableApi;
  /**
   * The handler only reads (a lookup: no write, no call out, never reads `rateLimit`), so the rate limit
   * may be checked after it, together with the charge, as one metering operation (run-route.ts): one round
   * trip to a shared store instead of two. Every answer is as if the limit had been checked first.
   */
  meterAfterHandler?: true;
  handler(ctx: RouteContext<B, Q>): Promise<RouteResult> | RouteResult;
}

/** A path the Express app shell answers (static files, console, docs, tag bundle, demo page). */
export interface ShellRouteDef extends RouteBase {
  shell: true;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds routes of every body and query type; each is checked where it is defined (apiRoute)
export type RouteDef = ApiRouteDef<any, any> | ShellRouteDef;

/** Typed construction of an API route (the body and query types flow from their schemas into the handler). */
export function apiRoute<B = undefined, Q = Record<string, unknown>>(def: ApiRouteDef<B, Q>): ApiRouteDef<B, Q> {
  return def;
}

export function shellRoute(method: 'GET', path: string, doc: OperationDoc | null, extra: Partial<ShellRouteDef> = {}): ShellRouteDef {
  return { method, path, doc, shell: true, ...extra };
}

/** The OpenAPI spelling of a route path: `:id` → `{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
