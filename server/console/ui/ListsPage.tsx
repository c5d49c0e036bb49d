/**
 * Account lists (`reports:read` to see, `segments:write` to change): the hot accounts, the excluded
 * accounts and the named lists a segment can use (`in_list`). A list's members (company id, name, domain)
 * with Remove; accounts added by domain or company id (sent as a one-file upload, so the same report
 * shows what matched); a CSV upload (add or replace) whose report lists the rows matched, not found and
 * duplicated. A bad file is the server's message, and nothing changed.
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { ListSummary, UploadReport } from '../../lists/schema.ts';
import type { AdminClient } from '../admin-client.ts';
import { csvForAccounts, deletable, reportHeadline, withoutAccount } from '../lists-view.ts';
import { Button, FileInput, Radio, Table, TextArea, TextInput } from './kit/index.ts';
import { useLoad } from './use-load.ts';

/** Members shown per list (the API pages; the page says when there are more). */
const SHOWN = 500;

export function ListsPage({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  const lists = useLoad(() => api.lists(customer.id), [api, customer.id]);
  const [selected, setSelected] = useState('hot');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const created = await api.createList(customer.id, name.trim());
      setName('');
      setSelected(created.id);
      lists.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const current = lists.data?.lists.find((l) => l.id === selected) ?? null;
  return (
    <div class="customer" data-testid="lists-page">
      <section aria-label="Account lists">
        <div class="section-head">
          <h2>Account lists</h2>
        </div>
        <p class="muted">
          Hot accounts are flagged in every answer (<code>is_svcqa</code>), excluded accounts too (<code>is_blacklisted</code>); a segment can require any list
          with “in list”.
        </p>
        {lists.error && (
          <p class="error" role="alert">
            Could not load the lists: {lists.error}
          </p>
        )}
        {lists.data && (
          <Table label="Account lists" extraClass="tokens" testId="lists" columns={['List', 'Id', { title: 'Accounts', num: true }]}>
            {lists.data.lists.map((l) => (
              <tr key={l.id} data-testid={`list-row-${l.id}`} aria-current={l.id === selected ? 'true' : undefined}>
                <td>
                  <Button variant="quiet" onClick={() => setSelected(l.id)} aria-pressed={l.id === selected}>
                    {l.name}
                  </Button>
                </td>
                <td>
                  <code>{l.id}</code>
                </td>
                <td class="num">{l.size.toLocaleString('en-US')}</td>
              </tr>
            ))}
          </Table>
        )}
        {canWrite && (
          <form class="card token-form" onSubmit={create} aria-label="New list">
            <div class="field">
              <label for="new-list-name">New list</label>
              <TextInput id="new-list-name" value={name} maxLength={200} required onValue={setName} />
            </div>
            <div class="actions">
              <Button type="submit" disabled={name.trim() === ''}>
                Create list
              </Button>
            </div>
          </form>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </section>
      {current && (
        <ListDetailView
          key={current.id}
          api={api}
          customerId={customer.id}
          list={current}
          canWrite={canWrite}
          onChanged={lists.reload}
          onDeleted={() => {
            setSelected('hot');
            lists.reload();
          }}
        />
      )}
    </div>
  );
}

function ListDetailView(props: { api: AdminClient; customerId: string; list: ListSummary; canWrite: boolean; onChanged(): void; onDeleted(): void }) {
  const { api, customerId, list, canWrite } = props;
  const detail = useLoad(() => api.list(customerId, list.id, { offset: 0, limit: SHOWN }), [api, customerId, list.id, list.size]);
  const [typed, setTyped] = useState('');
  const [mode, setMode] = useState<'add' | 'replace'>('add');
  const [file, setFile] = useState<File | null>(null);
  const [report, setReport] = useState<UploadReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const sendCsv = (csv: string, m: 'add' | 'replace') =>
    run(async () => {
      setReport(null);
      setReport(await api.uploadList(customerId, list.id, csv, m));
      detail.reload();
      props.onChanged();
    });
  const add = (e: Event) => {
    e.preventDefault();
    const csv = csvForAccounts(typed);
    if (csv === null) return;
    setTyped('');
    void sendCsv(csv, 'add');
  };
  const upload = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void run(async () => {
      const text = await file.text();
      setReport(null);
      setReport(await api.uploadList(customerId, list.id, text, mode));
      detail.reload();
      props.onChanged();
    });
  };
  const remove = (companyId: string) =>
    run(async () => {
      // The whole list, as the API replaces it (the first SHOWN are on the page: the rest is fetched with it).
      const all = await api.list(customerId, list.id, { offset: 0, limit: 5000 });
      let ids = all.accounts.map((a) => a.company_id);
      for (let offset = ids.length; offset < all.size; offset += 5000) {
        ids = ids.concat((await api.list(customerId, list.id, { offset, limit: 5000 })).accounts.map((a) => a.company_id));
      }
      await api.updateList(customerId, list.id, { company_ids: withoutAccount(ids, companyId) });
      detail.reload();
      props.onChanged();
    });
  const removeList = () =>
    run(async () => {
      await api.deleteList(customerId, list.id);
      props.onDeleted();
    });

  const accounts = detail.data?.accounts ?? null;
  return (
    <section aria-label={list.name} data-testid="list-detail">
      <div class="section-head">
        <h2>
          {list.name} <span class="muted">({list.size.toLocaleString('en-US')} accounts)</span>
        </h2>
        {canWrite && deletable(list.kind) && (
          <div class="tag-actions">
            {confirming ? (
              <>
                <Button variant="danger" onClick={removeList} disabled={busy}>
                  Delete “{list.name}”
                </Button>
                <Button variant="quiet" onClick={() => setConfirming(false)}>
                  Keep it
                </Button>
              </>
            ) : (
              <Button variant="danger-quiet" onClick={() => setConfirming(true)}>
                Delete list
              </Button>
            )}
          </div>
        )}
      </div>
      {canWrite && (
        <div class="credits">
          <form class="card" onSubmit={add} aria-label="Add accounts">
            <div class="field">
              <label for="list-add">Add accounts</label>
              <TextArea id="list-add" rows={3} value={typed} placeholder={'northwind.example\n900002'} onValue={setTyped} />
              <p class="hint">Domains or company ids, one per line.</p>
            </div>
            <Button type="submit" disabled={busy || typed.trim() === ''}>
              Add
            </Button>
          </form>
          <form class="card" onSubmit={upload} aria-label="CSV upload" data-testid="upload-form">
            <div class="field">
              <label for="list-file">Upload CSV</label>
              <FileInput id="list-file" accept=".csv,text/csv" onFile={setFile} />
              <p class="hint">A header row with a domain or company_id column; one row per account (at most 100,000 rows, 5 MB).</p>
            </div>
            <fieldset class="field checks">
              <legend>Mode</legend>
              <Radio name="list-mode" value="add" label="Add to the list" checked={mode === 'add'} onChosen={() => setMode('add')} />
              <Radio name="list-mode" value="replace" label="Replace the list" checked={mode === 'replace'} onChosen={() => setMode('replace')} />
            </fieldset>
            <Button type="submit" disabled={busy || !file}>
              Upload
            </Button>
          </form>
        </div>
      )}
      {error && (
        <p class="error" role="alert" data-testid="list-error">
          {error} (nothing was changed)
        </p>
      )}
      {report && <ReportView report={report} />}
      {detail.error && (
        <p class="error" role="alert">
          Could not load the list: {detail.error}
        </p>
      )}
      {accounts && accounts.length === 0 && <p class="muted">No accounts in this list yet.</p>}
      {accounts && accounts.length > 0 && (
        <Table
          label={`Accounts in ${list.name}`}
          extraClass="tokens"
          testId="list-members"
          columns={['Company id', 'Name', 'Domain', list.kind === 'hot' && 'Products', canWrite && { title: 'Actions', actions: true }]}
        >
          {accounts.map((a) => (
            <tr key={a.company_id} data-testid="list-member">
              <td>
                <code>{a.company_id}</code>
              </td>
              <td>{a.name ?? <span class="muted">not in the catalog</span>}</td>
              <td>{a.domain ?? '—'}</td>
              {list.kind === 'hot' && <td>{a.products && a.products.length > 0 ? a.products.join(', ') : 'every product'}</td>}
              {canWrite && (
                <td class="actions">
                  <Button variant="danger-quiet" disabled={busy} onClick={() => remove(a.company_id)}>
                    Remove
                  </Button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
      {detail.data && detail.data.size > detail.data.accounts.length && (
        <p class="muted">
          Showing the first {detail.data.accounts.length.toLocaleString('en-US')} of {detail.data.size.toLocaleString('en-US')} accounts.
        </p>
      )}
    </section>
  );
}

function ReportView({ report }: { report: UploadReport }) {
  return (
    <div class={`card ${report.applied ? '' : 'warning'}`} role="status" data-testid="upload-report">
      <p>
        <strong>{reportHeadline(report)}</strong>
      </p>
      <ul class="stats">
        <li data-testid="report-matched">Matched: {report.matched}</li>
        <li data-testid="report-not-found-count">Not found: {report.not_found.length}</li>
        <li data-testid="report-duplicates-count">Duplicated: {report.duplicates.length}</li>
      </ul>
      <RowsTable title="Rows not found" testid="report-not-found" rows={report.not_found} />
      <RowsTable title="Duplicated rows (already named by an earlier row)" testid="report-duplicates" rows={report.duplicates} />
    </div>
  );
}

function RowsTable({ title, testid, rows }: { title: string; testid: string; rows: UploadReport['not_found'] }) {
  if (rows.length === 0) return null;
  return (
    <details open={rows.length <= 20}>
      <summary>
        {title} ({rows.length})
      </summary>
      <Table label={title} extraClass="tokens" testId={testid} columns={[{ title: 'Row', num: true }, 'Value']}>
        {rows.map((r) => (
          <tr key={r.row}>
            <td class="num">{r.row}</td>
            <td>{r.value === '' ? <span class="muted">(blank)</span> : <code>{r.value}</code>}</td>
          </tr>
        ))}
      </Table>
    </details>
  );
}
