import { describe, expect, it } from 'vitest';
import { acceptTokenFromHash, newPasswordProblem, signInErrorFromHash, signInProblem, ssoStartUrl, workspaceFromHash } from './signin-view.ts';

describe('sign-in links', () => {
  it('reads the one-time token of an invitation or reset link', () => {
    expect(acceptTokenFromHash('#accept=AbC_12-xyz')).toBe('AbC_12-xyz');
    expect(acceptTokenFromHash('#accept=')).toBeNull();
    expect(acceptTokenFromHash('#customer=demo')).toBeNull();
    expect(acceptTokenFromHash('')).toBeNull();
  });

  it("reads a refused single sign-on's reason as the server encodes it", () => {
    const hash = `#signin-error=${encodeURIComponent('email_domain: this email belongs to another workspace')}`;
    expect(signInErrorFromHash(hash)).toBe('Single sign-on failed: email_domain: this email belongs to another workspace');
    expect(signInErrorFromHash('#customer=demo')).toBeNull();
  });

  it('starts single sign-on at the workspace named in the link or typed', () => {
    expect(workspaceFromHash('#customer=demo&page=visitors')).toBe('demo');
    expect(workspaceFromHash('')).toBeNull();
    expect(ssoStartUrl(' demo ')).toBe('/auth/sso/demo/start');
    expect(ssoStartUrl('a/b c')).toBe('/auth/sso/a%2Fb%20c/start');
  });
});

describe('password checks before sending', () => {
  it('wants 12 to 256 characters and the same password twice', () => {
    expect(newPasswordProblem('short', 'short')).toEqual({ field: 'password', message: expect.stringContaining('at least 12') });
    expect(newPasswordProblem('x'.repeat(257), 'x'.repeat(257))).toEqual({ field: 'password', message: expect.stringContaining('at most 256') });
    expect(newPasswordProblem('long enough phrase', 'long enough phrasf')).toEqual({ field: 'confirm', message: expect.stringContaining('differ') });
    expect(newPasswordProblem('long enough phrase', 'long enough phrase')).toBeNull();
  });

  it('wants an email and a password to sign in', () => {
    expect(signInProblem('not-an-email', 'x')?.field).toBe('email');
    expect(signInProblem(' jane@acme.test ', '')?.field).toBe('password');
    expect(signInProblem('jane@acme.test', 'secret')).toBeNull();
  });
});
