/** Sign-in: the admin token is checked against the admin API before it is kept (sessionStorage only). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { adminClient } from '../admin-client.ts';

export function SignIn({ message, onSignedIn }: { message: string | null; onSignedIn(token: string): void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(message);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const value = token.trim();
    if (!value) {
      setError('Paste the admin token first.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await adminClient(value).customers();
      setToken('');
      onSignedIn(value);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <form class="card" onSubmit={submit} aria-labelledby="signin-title" noValidate>
        <h1 id="signin-title">Sign in to the svc console</h1>
        <p class="muted">
          Paste the admin token (<code>SVC_ADMIN_TOKEN</code>, or the one the server printed at its first start). It is kept in this tab only and forgotten when
          the tab closes.
        </p>
        <label for="admin-token">Admin token</label>
        <input
          id="admin-token"
          ref={input}
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={token}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'signin-error' : undefined}
          onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)}
        />
        {error && (
          <p id="signin-error" class="error" role="alert" data-testid="signin-error">
            {error}
          </p>
        )}
        <button type="submit" class="btn" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
