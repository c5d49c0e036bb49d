/**
 * A customer's signed webhooks and Slack alerts: register an endpoint — a JSON webhook (payload version per
 * event, segment names, scores) or a Slack incoming webhook (with filters) — (the signing secret is shown
 * once, in the same dialog as token secrets), send it a test event and see what its receiver answered,
 * remove one, and read each endpoint's delivery log (status, attempts, last error, next attempt).
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { WebhookRecord } from '../../webhooks/schema.ts';
import type { TestDelivery } from '../../webhooks/service.ts';
import type { AdminClient, WebhookWithSecret } from '../admin-client.ts';
import { type SchemaList, webhookCatalog } from '../developers-view.ts';
import { emptyWebhookForm, endpointSummary, formEvents, type WebhookFormFields, webhookRequestBody } from '../webhook-form.ts';
import { formatDate, formatDateTime } from './datetime.ts';
import { Button, Checkbox, Radio, Select, Table, TextInput } from './kit/index.ts';
import { SecretDialog, type ShownSecret } from './SecretDialog.tsx';
import { useCreateForm } from './use-create-form.ts';
import { useLoad } from './use-load.ts';

/** The console's Webhooks page for one customer: the section below plus the one-time secret dialog. */
/** `canWrite`: the viewer may add and remove endpoints (else the list and delivery logs are read-only). */
export function WebhooksPage({ api, customer, canWrite = true }: { api: AdminClient; customer: CustomerRecord; canWrite?: boolean }) {
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  return (
    <div class="customer">
      <Webhooks
        api={api}
        customerId={customer.id}
        segments={customer.segments}
        canWrite={canWrite}
        onCreated={(w) =>
          setSecret({
            title: 'Webhook added: its signing secret',
            name: w.url,
            value: w.secret,
            kind: 'Signing secret',
            // The server keeps this secret to sign with, and no route replaces it: a lost one means a new endpoint.
            note: (
              <>
                <strong>Copy this signing secret now: you will not see it again.</strong> Your receiver checks each request's <code>Svc-Signature</code> header
                with it. If it is lost, remove this webhook and add it again to get a new secret.
              </>
            ),
          })
        }
      />
      {secret && <SecretDialog secret={secret} onClose={() => setSecret(null)} />}
    </div>
  );
}

/** The payload versions of each webhook event (`GET /schemas`): the form's version selects. */
async function loadVersions(): Promise<Map<string, number[]>> {
  const res = await fetch('/schemas');
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return new Map(webhookCatalog((await res.json()) as SchemaList).map((e) => [e.name, e.versions.map((v) => v.version)]));
}

