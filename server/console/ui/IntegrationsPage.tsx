/**
 * Integrations: the customer's CRM connections, HubSpot and Salesforce. Each is either a connect form (the
 * credential is tested by the server before it is kept, and never shown again: only its first characters)
 * or the connection — its status (active, paused, needs attention with the provider's message), what waits
 * to be synced, the last run — with "Test connection" (what the credential may do), the mapping (which CRM
 * field each svc value goes to), a dry run ("these accounts would get these values"), "Sync now" and
 * "Full backfill" (the runs log asked again until the run ends), pause / resume and disconnect.
 *
 * With `integrations:write` (owner, admin: `canWrite`) every control; without it (a marketer) the same
 * page read-only. The server's 403 is the rule; hiding is a courtesy.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { CrmProvider, CrmRunRecord } from '../../../core/crm-records.ts';
import type { CrmConnectionView } from '../../crm/schema.ts';
import type { AdminClient, CrmPreview, CrmTest } from '../admin-client.ts';
import {
  CRM_NAMES,
  type CrmConnectFields,
  connectBody,
  emptyConnectForm,
  formatValue,
  mappingErrorKeys,
  mappingPatch,
  mappingRows,
  PREVIEW_SHOWN,
  previewColumns,
  previewHeadline,
  RUN_COUNTS,
  RUN_KIND_LABELS,
  runSummary,
  runTone,
  runUnderway,
  statusChip,
} from '../crm-view.ts';
import { displayPrefix, formatCount } from '../format.ts';
import { CreateFormFooter } from './CreateFormFooter.tsx';
import { formatDateTime } from './datetime.ts';
import { EditFormFooter } from './EditFormFooter.tsx';
import { Button, Checkbox, Table, TextInput } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { useCreateForm } from './use-create-form.ts';
import { useEditForm } from './use-edit-form.ts';
import { useLoad } from './use-load.ts';

/** How often the runs log is asked again while a run is under way. */
const POLL_MS = 1_000;

const HUBSPOT_SCOPES = [
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.schemas.companies.read',
  'crm.schemas.companies.write',
  'crm.objects.owners.read',
];

