/**
 * A customer's people as the API, the console, the export file and both state backends see them: users,
 * one-time invitations, server-side sessions, single sign-on providers and the audit log. Wire and storage
 * shapes, so they live in the neutral core (the console's bundle imports them from here); the rules over
 * them are server/state/users/service.ts.
 *
 * Secrets are never stored: invitation tokens and session ids are kept as SHA-256 hashes (they carry
 * ≥ 128 bits of entropy), passwords as scrypt hashes (server/auth/password.ts); an SSO client secret is the
 * one secret kept (it must be sent to the provider), and it is never returned by the API.
 */
import { z } from 'zod';
import { CustomerId } from './customer-records.ts';
import { Role } from './roles.ts';

/** An email address as users type it: trimmed, lower-cased, at most 254 characters. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');

/** A user's id as it is kept and moved (it names Redis keys). */
export const UserId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a user id is 1–64 letters, digits, _ or -');

export const UserRecord = z.object({
  id: z.string(),
  customer_id: CustomerId,
  email: z.string(),
  role: Role,
  /** How the user signs in: a password they set, single sign-on, or both. */
  password_set: z.boolean(),
  sso: z.boolean(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
});
export type UserRecord = z.infer<typeof UserRecord>;

export const InvitationRecord = z.object({
  customer_id: CustomerId,
  email: z.string(),
  role: Role,
  /** `invite` makes a user; `reset` sets a new password for an existing one. */
  purpose: z.enum(['invite', 'reset']),
  created_at: z.string(),
  expires_at: z.string(),
  /** Who asked for it: `operator` or a user id. */
  created_by: z.string(),
});
export type InvitationRecord = z.infer<typeof InvitationRecord>;

export const SessionRecord = z.object({
  id: z.string(),
  user_id: z.string(),
  customer_id: CustomerId,
  created_at: z.string(),
  last_seen_at: z.string(),
  /** The absolute end (7 days after creation); the idle end is last_seen_at + 12 h. */
  expires_at: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  /** `password`, `sso` or `invitation`. */
  method: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

export const SsoProvider = z.object({
  customer_id: CustomerId,
  issuer: z.string().url(),
  client_id: z.string().min(1).max(500),
  /** Kept to authenticate to the provider; never returned by the API. */
  client_secret: z.string().min(1).max(2000),
  /** Emails of these domains may sign in (and are created on first login). */
  allowed_domains: z.array(z.string().trim().toLowerCase().min(1).max(253)).min(1).max(50),
  default_role: Role,
  /** The button's label ("Sign in with <display_name>"). */
  display_name: z.string().trim().min(1).max(100),
  /**
   * true: an ID token without `email_verified` is accepted (for providers that never send the claim); an
   * explicit `false` is refused all the same. Absent or false: only `email_verified: true` signs in.
   */
  email_verified_optional: z.boolean().optional(),
});
export type SsoProvider = z.infer<typeof SsoProvider>;

export const AuditEvent = z.object({
  id: z.string(),
  customer_id: CustomerId,
  at: z.string(),
  /** `operator`, `user:<id> <email>`, or `anonymous` (a failed login). */
  actor: z.string(),
  ip: z.string().nullable(),
  /** What happened: `token.create`, `tag.update`, `user.role`, `login`, `login.failed` … */
  action: z.string(),
  /** What it happened to (a token id, a tag id, an email …). */
  target: z.string().nullable(),
  /** The fields before and after (never a secret), when the action changed a record. */
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;
export type NewAuditEvent = Omit<AuditEvent, 'id'>;