export function Webhooks({
  api,
  customerId,
  segments = [],
  onCreated,
  canWrite = true,
}: {
  api: AdminClient;
  customerId: string;
  segments?: readonly { id: number; name: string }[];
  onCreated(w: WebhookWithSecret): void;
  canWrite?: boolean;
}) {
  const endpoints = useLoad(() => api.webhooks(customerId), [api, customerId]);
  const versions = useLoad(loadVersions, []);
  const segmentName = (id: number) => segments.find((s) => s.id === id)?.name ?? `#${id}`;
  const { form, set, invalid, error, busy, submit } = useCreateForm({
    idPrefix: 'new-webhook',
    initial: emptyWebhookForm,
    validate: webhookRequestBody,
    create: (body) => api.createWebhook(customerId, body),
    reset: emptyWebhookForm,
    onCreated: (created) => {
      endpoints.reload();
      onCreated(created);
    },
  });
  const described = (key: keyof WebhookFormFields) => (invalid?.field === key ? { 'aria-invalid': true, 'aria-describedby': 'new-webhook-invalid' } : {});

  return (
    <section aria-labelledby="webhooks-title" data-testid="webhooks">
      <div class="section-head">
        <h2 id="webhooks-title">Webhooks</h2>
        <Button variant="quiet" onClick={endpoints.reload}>
          Refresh
        </Button>
      </div>
      <p class="muted">
        Signed POSTs when an account visits (its first page view of the day) or turns hot (a hot account, or a page matching a pattern). Verify the{' '}
        <code>Svc-Signature</code> header with the secret shown at creation.
      </p>
      {canWrite && (
        <form class="card token-form" onSubmit={submit} noValidate data-testid="create-webhook-form">
          <fieldset class="field checks">
            <legend>Format</legend>
            <Radio name="new-webhook-format" label="JSON webhook" checked={form.format === 'json'} onChosen={() => set('format', 'json')} />
            <Radio name="new-webhook-format" label="Slack" checked={form.format === 'slack'} onChosen={() => set('format', 'slack')} />
          </fieldset>
          <div class="field wide">
            <label for="new-webhook-url">
              {form.format === 'slack' ? 'Slack incoming-webhook URL' : 'Receiver URL'} <span class="muted">(required)</span>
            </label>
            <TextInput
              id="new-webhook-url"
              type="url"
              autoComplete="off"
              placeholder={form.format === 'slack' ? 'https://hooks.slack.com/services/T000/B000/XXXX' : 'https://hooks.example.com/svc'}
              value={form.url}
              onValue={(v) => set('url', v)}
              {...described('url')}
            />
          </div>
          <fieldset class="field checks">
            <legend>Events</legend>
            <Checkbox
              id="new-webhook-visited"
              label="account.visited"
              checked={form.visited}
              onChecked={(on) => set('visited', on)}
              {...described('visited')}
            />
            <Checkbox id="new-webhook-hot" label="account.hot" checked={form.hot} onChecked={(on) => set('hot', on)} />
            <Checkbox id="new-webhook-entered" label="segment.entered" checked={form.entered} onChecked={(on) => set('entered', on)} />
          </fieldset>
          {form.format === 'json' && (
            <fieldset class="field checks" data-testid="webhook-versions">
              <legend>Payload</legend>
              {formEvents(form).map((event) => {
                const known = versions.data?.get(event) ?? [];
                const newest = known[known.length - 1];
                return (
                  <label key={event} for={`new-webhook-version-${event}`}>
                    {event}{' '}
                    <Select
                      id={`new-webhook-version-${event}`}
                      aria-label={`${event} payload version`}
                      value={form.versions[event] ?? ''}
                      options={[
                        ['', newest ? `v${newest} (newest)` : 'newest'],
                        ...known
                          .filter((v) => v !== newest)
                          .reverse()
                          .map((v) => [String(v), `v${v}`] as const),
                      ]}
                      onValue={(v) => set('versions', { ...form.versions, [event]: v })}
                    />
                  </label>
                );
              })}
              <Checkbox label="segment names" checked={form.segment_names} onChecked={(on) => set('segment_names', on)} />
              <Checkbox label="scores" checked={form.scores} onChecked={(on) => set('scores', on)} />
            </fieldset>
          )}
          {form.format === 'slack' && (
            <fieldset class="field checks wide" data-testid="slack-filters">
              <legend>Only accounts that are…</legend>
              {segments.map((s) => (
                <Checkbox
                  key={s.id}
                  label={`in ${s.name}`}
                  checked={form.filter_segments.includes(s.id)}
                  onChecked={(on) => set('filter_segments', on ? [...form.filter_segments, s.id] : form.filter_segments.filter((id) => id !== s.id))}
                />
              ))}
              <Checkbox
                id="new-webhook-hot_only"
                label="hot accounts only (a hot account, or a view of a hot page)"
                checked={form.hot_only}
                onChecked={(on) => set('hot_only', on)}
              />
              <label for="new-webhook-min_page_views">
                with at least{' '}
                <TextInput
                  id="new-webhook-min_page_views"
                  type="number"
                  min={1}
                  max={50}
                  inputMode="numeric"
                  placeholder="any"
                  value={form.min_page_views}
                  onValue={(v) => set('min_page_views', v)}
                  {...described('min_page_views')}
                />{' '}
                page views this visit
              </label>
              <p class="hint">
                None checked: every account. One message per account visit; several accounts at once become one digest, at most one message a second.
              </p>
            </fieldset>
          )}
          <div class="field">
            <label for="new-webhook-hot_paths">Hot pages</label>
            <TextInput
              id="new-webhook-hot_paths"
              autoComplete="off"
              placeholder="/pricing*, /demo*"
              value={form.hot_paths}
              onValue={(v) => set('hot_paths', v)}
              {...described('hot_paths')}
            />
            <p class="hint">Comma-separated path patterns; * matches anything. A view of a matching page raises account.hot.</p>
          </div>
          {invalid && (
            <p id="new-webhook-invalid" class="error" role="alert">
              {invalid.message}
            </p>
          )}
          {error && (
            <p class="error" role="alert">
              Could not add the webhook: {error}
            </p>
          )}
          <div class="form-actions">
            <Button type="submit" disabled={busy}>
              {busy ? 'Adding…' : form.format === 'slack' ? 'Add Slack alert' : 'Add webhook'}
            </Button>
          </div>
        </form>
      )}
      {endpoints.error && (
        <p class="error" role="alert">
          Could not load the webhooks: {endpoints.error}
        </p>
      )}
      {endpoints.data && !endpoints.data.length && <p class="muted">No webhooks yet.</p>}
      {endpoints.data?.map((w) => (
        <Endpoint
          key={w.id}
          api={api}
          customerId={customerId}
          endpoint={w}
          summary={endpointSummary(w, segmentName)}
          onRemoved={endpoints.reload}
          canWrite={canWrite}
        />
      ))}
    </section>
  );
}

