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
import { CredentialField } from './CredentialField.tsx';
import { Button } from './kit/index.ts';
import { signedInViewer } from './SignIn.tsx';
import { useCredentialsForm } from './use-credentials-form.ts';

export function AcceptInvite({ token, onSignedIn, onCancel }: { token: string; onSignedIn(viewer: Viewer): void; onCancel(): void }) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { error, busy, submit, field } = useCredentialsForm<'password' | 'confirm', 'accept'>('accept');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const accept = (e: Event) => {
    e.preventDefault();
    return submit('accept', newPasswordProblem(password, confirm), async () => {
      await authClient().accept(token, password);
      setPassword('');
      setConfirm('');
      onSignedIn(await signedInViewer());
    });
  };

  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={accept} aria-labelledby="accept-title" noValidate data-testid="accept-form">
        <h1 id="accept-title">Choose a password</h1>
        <p class="muted">
          You were invited to the svc console, or asked for a new password. Choose a password for your account: this link works once, and for 72 hours.
        </p>
        <CredentialField
          label="Password"
          inputRef={input}
          type="password"
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
          {...field('password', 'accept-password-hint')}
        />
        <p class="hint" id="accept-password-hint">
          At least {MIN_PASSWORD_LENGTH} characters; a phrase of a few words is easy to remember and hard to guess.
        </p>
        <CredentialField
          label="Confirm password"
          type="password"
          autoComplete="new-password"
          value={confirm}
          onValue={setConfirm}
          {...field('confirm', 'accept-confirm-hint')}
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
          <Button type="submit" disabled={busy !== null}>
            {busy ? 'Setting the password…' : 'Set password and sign in'}
          </Button>
          <Button variant="quiet" onClick={onCancel}>
            Back to sign-in
          </Button>
        </div>
      </form>
    </main>
  );
}
