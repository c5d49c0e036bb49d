/**
 * Sign-in. Email and password first (the session is an HttpOnly cookie the page never sees); single sign-on
 * with the customer's provider (a full-page trip to `/auth/sso/<workspace>/start` and back); and, for the
 * operator, the admin token (checked against the admin API before it is kept, in sessionStorage only).
 * One message line (`signin-error`) says what went wrong, whichever way was tried.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { adminClient, authClient } from '../admin-client.ts';
import { OPERATOR, type Viewer, viewerFromMe } from '../permissions-view.ts';
import { signInProblem, ssoStartUrl } from '../signin-view.ts';
import { CredentialField } from './CredentialField.tsx';
import { Button } from './kit/index.ts';
import { useCredentialsForm } from './use-credentials-form.ts';

export interface SignInProps {
  /** Why the sign-in form is shown (a 401, a refused single sign-on …). */
  message: string | null;
  /** Open the operator-token section (the last sign-in of this tab was the operator's). */
  preferToken: boolean;
  /** The workspace (customer id) the link named, for single sign-on. */
  workspace: string | null;
  /** `adminToken` for the operator; null for a user (the cookie carries the session). */
  onSignedIn(viewer: Viewer, adminToken: string | null): void;
}

/** The viewer of the session just started (GET /auth/me with the new cookie). */
export async function signedInViewer(): Promise<Viewer> {
  const me = await authClient().me();
  const viewer = viewerFromMe(me);
  if (!viewer) throw new Error(`this console does not know the role “${me.role}”`);
  return viewer;
}

export function SignIn({ message, preferToken, workspace, onSignedIn }: SignInProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [ssoWorkspace, setSsoWorkspace] = useState(workspace ?? '');
  const { setInvalid, error, setError, busy, setBusy, submit, field } = useCredentialsForm<'email' | 'password', 'password' | 'token' | 'sso'>(
    'signin',
    message,
  );
  const emailInput = useRef<HTMLInputElement>(null);
  const tokenInput = useRef<HTMLInputElement>(null);
  useEffect(() => (preferToken ? tokenInput.current : emailInput.current)?.focus(), []);

  const signInWithPassword = (e: Event) => {
    e.preventDefault();
    return submit('password', signInProblem(email, password), async () => {
      await authClient().login(email.trim(), password);
      setPassword('');
      onSignedIn(await signedInViewer(), null);
    });
  };

  const signInWithToken = async (e: Event) => {
    e.preventDefault();
    const value = token.trim();
    setInvalid(null);
    if (!value) {
      setError('Paste the admin token first.');
      return;
    }
    setBusy('token');
    setError(null);
    try {
      await adminClient(value).customers();
      setToken('');
      onSignedIn(OPERATOR, value);
    } catch (err) {
      setError((err as Error).message);
      setBusy(null);
    }
  };

  const signInWithSso = (e: Event) => {
    e.preventDefault();
    setInvalid(null);
    if (!ssoWorkspace.trim()) {
      setError('Enter your workspace id for single sign-on (your administrator knows it).');
      document.getElementById('sso-workspace')?.focus();
      return;
    }
    setBusy('sso');
    location.assign(ssoStartUrl(ssoWorkspace));
  };

  return (
    <main class="signin">
      <div class="card signin-card">
        <h1 id="signin-title">Sign in to the svc console</h1>
        {error && (
          <p id="signin-error" class="error" role="alert" data-testid="signin-error">
            {error}
          </p>
        )}
        <form onSubmit={signInWithPassword} aria-labelledby="signin-title" noValidate data-testid="signin-password-form">
          <CredentialField
            label="Email"
            inputRef={emailInput}
            type="email"
            autoComplete="username"
            spellcheck={false}
            value={email}
            onValue={setEmail}
            {...field('email')}
          />
          <CredentialField label="Password" type="password" autoComplete="current-password" value={password} onValue={setPassword} {...field('password')} />
          <Button type="submit" disabled={busy !== null}>
            {busy === 'password' ? 'Signing in…' : 'Sign in'}
          </Button>
        </form>

        <details class="signin-more" open={workspace !== null}>
          <summary>Single sign-on</summary>
          <form onSubmit={signInWithSso} noValidate aria-label="Single sign-on">
            <CredentialField
              id="sso-workspace"
              label="Workspace id"
              type="text"
              autoComplete="organization"
              spellcheck={false}
              value={ssoWorkspace}
              onValue={setSsoWorkspace}
              invalid={false}
              describedBy="sso-workspace-hint"
            />
            <p class="hint" id="sso-workspace-hint">
              Your company’s id in svc. You sign in at your company’s identity provider and come back here.
            </p>
            <Button type="submit" variant="quiet" disabled={busy !== null}>
              {busy === 'sso' ? 'Going to your provider…' : 'Sign in with single sign-on'}
            </Button>
          </form>
        </details>

        <details class="signin-more" open={preferToken}>
          <summary>Operator token</summary>
          <form onSubmit={signInWithToken} noValidate aria-label="Operator token">
            <p class="muted">
              For operators: paste the admin token (<code>SVC_ADMIN_TOKEN</code>, or the one the server printed at its first start). It is kept in this tab only
              and forgotten when the tab closes.
            </p>
            <CredentialField
              id="admin-token"
              label="Admin token"
              inputRef={tokenInput}
              type="password"
              autoComplete="off"
              spellcheck={false}
              value={token}
              onValue={setToken}
              invalid={false}
              describedBy={error ? 'signin-error' : undefined}
            />
            <Button type="submit" variant="quiet" disabled={busy !== null}>
              {busy === 'token' ? 'Signing in…' : 'Sign in with token'}
            </Button>
          </form>
        </details>
      </div>
    </main>
  );
}
