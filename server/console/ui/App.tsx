/**
 * The console shell. Signed out → the sign-in form; `#accept=<token>` → "Choose a password"; signed in →
 * the operator's customer picker (any customer) or a user's own customer, and the pages their role may see.
 *
 * Two ways in: the operator's admin token (sessionStorage only, sent as Bearer) or a user's session cookie
 * (HttpOnly; restored on load with GET /auth/me). Any 401 signs out and shows the server's message on the
 * sign-in form; signing out forgets the token, or ends the session on the server (POST /auth/logout).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { type ConsolePage, customerFromHash, hashForCustomer, namedPageFromHash, PAGE_TITLES } from '../../../core/console-links.ts';
import { AdminApiError, type AdminClient, adminClient, authClient, onUnauthorized } from '../admin-client.ts';
import { askedPageFromHash, type ConsoleView, consoleView, guideFromHash, hashForPage, progressLabel, unavailableNotice, viewTitle } from '../guide-view.ts';
import { type SidebarGroup, sidebarGroups } from '../nav-view.ts';
import { customerFor, OPERATOR, type PageRights, pageFor, pageRights, showsCustomerPicker, type Viewer, viewerLabel } from '../permissions-view.ts';
import { tokenSession } from '../session.ts';
import { acceptTokenFromHash, signInErrorFromHash, workspaceFromHash } from '../signin-view.ts';
import { AcceptInvite } from './AcceptInvite.tsx';
import { AccountPage } from './AccountPage.tsx';
import { AlertsPage } from './AlertsPage.tsx';
import { AuditPage } from './AuditPage.tsx';
import { CustomerView } from './CustomerView.tsx';
import { DevelopersPage } from './DevelopersPage.tsx';
import { EnrichPage } from './EnrichPage.tsx';
import { HomePage } from './HomePage.tsx';
import { IntegrationsPage } from './IntegrationsPage.tsx';
import { Button, ErrorBox } from './kit/index.ts';
import { ListsPage } from './ListsPage.tsx';
import { NotificationsPage } from './NotificationsPage.tsx';
import { OnboardingPage } from './OnboardingPage.tsx';
import { SettingsPage } from './SettingsPage.tsx';
import { SignIn, signedInViewer } from './SignIn.tsx';
import { SegmentsPage } from './segments/SegmentsPage.tsx';
import { SsoPage, UsersPage } from './UsersPage.tsx';
import { useLoad } from './use-load.ts';
import { useLocationHash } from './use-location-hash.ts';
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

type AuthState =
  | { state: 'checking' }
  | { state: 'signed-out'; message: string | null; preferToken: boolean }
  | { state: 'accept'; token: string }
  | { state: 'in'; viewer: Viewer; adminToken: string | null };

/** Drops the fragment (a used link, a shown error) from the address bar and the history entry. */
const clearHash = () => history.replaceState(null, '', location.pathname + location.search);

function initialState(adminToken: string | null): AuthState {
  const accept = acceptTokenFromHash(location.hash);
  if (accept) return { state: 'accept', token: accept };
  const refused = signInErrorFromHash(location.hash);
  if (refused) {
    clearHash();
    return { state: 'signed-out', message: refused, preferToken: false };
  }
  if (adminToken) return { state: 'in', viewer: OPERATOR, adminToken };
  return { state: 'checking' };
}

