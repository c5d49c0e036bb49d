/**
 * Admin REST API under /admin/api (the console and operators use it): customers, tokens, tags, credits.
 * The webhook endpoints (server/webhooks/routes.ts) and the visitors report (server/visits/admin-routes.ts)
 * are admin routes too, built with `adminRoute` below.
 *
 * Authentication: `Authorization: Bearer <admin token>`. CSRF: browsers never attach this header on their
 * own (no cookies are used), and state-changing requests must be JSON (or carry no body) and, when they
 * carry an Origin, come from this server's own origin — so a foreign page can neither forge nor replay a
 * request. The pipeline's `admin` auth does these checks (server/http/run-route.ts).
 */
import { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { withAdvice } from '../auth/rotation.ts';
import { creditReport } from '../credits/report.ts';
import { createCustomer, type Provisioned, updateCustomer } from '../customers/provision.ts';
import { parseRecord } from '../http/body.ts';
import { type ApiRouteDef, apiRoute, type BodySpec, type RouteDef } from '../http/route-def.ts';
import { creditsDocs, customerDocs, customersDocs, tagDocs, tagSettingsDocs, tagsDocs, tokenActionDocs, tokenDocs, tokensDocs } from '../openapi/route-docs.ts';
import { type AccessRecords, NewTag, NewToken, TagPatch, TagSettings } from '../state/store.ts';

/**
 * A JSON body (or none) of at most 64 kB. It is validated in the handler, not by the pipeline: a request
 * without a body stays a 422 (the pipeline would read it as `{}`, which the PATCH schemas accept — an empty
 * PATCH of a tag's settings would clear them), and a route that looks its record up first answers 404
 * before judging the body.
 */
export const ADMIN_JSON_BODY: BodySpec<unknown> = { types: 'json', limit: 64 * 1024 };

/** What the admin API answers is never kept by a cache: it holds customers, tokens and their secrets. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** An admin API route: the admin credential, and `Cache-Control: no-store` on every answer, errors included. */
export function adminRoute<B = undefined, Q = Record<string, unknown>>(def: Omit<ApiRouteDef<B, Q>, 'auth' | 'headers'>): ApiRouteDef<B, Q> {
  return apiRoute<B, Q>({ ...def, auth: { kind: 'admin' }, headers: NO_STORE });
}

/** A token action: takes no body (clients send it with or without a Content-Type, see run-route.ts). */
function tokenAction(action: 'deactivate' | 'activate' | 'rotate', answer: (store: AccessRecords, id: string) => Promise<unknown>): RouteDef {
  return adminRoute({
    method: 'POST',
    path: `/admin/api/tokens/:id/${action}`,
    // Read (and so refused when malformed or over the limit) though unused: a bad body is the caller's mistake to hear about.
    body: ADMIN_JSON_BODY,
    doc: tokenActionDocs(action).post,
    handler: async (ctx) => ({ status: 200, body: await answer(ctx.services.store, ctx.req.params.id!) }),
  });
}

export const adminRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers',
    doc: customersDocs.get,
    handler: async (ctx) => ({ status: 200, body: await ctx.services.store.listCustomers() }),
  }),
  // Create only: an existing id is a 409 and changes nothing (customers.json import is the replace path).
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers',
    body: ADMIN_JSON_BODY,
    doc: customersDocs.post,
    handler: async (ctx) => ({
      status: 201,
      body: provisionedBody(await createCustomer(ctx.services.store, parseRecord(CustomerSeed, ctx.body))),
    }),
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id',
    doc: customerDocs.get,
    handler: async (ctx) => ({ status: 200, body: await customerOr404(ctx.services.store, ctx.req.params.id!) }),
  }),
  // Only the fields given change; the answer is the whole customer.
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/customers/:id',
    body: ADMIN_JSON_BODY,
    doc: customerDocs.patch,
    handler: async (ctx) => {
      const patch = parseRecord(CustomerPatch, ctx.body);
      return { status: 200, body: provisionedBody(await updateCustomer(ctx.services.store, ctx.req.params.id!, patch)) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/credits',
    doc: creditsDocs.get,
    handler: async (ctx) => {
      const { store } = ctx.services;
      return { status: 200, body: await creditReport(store, await customerOr404(store, ctx.req.params.id!)) };
    },
  }),

  adminRoute({
    method: 'GET',
    path: '/admin/api/tokens',
    doc: tokensDocs.get,
    handler: async (ctx) => {
      const customer = ctx.req.query.customer;
      const tokens = await ctx.services.store.listTokens(typeof customer === 'string' ? customer : undefined);
      return { status: 200, body: tokens.map((t) => withAdvice(t)) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/tokens',
    body: ADMIN_JSON_BODY,
    doc: tokensDocs.post,
    handler: async (ctx) => {
      const { record, secret } = await ctx.services.store.createToken(parseRecord(NewToken, ctx.body));
      return { status: 201, body: { ...withAdvice(record), token: secret } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/tokens/:id',
    doc: tokenDocs.get,
    handler: async (ctx) => {
      const id = ctx.req.params.id!;
      const t = await ctx.services.store.getToken(id);
      if (!t) throw new ApiError('not_found', `unknown token ${id}`);
      return { status: 200, body: withAdvice(t) };
    },
  }),
  tokenAction('deactivate', async (store, id) => withAdvice(await store.setTokenStatus(id, 'inactive'))),
  tokenAction('activate', async (store, id) => withAdvice(await store.setTokenStatus(id, 'active'))),
  tokenAction('rotate', async (store, id) => {
    const { record, secret } = await store.rotateToken(id);
    return { ...withAdvice(record), token: secret };
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/tokens/:id',
    doc: tokenDocs.delete,
    handler: async (ctx) => {
      await ctx.services.store.deleteToken(ctx.req.params.id!);
      return { status: 204 };
    },
  }),

  adminRoute({
    method: 'GET',
    path: '/admin/api/tags',
    doc: tagsDocs.get,
    handler: async (ctx) => {
      const customer = ctx.req.query.customer;
      return { status: 200, body: await ctx.services.store.listTags(typeof customer === 'string' ? customer : undefined) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/tags',
    body: ADMIN_JSON_BODY,
    doc: tagsDocs.post,
    handler: async (ctx) => ({ status: 201, body: await ctx.services.store.createTag(parseRecord(NewTag, ctx.body)) }),
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/tags/:tagId',
    doc: tagDocs.get,
    handler: async (ctx) => {
      const tagId = ctx.req.params.tagId!;
      const tag = await ctx.services.store.getTag(tagId);
      if (!tag) throw new ApiError('not_found', `unknown tag ${tagId}`);
      return { status: 200, body: tag };
    },
  }),
  // Only the fields given change (allowed domains, limits, scores, segment names, demo, settings).
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/tags/:tagId',
    body: ADMIN_JSON_BODY,
    doc: tagDocs.patch,
    handler: async (ctx) => {
      const patch = parseRecord(TagPatch, ctx.body);
      return { status: 200, body: await ctx.services.store.updateTag(ctx.req.params.tagId!, patch) };
    },
  }),
  // Server-managed tag settings, inlined into /tag/v1/<tagId>.js (the whole object: absent keys = bundle defaults).
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/tags/:id/settings',
    body: ADMIN_JSON_BODY,
    doc: tagSettingsDocs.patch,
    handler: async (ctx) => {
      const { store } = ctx.services;
      const id = ctx.req.params.id!;
      if (!(await store.getTag(id))) throw new ApiError('not_found', `unknown tag ${id}`);
      return { status: 200, body: await store.updateTagSettings(id, parseRecord(TagSettings, ctx.body)) };
    },
  }),
];

function provisionedBody(p: Provisioned) {
  return { ...p.customer, lead_scoring_token: p.leadScoringToken ?? null };
}

async function customerOr404(store: AccessRecords, id: string) {
  const c = await store.getCustomer(id);
  if (!c) throw new ApiError('not_found', `unknown customer ${id}`);
  return c;
}
