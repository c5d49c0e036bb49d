/**
 * "Enrich a file": a CSV of emails or domains (a CRM export) uploaded to the server, enriched there in the
 * background row by row as the batch API answers (the same answers and credits as `svc enrich`), its
 * progress followed here — rows, rate, time left — and its result downloaded: the file's rows plus the
 * company columns and a `status` column. The column to read is picked from the file's own header before
 * anything is sent; a file the server refuses (not CSV, a bad line, too big, no credits) says why.
 */

import { useEffect, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { EnrichJob } from '../../enrichment/jobs/job-store.ts';
import { AdminApiError, type AdminClient } from '../admin-client.ts';
import { csvHeader, defaultColumnOf, fileProblem, formatBytes, jobProgress, needsPolling, resultFileName, statusSummary, uploadError } from '../enrich-view.ts';
import { formatDateTime } from './datetime.ts';
import { Button, FileInput, Select, Table } from './kit/index.ts';
import { saveBlob } from './save-file.ts';
import { useLoad } from './use-load.ts';

/** How often progress is asked for while a job is queued or running. */
const POLL_MS = 1_000;
/** Enough of the file's beginning to hold its header row. */
const HEAD_BYTES = 64 * 1024;

export function EnrichPage({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  const jobs = useLoad(() => api.enrichJobs(customer.id), [api, customer.id]);
  const [file, setFile] = useState<File | null>(null);
  const [header, setHeader] = useState<string[] | null>(null);
  const [column, setColumn] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const polling = jobs.data !== null && needsPolling(jobs.data.jobs);
  const reload = jobs.reload;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, [polling, reload]);

  const choose = async (picked: File | null) => {
    setFile(picked);
    setError(null);
    setHeader(null);
    setProblem(null);
    if (!picked) return;
    const head = picked.size > 0 ? csvHeader(await picked.slice(0, HEAD_BYTES).text()) : null;
    setHeader(head);
    setColumn(head ? (defaultColumnOf(head) ?? '') : '');
    setProblem(fileProblem(picked, head));
  };

  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file || problem) return;
    setBusy(true);
    setError(null);
    try {
      await api.uploadEnrichment(customer.id, file, { name: file.name, column: column || null });
      setFile(null);
      setHeader(null);
      (document.getElementById('enr-file') as HTMLInputElement | null)?.form?.reset();
      jobs.reload();
    } catch (err) {
      setError(err instanceof AdminApiError ? uploadError(err.status, err.message) : (err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="customer" data-testid="enrich-page">
      <section aria-label="Enrich a file">
        <p class="muted">
          Upload a CSV of contacts or accounts (an <code>email</code> or <code>domain</code> column). Every row is enriched as the API answers it: the company's
          firmographics, its segments and a <code>status</code> column (200 found, 404 no company, 422 invalid value, 402 no credit left). Each company costs 1
          Enrichment credit per calendar month; repeats are free.
        </p>
        {canWrite && (
          <form class="card enr-form" onSubmit={upload} aria-label="Upload a CSV file" data-testid="enrich-form">
            <div class="field">
              <label for="enr-file">CSV file</label>
              <FileInput id="enr-file" accept=".csv,text/csv" onFile={choose} />
              {file && (
                <p class="hint" data-testid="enrich-file-info">
                  {file.name} · {formatBytes(file.size)}
                </p>
              )}
            </div>
            {header && (
              <div class="field">
                <label for="enr-column">Column to enrich</label>
                <Select
                  id="enr-column"
                  value={column}
                  options={[...(defaultColumnOf(header) === null ? [['', 'Choose a column'] as const] : []), ...header.map((h) => [h, h] as const)]}
                  onValue={setColumn}
                />
                <p class="hint">A column whose name holds “domain” or “website” is read as domains; any other as emails.</p>
              </div>
            )}
            {problem && (
              <p class="error" role="alert" data-testid="enrich-file-problem">
                {problem}
              </p>
            )}
            <Button type="submit" disabled={busy || !file || problem !== null || (header !== null && column === '')}>
              {busy ? 'Uploading…' : 'Upload and enrich'}
            </Button>
          </form>
        )}
        {error && (
          <p class="error" role="alert" data-testid="enrich-error">
            {error}
          </p>
        )}
      </section>
      <section aria-label="Enrichment jobs">
        <div class="section-head">
          <h2>Jobs</h2>
        </div>
        {jobs.error && (
          <p class="error" role="alert">
            Could not load the jobs: {jobs.error}
          </p>
        )}
        {jobs.data && jobs.data.jobs.length === 0 && <p class="muted">No files enriched on this server yet.</p>}
        {jobs.data && jobs.data.jobs.length > 0 && (
          <Table
            label="Enrichment jobs"
            extraClass="tokens enr-jobs"
            testId="enrich-jobs"
            columns={['File', 'Uploaded', 'Progress', 'Rows', { title: 'Credits', num: true }, { title: 'Actions', actions: true, hidden: true }]}
          >
            {jobs.data.jobs.map((job) => (
              <JobRow key={job.id} api={api} customer={customer} job={job} canWrite={canWrite} onChange={jobs.reload} />
            ))}
          </Table>
        )}
        {jobs.data && (
          <p class="hint">
            Jobs and their files stay on the server that took the upload (<code>{jobs.data.node}</code>) for 7 days.
          </p>
        )}
      </section>
    </div>
  );
}

function JobRow({
  api,
  customer,
  job,
  canWrite,
  onChange,
}: {
  api: AdminClient;
  customer: CustomerRecord;
  job: EnrichJob;
  canWrite: boolean;
  onChange(): void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const p = jobProgress(job);
  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const download = () => act(async () => saveBlob(await api.enrichResult(customer.id, job.id), resultFileName(job.file_name)));
  const remove = () =>
    act(async () => {
      await api.deleteEnrichJob(customer.id, job.id);
      onChange();
    });
  return (
    <tr data-testid="enrich-job" data-status={job.status}>
      <td>
        <strong>{job.file_name}</strong>
        <div class="muted">
          column <code>{job.column_used}</code> · {formatBytes(job.input_bytes)}
        </div>
      </td>
      <td>
        {formatDateTime(job.created_at)}
        <div class="muted">{job.created_by}</div>
      </td>
      <td class="enr-progress-cell">
        <span class={`enr-status enr-status-${job.status}`} data-testid="enrich-job-status">
          {p.status}
        </span>
        <progress class="enr-bar" max={100} value={p.percent} aria-label={`${job.file_name}: ${p.percent} %`} />
        <div class="muted" data-testid="enrich-job-progress">
          {p.rows}
          {p.rate && ` · ${p.rate}`}
          {p.left && ` · ${p.left}`}
        </div>
        {job.error && (
          <div class={job.status === 'failed' ? 'error' : 'muted'} role={job.status === 'failed' ? 'alert' : undefined} data-testid="enrich-job-error">
            {job.status === 'failed' ? job.error : `Retrying after: ${job.error}`}
          </div>
        )}
        {error && (
          <div class="error" role="alert">
            {error}
          </div>
        )}
      </td>
      <td data-testid="enrich-job-statuses">{statusSummary(job.statuses) || <span class="muted">—</span>}</td>
      <td class="num" data-testid="enrich-job-credits">
        {job.credits.toLocaleString('en-US')}
      </td>
      <td class="actions">
        {job.status === 'done' && (
          <Button disabled={busy} onClick={download} data-testid="enrich-download">
            Download result
          </Button>
        )}
        {canWrite && (
          <Button variant="danger-quiet" disabled={busy} onClick={remove}>
            {job.status === 'queued' || job.status === 'running' ? 'Cancel' : 'Remove'}
          </Button>
        )}
      </td>
    </tr>
  );
}
