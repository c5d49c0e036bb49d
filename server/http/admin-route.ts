/**
 * How a workspace route is built: every route under /admin/api (customers, tokens, tags, users, segments,
 * lists, webhooks, visits, accounts, enrichment jobs, onboarding) takes the `admin` auth — the operator's
 * bearer token or a user's session, checked with the route's `access` by the pipeline
 * (./workspace-access.ts) — and answers `Cache-Control: no-store`. Here, beside `apiRoute`, so each
 * feature builds its workspace routes from http/ rather than from another feature.
 */
import { type ApiRouteDef, apiRoute, type BodySpec } from './route-def.ts';

/**
 * A JSON body (or none) of at most 64 kB. It is validated in the handler, not by the pipeline: a request
 * without a body stays a 422 (the pipeline would read it as `{}`, which the PATCH schemas accept — an empty
 * PATCH of a tag's settings would clear them), and a route that looks its record up first answers 404
 * before judging the body.
 */
export const ADMIN_JSON_BODY = { types: 'json', limit: 64 * 1024 } as const satisfies BodySpec<unknown>;

/** What the admin API answers is never kept by a cache: it holds customers, tokens and their secrets. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** An admin API route: the admin credential, and `Cache-Control: no-store` on every answer, errors included. */
export function adminRoute<B = undefined, Q = Record<string, unknown>>(def: Omit<ApiRouteDef<B, Q>, 'auth' | 'headers'>): ApiRouteDef<B, Q> {
  return apiRoute<B, Q>({ ...def, auth: { kind: 'admin' }, headers: NO_STORE });
}
