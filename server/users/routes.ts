/**
 * A customer's people, in the workspace API (operator, or an owner of the customer: `users:manage`):
 *   POST   /admin/api/customers/:id/invitations {email, role}   → 201 {url, token, expires_at} (mailed too with SMTP)
 *   GET    /admin/api/customers/:id/users                       the users
 *   PATCH  /admin/api/customers/:id/users/:userId {role}        a new role (ends the user's sessions)
 *   DELETE /admin/api/customers/:id/users/:userId               removed, with its sessions
 *   POST   /admin/api/customers/:id/users/:userId/reset-password → 201 {url, token, expires_at}
 *   GET|PUT|DELETE /admin/api/customers/:id/sso                 the customer's OpenID Connect provider (never its secret)
 *   GET    /admin/api/customers/:id/audit?from&to[&limit]       the audit log (JSON, or CSV with Accept: text/csv)
 * A customer keeps at least one owner: the last one cannot be demoted or removed (409).
 *
 * Emails are unique across the deployment, so an invitation claims its address for the customer: a link
 * handed to whoever invites would let an owner of any customer take an address of another customer's
 * people (and lock them out of their own workspace and its SSO). A customer's own domains are its single
 * sign-on provider's allowed_domains, which one customer only may claim; for an address outside them a
 * user's invitation is only mailed (SVC_SMTP_URL: the answer holds no url or token; without SMTP, 403),
 * while the operator's invitations answer the link as before.
 */
import accepts from 'accepts';
import { z } from 'zod';
import type { CustomerRecord } from '../../core/access-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { Role } from '../../core/roles.ts';
import { Email, SsoProvider, type UserRecord } from '../../core/user-records.ts';
import { customerOr404 } from '../customers/lookup.ts';
import { ADMIN_JSON_BODY, adminRoute } from '../http/admin-route.ts';
import { csvText } from '../http/csv.ts';
import { publicBase } from '../http/public-base.ts';
import type { RouteContext, RouteDef } from '../http/route-def.ts';
import { userDocs } from './docs.ts';
import { type AnsweredLink, issueLink } from './invitations.ts';

const CUSTOMER = { from: 'param', name: 'id' } as const;

export const NewInvitation = z.object({ email: Email, role: Role });
export const RoleChange = z.object({ role: Role });
export const SsoSettings = SsoProvider.omit({ customer_id: true });
export const AuditQuery = z.object({
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(1_000),
});

async function userOf(ctx: RouteContext): Promise<UserRecord> {
  const user = await ctx.services.users.getUser(ctx.req.params.userId!);
  if (!user || user.customer_id !== ctx.req.params.id) throw new ApiError('not_found', `unknown user ${ctx.req.params.userId}`);
  return user;
}

/** Issues an invitation or password-reset link for a person of the customer (mailed too with SMTP), made by whoever acts. */
function linkFor(ctx: RouteContext, customer: CustomerRecord, person: { email: string; role: Role }, purpose: 'invite' | 'reset'): Promise<AnsweredLink> {
  return issueLink(
    ctx.services.users,
    {
      customer_id: customer.id,
      email: person.email,
      role: person.role,
      purpose,
      created_by: ctx.principal!.kind === 'operator' ? 'operator' : ctx.principal!.user.id,
    },
    publicBase(ctx),
    { mailer: ctx.services.mailer, customerName: customer.name },
  );
}

/** The part after the `@`. */
const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/** Whether the email's domain is one of the customer's own (its SSO provider's allowed_domains). */
async function ownDomain(ctx: RouteContext, customerId: string, email: string): Promise<boolean> {
  const provider = await ctx.services.users.getSsoProvider(customerId);
  return provider?.allowed_domains.includes(domainOf(email)) ?? false;
}

/** A provider as the API shows it: never its secret. */
const shownProvider = ({ client_secret: _, ...shown }: SsoProvider): Omit<SsoProvider, 'client_secret'> => shown;

const noProvider = (customerId: string) => new ApiError('not_found', `customer ${customerId} has no single sign-on provider`);

/** Only the operator or an owner makes owners. */
function mayGrant(ctx: RouteContext, role: Role): void {
  const p = ctx.principal!;
  if (role === 'owner' && p.kind === 'user' && p.user.role !== 'owner') throw new ApiError('forbidden', 'only an owner can make an owner');
}

