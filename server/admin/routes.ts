/**
 * Admin REST API under /admin/api (the console and operators use it): customers, tokens, tags, credits.
 * The webhook endpoints (server/webhooks/routes.ts) and the visitors report (server/visits/admin-routes.ts)
 * are admin routes too, built with `adminRoute` (server/http/admin-route.ts).
 *
 * Who may call: the operator (`Authorization: Bearer <admin token>`: every customer) or a signed-in user
 * (session cookie: their own customer, what their role allows). Each route's `access` names its
 * permission and which customer it is about; the pipeline (server/http/run-route.ts) checks both, and the
 * CSRF rules: writes are JSON or body-less; with the cookie they must carry this server's own Origin, with
 * the bearer token a browser's Origin must be same-origin. Every change is recorded with `ctx.audit`.
 */

import { NewTag, NewToken, TagPatch, type TagRecord, TagSettings, type TokenRecord } from '../../core/access-records.ts';
import { CustomerPatch, CustomerSeed } from '../../core/customer-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { withAdvice } from '../auth/rotation.ts';
import { creditReport } from '../credits/report.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { createCustomer, type Provisioned, updateCustomer } from '../customers/provision.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { parseRecord } from '../http/body.ts';
import type { RouteDef } from '../http/route-def.ts';
import type { AccessRecords } from '../state/access/service.ts';
import { auditedToken, changed } from '../users/audit-fields.ts';
import { creditsDocs, customerDocs, customersDocs, tagDocs, tagSettingsDocs, tagsDocs, tokenActionDocs, tokenDocs, tokensDocs } from './docs.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;
const TOKEN = { from: 'token-param', name: 'id' } as const;
const TAG = { from: 'tag-param', name: 'tagId' } as const;

async function tagOr404(store: AccessRecords, tagId: string): Promise<TagRecord> {
  const tag = await store.getTag(tagId);
  if (!tag) throw new ApiError('not_found', `unknown tag ${tagId}`);
  return tag;
}

/** A token action: takes no body (clients send it with or without a Content-Type, see run-route.ts). */
function tokenAction(
  action: 'deactivate' | 'activate' | 'rotate',
  answer: (store: AccessRecords, id: string) => Promise<TokenRecord & { token?: string }>,
): RouteDef {
  return adminRoute({
    method: 'POST',
    path: `/admin/api/tokens/:id/${action}`,
    access: { permission: 'tokens:write', customer: TOKEN },
    // Read (and so refused when malformed or over the limit) though unused: a bad body is the caller's mistake to hear about.
    body: ADMIN_JSON_BODY,
    doc: tokenActionDocs(action).post,
    handler: async (ctx) => {
      const before = await ctx.services.store.getToken(ctx.req.params.id!);
      const body = await answer(ctx.services.store, ctx.req.params.id!);
      await ctx.audit({
        customer: body.customer_id,
        action: `token.${action}`,
        target: body.id,
        before: before && auditedToken(before),
        after: auditedToken(body),
      });
      return { status: 200, body };
    },
  });
}