export function App() {
  const session = useMemo(() => tokenSession(sessionStore()), []);
  const [auth, setAuth] = useState<AuthState>(() => initialState(session.get()));

  // No token in this tab: a session cookie may still be live (a reload, a return from single sign-on).
  useEffect(() => {
    if (auth.state !== 'checking') return;
    let live = true;
    signedInViewer().then(
      (viewer) => live && setAuth({ state: 'in', viewer, adminToken: null }),
      (e: Error) => live && setAuth({ state: 'signed-out', message: e instanceof AdminApiError && e.status === 401 ? null : e.message, preferToken: false }),
    );
    return () => {
      live = false;
    };
  }, [auth.state]);

  // A link opened in a tab that already shows the console.
  useEffect(() => {
    const onHash = () => {
      const accept = acceptTokenFromHash(location.hash);
      if (accept) setAuth({ state: 'accept', token: accept });
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const signedOut = useCallback(
    (message: string | null, wasOperator: boolean) => {
      session.clear();
      setAuth({ state: 'signed-out', message, preferToken: wasOperator });
    },
    [session],
  );
  const viewer = auth.state === 'in' ? auth.viewer : null;
  const adminToken = auth.state === 'in' ? auth.adminToken : null;
  const api = useMemo(
    () => (viewer ? onUnauthorized(adminClient(adminToken), (message) => signedOut(message, viewer.kind === 'operator')) : null),
    [viewer, adminToken, signedOut],
  );

  if (auth.state === 'checking') {
    return (
      <main class="signin">
        <p class="muted" role="status">
          Loading…
        </p>
      </main>
    );
  }
  if (auth.state === 'accept') {
    return (
      <AcceptInvite
        token={auth.token}
        onSignedIn={(v) => {
          clearHash();
          session.clear();
          setAuth({ state: 'in', viewer: v, adminToken: null });
        }}
        onCancel={() => {
          clearHash();
          setAuth({ state: 'signed-out', message: null, preferToken: false });
        }}
      />
    );
  }
  if (auth.state === 'signed-out' || !api || !viewer) {
    const out = auth.state === 'signed-out' ? auth : { message: null, preferToken: false };
    return (
      <SignIn
        message={out.message}
        preferToken={out.preferToken}
        workspace={workspaceFromHash(location.hash)}
        onSignedIn={(v, token) => {
          if (token) session.set(token);
          else session.clear();
          setAuth({ state: 'in', viewer: v, adminToken: token });
        }}
      />
    );
  }

  const signOut = async () => {
    if (viewer.kind === 'operator') return signedOut(null, true);
    try {
      await authClient().logout();
      signedOut(null, false);
    } catch (e) {
      signedOut(`Signing out did not reach the server (${(e as Error).message}): close the browser to end the session.`, false);
    }
  };
  return <Console api={api} viewer={viewer} onSignOut={signOut} />;
}

function Console({ api, viewer, onSignOut }: { api: AdminClient; viewer: Viewer; onSignOut(): void }) {
  const customers = useLoad(() => api.customers(), [api]);
  const [hash, rereadHash] = useLocationHash();
  const selected = customerFor(viewer, customerFromHash(hash));
  const named = namedPageFromHash(hash);
  const guide = guideFromHash(hash);
  const asked = askedPageFromHash(hash);
  const rights = pageRights(viewer);
  const customer = customers.data?.find((c) => c.id === selected) ?? null;
  const onboarding = useLoad(() => (customer ? api.onboarding(customer.id) : Promise.resolve(null)), [api, customer?.id]);
  const checklist = onboarding.error ? null : onboarding.data === null ? undefined : onboarding.data;
  const view: ConsoleView =
    selected === null
      ? { kind: 'pick-customer' }
      : customer
        ? consoleView({ viewer, customer: customer.id, asked, named, guide, onboarding: checklist })
        : { kind: 'loading' };
  const page = view.kind === 'page' ? view.page : pageFor(viewer, named);
  const choose = (id: string | null) => {
    history.replaceState(null, '', (id && guide ? hashForPage(id, guide) : hashForCustomer(id, page)) || location.pathname);
    rereadHash();
  };
  const onChecklist = view.kind === 'guide' && view.page === 'start';
  // The checklist ticks itself: while it is open and not complete, it is asked again now and then.
  const reloadChecklist = onboarding.reload;
  const incomplete = checklist != null && !checklist.complete;
  useEffect(() => {
    if (!onChecklist || !incomplete) return;
    const timer = setInterval(reloadChecklist, CHECKLIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [onChecklist, incomplete, reloadChecklist]);
  const progress = progressLabel(checklist);
  // The phone's drawer: closed again whenever the page changes (a link chosen, back, a deep link).
  const [menuOpen, setMenuOpen] = useState(false);
  const closeMenu = useCallback(() => setMenuOpen(false), []);
  useEffect(() => setMenuOpen(false), [hash]);

  const title = selected && customers.data && !customer ? PAGE_TITLES[page] : viewTitle(view, PAGE_TITLES);
  const current = view.kind === 'page' || view.kind === 'guide' ? view.page : null;

  return (
    <>
      <header class="topbar">
        <div class="topbar-inner">
          {customer && <MenuButton open={menuOpen} onToggle={() => setMenuOpen((o) => !o)} />}
          <p class="brand">
            <span aria-hidden="true">◆</span> <span class="brand-name">svc console</span>
          </p>
          <div class="whoami">
            <span class="muted" data-testid="signed-in-as">
              {viewerLabel(viewer)}
            </span>
            <Button variant="quiet" onClick={onSignOut}>
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <div class={customer ? 'shell' : undefined}>
        {customer && (
          <Sidebar
            open={menuOpen}
            onClose={closeMenu}
            groups={sidebarGroups(viewer, customer.id, PAGE_TITLES)}
            current={current}
            startHref={hashForPage(customer.id, 'start')}
            progress={progress}
          />
        )}
        <main class="wrap" id="main">
          <h1>{title}</h1>
          {showsCustomerPicker(viewer) ? (
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
          ) : (
            customer && (
              <p class="muted" data-testid="workspace">
                Workspace <strong>{customer.name}</strong> (<code>{customer.id}</code>)
              </p>
            )
          )}
          {customers.error && <ErrorBox>Could not load the customers: {customers.error}</ErrorBox>}
          {view.kind === 'loading' && !customers.error && !(selected && customers.data && !customer) && (
            <p class="muted" role="status" data-testid="console-loading">
              Loading…
            </p>
          )}
          {view.kind === 'pick-customer' && customers.data && <CustomerList customers={customers.data} />}
          {selected && customers.data && !customer && (
            <ErrorBox testId="unknown-customer">
              <p>No customer with the id “{selected}”.</p>
              {viewer.kind === 'user' && (
                <p>
                  <a href={hashForCustomer(viewer.customerId, pageFor(viewer, null))}>Open your workspace</a>
                </p>
              )}
            </ErrorBox>
          )}
          {customer && view.kind === 'guide' && view.page === 'start' && (
            <OnboardingPage key={customer.id} api={api} customer={customer} status={checklist} onRefresh={onboarding.reload} canCreateTag={rights.tagsWrite} />
          )}
          {customer && view.kind === 'guide' && view.page === 'developers' && <DevelopersPage key={customer.id} api={api} customer={customer} />}
          {customer && view.kind === 'unavailable' && <Unavailable notice={unavailableNotice(view, viewer, customer.id, PAGE_TITLES)} />}
          {customer && view.kind === 'page' && <PageView api={api} viewer={viewer} customer={customer} page={view.page} rights={rights} />}
        </main>
      </div>
    </>
  );
}

/** The phone's way to the sidebar (≤ 600 px wide; console.css hides it on wider screens, where the sidebar always shows). */
function MenuButton({ open, onToggle }: { open: boolean; onToggle(): void }) {
  return (
    <button
      type="button"
      id="menu-button"
      class="btn btn-quiet menu-button"
      aria-expanded={open}
      aria-controls="console-sidebar"
      onClick={onToggle}
      data-testid="menu-button"
    >
      <span aria-hidden="true">☰</span> Menu
    </button>
  );
}

/**
 * The pages by job (nav-view.ts), the current one marked `aria-current="page"`, and the checklist above them.
 * On a phone it is a drawer: opened by the menu button, closed by choosing a page (the fragment changes),
 * by Escape (focus back on the button), or by the button again.
 */
function Sidebar({
  open,
  onClose,
  groups,
  current,
  startHref,
  progress,
}: {
  open: boolean;
  onClose(): void;
  groups: SidebarGroup[];
  current: string | null;
  startHref: string;
  progress: string | null;
}) {
  const ref = useRef<HTMLElement>(null);
  // Before the next paint: the drawer listens for Escape as soon as it shows.
  useLayoutEffect(() => {
    if (!open) return;
    // A drawer that opens takes the focus to its first link; Escape gives it back to the menu button.
    ref.current?.querySelector<HTMLElement>('a')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      onClose();
      document.getElementById('menu-button')?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [open, onClose]);
  return (
    <aside ref={ref} id="console-sidebar" class={open ? 'sidebar sidebar-open' : 'sidebar'} data-testid="sidebar" aria-label="Console menu">
      <nav aria-label="Guides">
        <a class="side-link side-start" href={startHref} aria-current={current === 'start' ? 'page' : undefined}>
          Get started
          {progress && (
            <span class="onb-progress" data-testid="onboarding-progress">
              {' '}
              {progress}
            </span>
          )}
        </a>
      </nav>
      <nav aria-label="Console pages">
        {groups.map((g) => (
          <div key={g.id} class="side-group">
            <p class="side-group-title" id={`nav-${g.id}`}>
              {g.title}
            </p>
            <ul aria-labelledby={`nav-${g.id}`} data-testid={`nav-${g.id}`}>
              {g.links.map((l) => (
                <li key={l.page}>
                  <a class="side-link" href={l.href} aria-current={l.page === current ? 'page' : undefined}>
                    {l.title}
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
    </aside>
  );
}

/** A page the link names that does not exist or that the role may not open: said, with the way home. */
function Unavailable({ notice }: { notice: ReturnType<typeof unavailableNotice> }) {
  return (
    <ErrorBox testId="page-unavailable">
      <p>{notice.message}</p>
      <p>
        <a href={notice.homeHref}>{notice.homeLabel}</a>
      </p>
    </ErrorBox>
  );
}

/** How often an open, incomplete checklist is asked again (ms). */
const CHECKLIST_REFRESH_MS = 5_000;

/** The operator's first view: every customer, each a link to its workspace (the picker above does the same). */
function CustomerList({ customers }: { customers: CustomerRecord[] }) {
  if (customers.length === 0) {
    return (
      <p class="muted" data-testid="no-customers">
        No customers yet. Create one with <code>svc customer create --id ID --name NAME --packages platform</code>.
      </p>
    );
  }
  return (
    <ul class="onb-customers" data-testid="customer-list">
      {customers.map((c) => (
        <li key={c.id}>
          <a href={hashForCustomer(c.id)}>{c.name}</a> <code class="muted">{c.id}</code>
        </li>
      ))}
    </ul>
  );
}

function PageView({
  api,
  viewer,
  customer,
  page,
  rights,
}: {
  api: AdminClient;
  viewer: Viewer;
  customer: CustomerRecord;
  page: ConsolePage;
  rights: PageRights;
}) {
  switch (page) {
    case 'tokens':
      return <CustomerView key={customer.id} api={api} customer={customer} canWrite={rights.tokensWrite} />;
    case 'home':
      return <HomePage key={customer.id} api={api} customer={customer} />;
    case 'visitors':
      return <VisitorsPage key={customer.id} api={api} customer={customer} />;
    case 'accounts':
      return <AccountPage key={customer.id} api={api} customer={customer} />;
    case 'segments':
      return <SegmentsPage key={customer.id} api={api} customer={customer} canWrite={rights.segmentsWrite} />;
    case 'lists':
      return <ListsPage key={customer.id} api={api} customer={customer} canWrite={rights.segmentsWrite} />;
    case 'enrich':
      return <EnrichPage key={customer.id} api={api} customer={customer} canWrite={rights.segmentsWrite} />;
    case 'tags':
      return <WebTagsPage key={customer.id} api={api} customer={customer} canCreate={rights.tagsWrite} canEditSettings={rights.tagSettingsWrite} />;
    case 'webhooks':
      return <WebhooksPage key={customer.id} api={api} customer={customer} canWrite={rights.webhooksWrite} />;
    case 'integrations':
      return <IntegrationsPage key={customer.id} api={api} customer={customer} canWrite={rights.integrationsWrite} />;
    case 'alerts':
      return <AlertsPage key={customer.id} api={api} customer={customer} canWrite={rights.alertsWrite} canWebhook={rights.webhooksWrite} />;
    case 'notifications':
      return <NotificationsPage key={customer.id} api={api} customer={customer} viewer={viewer} />;
    case 'users':
      return <UsersPage key={customer.id} api={api} customer={customer} viewer={viewer} />;
    case 'sso':
      return <SsoPage key={customer.id} api={api} customer={customer} />;
    case 'audit':
      return <AuditPage key={customer.id} api={api} customer={customer} />;
    case 'settings':
      return <SettingsPage key={customer.id} api={api} customer={customer} canWrite={rights.segmentsWrite} />;
  }
}
