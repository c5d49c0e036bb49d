/**
 * Email digests, for the signed-in user and for the mail's unsubscribe link:
 *   GET   /auth/me/notifications      → my digest settings ({digest, hour, time_zone, scope})
 *   PATCH /auth/me/notifications      → changed (each field optional; 422 on a bad one), audited
 *   GET   /auth/me/digest/preview     → the HTML of the digest I would get for my last period
 *   GET   /digest/unsubscribe?token=  → a page with a button that confirms (no sign-in)
 *   POST  /digest/unsubscribe?token=  → unsubscribed (RFC 8058 one-click; no sign-in), audited
 * A user's own settings: every role may read and change them (one's own sessions are the other such case);
 * the operator token has no settings (400).
 */
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import { FIXED_LIST_IDS } from '../../core/customer-records.ts';
import { type DigestSettings, DigestSettingsPatch } from '../../core/digest-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import type { UserRecord } from '../../core/user-records.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { apiRoute, type RouteContext, type RouteDef, type RouteResult } from '../http/route-def.ts';
import { digestDocs } from './docs.ts';
import { escapeHtml } from './render.ts';
import type { Digests } from './service.ts';

const ME = { permission: 'reports:read', customer: { from: 'none' } } as const;
const HTML_TYPE = 'text/html; charset=utf-8';
const PUBLIC_HEADERS = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex' } as const;
const TokenQuery = z.object({ token: z.string().min(1).max(300) });
const PreviewQuery = z.object({ period: z.enum(['day', 'week']).optional(), date: z.iso.date().optional() });

function digestsOf(ctx: RouteContext): Digests {
  const digests = ctx.services.digests;
  if (!digests) throw new ApiError('unavailable', 'email digests are not running on this server');
  return digests;
}

/** The signed-in user (the operator token has no notifications). */
function me(ctx: RouteContext): UserRecord {
  const p = ctx.principal!;
  if (p.kind !== 'user') throw new ApiError('invalid', 'the operator token has no notification settings: sign in as a user', {}, 400);
  return p.user;
}

async function customerOf(ctx: RouteContext, id: string): Promise<CustomerRecord> {
  const customer = await ctx.services.store.getCustomer(id);
  if (!customer) throw new ApiError('not_found', `unknown customer ${id}`);
  return customer;
}

/** The scope names segments and lists the customer has (else 422 naming the first that it lacks). */
function checkScope(customer: CustomerRecord, settings: DigestSettings): void {
  const scope = settings.scope;
  if (scope.type !== 'segments') return;
  const segments = new Set(customer.segments.map((s) => s.id));
  const lists = new Set<string>([...FIXED_LIST_IDS, ...(customer.account_lists ?? []).map((l) => l.id)]);
  const segment = scope.segments.find((id) => !segments.has(id));
  if (segment !== undefined) throw new ApiError('invalid', `scope.segments: no segment ${segment}`);
  const list = scope.lists.find((id) => !lists.has(id));
  if (list !== undefined) throw new ApiError('invalid', `scope.lists: no list ${list}`);
}

function page(status: number, title: string, body: string): RouteResult {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1f2328"><h1 style="font-size:1.3rem">${escapeHtml(title)}</h1>${body}</body></html>
`;
  return { status, text: html, type: HTML_TYPE };
}

const INVALID_LINK = () => page(404, 'This link does not work', '<p>The unsubscribe link is not valid, or its account no longer exists.</p>');

export const digestRoutes: RouteDef[] = [
  adminRoute({
    method: 'GET',
    path: '/auth/me/notifications',
    access: ME,
    doc: digestDocs.getNotifications,
    async handler(ctx) {
      return { status: 200, body: await digestsOf(ctx).settingsOf(me(ctx)) };
    },
  }),
  adminRoute<unknown>({
    method: 'PATCH',
    path: '/auth/me/notifications',
    access: ME,
    body: ADMIN_JSON_BODY,
    doc: digestDocs.patchNotifications,
    async handler(ctx) {
      const user = me(ctx);
      const digests = digestsOf(ctx);
      const parsed = DigestSettingsPatch.safeParse(ctx.body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ApiError('invalid', issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
      }
      const before = await digests.settingsOf(user);
      const after: DigestSettings = { ...before, ...parsed.data };
      checkScope(await customerOf(ctx, user.customer_id), after);
      await digests.putSettings(user, after);
      const changedKeys = (Object.keys(after) as (keyof DigestSettings)[]).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      if (changedKeys.length > 0) {
        await ctx.audit({
          customer: user.customer_id,
          action: 'notifications.update',
          target: user.email,
          before: Object.fromEntries(changedKeys.map((k) => [k, before[k]])),
          after: Object.fromEntries(changedKeys.map((k) => [k, after[k]])),
        });
      }
      return { status: 200, body: after };
    },
  }),
  adminRoute<undefined, z.infer<typeof PreviewQuery>>({
    method: 'GET',
    path: '/auth/me/digest/preview',
    access: ME,
    query: PreviewQuery,
    doc: digestDocs.preview,
    async handler(ctx) {
      const { mail } = await digestsOf(ctx).preview(me(ctx), ctx.query.period, ctx.query.date);
      return { status: 200, text: mail.html, type: HTML_TYPE };
    },
  }),
  apiRoute<undefined, z.infer<typeof TokenQuery>>({
    method: 'GET',
    path: '/digest/unsubscribe',
    auth: { kind: 'public' },
    headers: PUBLIC_HEADERS,
    query: TokenQuery,
    doc: digestDocs.unsubscribePage,
    async handler(ctx) {
      const user = await digestsOf(ctx).tokenUser(ctx.query.token);
      if (user === null) return INVALID_LINK();
      // A GET changes nothing (mail scanners follow links): the button posts the one-click request.
      const action = `/digest/unsubscribe?${new URLSearchParams({ token: ctx.query.token })}`;
      return page(
        200,
        'Unsubscribe from email digests',
        `<p>Stop the digest mails to <strong>${escapeHtml(user.email)}</strong>? You can turn them on again in the console’s notification settings.</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit" style="font-size:1rem;padding:.6rem 1.2rem">Unsubscribe</button></form>`,
      );
    },
  }),
  apiRoute<Record<string, unknown>, z.infer<typeof TokenQuery>>({
    method: 'POST',
    path: '/digest/unsubscribe',
    auth: { kind: 'public' },
    headers: PUBLIC_HEADERS,
    query: TokenQuery,
    // RFC 8058: the mail provider posts `List-Unsubscribe=One-Click` form-encoded (or multipart); the token is in the URL.
    body: { types: 'fields', limit: 4 * 1024 },
    doc: digestDocs.unsubscribe,
    async handler(ctx) {
      const digests = digestsOf(ctx);
      const user = await digests.tokenUser(ctx.query.token);
      if (user === null) return INVALID_LINK();
      const before = await digests.unsubscribe(user);
      if (before !== null) {
        await ctx.audit({
          customer: user.customer_id,
          action: 'digest.unsubscribe',
          target: user.email,
          before: { digest: before.digest },
          after: { digest: 'off' },
          as: user,
        });
      }
      return page(200, 'You are unsubscribed', `<p>${escapeHtml(user.email)} gets no more digest mails.</p>`);
    },
  }),
];