export const adminRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers',
    access: { permission: 'reports:read', customer: { from: 'none' } },
    doc: customersDocs.get,
    // A user sees their own customer only.
    handler: async (ctx) => ({ status: 200, body: (await ctx.services.store.listCustomers()).filter((c) => ctx.scope === null || c.id === ctx.scope) }),
  }),
  // Create only: an existing id is a 409 and changes nothing (customers.json import is the replace path).
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers',
    access: { permission: 'customers:manage', customer: { from: 'none' }, operatorOnly: true },
    body: ADMIN_JSON_BODY,
    doc: customersDocs.post,
    handler: async (ctx) => {
      const created = await createCustomer(ctx.services.store, parseRecord(CustomerSeed, ctx.body));
      await ctx.audit({ customer: created.customer.id, action: 'customer.create', target: created.customer.id, after: created.customer });
      return { status: 201, body: provisionedBody(created) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: customerDocs.get,
    handler: async (ctx) => ({ status: 200, body: await customerOr404(ctx.services.store, ctx.req.params.id!) }),
  }),
  // Only the fields given change; the answer is the whole customer.
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/customers/:id',
    access: { permission: 'customers:manage', customer: CUSTOMER, operatorOnly: true },
    body: ADMIN_JSON_BODY,
    doc: customerDocs.patch,
    handler: async (ctx) => {
      const patch = parseRecord(CustomerPatch, ctx.body);
      const before = await ctx.services.store.getCustomer(ctx.req.params.id!);
      const updated = await updateCustomer(ctx.services.store, ctx.req.params.id!, patch);
      await ctx.audit({ customer: updated.customer.id, action: 'customer.update', target: updated.customer.id, ...changed(before, updated.customer) });
      return { status: 200, body: provisionedBody(updated) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/credits',
    access: { permission: 'reports:read', customer: CUSTOMER },
    doc: creditsDocs.get,
    handler: async (ctx) => {
      const { store } = ctx.services;
      return { status: 200, body: await creditReport(store, await customerOr404(store, ctx.req.params.id!)) };
    },
  }),

  adminRoute({
    method: 'GET',
    path: '/admin/api/tokens',
    access: { permission: 'tokens:read', customer: { from: 'query' } },
    doc: tokensDocs.get,
    handler: async (ctx) => {
      const tokens = await ctx.services.store.listTokens(ctx.scope ?? undefined);
      return { status: 200, body: tokens.map((t) => withAdvice(t)) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/tokens',
    access: { permission: 'tokens:write', customer: { from: 'body' } },
    body: ADMIN_JSON_BODY,
    doc: tokensDocs.post,
    handler: async (ctx) => {
      const { record, secret } = await ctx.services.store.createToken(parseRecord(NewToken, ctx.body));
      await ctx.audit({ customer: record.customer_id, action: 'token.create', target: record.id, after: auditedToken(record) });
      return { status: 201, body: { ...withAdvice(record), token: secret } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/tokens/:id',
    access: { permission: 'tokens:read', customer: TOKEN },
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
    access: { permission: 'tokens:write', customer: TOKEN },
    doc: tokenDocs.delete,
    handler: async (ctx) => {
      const before = await ctx.services.store.getToken(ctx.req.params.id!);
      await ctx.services.store.deleteToken(ctx.req.params.id!);
      if (before) await ctx.audit({ customer: before.customer_id, action: 'token.delete', target: before.id, before: auditedToken(before) });
      return { status: 204 };
    },
  }),

  adminRoute({
    method: 'GET',
    path: '/admin/api/tags',
    access: { permission: 'tags:read', customer: { from: 'query' } },
    doc: tagsDocs.get,
    handler: async (ctx) => ({ status: 200, body: await ctx.services.store.listTags(ctx.scope ?? undefined) }),
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/tags',
    access: { permission: 'tags:write', customer: { from: 'body' } },
    body: ADMIN_JSON_BODY,
    doc: tagsDocs.post,
    handler: async (ctx) => {
      const tag = await ctx.services.store.createTag(parseRecord(NewTag, ctx.body));
      await ctx.audit({ customer: tag.customer_id, action: 'tag.create', target: tag.tag_id, after: tag });
      return { status: 201, body: tag };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/tags/:tagId',
    access: { permission: 'tags:read', customer: TAG },
    doc: tagDocs.get,
    handler: async (ctx) => ({ status: 200, body: await tagOr404(ctx.services.store, ctx.req.params.tagId!) }),
  }),
  // Only the fields given change (allowed domains, limits, scores, segment names, demo, disabled, settings).
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/tags/:tagId',
    access: { permission: 'tags:write', customer: TAG },
    body: ADMIN_JSON_BODY,
    doc: tagDocs.patch,
    handler: async (ctx) => {
      const patch = parseRecord(TagPatch, ctx.body);
      const before = await ctx.services.store.getTag(ctx.req.params.tagId!);
      const tag = await ctx.services.store.updateTag(ctx.req.params.tagId!, patch);
      await ctx.audit({ customer: tag.customer_id, action: 'tag.update', target: tag.tag_id, ...changed(before, tag) });
      return { status: 200, body: tag };
    },
  }),
  // A deleted tag's id answers as unknown everywhere (lookups 401, its bundle 404); its page views stay in the reports.
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/tags/:tagId',
    access: { permission: 'tags:write', customer: TAG },
    doc: tagDocs.delete,
    handler: async (ctx) => {
      const tagId = ctx.req.params.tagId!;
      const before = await tagOr404(ctx.services.store, tagId);
      await ctx.services.store.deleteTag(tagId);
      await ctx.audit({ customer: before.customer_id, action: 'tag.delete', target: tagId, before });
      return { status: 204 };
    },
  }),
  // Server-managed tag settings, inlined into /tag/v1/<tagId>.js (the whole object: absent keys = bundle defaults).
  adminRoute({
    method: 'PATCH',
    path: '/admin/api/tags/:id/settings',
    access: { permission: 'tag-settings:write', customer: { from: 'tag-param', name: 'id' } },
    body: ADMIN_JSON_BODY,
    doc: tagSettingsDocs.patch,
    handler: async (ctx) => {
      const { store } = ctx.services;
      const id = ctx.req.params.id!;
      const before = await tagOr404(store, id);
      const tag = await store.updateTagSettings(id, parseRecord(TagSettings, ctx.body));
      await ctx.audit({
        customer: tag.customer_id,
        action: 'tag.settings',
        target: tag.tag_id,
        before: { settings: before.settings },
        after: { settings: tag.settings },
      });
      return { status: 200, body: tag };
    },
  }),
];

function provisionedBody(p: Provisioned) {
  return { ...p.customer, lead_scoring_token: p.leadScoringToken ?? null };
}
