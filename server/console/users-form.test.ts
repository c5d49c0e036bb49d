import { describe, expect, it } from 'vitest';
import { SsoProvider } from '../../core/user-records.ts';
import { emptyInviteForm, invitationBody, isIssuerUrl, ssoForm, ssoRequestBody } from './users-form.ts';

describe('invitation form', () => {
  it('sends the email trimmed and lower-cased with the role', () => {
    expect(invitationBody({ email: ' Jane@Acme.Test ', role: 'marketer' })).toEqual({ ok: true, body: { email: 'jane@acme.test', role: 'marketer' } });
    expect(invitationBody(emptyInviteForm())).toMatchObject({ ok: false, field: 'email' });
    expect(invitationBody({ email: 'jane@', role: 'viewer' })).toMatchObject({ ok: false, field: 'email' });
  });
});

describe('single sign-on form', () => {
  const filled = {
    issuer: 'https://login.acme.test/ ',
    client_id: ' svc-console ',
    client_secret: 's3cret',
    allowed_domains: 'Acme.test, acme.co.uk\nacme.test',
    default_role: 'viewer' as const,
    display_name: ' Okta ',
  };

  const SsoSchema = SsoProvider.omit({ customer_id: true });

  it('builds the PUT body the API validates (SsoProvider without customer_id)', () => {
    const result = ssoRequestBody(filled);
    expect(result).toEqual({
      ok: true,
      body: {
        issuer: 'https://login.acme.test/',
        client_id: 'svc-console',
        client_secret: 's3cret',
        allowed_domains: ['acme.test', 'acme.co.uk'],
        default_role: 'viewer',
        display_name: 'Okta',
      },
    });
    expect(result.ok && SsoSchema.safeParse(result.body).success).toBe(true);
  });

  it('points at the field to fix', () => {
    expect(ssoRequestBody({ ...filled, issuer: 'http://login.acme.test' })).toMatchObject({ ok: false, field: 'issuer' });
    expect(ssoRequestBody({ ...filled, client_id: ' ' })).toMatchObject({ ok: false, field: 'client_id' });
    expect(ssoRequestBody({ ...filled, client_secret: '' })).toMatchObject({ ok: false, field: 'client_secret' });
    expect(ssoRequestBody({ ...filled, allowed_domains: '' })).toMatchObject({ ok: false, field: 'allowed_domains' });
    expect(ssoRequestBody({ ...filled, allowed_domains: 'acme.test, @acme' })).toMatchObject({ ok: false, field: 'allowed_domains' });
    expect(ssoRequestBody({ ...filled, display_name: '' })).toMatchObject({ ok: false, field: 'display_name' });
  });

  it('accepts the issuers the API accepts: https, or http on this machine', () => {
    expect(isIssuerUrl('https://id.example.com/realms/acme')).toBe(true);
    expect(isIssuerUrl('http://localhost:9999')).toBe(true);
    expect(isIssuerUrl('http://127.0.0.1:9999/oidc')).toBe(true);
    expect(isIssuerUrl('http://id.example.com')).toBe(false);
    expect(isIssuerUrl('id.example.com')).toBe(false);
  });

  it('starts from the provider shown by the API, the client secret always empty (write-only)', () => {
    const form = ssoForm({
      issuer: 'https://login.acme.test',
      client_id: 'c',
      allowed_domains: ['acme.test', 'acme.io'],
      default_role: 'marketer',
      display_name: 'Okta',
    });
    expect(form).toEqual({
      issuer: 'https://login.acme.test',
      client_id: 'c',
      client_secret: '',
      allowed_domains: 'acme.test, acme.io',
      default_role: 'marketer',
      display_name: 'Okta',
    });
    expect(ssoForm(null)).toMatchObject({ issuer: '', client_secret: '', default_role: 'viewer' });
  });
});
