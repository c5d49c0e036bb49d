/**
 * One-time links: an invitation makes a user of a customer with a role; a reset sets a new password for
 * an existing user. The token (256 bits) is shown once — in the answer, the CLI's output and, when
 * SVC_SMTP_URL is set, a mail — and stored only as its SHA-256; it is valid 72 hours and taken once.
 * The link points at the console with the token in the fragment (never sent to a server, nor in a Referer).
 */
import { hash, randomBytes } from 'node:crypto';
import type { Role } from '../../core/roles.ts';
import type { InvitationRecord } from '../../core/user-records.ts';
import type { UserStore } from '../state/users/store.ts';
import type { Mailer } from './mailer.ts';

export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

export const invitationHash = (token: string): string => hash('sha256', token, 'hex');

export interface IssuedLink {
  url: string;
  token: string;
  expires_at: string;
}

/** A link as the API and the CLI answer it: whether it was also mailed. */
export type AnsweredLink = IssuedLink & { mailed: boolean };

export function invitationUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/console/#accept=${token}`;
}

/** Stores the link's hash and mails the link when a mailer is configured (SVC_SMTP_URL). */
export async function issueLink(
  users: UserStore,
  input: { customer_id: string; email: string; role: Role; purpose: InvitationRecord['purpose']; created_by: string },
  baseUrl: string,
  mail: { mailer: Mailer | null; customerName: string },
  now = new Date(),
): Promise<AnsweredLink> {
  const token = randomBytes(32).toString('base64url');
  const expires_at = new Date(now.getTime() + INVITATION_TTL_MS).toISOString();
  await users.createInvitation(invitationHash(token), { ...input, created_at: now.toISOString(), expires_at });
  const link = { url: invitationUrl(baseUrl, token), token, expires_at };
  const mailed = mail.mailer ? await mail.mailer.sendLink(input.email, input.purpose, link, mail.customerName) : false;
  return { ...link, mailed };
}
