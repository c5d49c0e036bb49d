/**
 * Pure helpers of signing in: what the URL fragment asks for (an invitation or reset link
 * `#accept=<token>`, a refused single sign-on `#signin-error=<reason: message>`, the workspace of
 * `#customer=<id>`), the single sign-on start URL, and the checks a chosen password gets before it is sent
 * (the server's rules: 12 to 256 characters; it also refuses the most common ones and the email, and its
 * 422 message is shown as it comes).
 */
import { customerFromHash } from '../../core/console-links.ts';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

const params = (hash: string) => new URLSearchParams(hash.replace(/^#/, ''));

/** The one-time token of an invitation or password-reset link (`/console/#accept=<token>`). */
export function acceptTokenFromHash(hash: string): string | null {
  const value = params(hash).get('accept');
  return value ? value : null;
}

/** The message of a refused single sign-on (`#signin-error=<reason>: <message>`, URL-encoded by the server). */
export function signInErrorFromHash(hash: string): string | null {
  const value = params(hash).get('signin-error');
  return value ? `Single sign-on failed: ${value}` : null;
}

/** The workspace (customer id) the link names, for single sign-on. */
export const workspaceFromHash = customerFromHash;

/** Where single sign-on starts for a workspace (a full-page navigation to the provider and back). */
export function ssoStartUrl(customerId: string): string {
  return `/auth/sso/${encodeURIComponent(customerId.trim())}/start`;
}

/** What is wrong with a new password and its confirmation, or null. */
export function newPasswordProblem(password: string, confirm: string): { field: 'password' | 'confirm'; message: string } | null {
  if (password.length < MIN_PASSWORD_LENGTH) return { field: 'password', message: `A password needs at least ${MIN_PASSWORD_LENGTH} characters.` };
  if (password.length > MAX_PASSWORD_LENGTH) return { field: 'password', message: `A password has at most ${MAX_PASSWORD_LENGTH} characters.` };
  if (password !== confirm) return { field: 'confirm', message: 'The two passwords differ: type the same one twice.' };
  return null;
}

/** What is missing from the email sign-in form, or null. */
export function signInProblem(email: string, password: string): { field: 'email' | 'password'; message: string } | null {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return { field: 'email', message: 'Enter the email address you were invited with.' };
  if (!password) return { field: 'password', message: 'Enter your password.' };
  return null;
}