export const userRoutes: RouteDef[] = [
  adminRoute<z.infer<typeof NewInvitation>>({
    method: 'POST',
    path: '/admin/api/customers/:id/invitations',
    access: { permission: 'users:manage', customer: CUSTOMER },
    body: { ...ADMIN_JSON_BODY, schema: NewInvitation, validation: 'record' },
    doc: userDocs.invite,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      mayGrant(ctx, ctx.body.role);
      if (await ctx.services.users.findUserByEmail(ctx.body.email)) throw new ApiError('conflict', `${ctx.body.email} already has an account`);
      const mailOnly = ctx.principal!.kind !== 'operator' && !(await ownDomain(ctx, customer.id, ctx.body.email));
      if (mailOnly && !ctx.services.mailer) {
        throw new ApiError(
          'forbidden',
          `${ctx.body.email} is outside this customer's domains (its single sign-on allowed_domains): its invitation can only be mailed (SVC_SMTP_URL), or issued by the operator`,
        );
      }
      const link = await linkFor(ctx, customer, ctx.body, 'invite');
      await ctx.audit({ customer: customer.id, action: 'user.invite', target: ctx.body.email, after: { email: ctx.body.email, role: ctx.body.role } });
      // Only the address's owner, who reads its mail, gets the token.
      if (mailOnly) return { status: 201, body: { expires_at: link.expires_at, mailed: link.mailed } };
      return { status: 201, body: link };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/users',
    access: { permission: 'users:manage', customer: CUSTOMER },
    doc: userDocs.list,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      return { status: 200, body: await ctx.services.users.listUsers(customer.id) };
    },
  }),
  adminRoute<z.infer<typeof RoleChange>>({
    method: 'PATCH',
    path: '/admin/api/customers/:id/users/:userId',
    access: { permission: 'users:manage', customer: CUSTOMER },
    body: { ...ADMIN_JSON_BODY, schema: RoleChange, validation: 'record' },
    doc: userDocs.setRole,
    async handler(ctx) {
      const user = await userOf(ctx);
      mayGrant(ctx, ctx.body.role);
      const updated = await ctx.services.users.setRole(user.id, ctx.body.role, { keepAnOwner: true });
      // A changed role ends the user's sessions: the next request signs in with the new role.
      if (user.role !== updated.role) await ctx.services.users.endSessions(user.id);
      await ctx.audit({ customer: user.customer_id, action: 'user.role', target: user.email, before: { role: user.role }, after: { role: updated.role } });
      return { status: 200, body: updated };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/users/:userId',
    access: { permission: 'users:manage', customer: CUSTOMER },
    doc: userDocs.remove,
    async handler(ctx) {
      const user = await userOf(ctx);
      await ctx.services.users.removeUser(user.id, { keepAnOwner: true });
      await ctx.audit({ customer: user.customer_id, action: 'user.remove', target: user.email, before: { email: user.email, role: user.role } });
      return { status: 204 };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/admin/api/customers/:id/users/:userId/reset-password',
    access: { permission: 'users:manage', customer: CUSTOMER },
    body: ADMIN_JSON_BODY,
    doc: userDocs.resetPassword,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const user = await userOf(ctx);
      const link = await linkFor(ctx, customer, user, 'reset');
      await ctx.audit({ customer: customer.id, action: 'user.reset_link', target: user.email });
      return { status: 201, body: link };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/admin/api/customers/:id/sso',
    access: { permission: 'users:manage', customer: CUSTOMER },
    doc: userDocs.getSso,
    async handler(ctx) {
      await customerOr404(ctx.services.store, ctx.req.params.id!);
      const provider = await ctx.services.users.getSsoProvider(ctx.req.params.id!);
      if (!provider) throw noProvider(ctx.req.params.id!);
      return { status: 200, body: shownProvider(provider) };
    },
  }),
  adminRoute<z.infer<typeof SsoSettings>>({
    method: 'PUT',
    path: '/admin/api/customers/:id/sso',
    access: { permission: 'users:manage', customer: CUSTOMER },
    body: { ...ADMIN_JSON_BODY, schema: SsoSettings, validation: 'record' },
    doc: userDocs.putSso,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const provider = { ...ctx.body, customer_id: customer.id };
      if (!/^https:\/\//.test(provider.issuer) && !/^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/.test(provider.issuer)) {
        throw new ApiError('invalid', 'validation error: issuer: must be an https URL');
      }
      // One customer per domain: another's provider would let its people be created, invited or refused here.
      for (const other of await ctx.services.store.listCustomers()) {
        if (other.id === customer.id) continue;
        const claimed = (await ctx.services.users.getSsoProvider(other.id))?.allowed_domains ?? [];
        const taken = provider.allowed_domains.filter((d) => claimed.includes(d));
        if (taken.length > 0) throw new ApiError('conflict', `allowed_domains: ${taken.join(', ')} is claimed by another customer's single sign-on`);
      }
      const before = await ctx.services.users.getSsoProvider(customer.id);
      await ctx.services.users.setSsoProvider(provider);
      const shown = shownProvider(provider);
      await ctx.audit({ customer: customer.id, action: 'sso.set', target: provider.issuer, before: before && shownProvider(before), after: shown });
      return { status: 200, body: shown };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/admin/api/customers/:id/sso',
    access: { permission: 'users:manage', customer: CUSTOMER },
    doc: userDocs.deleteSso,
    async handler(ctx) {
      await customerOr404(ctx.services.store, ctx.req.params.id!);
      if (!(await ctx.services.users.removeSsoProvider(ctx.req.params.id!))) throw noProvider(ctx.req.params.id!);
      await ctx.audit({ customer: ctx.req.params.id!, action: 'sso.remove' });
      return { status: 204 };
    },
  }),
  adminRoute<undefined, z.infer<typeof AuditQuery>>({
    method: 'GET',
    path: '/admin/api/customers/:id/audit',
    access: { permission: 'audit:read', customer: CUSTOMER },
    query: AuditQuery,
    doc: userDocs.audit,
    async handler(ctx) {
      const customer = await customerOr404(ctx.services.store, ctx.req.params.id!);
      const to = ctx.query.to ? new Date(`${ctx.query.to}T00:00:00Z`).getTime() + 86_400_000 : Date.now() + 1;
      const from = ctx.query.from ? new Date(`${ctx.query.from}T00:00:00Z`).getTime() : to - 90 * 86_400_000;
      if (from >= to) throw new ApiError('invalid', 'validation error: from must be before to');
      const events = await ctx.services.users.listAudit(customer.id, new Date(from).toISOString(), new Date(to).toISOString(), ctx.query.limit);
      if (accepts(ctx.req.raw).type(['application/json', 'text/csv']) !== 'text/csv') return { status: 200, body: { events } };
      const csv = csvText(
        events.map((e) => ({ ...e, before: e.before ? JSON.stringify(e.before) : '', after: e.after ? JSON.stringify(e.after) : '' })),
        { header: true, columns: ['at', 'actor', 'ip', 'action', 'target', 'before', 'after', 'id'] },
      );
      return { status: 200, text: csv, type: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': `attachment; filename="audit-${customer.id}.csv"` } };
    },
  }),
];
