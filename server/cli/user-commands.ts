/**
 * `svc user …`: a customer's people from the operator's shell — invitations (the link is printed once),
 * the list, roles, removal and password-reset links. The same rules as the admin API (server/users/routes.ts):
 * one email is one account, a customer keeps an owner; every change is in the customer's audit log (actor `operator`).
 */
import { ROLES, Role } from '../../core/roles.ts';
import { Email, type UserRecord } from '../../core/user-records.ts';
import { type Config, serverBaseUrl } from '../config.ts';
import type { StateStore } from '../state/store.ts';
import type { UserStore } from '../state/users/store.ts';
import { operatorEvent } from '../users/audit-fields.ts';
import { type AnsweredLink, issueLink } from '../users/invitations.ts';
import { createMailer } from '../users/mailer.ts';
import type { Command } from './commands.ts';
import { type CommandContext, emit, requireOption, UsageError } from './output.ts';
import { withStore } from './with-store.ts';

async function withUsers<T>(
  ctx: CommandContext,
  fn: (users: UserStore, store: StateStore, config: Parameters<Parameters<typeof withStore>[1]>[1]) => Promise<T>,
): Promise<T> {
  return withStore(ctx.io, (store, config, { users }) => fn(users, store, config));
}

function roleOption(v: Record<string, unknown>): Role {
  const role = Role.safeParse(requireOption(v, 'role'));
  if (!role.success) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return role.data;
}

const userLine = (u: UserRecord) =>
  `${u.id}  ${u.email}  ${u.role}${u.password_set ? '' : ' (no password yet)'}${u.sso ? ' sso' : ''}  last sign-in ${u.last_login_at ?? 'never'}`;

/** Links are mailed from the shell as from the server (SVC_SMTP_URL); a failed mail is said on stderr. */
const mailerFor = (ctx: CommandContext, config: Config) => createMailer(config, (m) => ctx.io.stderr.write(`${m}\n`));

/**
 * The base of the links the CLI prints: SVC_PUBLIC_URL, else the address a server started with this shell's
 * PORT and HOST listens on (as `serve` builds it). The CLI cannot see a running server's own port, so
 * without SVC_PUBLIC_URL the answer says which address it assumed and how to get the right one.
 */
function linkBase(config: Config): { base: string; warning?: string } {
  const base = serverBaseUrl(config);
  if (config.SVC_PUBLIC_URL !== undefined) return { base };
  return {
    base,
    warning:
      `SVC_PUBLIC_URL is not set, so the link is built on ${base} (PORT=${config.PORT}, HOST=${config.HOST} of this shell). ` +
      'If the server listens on another port (serve --port, another PORT) or people reach it at another address, set SVC_PUBLIC_URL to that address; ' +
      'meanwhile the same link works with its host and port replaced (the token after #accept= is what counts).',
  };
}

/** A link as printed: with --json the warning is a field of the answer (stdout stays one JSON value), else a line on stderr. */
function emitLink(ctx: CommandContext, command: string, link: AnsweredLink & { warning?: string }, text: () => string): void {
  if (link.warning && !ctx.json) ctx.io.stderr.write(`svc ${command}: ${link.warning}\n`);
  emit(ctx, link, text);
}

async function userOf(users: UserStore, customer: string, who: string): Promise<UserRecord> {
  const user = who.includes('@') ? await users.findUserByEmail(who.toLowerCase()) : await users.getUser(who);
  if (!user || user.customer_id !== customer) throw new UsageError(`customer ${customer} has no user ${who}`);
  const { password_hash: _, ...record } = user as UserRecord & { password_hash?: unknown };
  return record;
}

