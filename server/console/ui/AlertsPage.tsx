/**
 * Alerts: the customer's alerts (GET …/alerts), each said in words — its trigger, filters, destination and
 * owner routing, paused or active — with Edit, Pause / Resume, "Send test" (the test's delivery followed in
 * the log until it has an outcome) and Delete (confirmed); a form to create one; and the owners list that
 * routing to the owner reads (PUT …/owners, a CSV file: the rows read, or the bad row and nothing changed).
 *
 * `alerts:read` shows the page (every role); `alerts:write` (owner, admin, marketer: `canWrite`) the forms
 * and buttons. A webhook destination (signed JSON) is offered only with `webhooks:write` (`canWebhook`):
 * the server refuses it otherwise. Hiding is a courtesy, the server's 403 is the rule.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { AlertDestinationType, AlertTriggerType } from '../../../core/alert-records.ts';
import type { AlertView } from '../../alerts/schema.ts';
import type { DeliveryRecord } from '../../webhooks/schema.ts';
import type { AdminClient } from '../admin-client.ts';
import {
  type AlertFormFields,
  alertBody,
  alertFormOf,
  DESTINATION_LABELS,
  destinationText,
  emptyAlertForm,
  filterText,
  type Names,
  type OwnerFilter,
  ownersReportText,
  ownersSummary,
  ownerText,
  REACHABLE_STAGES,
  TRIGGER_LABELS,
  testResultText,
  testSettled,
  triggerText,
} from '../alerts-view.ts';
import { CreateFormFooter } from './CreateFormFooter.tsx';
import { formatDate } from './datetime.ts';
import { Button, Card, Checkbox, EmptyState, ErrorBox, Field, Select, Table, TextInput } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { RowConfirm } from './RowConfirm.tsx';
import { SecretDialog, type ShownSecret } from './SecretDialog.tsx';
import { useCreateForm } from './use-create-form.ts';
import { useLoad } from './use-load.ts';

/** How often, and how many times, a test's delivery is looked up in the log. */
const TEST_POLL_MS = 1_000;
const TEST_POLLS = 20;
/** Owner rows shown under the upload (the rest are counted). */
const OWNERS_SHOWN = 50;

interface PageProps {
  api: AdminClient;
  customer: CustomerRecord;
  canWrite: boolean;
  canWebhook: boolean;
}

interface Choices {
  segments: readonly { id: number; name: string }[];
  lists: readonly { id: string; name: string }[];
  products: readonly string[];
}

export function AlertsPage({ api, customer, canWrite, canWebhook }: PageProps) {
  const alerts = useLoad(() => api.alerts(customer.id), [api, customer.id]);
  const lists = useLoad(() => api.lists(customer.id), [api, customer.id]);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const choices: Choices = { segments: customer.segments, lists: lists.data?.lists ?? [], products: customer.products.map((p) => p.name) };
  const names: Names = {
    segment: (id) => customer.segments.find((s) => s.id === id)?.name ?? `segment #${id}`,
    list: (id) => choices.lists.find((l) => l.id === id)?.name ?? id,
  };
  const created = (a: AlertView & { secret?: string }) => {
    alerts.reload();
    if (a.secret)
      setSecret({
        title: 'Alert added: its signing secret',
        name: a.destination.url ?? a.name,
        value: a.secret,
        kind: 'Signing secret',
        note: (
          <>
            <strong>Copy this signing secret now: you will not see it again.</strong> Your receiver checks each request's <code>Svc-Signature</code> header with
            it. If it is lost, delete this alert and create it again.
          </>
        ),
      });
  };
  return (
    <div class="customer" data-testid="alerts-page">
      <p class="muted">
        An alert tells a channel — Slack, Microsoft Teams or email — and, if you like, the account’s owner when something happens with an account: it enters a
        segment, becomes hot, reaches a buying stage, comes back after a while, or views certain pages. Each alert fires at most once per account and day.
      </p>
      {!canWrite && (
        <p class="muted" data-testid="alerts-read-only">
          Read-only: an owner, admin or marketer creates and changes alerts.
        </p>
      )}
      <section aria-labelledby="alerts-title">
        <div class="section-head">
          <h2 id="alerts-title">Alerts</h2>
          <Button variant="quiet" onClick={alerts.reload}>
            Refresh
          </Button>
        </div>
        <LoadState load={alerts} what="the alerts" loading="Loading alerts…" />
        {alerts.data?.length === 0 && <EmptyState testId="no-alerts">No alerts yet.</EmptyState>}
        {alerts.data && alerts.data.length > 0 && (
          <ul class="alert-list plain" aria-labelledby="alerts-title">
            {alerts.data.map((a) => (
              <AlertCard
                key={a.id}
                api={api}
                customerId={customer.id}
                alert={a}
                names={names}
                choices={choices}
                canWrite={canWrite}
                canWebhook={canWebhook}
                onChanged={alerts.reload}
              />
            ))}
          </ul>
        )}
      </section>
      {canWrite && (
        <Card title="New alert" titleId="new-alert-title" testId="new-alert">
          <AlertForm
            api={api}
            customerId={customer.id}
            idPrefix="new-alert"
            saved={null}
            choices={choices}
            canWebhook={canWebhook}
            onDone={created}
            label="Create alert"
          />
        </Card>
      )}
      <Owners api={api} customerId={customer.id} canWrite={canWrite} />
      {secret && <SecretDialog secret={secret} onClose={() => setSecret(null)} />}
    </div>
  );
}

