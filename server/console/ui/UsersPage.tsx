/**
 * Users (the operator, or an owner of the customer: `users:manage`): the customer's users with their role
 * (changed in place; the user's sessions end), password reset (a one-time link, shown once in the secret
 * dialog), removal; an invitation form (email + role → a one-time link, shown once). The customer's single
 * sign-on provider (OpenID Connect, its client secret write-only) is a page of its own: SsoPage.
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { ROLE_MEANING, ROLES, type Role } from '../../../core/roles.ts';
import type { UserRecord } from '../../../core/user-records.ts';
import type { AdminClient, IssuedInvitation, IssuedLink, SsoSettings } from '../admin-client.ts';
import { grantableRoles, type Viewer } from '../permissions-view.ts';
import { emptyInviteForm, invitationBody, type SsoFormFields, ssoForm, ssoRequestBody } from '../users-form.ts';
import { formatDateTime } from './datetime.ts';
import { Button, Select, Table, TextInput } from './kit/index.ts';
import { LoadedSection } from './LoadState.tsx';
import { RowConfirm } from './RowConfirm.tsx';
import { SecretDialog, type ShownSecret } from './SecretDialog.tsx';
import { useCreateForm } from './use-create-form.ts';
import { useLoad } from './use-load.ts';
import { useRowAction } from './use-row-action.ts';

function linkSecret(title: string, email: string, link: IssuedLink, what: string): ShownSecret {
  return {
    title,
    name: email,
    value: link.url,
    kind: 'Link',
    note: `Copy this link now and send it to ${email}: you will not see it again. It ${what}, works once, until ${formatDateTime(link.expires_at)}.${
      link.mailed ? ' It was also mailed to them.' : ''
    }`,
  };
}

export function UsersPage({ api, customer, viewer }: { api: AdminClient; customer: CustomerRecord; viewer: Viewer }) {
  const users = useLoad(() => api.users(customer.id), [api, customer.id]);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [notice, setNotice] = useState('');
  const roles = grantableRoles(viewer);

  return (
    <div class="customer" data-testid="users-page">
      <InviteForm
        api={api}
        customerId={customer.id}
        roles={roles}
        onInvited={(email, role, link) => {
          if (link.url !== undefined) setSecret(linkSecret(`Invitation for ${email} (${role})`, email, link, 'makes them a user of this workspace'));
          // An address outside the workspace's own domains: the server only mails its link.
          else setNotice(link.mailed ? `Invitation mailed to ${email} (${role}).` : `The invitation to ${email} could not be mailed: try again later.`);
          users.reload();
        }}
      />
      <LoadedSection id="users-title" title="Users" load={users} what="the users" loading="Loading users…" notice={notice}>
        {users.data && users.data.length === 0 && <p class="muted">No users yet: invite the first one above.</p>}
        {users.data && users.data.length > 0 && (
          <Table
            labelledBy="users-title"
            extraClass="tokens"
            testId="users-table"
            columns={['Email', 'Role', 'Signs in with', 'Last sign-in', 'Since', 'Actions']}
          >
            {users.data.map((u) => (
              <UserRow
                key={u.id}
                api={api}
                user={u}
                roles={roles}
                self={viewer.kind === 'user' && viewer.email === u.email}
                onChanged={(message) => {
                  setNotice(message);
                  users.reload();
                }}
                onResetLink={(link) => setSecret(linkSecret(`Password reset for ${u.email}`, u.email, link, 'lets them choose a new password'))}
              />
            ))}
          </Table>
        )}
      </LoadedSection>
      {secret && <SecretDialog secret={secret} onClose={() => setSecret(null)} />}
    </div>
  );
}

function InviteForm({
  api,
  customerId,
  roles,
  onInvited,
}: {
  api: AdminClient;
  customerId: string;
  roles: Role[];
  onInvited(email: string, role: Role, link: IssuedInvitation): void;
}) {
  const { form, set, text, invalid, error, busy, submit } = useCreateForm({
    idPrefix: 'invite',
    initial: () => emptyInviteForm(),
    validate: invitationBody,
    create: async (body) => ({ body, link: await api.invite(customerId, body) }),
    reset: (f) => emptyInviteForm(f.role),
    onCreated: ({ body, link }) => onInvited(body.email, body.role, link),
  });
  return (
    <section aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a user</h2>
      <form class="card token-form" onSubmit={submit} noValidate data-testid="invite-form">
        <div class="field">
          <label for="invite-email">
            Email <span class="muted">(required)</span>
          </label>
          <TextInput type="email" autoComplete="off" spellcheck={false} {...text('email')} />
          <p class="hint" id="invite-email-hint">
            They get a one-time link to choose a password (valid 72 hours).
          </p>
        </div>
        <div class="field">
          <label for="invite-role">Role</label>
          <Select
            id="invite-role"
            value={form.role}
            options={roles.map((r) => [r, r] as const)}
            onValue={(v) => set('role', v as Role)}
            describedBy="invite-role-hint"
          />
          <p class="hint" id="invite-role-hint">
            {ROLE_MEANING[form.role]}.
          </p>
        </div>
        {invalid && (
          <p id="invite-invalid" class="error" role="alert">
            {invalid.message}
          </p>
        )}
        {error && (
          <p class="error" role="alert" data-testid="invite-error">
            Not invited: {error}
          </p>
        )}
        <div class="form-actions">
          <Button type="submit" disabled={busy}>
            {busy ? 'Inviting…' : 'Invite'}
          </Button>
        </div>
      </form>
    </section>
  );
}

function signInMethods(u: UserRecord): string {
  if (u.password_set && u.sso) return 'password, single sign-on';
  if (u.sso) return 'single sign-on';
  return u.password_set ? 'password' : 'not signed in yet';
}

function UserRow({
  api,
  user: u,
  roles,
  self,
  onChanged,
  onResetLink,
}: {
  api: AdminClient;
  user: UserRecord;
  roles: Role[];
  self: boolean;
  onChanged(message: string): void;
  onResetLink(link: IssuedLink): void;
}) {
  const { confirming, setConfirming, busy, error, run } = useRowAction(false);
  const errorId = `user-error-${u.id}`;
  // An owner row stays changeable only by someone who may grant owner (the server says so too).
  const choices = roles.includes(u.role) ? roles : [u.role, ...roles];
  return (
    <tr data-testid="user-row" data-user-id={u.id}>
      <th scope="row">
        {u.email}
        {self && <span class="muted"> (you)</span>}
      </th>
      <td>
        <Select
          aria-label={`Role of ${u.email}`}
          value={u.role}
          disabled={busy || !roles.includes(u.role)}
          describedBy={error ? errorId : undefined}
          // The element itself, not only its value: a refused change puts the role back on it.
          onChange={(e) => {
            const role = (e.currentTarget as HTMLSelectElement).value as Role;
            const select = e.currentTarget as HTMLSelectElement;
            run('Role change', async () => {
              try {
                await api.setUserRole(u.customer_id, u.id, role);
                onChanged(`${u.email} is now ${role}.`);
              } catch (err) {
                select.value = u.role;
                throw err;
              }
            });
          }}
          options={ROLES.filter((r) => choices.includes(r)).map((r) => [r, r] as const)}
        />
      </td>
      <td>{signInMethods(u)}</td>
      <td class="when">{u.last_login_at ? formatDateTime(u.last_login_at) : 'never'}</td>
      <td class="when">{formatDateTime(u.created_at)}</td>
      <td class="actions">
        {confirming ? (
          <RowConfirm
            label={`Confirm removal of ${u.email}`}
            message={<>Remove {u.email}? Their sessions end at once.</>}
            busy={busy}
            onCancel={() => setConfirming(false)}
          >
            <Button
              variant="danger"
              disabled={busy}
              onClick={() =>
                run('Remove', async () => {
                  await api.removeUser(u.customer_id, u.id);
                  onChanged(`${u.email} removed.`);
                })
              }
            >
              Remove {u.email}
            </Button>
          </RowConfirm>
        ) : (
          <div class="row-actions">
            <Button
              variant="quiet"
              disabled={busy}
              aria-label={`Reset the password of ${u.email}`}
              onClick={() => run('Password reset', async () => onResetLink(await api.resetPassword(u.customer_id, u.id)))}
            >
              Reset password
            </Button>
            <Button variant="danger-quiet" disabled={busy} aria-label={`Remove ${u.email}`} onClick={() => setConfirming(true)}>
              Remove
            </Button>
          </div>
        )}
        {error && (
          <p id={errorId} class="error" role="alert" data-testid="user-row-error">
            {error}
          </p>
        )}
      </td>
    </tr>
  );
}

/** The Single sign-on page (Setup in the sidebar): the customer's OpenID Connect provider. */
export function SsoPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  return (
    <div class="customer" data-testid="sso-page">
      <SsoSection api={api} customerId={customer.id} />
    </div>
  );
}

