/** The user store's rows in the SQLite state file (sqlite.ts) and the statements that write them. */
import { Role } from '../../../core/roles.ts';
import type { AuditEvent, InvitationRecord, SessionRecord, SsoProvider } from '../../../core/user-records.ts';
import type { StoredUser } from './port.ts';

export type Row = Record<string, unknown>;

export const isUnique = (e: unknown) => (e as { code?: string } | undefined)?.code === 'SQLITE_CONSTRAINT_UNIQUE';

export const INSERT_USER = `INSERT INTO users (id, customer_id, email, role, password_hash, sso, created_at, last_login_at)
  VALUES (@id, @customer_id, @email, @role, @password_hash, @sso, @created_at, @last_login_at)`;
export const SET_PROVIDER = `INSERT OR REPLACE INTO sso_providers
  (customer_id, issuer, client_id, client_secret, allowed_domains, default_role, display_name, email_verified_optional)
  VALUES (@customer_id, @issuer, @client_id, @client_secret, @allowed_domains, @default_role, @display_name, @email_verified_optional)`;
export const INSERT_AUDIT = `INSERT INTO audit_events (id, customer_id, at, actor, ip, action, target, before, after)
  VALUES (@id, @customer_id, @at, @actor, @ip, @action, @target, @before, @after)`;

export const INSERT_INVITATION = `INSERT INTO invitations (token_hash, customer_id, email, role, purpose, created_at, expires_at, created_by)
  VALUES (@token_hash, @customer_id, @email, @role, @purpose, @created_at, @expires_at, @created_by)`;
export const INSERT_SESSION = `INSERT INTO sessions (id_hash, id, user_id, customer_id, created_at, last_seen_at, expires_at, ip, user_agent, method)
  VALUES (@id_hash, @id, @user_id, @customer_id, @created_at, @last_seen_at, @expires_at, @ip, @user_agent, @method)`;

export const userRow = (u: StoredUser) => ({ ...u, sso: u.sso ? 1 : 0 });
export const providerRow = (p: SsoProvider) => ({
  ...p,
  allowed_domains: JSON.stringify(p.allowed_domains),
  email_verified_optional: p.email_verified_optional ? 1 : 0,
});
export const auditRow = (e: AuditEvent) => ({
  ...e,
  before: e.before === null ? null : JSON.stringify(e.before),
  after: e.after === null ? null : JSON.stringify(e.after),
});

export function storedUser(r: Row): StoredUser {
  return {
    id: r.id as string,
    customer_id: r.customer_id as string,
    email: r.email as string,
    role: Role.parse(r.role),
    password_hash: (r.password_hash as string | null) ?? null,
    sso: r.sso === 1,
    created_at: r.created_at as string,
    last_login_at: (r.last_login_at as string | null) ?? null,
  };
}

export function sessionRecord(r: Row): SessionRecord {
  return {
    id: r.id as string,
    user_id: r.user_id as string,
    customer_id: r.customer_id as string,
    created_at: r.created_at as string,
    last_seen_at: r.last_seen_at as string,
    expires_at: r.expires_at as string,
    ip: (r.ip as string | null) ?? null,
    user_agent: (r.user_agent as string | null) ?? null,
    method: r.method as string,
  };
}

export function invitationRecord(r: Row): InvitationRecord {
  return {
    customer_id: r.customer_id as string,
    email: r.email as string,
    role: Role.parse(r.role),
    purpose: r.purpose as InvitationRecord['purpose'],
    created_at: r.created_at as string,
    expires_at: r.expires_at as string,
    created_by: r.created_by as string,
  };
}

export function providerRecord(r: Row): SsoProvider {
  return {
    customer_id: r.customer_id as string,
    issuer: r.issuer as string,
    client_id: r.client_id as string,
    client_secret: r.client_secret as string,
    allowed_domains: JSON.parse(r.allowed_domains as string) as string[],
    default_role: Role.parse(r.default_role),
    display_name: r.display_name as string,
    // Only when set: a provider reads back as it was given.
    ...(r.email_verified_optional === 1 ? { email_verified_optional: true } : {}),
  };
}

export function auditRecord(r: Row): AuditEvent {
  return {
    id: r.id as string,
    customer_id: r.customer_id as string,
    at: r.at as string,
    actor: r.actor as string,
    ip: (r.ip as string | null) ?? null,
    action: r.action as string,
    target: (r.target as string | null) ?? null,
    before: r.before === null ? null : (JSON.parse(r.before as string) as Record<string, unknown>),
    after: r.after === null ? null : (JSON.parse(r.after as string) as Record<string, unknown>),
  };
}
