/**
 * "Choose a password": an invitation or password-reset link (`/console/#accept=<token>`) taken once. The
 * password is checked here (length, the confirmation) before it is sent; the server checks it again (and
 * refuses the most common ones), and only a valid password uses the link up. On success the session
 * cookie is set and the console opens.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { authClient } from '../admin-client.ts';
import type { Viewer } from '../permissions-view.ts';
import { MIN_PASSWORD_LENGTH, newPasswordProblem } from '../signin-view.ts';
import { signedInViewer } from './SignIn.tsx';

export function AcceptInvite({ token, onSignedIn, onCancel }: { token: string; onSignedIn(viewer: Viewer): void; onCancel(): void }) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [invalid, setInvalid] = useState<'password' | 'confirm' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const problem = newPasswordProblem(password, confirm);
    if (problem) {
      setInvalid(problem.field);
      setError(problem.message);
      document.getElementById(`accept-${problem.field}`)?.focus();
      return;
    }
    setInvalid(null);
    setError(null);
    setBusy(true);
    try {
      await authClient().accept(token, password);
      setPassword('');
      setConfirm('');
      onSignedIn(await signedInViewer());
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  const described = (field: 'password' | 'confirm') => (invalid === field || (error && !invalid) ? 'accept-error' : `accept-${field}-hint`);

  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={submit} aria-labelledby="accept-title" noValidate data-testid="accept-form">
        <h1 id="accept-title">Choose a password</h1>
        <p class="muted">
          You were invited to the svc console, or asked for a new password. Choose a password for your account: this link works once, and for 72 hours.
        </p>
        <label for="accept-password">Password</label>
        <input
          id="accept-password"
          ref={input}
          type="password"
          autoComplete="new-password"
          value={password}
          aria-invalid={invalid === 'password' ? true : undefined}
          aria-describedby={described('password')}
          onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)}
        />
        <p class="hint" id="accept-password-hint">
          At least {MIN_PASSWORD_LENGTH} characters; a phrase of a few words is easy to remember and hard to guess.
        </p>
        <label for="accept-confirm">Confirm password</label>
        <input
          id="accept-confirm"
          type="password"
          autoComplete="new-password"
          value={confirm}
          aria-invalid={invalid === 'confirm' ? true : undefined}
          aria-describedby={described('confirm')}
          onInput={(e) => setConfirm((e.currentTarget as HTMLInputElement).value)}
        />
        <p class="hint" id="accept-confirm-hint">
          The same password again.
        </p>
        {error && (
          <p id="accept-error" class="error" role="alert" data-testid="accept-error">
            {error}
          </p>
        )}
        <div class="form-actions">
          <button type="submit" class="btn" disabled={busy}>
            {busy ? 'Setting the password…' : 'Set password and sign in'}
          </button>
          <button type="button" class="btn btn-quiet" onClick={onCancel}>
            Back to sign-in
          </button>
        </div>
      </form>
    </main>
  );
}
