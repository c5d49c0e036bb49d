/**
 * The Users page's forms as plain data: an invitation (email + role) and the customer's single sign-on
 * provider (issuer, client id, client secret, allowed email domains, default role, display name). Checks
 * only what a person can fix before sending; the server validates everything again and its 422 message is
 * shown as it comes. The client secret is write-only: the API never returns it, so the form starts empty and
 * a change of the provider sends it again (PUT replaces the whole provider).
 */
import type { Role } from '../../core/roles.ts';
import type { SsoSettings, SsoUpdate } from './admin-client.ts';
import { splitList } from './token-form.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface InviteFormFields {
  email: string;
  role: Role;
}

export const emptyInviteForm = (role: Role = 'viewer'): InviteFormFields => ({ email: '', role });

export type FormResult<F, B> = { ok: true; body: B } | { ok: false; field: keyof F & string; message: string };

export function invitationBody(f: InviteFormFields): FormResult<InviteFormFields, { email: string; role: Role }> {
  const email = f.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) return { ok: false, field: 'email', message: 'Email: enter the address of the person to invite.' };
  return { ok: true, body: { email, role: f.role } };
}

export interface SsoFormFields {
  issuer: string;
  client_id: string;
  /** Write-only: empty until typed; required to save (the API keeps the provider whole). */
  client_secret: string;
  /** Comma-, space- or newline-separated. */
  allowed_domains: string;
  default_role: Role;
  display_name: string;
}

export function ssoForm(provider: SsoSettings | null): SsoFormFields {
  return {
    issuer: provider?.issuer ?? '',
    client_id: provider?.client_id ?? '',
    client_secret: '',
    allowed_domains: provider?.allowed_domains.join(', ') ?? '',
    default_role: provider?.default_role ?? 'viewer',
    display_name: provider?.display_name ?? '',
  };
}

/** The issuer rule of the API: https, or http on this machine (a test provider). */
export function isIssuerUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1'));
  } catch {
    return false;
  }
}

export function ssoRequestBody(f: SsoFormFields): FormResult<SsoFormFields, SsoUpdate> {
  const issuer = f.issuer.trim();
  if (!isIssuerUrl(issuer)) return { ok: false, field: 'issuer', message: 'Issuer: the provider’s https URL, e.g. https://login.example.com.' };
  const client_id = f.client_id.trim();
  if (!client_id) return { ok: false, field: 'client_id', message: 'Client id: copy it from the provider’s app registration.' };
  if (!f.client_secret) return { ok: false, field: 'client_secret', message: 'Client secret: enter it (it is never shown again, so every save sends it).' };
  const allowed_domains = splitList(f.allowed_domains.toLowerCase(), /[,\s]+/);
  if (!allowed_domains.length)
    return { ok: false, field: 'allowed_domains', message: 'Allowed domains: the email domains that may sign in, e.g. example.com.' };
  const bad = allowed_domains.find((d) => !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d));
  if (bad !== undefined) return { ok: false, field: 'allowed_domains', message: `Allowed domains: “${bad}” is not an email domain (e.g. example.com).` };
  const display_name = f.display_name.trim();
  if (!display_name) return { ok: false, field: 'display_name', message: 'Display name: the name on the sign-in button, e.g. Okta.' };
  return { ok: true, body: { issuer, client_id, client_secret: f.client_secret, allowed_domains, default_role: f.default_role, display_name } };
}