export function IntegrationsPage({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  const crm = useLoad(() => api.crm(customer.id), [api, customer.id]);
  return (
    <div class="customer" data-testid="integrations-page">
      <section aria-labelledby="crm-intro-title">
        <div class="section-head">
          <h2 id="crm-intro-title">CRM sync</h2>
          <Button variant="quiet" onClick={crm.reload}>
            Refresh
          </Button>
        </div>
        <p class="muted">
          svc writes what it knows of each visiting account onto the CRM account record of its domain, where sales works: segments, last visit, page views, top
          pages, the hot flag and, per product, intent score, buying stage and profile fit. Accounts whose svc data changed are synced every few minutes; a full
          backfill writes every account. svc only writes fields it owns and reads back each account's CRM owner and stage.
        </p>
        {!canWrite && (
          <p class="muted" data-testid="crm-read-only">
            Read-only: an owner or admin connects a CRM, changes what is written and starts syncs.
          </p>
        )}
        <LoadState load={crm} what="the CRM connections" loading="Loading CRM connections…" />
      </section>
      {crm.data?.providers.map((p) => (
        <CrmCard
          key={p}
          api={api}
          customerId={customer.id}
          provider={p}
          conn={crm.data!.connections.find((c) => c.provider === p) ?? null}
          canWrite={canWrite}
          onChanged={crm.reload}
        />
      ))}
    </div>
  );
}

interface CardProps {
  api: AdminClient;
  customerId: string;
  provider: CrmProvider;
  canWrite: boolean;
  /** After any change: the connections are read again. */
  onChanged(): void;
}

function CrmCard({ conn, ...p }: CardProps & { conn: CrmConnectionView | null }) {
  const name = CRM_NAMES[p.provider];
  // A connect answers its credential's test: shown on the connection that replaces the form.
  const [connected, setConnected] = useState<CrmTest | null>(null);
  const chip = conn && statusChip(conn);
  return (
    <section class="card crm" aria-labelledby={`crm-${p.provider}-title`} data-testid={`crm-${p.provider}`}>
      <div class="section-head">
        <h2 id={`crm-${p.provider}-title`}>{name}</h2>
        {chip ? (
          <span class={`badge badge-${chip.tone}`} data-testid="crm-status">
            {chip.label}
          </span>
        ) : (
          <span class="badge badge-off" data-testid="crm-status">
            not connected
          </span>
        )}
      </div>
      {conn ? (
        <Connection {...p} conn={conn} connected={connected} />
      ) : p.canWrite ? (
        <ConnectForm
          {...p}
          idPrefix={`crm-${p.provider}-connect`}
          label={`Connect ${name}`}
          onConnected={(t) => {
            setConnected(t);
            p.onChanged();
          }}
        />
      ) : (
        <p class="muted">Not connected.</p>
      )}
    </section>
  );
}

/** Connect (or, on a connection, replace the credential): the server tests it before keeping it. */
function ConnectForm({
  api,
  customerId,
  provider,
  idPrefix,
  label,
  initial,
  mapping,
  onConnected,
}: Pick<CardProps, 'api' | 'customerId' | 'provider'> & {
  idPrefix: string;
  label: string;
  initial?: Partial<CrmConnectFields>;
  /** A replaced credential keeps the connection's mapping (a connect without one starts from the defaults). */
  mapping?: Record<string, string | null>;
  onConnected(test: CrmTest): void;
}) {
  const { form, set, text, invalid, error, busy, submit } = useCreateForm({
    idPrefix,
    initial: () => ({ ...emptyConnectForm(), ...initial }),
    validate: (f: CrmConnectFields) => connectBody(provider, f),
    create: (body) => api.connectCrm(customerId, provider, mapping ? { ...body, mapping } : body),
    reset: () => ({ ...emptyConnectForm(), ...initial }),
    onCreated: ({ check }) => onConnected({ ok: true, message: null, check }),
  });
  const field = (key: keyof CrmConnectFields & string, caption: string, type: 'text' | 'password' | 'url', hint: ComponentChildren, placeholder = '') => (
    <div class="field wide">
      <label for={`${idPrefix}-${key}`}>{caption}</label>
      <TextInput type={type} autoComplete="off" spellcheck={false} placeholder={placeholder} {...text(key)} />
      <p class="hint" id={`${idPrefix}-${key}-hint`}>
        {hint}
      </p>
    </div>
  );
  return (
    <form class="token-form" onSubmit={submit} noValidate aria-label={label} data-testid="crm-connect-form">
      {provider === 'hubspot' ? (
        <>
          {field(
            'access_token',
            'Access token',
            'password',
            <>
              A HubSpot private app's access token (Settings → Integrations → Private apps) with the scopes{' '}
              {HUBSPOT_SCOPES.map((s, i) => (
                <span key={s}>
                  {i > 0 && ', '}
                  <code>{s}</code>
                </span>
              ))}
              .
            </>,
            'pat-na1-…',
          )}
          <details class="crm-advanced wide">
            <summary>Advanced</summary>
            {field('base_url', 'API base URL', 'url', 'Empty: https://api.hubapi.com. Only for a proxy or a test stand-in.', 'https://api.hubapi.com')}
          </details>
        </>
      ) : (
        <>
          {field('client_id', 'Client id', 'text', 'The consumer key of a connected app with the OAuth 2.0 client-credentials flow enabled.')}
          {field(
            'client_secret',
            'Client secret',
            'password',
            'The connected app’s consumer secret. Its run-as user must read and edit Accounts and svc’s fields.',
          )}
          {field('url', 'My Domain URL', 'url', 'Your org’s My Domain URL (Setup → My Domain).', 'https://acme.my.salesforce.com')}
        </>
      )}
      <Checkbox
        id={`${idPrefix}-create_missing`}
        extraClass="wide"
        label="Create missing CRM accounts (an account of a domain no CRM record has)"
        checked={form.create_missing}
        onChecked={(on) => set('create_missing', on)}
      />
      <CreateFormFooter
        idPrefix={idPrefix}
        invalid={invalid}
        error={error}
        errorTestId="crm-connect-error"
        busy={busy}
        label={label}
        refused="Not connected"
        busyLabel="Testing the credential…"
      />
    </form>
  );
}

type Busy = 'test' | 'preview' | 'sync' | 'full' | 'status' | 'disconnect' | null;

function Connection({ conn, connected, ...p }: CardProps & { conn: CrmConnectionView; connected: CrmTest | null }) {
  const { api, customerId, provider, canWrite, onChanged } = p;
  const name = CRM_NAMES[provider];
  const runs = useLoad(() => api.crmRuns(customerId, provider), [api, customerId, provider]);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [test, setTest] = useState<CrmTest | null>(connected);
  const [preview, setPreview] = useState<{ full: boolean; answer: CrmPreview } | null>(null);
  const [previewFull, setPreviewFull] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const underway = runUnderway(runs.data?.runs);
  const reloadRuns = runs.reload;
  useEffect(() => {
    if (!underway) return;
    const timer = setInterval(reloadRuns, POLL_MS);
    return () => clearInterval(timer);
  }, [underway, reloadRuns]);
  // The connection's facts (last run, what waits) follow the runs log: read again when its newest run moves.
  const newest = runs.data?.runs[0];
  useEffect(() => {
    if (newest && (newest.id !== conn.last_run?.id || newest.status !== conn.last_run?.status)) onChanged();
  }, [newest?.id, newest?.status]);

  const act = async (what: Exclude<Busy, null>, failed: string, action: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    setNotice('');
    try {
      await action();
    } catch (e) {
      setError(`${failed}: ${(e as Error).message}`);
    } finally {
      setBusy(null);
    }
  };
  // A refused credential puts the connection in "needs attention" (a passing one takes it out): read it again.
  const runTest = () =>
    act('test', 'Could not test the connection', async () => {
      setTest(await api.testCrm(customerId, provider));
      onChanged();
    });
  const runPreview = () =>
    act('preview', 'Could not preview', async () => {
      setPreview({ full: previewFull, answer: await api.previewCrm(customerId, provider, { full: previewFull }) });
      reloadRuns();
    });
  // Started or refused (409: a run under way, maybe the schedule's), the runs log is read again and followed.
  const sync = (full: boolean) =>
    act(full ? 'full' : 'sync', full ? 'Could not start the full backfill' : 'Could not start the sync', async () => {
      try {
        const { run } = await api.syncCrm(customerId, provider, { full });
        setNotice(`${full ? 'Full backfill' : 'Sync'} started (${run.id}): its counts follow in Last runs.`);
      } finally {
        reloadRuns();
      }
    });
  const setStatus = (status: 'active' | 'paused') =>
    act('status', status === 'paused' ? 'Could not pause' : 'Could not resume', async () => {
      await api.updateCrm(customerId, provider, { status });
      setNotice(status === 'paused' ? `${name} sync paused: nothing is written until it is resumed.` : `${name} sync resumed.`);
      onChanged();
    });
  const disconnect = () =>
    act('disconnect', 'Could not disconnect', async () => {
      await api.disconnectCrm(customerId, provider);
      setConfirming(false);
      onChanged();
    });

  return (
    <>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="crm-status-text">
          {statusChip(conn).label}
          {conn.attention && (
            <>
              {' '}
              — <span data-testid="crm-attention">{conn.attention}</span>
            </>
          )}
        </dd>
        <dt>API</dt>
        <dd>
          <code data-testid="crm-base-url">{conn.base_url}</code>
        </dd>
        {conn.client_id && (
          <>
            <dt>Client id</dt>
            <dd>
              <code>{conn.client_id}</code>
            </dd>
          </>
        )}
        <dt>{provider === 'hubspot' ? 'Access token' : 'Client secret'}</dt>
        <dd>
          <code data-testid="crm-secret">{displayPrefix(conn.secret_prefix)}</code>
        </dd>
        <dt>Waiting to sync</dt>
        <dd data-testid="crm-pending">
          {formatCount(conn.pending)} {conn.pending === 1 ? 'account' : 'accounts'}
        </dd>
        <dt>Missing CRM accounts</dt>
        <dd>{conn.create_missing ? 'created' : 'not created'}</dd>
        <dt>Last run</dt>
        <dd data-testid="crm-last-run">
          {conn.last_run ? (
            <>
              {runSummary(conn.last_run)} <span class="muted when">{formatDateTime(conn.last_run.started_at)}</span>
            </>
          ) : (
            'none yet'
          )}
        </dd>
        <dt>Connected</dt>
        <dd class="when">{formatDateTime(conn.created_at)}</dd>
      </dl>
      {conn.status === 'needs_attention' && (
        <p class="warning" data-testid="crm-needs-attention">
          {name} refused the credential: syncing stopped. Replace the credential (or fix it in {name} and test again), then resume.
        </p>
      )}
      {conn.status === 'paused' && <p class="warning">Paused: nothing is written to {name} until the sync is resumed.</p>}
      {canWrite && (
        <div class="tag-actions" data-testid="crm-actions">
          <Button variant="quiet" disabled={busy !== null} onClick={runTest}>
            {busy === 'test' ? 'Testing…' : 'Test connection'}
          </Button>
          <span class="crm-preview-choice">
            <Button variant="quiet" disabled={busy !== null} onClick={runPreview} aria-describedby={`crm-${provider}-preview-hint`}>
              {busy === 'preview' ? 'Previewing…' : 'Preview'}
            </Button>
            <Checkbox label="every account (as a full backfill)" checked={previewFull} onChecked={setPreviewFull} />
          </span>
          <Button disabled={busy !== null || underway} onClick={() => sync(false)}>
            {busy === 'sync' ? 'Starting…' : 'Sync now'}
          </Button>
          <Button variant="quiet" disabled={busy !== null || underway} onClick={() => sync(true)}>
            {busy === 'full' ? 'Starting…' : 'Full backfill'}
          </Button>
          {conn.status === 'active' ? (
            <Button variant="quiet" disabled={busy !== null} onClick={() => setStatus('paused')}>
              Pause
            </Button>
          ) : (
            <Button variant="quiet" disabled={busy !== null} onClick={() => setStatus('active')}>
              Resume
            </Button>
          )}
          {confirming ? (
            <>
              <span>Disconnect {name}? svc forgets the credential, what waits to be synced and the runs; the CRM keeps what was written.</span>
              <Button variant="danger" disabled={busy !== null} onClick={disconnect}>
                Disconnect for good
              </Button>
              <Button variant="quiet" onClick={() => setConfirming(false)}>
                Keep it
              </Button>
            </>
          ) : (
            <Button variant="danger-quiet" disabled={busy !== null} onClick={() => setConfirming(true)}>
              Disconnect
            </Button>
          )}
          <p class="hint" id={`crm-${provider}-preview-hint`}>
            Preview lists what a sync would write, without writing anything.
          </p>
        </div>
      )}
      {underway && (
        <p class="muted" data-testid="crm-underway">
          A run is under way: its counts follow in Last runs.
        </p>
      )}
      {canWrite && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p class="error" role="alert" data-testid="crm-error">
          {error}
        </p>
      )}
      {test && <TestAnswer provider={provider} test={test} onClose={() => setTest(null)} />}
      {preview && <Preview provider={provider} {...preview} onClose={() => setPreview(null)} />}
      <Mapping key={conn.created_at} {...p} conn={conn} />
      <Runs provider={provider} runs={runs.data?.runs ?? null} load={runs} />
      {canWrite && (
        <details class="tag-settings">
          <summary>Replace the credential</summary>
          <ConnectForm
            api={api}
            customerId={customerId}
            provider={provider}
            idPrefix={`crm-${provider}-replace`}
            label="Test and replace"
            initial={{
              base_url: provider === 'hubspot' ? conn.base_url : '',
              url: provider === 'salesforce' ? conn.base_url : '',
              client_id: conn.client_id ?? '',
              create_missing: conn.create_missing,
            }}
            mapping={conn.mapping}
            onConnected={(t) => {
              setTest(t);
              onChanged();
            }}
          />
        </details>
      )}
    </>
  );
}