function Endpoint({
  api,
  customerId,
  endpoint: w,
  summary,
  onRemoved,
  canWrite,
}: {
  api: AdminClient;
  customerId: string;
  endpoint: WebhookRecord;
  summary: string;
  onRemoved(): void;
  canWrite: boolean;
}) {
  const [showLog, setShowLog] = useState(false);
  const [test, setTest] = useState<{ busy: true } | { busy: false; result: TestDelivery } | { busy: false; error: string } | null>(null);
  const sendTest = async () => {
    setTest({ busy: true });
    try {
      setTest({ busy: false, result: await api.testWebhook(customerId, w.id) });
    } catch (e) {
      setTest({ busy: false, error: (e as Error).message });
    }
  };
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    try {
      await api.deleteWebhook(customerId, w.id);
      onRemoved();
    } catch (e) {
      setError(`Remove failed: ${(e as Error).message}`);
    }
  };
  return (
    <div class="card webhook" data-testid="webhook">
      <p>
        <code>{w.url}</code>
      </p>
      <p class="muted">
        {w.events.join(', ')}
        {w.hot_paths.length ? ` · hot pages ${w.hot_paths.join(', ')}` : ''} · secret <code>{w.secret_prefix}…</code> · since {formatDate(w.created_at)}
      </p>
      <p class="muted" data-testid="webhook-summary">
        {summary}
      </p>
      <div class="actions">
        {canWrite && (
          <Button variant="quiet" disabled={test?.busy === true} onClick={sendTest}>
            {test?.busy ? 'Sending…' : 'Send test event'}
          </Button>
        )}
        <Button variant="quiet" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </Button>
        {!canWrite ? null : confirming ? (
          <>
            <Button variant="danger" onClick={remove}>
              Confirm remove
            </Button>
            <Button variant="quiet" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </>
        ) : (
          <Button variant="quiet" onClick={() => setConfirming(true)}>
            Remove
          </Button>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {test && !test.busy && <TestAnswer test={test} />}
      {showLog && <DeliveryLog api={api} customerId={customerId} webhookId={w.id} />}
    </div>
  );
}

/** What the receiver answered a test event: its status (or why there was none) and the start of its body. */
function TestAnswer({ test }: { test: { result: TestDelivery } | { error: string } }) {
  if ('error' in test)
    return (
      <p class="error" role="alert">
        Could not send the test event: {test.error}
      </p>
    );
  const r = test.result;
  return (
    <div class="test-answer" role="status" data-testid="test-answer">
      <p>
        Test {r.event.type}: {r.status === null ? `no answer (${r.error})` : `HTTP ${r.status}`}
        {r.delivered ? ' — delivered' : ' — not delivered'} in {r.duration_ms} ms
      </p>
      {r.body && <pre class="test-body">{r.body}</pre>}
    </div>
  );
}

function DeliveryLog({ api, customerId, webhookId }: { api: AdminClient; customerId: string; webhookId: string }) {
  const log = useLoad(() => api.webhookDeliveries(customerId, webhookId), [api, customerId, webhookId]);
  if (log.error) return <p class="error">Could not load the deliveries: {log.error}</p>;
  if (!log.data) return <p class="muted">Loading deliveries…</p>;
  if (!log.data.length) return <p class="muted">Nothing delivered yet.</p>;
  return (
    <Table
      label="Deliveries"
      extraClass="tokens"
      testId="deliveries"
      columns={['Event', 'Status', { title: 'Attempts', num: true }, 'Last answer', 'Next attempt', 'Created']}
    >
      {log.data.map((d) => (
        <tr key={d.id}>
          <td>
            {d.type} <code>{d.event_id}</code>
          </td>
          <td>{d.status}</td>
          <td class="num">{d.attempts}</td>
          <td>{d.last_error ?? (d.last_status === null ? '—' : `HTTP ${d.last_status}`)}</td>
          <td class="when">{formatDateTime(d.next_attempt_at)}</td>
          <td class="when">{formatDateTime(d.created_at)}</td>
        </tr>
      ))}
    </Table>
  );
}