function SsoSection({ api, customerId }: { api: AdminClient; customerId: string }) {
  const provider = useLoad(() => api.sso(customerId), [api, customerId]);
  const [saved, setSaved] = useState('');
  return (
    <section aria-labelledby="sso-title">
      <div class="section-head">
        <h2 id="sso-title">OpenID Connect provider</h2>
      </div>
      <p class="muted">
        Your OpenID Connect provider (Okta, Entra ID, Google …). Register <code>{location.origin}/auth/sso/callback</code> as its redirect URI; users sign in
        with the workspace id <code>{customerId}</code>. People of the allowed email domains get an account with the default role at their first sign-in.
      </p>
      {provider.error && (
        <p class="error" role="alert">
          Could not load the single sign-on settings: {provider.error}
        </p>
      )}
      {provider.loading && !provider.data && !provider.error && <p class="muted">Loading…</p>}
      {!provider.loading && !provider.error && (
        <SsoForm
          key={JSON.stringify(provider.data)}
          api={api}
          customerId={customerId}
          current={provider.data}
          onChanged={(message) => {
            setSaved(message);
            provider.reload();
          }}
        />
      )}
      <p class="ok" role="status" data-testid="sso-saved">
        {saved}
      </p>
    </section>
  );
}

function SsoForm({
  api,
  customerId,
  current,
  onChanged,
}: {
  api: AdminClient;
  customerId: string;
  current: SsoSettings | null;
  onChanged(message: string): void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);
  const { form, set, text, invalid, error, busy, submit } = useCreateForm({
    idPrefix: 'sso',
    initial: () => ssoForm(current),
    validate: ssoRequestBody,
    create: (body) => api.setSso(customerId, body),
    reset: (f: SsoFormFields) => ({ ...f, client_secret: '' }),
    onCreated: () => onChanged('Single sign-on saved.'),
  });
  const remove = async () => {
    setRemoveError(null);
    try {
      await api.removeSso(customerId);
      onChanged('Single sign-on removed.');
    } catch (e) {
      setRemoveError(`Remove failed: ${(e as Error).message}`);
    }
  };
  return (
    <form class="card token-form" onSubmit={submit} noValidate data-testid="sso-form" aria-label="Single sign-on provider">
      <p class="wide muted" data-testid="sso-state">
        {current ? (
          <>
            Set up: users see <strong>Sign in with {current.display_name}</strong>.
          </>
        ) : (
          'Not set up.'
        )}
      </p>
      <div class="field wide">
        <label for="sso-issuer">Issuer URL</label>
        <TextInput type="url" autoComplete="off" spellcheck={false} placeholder="https://login.example.com" {...text('issuer')} />
        <p class="hint" id="sso-issuer-hint">
          Its discovery document is read from <code>/.well-known/openid-configuration</code> under this URL.
        </p>
      </div>
      <div class="field">
        <label for="sso-client_id">Client id</label>
        <TextInput autoComplete="off" spellcheck={false} {...text('client_id')} />
        <p class="hint" id="sso-client_id-hint">
          From the app registration at the provider.
        </p>
      </div>
      <div class="field">
        <label for="sso-client_secret">Client secret</label>
        <TextInput type="password" autoComplete="new-password" placeholder={current ? 'kept; enter it again to save' : ''} {...text('client_secret')} />
        <p class="hint" id="sso-client_secret-hint">
          Write-only: never shown again. Every save sends it.
        </p>
      </div>
      <div class="field">
        <label for="sso-allowed_domains">Allowed email domains</label>
        <TextInput autoComplete="off" spellcheck={false} placeholder="example.com" {...text('allowed_domains')} />
        <p class="hint" id="sso-allowed_domains-hint">
          Comma-separated.
        </p>
      </div>
      <div class="field">
        <label for="sso-default_role">Default role</label>
        <Select id="sso-default_role" value={form.default_role} options={ROLES.map((r) => [r, r] as const)} onValue={(v) => set('default_role', v as Role)} />
      </div>
      <div class="field">
        <label for="sso-display_name">Display name</label>
        <TextInput autoComplete="off" placeholder="Okta" {...text('display_name')} />
        <p class="hint" id="sso-display_name-hint">
          The sign-in button reads “Sign in with …”.
        </p>
      </div>
      {invalid && (
        <p id="sso-invalid" class="error" role="alert">
          {invalid.message}
        </p>
      )}
      {error && (
        <p class="error" role="alert" data-testid="sso-error">
          Not saved: {error}
        </p>
      )}
      {removeError && (
        <p class="error" role="alert">
          {removeError}
        </p>
      )}
      <div class="form-actions">
        <Button type="submit" disabled={busy}>
          {busy ? 'Saving…' : current ? 'Save single sign-on' : 'Set up single sign-on'}
        </Button>{' '}
        {current &&
          (confirming ? (
            <>
              <Button variant="danger" onClick={remove}>
                Confirm: remove single sign-on
              </Button>{' '}
              <Button variant="quiet" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
            </>
          ) : (
            <Button variant="danger-quiet" onClick={() => setConfirming(true)}>
              Remove single sign-on
            </Button>
          ))}
      </div>
    </form>
  );
}
