/**
 * Notifications: the signed-in user's email digest (GET|PATCH /auth/me/notifications) — off, daily or
 * weekly, the local hour, the time zone (the browser's proposed until one is saved) and which accounts it
 * is about (every visiting one, "my accounts", or some segments and lists) — and a Preview of the digest
 * in a new tab (GET /auth/me/digest/preview, the session cookie goes with the link).
 *
 * Every role has its own settings; the operator's admin token belongs to no user, so it is told so and
 * shown no form.
 */
import { useMemo } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { DigestSettings } from '../../../core/digest-records.ts';
import type { AdminClient } from '../admin-client.ts';
import {
  browserTimeZone,
  digestSummary,
  FREQUENCY_LABELS,
  HOUR_OPTIONS,
  type NotificationFields,
  notificationFields,
  notificationsPatch,
  PREVIEW_URL,
  SCOPE_LABELS,
  type ScopeChoice,
  supportedTimeZones,
  timeZoneOptions,
} from '../notifications-view.ts';
import type { Viewer } from '../permissions-view.ts';
import { EditFormFooter } from './EditFormFooter.tsx';
import { Card, Checkbox, EmptyState, Field, Select } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { useEditForm } from './use-edit-form.ts';
import { useLoad } from './use-load.ts';

export function NotificationsPage({ api, customer, viewer }: { api: AdminClient; customer: CustomerRecord; viewer: Viewer }) {
  return (
    <div class="customer" data-testid="notifications-page">
      <p class="muted">
        An email about your accounts: the new visiting accounts, those that became hot or moved a buying stage, and the top pages, each linked to its account
        page. Nothing is sent when there is nothing to say, and every mail has a one-click unsubscribe link.
      </p>
      {viewer.kind === 'operator' ? (
        <EmptyState testId="notifications-operator">
          Digests are per user: each user of the workspace chooses theirs here after signing in with their own account. The operator's admin token belongs to no
          user and gets no mail.
        </EmptyState>
      ) : (
        <UserDigest api={api} customer={customer} />
      )}
    </div>
  );
}

function UserDigest({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const settings = useLoad(() => api.notifications(), [api]);
  const lists = useLoad(() => api.lists(customer.id), [api, customer.id]);
  const segmentName = (id: number) => customer.segments.find((s) => s.id === id)?.name ?? `segment #${id}`;
  const listName = (id: string) => lists.data?.lists.find((l) => l.id === id)?.name ?? id;
  return (
    <Card title="Email digest" titleId="digest-title" testId="digest">
      <LoadState load={settings} what="your digest settings" loading="Loading your digest settings…" />
      {settings.data && (
        <>
          <p data-testid="digest-summary">{digestSummary(settings.data, segmentName, listName)}</p>
          <DigestForm
            api={api}
            settings={settings.data}
            segments={customer.segments}
            lists={lists.data?.lists ?? []}
            listsError={lists.error}
            onSaved={settings.reload}
          />
          <p class="digest-preview">
            <a class="btn btn-quiet" href={PREVIEW_URL} target="_blank" rel="noopener" data-testid="digest-preview">
              Preview<span class="sr-only"> (opens in a new tab)</span>
            </a>{' '}
            <span class="hint">The digest of your last period with your saved settings, shown even when it would not be sent.</span>
          </p>
        </>
      )}
    </Card>
  );
}

function DigestForm({
  api,
  settings,
  segments,
  lists,
  listsError,
  onSaved,
}: {
  api: AdminClient;
  settings: DigestSettings;
  segments: readonly { id: number; name: string }[];
  lists: readonly { id: string; name: string }[];
  listsError: string | null;
  onSaved(): void;
}) {
  const browserZone = useMemo(browserTimeZone, []);
  const { form, set, id, status, busy, submit } = useEditForm({
    idPrefix: 'digest',
    initial: () => notificationFields(settings, browserZone),
    validate: notificationsPatch,
    save: (patch) => api.updateNotifications(patch),
    saved: 'Saved.',
    onSaved,
  });
  const zones = useMemo(() => timeZoneOptions(supportedTimeZones(), settings.time_zone, browserZone), [settings.time_zone, browserZone]);
  const off = form.digest === 'off';
  const toggle = <K extends 'segments' | 'lists'>(key: K, value: NotificationFields[K][number], on: boolean) =>
    set(key, (on ? [...form[key], value] : form[key].filter((v) => v !== value)) as NotificationFields[K]);
  return (
    <form class="token-form" onSubmit={submit} noValidate aria-label="Digest settings" data-testid="digest-form">
      <Field id={id('digest')} label="Digest">
        <Select
          id={id('digest')}
          value={form.digest}
          options={(Object.keys(FREQUENCY_LABELS) as (keyof typeof FREQUENCY_LABELS)[]).map((k) => [k, FREQUENCY_LABELS[k]] as const)}
          onValue={(v) => set('digest', v as NotificationFields['digest'])}
        />
      </Field>
      <Field id={id('hour')} label="Local hour" hint="The hour it is sent at, in the chosen time zone.">
        <Select id={id('hour')} value={form.hour} options={HOUR_OPTIONS} onValue={(v) => set('hour', v)} describedBy={`${id('hour')}-hint`} />
      </Field>
      <Field id={id('time_zone')} label="Time zone" hint={browserZone ? `Your browser's: ${browserZone}.` : undefined}>
        <Select
          id={id('time_zone')}
          value={form.time_zone}
          options={zones.map((z) => [z, z.replace(/_/g, ' ')] as const)}
          onValue={(v) => set('time_zone', v)}
          describedBy={browserZone ? `${id('time_zone')}-hint` : undefined}
        />
      </Field>
      <fieldset class="field checks wide" id={id('scope')} tabIndex={-1}>
        <legend>About</legend>
        {(Object.keys(SCOPE_LABELS) as ScopeChoice[]).map((k) => (
          <label key={k}>
            <input type="radio" name="digest-scope" value={k} checked={form.scope === k} onChange={() => set('scope', k)} /> {SCOPE_LABELS[k]}
          </label>
        ))}
      </fieldset>
      {form.scope === 'segments' && (
        <fieldset class="field checks wide" data-testid="digest-scope-choices">
          <legend>Segments and lists</legend>
          {segments.length === 0 && <p class="hint">No segments yet.</p>}
          {segments.map((s) => (
            <Checkbox key={`s${s.id}`} label={`Segment: ${s.name}`} checked={form.segments.includes(s.id)} onChecked={(on) => toggle('segments', s.id, on)} />
          ))}
          {lists.map((l) => (
            <Checkbox key={`l${l.id}`} label={`List: ${l.name}`} checked={form.lists.includes(l.id)} onChecked={(on) => toggle('lists', l.id, on)} />
          ))}
          {listsError && <p class="hint">The account lists could not be loaded ({listsError}).</p>}
        </fieldset>
      )}
      {off && <p class="hint wide">Off: no digest is sent; the hour, zone and scope are kept for when you turn it on.</p>}
      <div class="wide">
        <EditFormFooter busy={busy} status={status} label="Save" />
      </div>
    </form>
  );
}