type TestState = { busy: true; delivery: DeliveryRecord | null } | { busy: false; delivery: DeliveryRecord | null } | { busy: false; error: string };

function AlertCard({
  api,
  customerId,
  alert: a,
  names,
  choices,
  canWrite,
  canWebhook,
  onChanged,
}: {
  api: AdminClient;
  customerId: string;
  alert: AlertView;
  names: Names;
  choices: Choices;
  canWrite: boolean;
  canWebhook: boolean;
  onChanged(): void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [test, setTest] = useState<TestState | null>(null);
  // A test's polling stops when the card goes (the alert deleted, the page left).
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );
  const titleId = `alert-${a.id}-title`;
  // Changing an admin's webhook alert is an admin's too (the server says so with a 403).
  const mayChange = canWrite && (a.destination.type !== 'webhook' || canWebhook);

  const run = async (what: string, action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(`${what} failed: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const setPaused = (paused: boolean) =>
    run(paused ? 'Pause' : 'Resume', async () => {
      await api.updateAlert(customerId, a.id, { paused });
      onChanged();
    });
  const remove = () =>
    run('Delete', async () => {
      await api.deleteAlert(customerId, a.id);
      setConfirming(false);
      onChanged();
    });
  const sendTest = async () => {
    setTest({ busy: true, delivery: null });
    try {
      const queued = await api.testAlert(customerId, a.id);
      let delivery: DeliveryRecord | null = null;
      for (let i = 0; i < TEST_POLLS && live.current; i++) {
        delivery = (await api.alertDeliveries(customerId, a.id)).find((d) => d.event_id === queued.event_id) ?? null;
        if (testSettled(delivery)) break;
        if (live.current) setTest({ busy: true, delivery });
        await new Promise((r) => setTimeout(r, TEST_POLL_MS));
      }
      if (live.current) setTest({ busy: false, delivery });
    } catch (e) {
      if (live.current) setTest({ busy: false, error: (e as Error).message });
    }
  };

  const filter = filterText(a.filter, names);
  const owner = ownerText(a.route_to_owner, a.destination.type);
  return (
    <li class="card alert-card" aria-labelledby={titleId} data-testid="alert" data-alert-id={a.id}>
      <div class="section-head">
        <h3 id={titleId}>{a.name}</h3>
        {a.paused ? (
          <span class="badge badge-off" data-testid="alert-status">
            paused
          </span>
        ) : (
          <span class="badge badge-ok" data-testid="alert-status">
            active
          </span>
        )}
      </div>
      <p data-testid="alert-trigger">{triggerText(a.trigger, names)}</p>
      {filter && (
        <p class="muted" data-testid="alert-filter">
          {filter}
        </p>
      )}
      <p class="alert-destination" data-testid="alert-destination">
        {destinationText(a.destination)}
      </p>
      {owner && <p data-testid="alert-owner">{owner}</p>}
      <p class="muted">
        Created {formatDate(a.created_at)}
        {a.created_by ? ` by ${a.created_by}` : ''}
      </p>
      {mayChange && (
        <div class="actions alert-actions">
          <Button variant="quiet" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            {editing ? 'Close editing' : 'Edit'}
          </Button>
          <Button variant="quiet" disabled={busy} onClick={() => setPaused(!a.paused)}>
            {a.paused ? 'Resume' : 'Pause'}
          </Button>
          <Button variant="quiet" disabled={test?.busy === true} onClick={sendTest}>
            {test?.busy ? 'Sending test…' : 'Send test'}
          </Button>
          {!confirming && (
            <Button variant="danger-quiet" onClick={() => setConfirming(true)}>
              Delete
            </Button>
          )}
        </div>
      )}
      {confirming && (
        <RowConfirm
          label={`Delete ${a.name}`}
          message={`Delete the alert “${a.name}”? Its undelivered alerts are dropped.`}
          busy={busy}
          onCancel={() => setConfirming(false)}
        >
          <Button variant="danger" disabled={busy} onClick={remove}>
            Delete “{a.name}”
          </Button>
        </RowConfirm>
      )}
      {error && <ErrorBox>{error}</ErrorBox>}
      {test && <TestResult test={test} />}
      {editing && (
        <AlertForm
          api={api}
          customerId={customerId}
          idPrefix={`edit-${a.id}`}
          saved={a}
          choices={choices}
          canWebhook={canWebhook}
          label="Save alert"
          onDone={() => {
            setEditing(false);
            onChanged();
          }}
        />
      )}
    </li>
  );
}

function TestResult({ test }: { test: TestState }) {
  if ('error' in test) return <ErrorBox testId="alert-test-result">Could not send the test: {test.error}</ErrorBox>;
  const failed = !test.busy && test.delivery !== null && test.delivery.status !== 'delivered';
  return (
    <p class={failed ? 'error' : 'ok'} role="status" data-testid="alert-test-result">
      {!test.busy && test.delivery === null ? 'Test queued: it is in the delivery log, not sent yet.' : testResultText(test.delivery)}
    </p>
  );
}

/** Create (saved null) or edit an alert: the trigger and its fields, filters, destination, owner routing. */
function AlertForm({
  api,
  customerId,
  idPrefix,
  saved,
  choices,
  canWebhook,
  label,
  onDone,
}: {
  api: AdminClient;
  customerId: string;
  idPrefix: string;
  saved: AlertView | null;
  choices: Choices;
  canWebhook: boolean;
  label: string;
  onDone(a: AlertView & { secret?: string }): void;
}) {
  const { form, set, invalid, error, busy, submit } = useCreateForm({
    idPrefix,
    initial: () => (saved ? alertFormOf(saved) : emptyAlertForm()),
    validate: (f: AlertFormFields) => alertBody(f, saved),
    create: (body) => (saved ? api.updateAlert(customerId, saved.id, body) : api.createAlert(customerId, body as Parameters<AdminClient['createAlert']>[1])),
    reset: (f) => (saved ? f : emptyAlertForm()),
    onCreated: onDone,
  });
  const id = (key: keyof AlertFormFields & string) => `${idPrefix}-${key}`;
  /** A control's id and, when it is the invalid one, its mark and message. */
  const ctl = (key: keyof AlertFormFields & string, hint = false) => ({
    id: id(key),
    invalid: invalid?.field === key,
    describedBy: invalid?.field === key ? `${idPrefix}-invalid` : hint ? `${id(key)}-hint` : undefined,
  });
  const destinations = (Object.keys(DESTINATION_LABELS) as AlertDestinationType[]).filter(
    (d) => d !== 'webhook' || canWebhook || saved?.destination.type === 'webhook',
  );
  const chat = form.destination === 'slack' || form.destination === 'teams';
  const keepsUrl = saved !== null && saved.destination.type === form.destination && form.destination !== 'email';
  const toggle = <K extends 'filter_segments' | 'filter_lists'>(key: K, value: AlertFormFields[K][number], on: boolean) =>
    set(key, (on ? [...form[key], value] : form[key].filter((v) => v !== value)) as AlertFormFields[K]);

  return (
    <form class="token-form alert-form" onSubmit={submit} noValidate aria-label={saved ? `Edit ${saved.name}` : 'New alert'} data-testid="alert-form">
      <Field id={id('name')} label="Name" required>
        <TextInput {...ctl('name')} value={form.name} onValue={(v) => set('name', v)} maxLength={120} autoComplete="off" />
      </Field>
      <Field id={id('trigger')} label="When">
        <Select
          {...ctl('trigger')}
          value={form.trigger}
          options={(Object.keys(TRIGGER_LABELS) as AlertTriggerType[]).map((t) => [t, TRIGGER_LABELS[t]] as const)}
          onValue={(v) => set('trigger', v as AlertTriggerType)}
        />
      </Field>
      {form.trigger === 'segment_entered' && (
        <Field id={id('segment')} label="Segment" hint={choices.segments.length === 0 ? 'No segments yet: create one on the Segments page.' : undefined}>
          <Select
            {...ctl('segment', choices.segments.length === 0)}
            value={form.segment}
            options={[['', 'Choose a segment'], ...choices.segments.map((s) => [String(s.id), s.name] as const)]}
            onValue={(v) => set('segment', v)}
          />
        </Field>
      )}
      {form.trigger === 'hot' && (
        <Field
          id={id('hot_paths')}
          label="Hot pages"
          hint="Comma-separated path patterns; * matches anything (/pricing*). Empty: only the hot accounts of your lists."
        >
          <TextInput
            {...ctl('hot_paths', true)}
            value={form.hot_paths}
            onValue={(v) => set('hot_paths', v)}
            placeholder="/pricing*, /demo*"
            autoComplete="off"
          />
        </Field>
      )}
      {form.trigger === 'stage_reached' && (
        <>
          <Field id={id('product')} label="Product" hint={choices.products.length === 0 ? 'The workspace has no products.' : undefined}>
            <Select
              {...ctl('product', choices.products.length === 0)}
              value={form.product}
              options={[['', 'Choose a product'], ...choices.products.map((p) => [p, p] as const)]}
              onValue={(v) => set('product', v)}
            />
          </Field>
          <Field id={id('stage')} label="Buying stage">
            <Select {...ctl('stage')} value={form.stage} options={REACHABLE_STAGES.map((s) => [s, s] as const)} onValue={(v) => set('stage', v)} />
          </Field>
        </>
      )}
      {form.trigger === 'first_visit' && (
        <Field id={id('days')} label="Days without a visit" hint="From 1 to 90.">
          <TextInput {...ctl('days', true)} type="number" value={form.days} onValue={(v) => set('days', v)} />
        </Field>
      )}
      {form.trigger === 'visited' && (
        <Field id={id('path')} label="Page pattern" hint="A path; * matches anything (/pricing*).">
          <TextInput {...ctl('path', true)} value={form.path} onValue={(v) => set('path', v)} placeholder="/pricing*" autoComplete="off" />
        </Field>
      )}
      <fieldset class="field checks wide alert-filters" id={id('filter_segments')} tabIndex={-1}>
        <legend>Only accounts that are… (none checked: every account)</legend>
        {choices.segments.map((s) => (
          <Checkbox
            key={`s${s.id}`}
            label={`in ${s.name}`}
            checked={form.filter_segments.includes(s.id)}
            onChecked={(on) => toggle('filter_segments', s.id, on)}
          />
        ))}
        {choices.lists.map((l) => (
          <Checkbox
            key={`l${l.id}`}
            label={`on the list ${l.name}`}
            checked={form.filter_lists.includes(l.id)}
            onChecked={(on) => toggle('filter_lists', l.id, on)}
          />
        ))}
      </fieldset>
      <Field id={id('min_page_views')} label="At least this many page views in the visit" hint="Empty: any.">
        <TextInput {...ctl('min_page_views', true)} type="number" value={form.min_page_views} onValue={(v) => set('min_page_views', v)} />
      </Field>
      <Field id={id('owner')} label="Owner">
        <Select
          {...ctl('owner')}
          value={form.owner}
          options={[
            ['', 'With or without an owner'],
            ['with', 'Only accounts with an owner'],
            ['without', 'Only accounts without an owner'],
          ]}
          onValue={(v) => set('owner', v as OwnerFilter)}
        />
      </Field>
      <Field id={id('destination')} label="Send to">
        <Select
          {...ctl('destination')}
          value={form.destination}
          options={destinations.map((d) => [d, DESTINATION_LABELS[d]] as const)}
          onValue={(v) => set('destination', v as AlertDestinationType)}
        />
      </Field>
      {form.destination === 'email' ? (
        <Field id={id('to')} label="Email addresses" hint="Separated by commas; at most 20." extraClass="wide">
          <TextInput {...ctl('to', true)} type="text" value={form.to} onValue={(v) => set('to', v)} autoComplete="off" placeholder="sales@acme.example" />
        </Field>
      ) : (
        <Field
          id={id('url')}
          label={form.destination === 'slack' ? 'Slack incoming-webhook URL' : form.destination === 'teams' ? 'Teams Workflows URL' : 'Receiver URL'}
          hint={
            keepsUrl
              ? `Empty keeps the current one (${saved?.destination.url ?? 'saved'}).`
              : form.destination === 'slack'
                ? 'https://hooks.slack.com/services/…'
                : form.destination === 'teams'
                  ? 'A Teams Workflow “Post to a channel when a webhook request is received”: https://…logic.azure.com/… or https://…api.powerplatform.com/…'
                  : 'Signed POSTs (Svc-Signature); the signing secret is shown once.'
          }
          extraClass="wide"
        >
          <TextInput {...ctl('url', true)} type="url" value={form.url} onValue={(v) => set('url', v)} autoComplete="off" />
        </Field>
      )}
      <fieldset class="field checks wide alert-routing">
        <legend>The account’s owner</legend>
        <Checkbox
          label="Send it to the account’s owner too (the CRM’s owner, else the owners list below)"
          checked={form.route_to_owner}
          onChecked={(on) => set('route_to_owner', on)}
          testId={`${idPrefix}-route`}
        />
        {form.route_to_owner && (
          <Checkbox
            label={chat ? 'Only to the owner: the channel hears only of accounts without a reachable owner' : 'Only to the owner, not to the addresses above'}
            checked={form.instead_of_channel}
            onChecked={(on) => set('instead_of_channel', on)}
          />
        )}
      </fieldset>
      {form.route_to_owner && (
        <Field id={id('fallback')} label="No owner found: mail these addresses" hint="Optional; separated by commas." extraClass="wide">
          <TextInput {...ctl('fallback', true)} value={form.fallback} onValue={(v) => set('fallback', v)} autoComplete="off" />
        </Field>
      )}
      <CreateFormFooter
        idPrefix={idPrefix}
        invalid={invalid}
        error={error}
        errorTestId={`${idPrefix}-error`}
        busy={busy}
        label={label}
        refused={saved ? 'Not saved' : 'Not created'}
        busyLabel="Saving…"
      />
    </form>
  );
}

/** The owners list routing reads: what is uploaded, and (with alerts:write) a new file replacing it. */
function Owners({ api, customerId, canWrite }: { api: AdminClient; customerId: string; canWrite: boolean }) {
  const owners = useLoad(() => api.owners(customerId), [api, customerId]);
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setReport(null);
    try {
      setReport(ownersReportText(await api.uploadOwners(customerId, file)));
      owners.reload();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const rows = owners.data?.owners ?? [];
  return (
    <Card title="Account owners" titleId="owners-title" testId="owners">
      <p class="muted">
        An alert sent to the account’s owner finds it in the CRM (when one is connected), else in this list: a row per account, or territory rules (country,
        region, industry, size band) where the first match wins. An owner who is a user of this workspace is mailed; a Slack member id or a Teams mention gets
        an @mention in the channel.
      </p>
      <LoadState load={owners} what="the owners list" loading="Loading the owners list…" />
      {owners.data && <p data-testid="owners-summary">{ownersSummary(owners.data)}</p>}
      {canWrite && (
        <form class="token-form" onSubmit={upload} aria-label="Upload the owners list" data-testid="owners-form">
          <Field
            id="owners-file"
            label="Owners list (CSV)"
            hint="Columns: domain or company_id, owner_email, and optionally slack_member_id, teams_mention. A row with country, region, industry or size (values separated by ;) instead of an account is a territory rule. The file replaces the list; a bad row refuses it."
            extraClass="wide"
          >
            <input
              id="owners-file"
              type="file"
              accept=".csv,text/csv"
              aria-describedby="owners-file-hint"
              onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
            />
          </Field>
          <div class="form-actions">
            <Button type="submit" disabled={busy || !file}>
              {busy ? 'Uploading…' : 'Upload'}
            </Button>
          </div>
        </form>
      )}
      {report && (
        <p class="ok" role="status" data-testid="owners-report">
          {report}
        </p>
      )}
      {error && <ErrorBox testId="owners-error">Not uploaded: {error}</ErrorBox>}
      {rows.length > 0 && (
        <details class="owners-rows">
          <summary>
            The list ({rows.length.toLocaleString('en-US')} {rows.length === 1 ? 'account' : 'accounts'})
          </summary>
          <Table
            label="Owners list"
            columns={['Account', 'Owner', 'Slack member id', 'Teams mention']}
            empty="No account rows."
            rowCount={Math.min(rows.length, OWNERS_SHOWN)}
            testId="owners-table"
          >
            {rows.slice(0, OWNERS_SHOWN).map((r) => (
              <tr key={r.key}>
                <td>{r.key.replace(/^(company|domain):/, '')}</td>
                <td>{r.owner_email}</td>
                <td>{r.slack_member_id ?? '—'}</td>
                <td>{r.teams_mention ?? '—'}</td>
              </tr>
            ))}
          </Table>
          {rows.length > OWNERS_SHOWN && <p class="hint">The first {OWNERS_SHOWN} rows are shown.</p>}
        </details>
      )}
    </Card>
  );
}