export const USER_COMMANDS: Record<string, Command> = {
  'user invite': {
    usage: 'user invite --customer ID --email EMAIL --role ROLE',
    summary: `invite a person to a customer's workspace: a one-time link (72 h) to set their password, printed once (roles: ${ROLES.join(', ')})`,
    help: '\nWith SVC_SMTP_URL set the link is also mailed. The person opens it, chooses a password (at least 12 characters) and is signed in.\n',
    options: { customer: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
    async run(v, _p, ctx) {
      const email = Email.safeParse(requireOption(v, 'email'));
      if (!email.success) throw new UsageError('--email must be an email address');
      const role = roleOption(v);
      const link = await withUsers(ctx, async (users, store, config) => {
        const customer = await store.getCustomer(requireOption(v, 'customer'));
        if (!customer) throw new UsageError(`unknown customer ${String(v.customer)}`);
        if (await users.findUserByEmail(email.data)) throw new UsageError(`${email.data} already has an account`);
        const { base, warning } = linkBase(config);
        const issued = await issueLink(users, { customer_id: customer.id, email: email.data, role, purpose: 'invite', created_by: 'operator' }, base, {
          mailer: mailerFor(ctx, config),
          customerName: customer.name,
        });
        await users.appendAudit(operatorEvent({ customer: customer.id, action: 'user.invite', target: email.data, after: { email: email.data, role } }));
        return { ...issued, ...(warning ? { warning } : {}) };
      });
      emitLink(
        ctx,
        'user invite',
        link,
        () => `Invitation for ${email.data} (${role}), valid until ${link.expires_at}${link.mailed ? ', mailed' : ''}. The link (shown once):\n${link.url}`,
      );
    },
  },
  'user list': {
    usage: 'user list --customer ID',
    summary: "a customer's users and their roles",
    options: { customer: { type: 'string' } },
    async run(v, _p, ctx) {
      const list = await withUsers(ctx, (users) => users.listUsers(requireOption(v, 'customer')));
      emit(ctx, list, () => (list.length ? list.map(userLine).join('\n') : 'no users'));
    },
  },
  'user set-role': {
    usage: 'user set-role --customer ID USER --role ROLE',
    summary: "change a user's role (USER: their id or email); their sessions end",
    options: { customer: { type: 'string' }, role: { type: 'string' } },
    async run(v, positionals, ctx) {
      if (!positionals[0]) throw new UsageError('USER (an id or an email) is required');
      const role = roleOption(v);
      const updated = await withUsers(ctx, async (users) => {
        const user = await userOf(users, requireOption(v, 'customer'), positionals[0]!);
        const next = await users.setRole(user.id, role, { keepAnOwner: true });
        if (user.role !== role) await users.endSessions(user.id);
        await users.appendAudit(
          operatorEvent({ customer: user.customer_id, action: 'user.role', target: user.email, before: { role: user.role }, after: { role } }),
        );
        return next;
      });
      emit(ctx, updated, () => userLine(updated));
    },
  },
  'user remove': {
    usage: 'user remove --customer ID USER',
    summary: 'remove a user and end their sessions',
    options: { customer: { type: 'string' } },
    async run(v, positionals, ctx) {
      if (!positionals[0]) throw new UsageError('USER (an id or an email) is required');
      const removed = await withUsers(ctx, async (users) => {
        const user = await userOf(users, requireOption(v, 'customer'), positionals[0]!);
        await users.removeUser(user.id, { keepAnOwner: true });
        await users.appendAudit(
          operatorEvent({ customer: user.customer_id, action: 'user.remove', target: user.email, before: { email: user.email, role: user.role } }),
        );
        return user;
      });
      emit(ctx, { id: removed.id, email: removed.email, removed: true }, () => `removed ${removed.email}`);
    },
  },
  'user reset-password': {
    usage: 'user reset-password --customer ID USER',
    summary: 'a one-time link (72 h) for the user to set a new password, printed once',
    options: { customer: { type: 'string' } },
    async run(v, positionals, ctx) {
      if (!positionals[0]) throw new UsageError('USER (an id or an email) is required');
      const link = await withUsers(ctx, async (users, store, config) => {
        const user = await userOf(users, requireOption(v, 'customer'), positionals[0]!);
        const { base, warning } = linkBase(config);
        const issued = await issueLink(
          users,
          { customer_id: user.customer_id, email: user.email, role: user.role, purpose: 'reset', created_by: 'operator' },
          base,
          { mailer: mailerFor(ctx, config), customerName: (await store.getCustomer(user.customer_id))?.name ?? user.customer_id },
        );
        await users.appendAudit(operatorEvent({ customer: user.customer_id, action: 'user.reset_link', target: user.email }));
        return { ...issued, ...(warning ? { warning } : {}) };
      });
      emitLink(
        ctx,
        'user reset-password',
        link,
        () => `Password reset link, valid until ${link.expires_at}${link.mailed ? ', mailed' : ''} (shown once):\n${link.url}`,
      );
    },
  },
};
