/**
 * The console shell: signed out → the sign-in form; signed in → customer picker and the selected
 * customer's credits and tokens. The admin token lives in sessionStorage only; any 401 signs out and
 * shows the server's message on the sign-in form.
 */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { type AdminClient, adminClient, onUnauthorized } from '../admin-client.ts';
import { CONSOLE_PAGES, type ConsolePage, customerFromHash, hashForCustomer, PAGE_TITLES, pageFromHash } from '../customer-link.ts';
import { tokenSession } from '../session.ts';
import { CustomerView } from './CustomerView.tsx';
import { SignIn } from './SignIn.tsx';
import { useLoad } from './use-load.ts';
import { VisitorsPage } from './VisitorsPage.tsx';
import { WebhooksPage } from './Webhooks.tsx';
import { WebTagsPage } from './WebTagsPage.tsx';

function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function App() {
  const session = useMemo(() => tokenSession(sessionStore()), []);
  const [adminToken, setAdminToken] = useState<string | null>(() => session.get());
  const [signInMessage, setSignInMessage] = useState<string | null>(null);

  const signOut = useCallback(
    (message: string | null) => {
      session.clear();
      setAdminToken(null);
      setSignInMessage(message);
    },
    [session],
  );
  const api = useMemo(() => (adminToken ? onUnauthorized(adminClient(adminToken), signOut) : null), [adminToken, signOut]);

  if (!api) {
    return (
      <SignIn
        message={signInMessage}
        onSignedIn={(token) => {
          session.set(token);
          setSignInMessage(null);
          setAdminToken(token);
        }}
      />
    );
  }
  return <Console api={api} onSignOut={() => signOut(null)} />;
}

function Console({ api, onSignOut }: { api: AdminClient; onSignOut(): void }) {
  const customers = useLoad(() => api.customers(), [api]);
  const [selected, setSelected] = useState<string | null>(() => customerFromHash(location.hash));
  const [page, setPage] = useState<ConsolePage>(() => pageFromHash(location.hash));
  useEffect(() => {
    const onHash = () => {
      setSelected(customerFromHash(location.hash));
      setPage(pageFromHash(location.hash));
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const choose = (id: string | null) => {
    history.replaceState(null, '', hashForCustomer(id, page) || location.pathname);
    setSelected(id);
  };
  const customer = customers.data?.find((c) => c.id === selected) ?? null;

  return (
    <>
      <header class="topbar">
        <div class="wrap topbar-inner">
          <p class="brand">
            <span aria-hidden="true">◆</span> svc console
          </p>
          <button type="button" class="btn btn-quiet" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main class="wrap" id="main">
        <h1>{PAGE_TITLES[page]}</h1>
        <div class="picker">
          <label for="customer-picker">Customer</label>
          <select
            id="customer-picker"
            data-testid="customer-picker"
            value={customer?.id ?? ''}
            disabled={!customers.data}
            onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value || null)}
          >
            <option value="">{customers.data ? `Choose a customer (${customers.data.length})` : 'Loading customers…'}</option>
            {(customers.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.id})
              </option>
            ))}
          </select>
        </div>
        {customers.error && (
          <p class="error" role="alert">
            Could not load the customers: {customers.error}
          </p>
        )}
        {selected && customers.data && !customer && (
          <p class="error" role="alert">
            No customer with the id “{selected}”.
          </p>
        )}
        {customer && (
          <nav class="tabs" aria-label="Console pages">
            {CONSOLE_PAGES.map((p) => (
              <a key={p} href={hashForCustomer(customer.id, p)} aria-current={p === page ? 'page' : undefined}>
                {PAGE_TITLES[p]}
              </a>
            ))}
          </nav>
        )}
        {customer && page === 'tokens' && <CustomerView key={customer.id} api={api} customer={customer} />}
        {customer && page === 'visitors' && <VisitorsPage key={customer.id} api={api} customer={customer} />}
        {customer && page === 'tags' && <WebTagsPage key={customer.id} api={api} customer={customer} />}
        {customer && page === 'webhooks' && <WebhooksPage key={customer.id} api={api} customer={customer} />}
      </main>
    </>
  );
}