/** What "Test connection" answered: what the credential may do, or the provider's refusal. */
function TestAnswer({ provider, test, onClose }: { provider: CrmProvider; test: CrmTest; onClose(): void }) {
  const name = CRM_NAMES[provider];
  const list = (items: string[]) =>
    items.length ? (
      items.map((s, i) => (
        <span key={s}>
          {i > 0 && ', '}
          <code>{s}</code>
        </span>
      ))
    ) : (
      <span class="muted">none</span>
    );
  return (
    <section class="crm-panel" aria-labelledby={`crm-${provider}-test-title`} data-testid="crm-test">
      <div class="section-head">
        <h3 id={`crm-${provider}-test-title`}>Connection test</h3>
        <Button variant="quiet" onClick={onClose}>
          Hide
        </Button>
      </div>
      {!test.ok || !test.check ? (
        <p class="error" role="alert">
          {name} refused the credential: {test.message ?? 'no reason given'}. The connection needs attention: replace the credential.
        </p>
      ) : (
        <>
          <p class="ok" role="status">
            The credential works: svc can write {test.check.writable_fields.length} fields.
          </p>
          <dl class="facts">
            <dt>Scopes</dt>
            <dd data-testid="crm-test-scopes">{list(test.check.scopes)}</dd>
            <dt>Objects</dt>
            <dd data-testid="crm-test-objects">{list(test.check.objects)}</dd>
            <dt>Writable fields</dt>
            <dd data-testid="crm-test-writable">{list(test.check.writable_fields)}</dd>
            {test.check.created_fields.length > 0 && (
              <>
                <dt>Created now</dt>
                <dd>{list(test.check.created_fields)}</dd>
              </>
            )}
            <dt>Missing fields</dt>
            <dd data-testid="crm-test-missing">{list(test.check.missing_fields)}</dd>
          </dl>
          {test.check.missing_fields.length > 0 && (
            <p class="warning" data-testid="crm-test-missing-note">
              {provider === 'salesforce'
                ? 'Ask your Salesforce admin to create these fields (custom fields on Account, with these API names): svc cannot create them, and skips them until they exist.'
                : 'svc could not create these properties with this token: grant it the crm.schemas.companies.write scope, then test again.'}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** A dry run: what a sync would write, the first accounts' values in a table, the count of them all. */
function Preview({ provider, full, answer, onClose }: { provider: CrmProvider; full: boolean; answer: CrmPreview; onClose(): void }) {
  const { run, accounts } = answer;
  const shown = accounts.slice(0, PREVIEW_SHOWN);
  const columns = previewColumns(shown);
  const c = run.counts;
  return (
    <section class="crm-panel" aria-labelledby={`crm-${provider}-preview-title`} data-testid="crm-preview">
      <div class="section-head">
        <h3 id={`crm-${provider}-preview-title`}>Preview{full ? ' of a full backfill' : ' of the next sync'}</h3>
        <Button variant="quiet" onClick={onClose}>
          Hide
        </Button>
      </div>
      {run.status === 'failed' ? (
        <p class="error" role="alert">
          The preview failed: {run.message}
        </p>
      ) : (
        <>
          <p role="status">
            <strong data-testid="crm-preview-count">{previewHeadline(accounts.length)}</strong>
            {accounts.length > shown.length && <> — the first {shown.length} are shown</>}.
          </p>
          <p class="muted" data-testid="crm-preview-counts">
            {formatCount(c.accounts)} accounts looked at: {formatCount(c.matched)} matched a CRM record, {formatCount(c.unchanged)} unchanged,{' '}
            {formatCount(c.not_found)} not found, {formatCount(c.invalid_domain)} with an invalid domain.
          </p>
          {shown.length > 0 && (
            <Table
              label="Accounts and the values they would get"
              extraClass="tokens crm-values"
              testId="crm-preview-table"
              columns={['Company', 'Domain', 'CRM ids', ...columns.map((f) => ({ title: <code>{f}</code>, key: f }))]}
            >
              {shown.map((a) => (
                <tr key={a.company_id}>
                  <th scope="row">{a.name ?? a.company_id}</th>
                  <td>{a.domain ?? '—'}</td>
                  <td>{a.crm_ids.length ? a.crm_ids.join(', ') : <span class="muted">new record</span>}</td>
                  {columns.map((f) => (
                    <td key={f}>{formatValue(a.values[f])}</td>
                  ))}
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </section>
  );
}

/** Which CRM field each svc value goes to: an editable table (empty: not written), saved with PATCH; read-only without write. */
function Mapping({ api, customerId, provider, canWrite, onChanged, conn }: CardProps & { conn: CrmConnectionView }) {
  const rows = mappingRows(conn);
  const idPrefix = `crm-${provider}-map`;
  const { form, set, id, status, busy, submit } = useEditForm({
    idPrefix,
    initial: () => ({ fields: Object.fromEntries(rows.map((r) => [r.key, r.field])) as Record<string, string>, create_missing: conn.create_missing }),
    validate: (f) => ({ ok: true, body: mappingPatch(conn, f.fields, f.create_missing) }),
    save: (body) => api.updateCrm(customerId, provider, body),
    saved: 'Mapping saved: the next sync writes these fields.',
    onSaved: onChanged,
  });
  const refused = status && !status.ok ? new Set(mappingErrorKeys(status.text)) : new Set<string>();
  const rule =
    provider === 'hubspot' ? (
      <>
        HubSpot properties named <code>svc_…</code> (lower-case letters, digits, _), created in svc's own property group when missing.
      </>
    ) : (
      <>
        Salesforce custom fields on Account named <code>Svc_…__c</code>, created by your Salesforce admin.
      </>
    );
  const table = (
    <Table labelledBy={`${idPrefix}-title`} extraClass="tokens crm-mapping" testId="crm-mapping" columns={['svc value', `${CRM_NAMES[provider]} field`]}>
      {rows.map((r) => (
        <tr key={r.key}>
          <th scope="row">
            {canWrite ? (
              <label for={id(`field-${r.key}`)}>
                <code>{r.key}</code>
              </label>
            ) : (
              <code>{r.key}</code>
            )}
          </th>
          <td>
            {canWrite ? (
              <TextInput
                id={id(`field-${r.key}`)}
                autoComplete="off"
                spellcheck={false}
                placeholder="not written"
                value={form.fields[r.key] ?? ''}
                invalid={refused.has(r.key)}
                describedBy={`${idPrefix}-hint`}
                onValue={(v) => set('fields', { ...form.fields, [r.key]: v })}
              />
            ) : r.field ? (
              <code>{r.field}</code>
            ) : (
              <span class="muted">not written</span>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
  return (
    <section aria-labelledby={`${idPrefix}-title`} class="crm-panel">
      <h3 id={`${idPrefix}-title`}>What is written</h3>
      <p class="hint" id={`${idPrefix}-hint`}>
        Each svc value and the {CRM_NAMES[provider]} field it is written to; empty: not written. svc writes only fields it owns: {rule}
      </p>
      {canWrite ? (
        <form onSubmit={submit} noValidate aria-label={`${CRM_NAMES[provider]} mapping`} data-testid="crm-mapping-form">
          {table}
          <Checkbox label="Create missing CRM accounts" checked={form.create_missing} onChecked={(on) => set('create_missing', on)} />
          <EditFormFooter busy={busy} status={status} label="Save mapping" />
        </form>
      ) : (
        table
      )}
    </section>
  );
}

/** The runs log, newest first: counts, and each run's per-record errors behind a disclosure. */
function Runs({ provider, runs, load }: { provider: CrmProvider; runs: CrmRunRecord[] | null; load: { error: string | null; reload(): void } }) {
  const title = `crm-${provider}-runs-title`;
  return (
    <section aria-labelledby={title} class="crm-panel" data-testid="crm-runs">
      <div class="section-head">
        <h3 id={title}>Last runs</h3>
        <Button variant="quiet" onClick={load.reload}>
          Refresh runs
        </Button>
      </div>
      {load.error && (
        <p class="error" role="alert">
          Could not load the runs: {load.error}
        </p>
      )}
      {runs && runs.length === 0 && <p class="muted">No runs yet.</p>}
      {runs && runs.length > 0 && (
        <Table
          labelledBy={title}
          extraClass="tokens crm-runs"
          columns={['Started', 'Kind', 'Status', ...RUN_COUNTS.map(([, label]) => ({ title: label, num: true })), 'Errors']}
        >
          {runs.map((r) => (
            <tr key={r.id} data-testid="crm-run" data-status={r.status} data-kind={r.kind}>
              <th scope="row" class="when">
                {formatDateTime(r.started_at)}
              </th>
              <td>{RUN_KIND_LABELS[r.kind]}</td>
              <td>
                <span class={`badge badge-${runTone(r.status)}`} data-testid="crm-run-status">
                  {r.status}
                </span>
                {r.message && <p class="hint">{r.message}</p>}
              </td>
              {RUN_COUNTS.map(([k]) => (
                <td key={k} class="num" data-count={k}>
                  {formatCount(r.counts[k])}
                </td>
              ))}
              <td>
                {r.errors.length === 0 ? (
                  <span class="muted">—</span>
                ) : (
                  <details class="crm-errors">
                    <summary>
                      {r.errors.length} {r.errors.length === 1 ? 'record' : 'records'}
                    </summary>
                    <ul>
                      {r.errors.map((e, i) => (
                        <li key={i}>
                          {[e.domain ?? e.company_id, e.crm_id && `CRM ${e.crm_id}`, e.field && <code>{e.field}</code>].filter(Boolean).map((part, j) => (
                            <span key={j}>
                              {j > 0 && ' · '}
                              {part}
                            </span>
                          ))}
                          : {e.message}
                        </li>
                      ))}
                    </ul>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
