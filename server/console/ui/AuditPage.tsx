/**
 * The audit log (owner, admin or the operator: `audit:read`): who did what, when, from which address, to
 * which record, and the fields before → after; a date range (the last 30 days by default) and a CSV
 * download of the same events (Accept: text/csv, so it works with the admin token as with the cookie).
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../state/store.ts';
import type { AdminClient } from '../admin-client.ts';
import { actorLabel, auditCsvName, changeLines, defaultRange } from '../audit-view.ts';
import { DateRangeFields } from './DateRangeFields.tsx';
import { formatDate, formatDateTime } from './datetime.ts';
import { ScrollTable } from './ScrollTable.tsx';
import { saveTextFile } from './save-file.ts';
import { useLoad } from './use-load.ts';

/** The API's default number of events per answer. */
const AUDIT_PAGE = 1_000;

export function AuditPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [range, setRange] = useState(() => defaultRange());
  const [draft, setDraft] = useState(range);
  const [csvError, setCsvError] = useState<string | null>(null);
  const log = useLoad(() => api.audit(customer.id, range), [api, customer.id, range.from, range.to]);

  const download = async () => {
    setCsvError(null);
    try {
      saveTextFile(await api.auditCsv(customer.id, range), auditCsvName(customer.id, range.from, range.to));
    } catch (err) {
      setCsvError((err as Error).message);
    }
  };
  const events = log.data?.events ?? null;
  return (
    <div class="customer" data-testid="audit-page">
      <form
        class="card filters"
        aria-label="Audit range"
        onSubmit={(e) => {
          e.preventDefault();
          setRange(draft);
        }}
      >
        <DateRangeFields idPrefix="audit" draft={draft} onChange={setDraft} />
        <div class="form-actions">
          <button type="submit" class="btn">
            Show
          </button>
          <button type="button" class="btn btn-quiet" onClick={download} disabled={!events}>
            Download CSV
          </button>
        </div>
      </form>
      {csvError && (
        <p class="error" role="alert">
          Could not download the CSV: {csvError}
        </p>
      )}
      {log.error && (
        <p class="error" role="alert">
          Could not load the audit log: {log.error}
        </p>
      )}
      {!events && !log.error && <p class="muted">Loading the audit log…</p>}
      {events && events.length >= AUDIT_PAGE && (
        <p class="warning" role="status">
          Showing the first {AUDIT_PAGE.toLocaleString('en-US')} events of the range: narrow it to see later ones.
        </p>
      )}
      {events && (
        <ScrollTable label="Audit events">
          <table data-testid="audit-table">
            <caption class="sr-only">
              Changes and sign-ins from {formatDate(range.from)} to {formatDate(range.to)}, oldest first
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">From where</th>
                <th scope="col">What</th>
                <th scope="col">Target</th>
                <th scope="col">Before → after</th>
              </tr>
            </thead>
            <tbody>
              {events.length === 0 && (
                <tr>
                  <td colSpan={6} class="muted">
                    Nothing was recorded in this range.
                  </td>
                </tr>
              )}
              {events.map((e) => (
                <tr key={e.id} data-testid="audit-row">
                  <td class="when">{formatDateTime(e.at)}</td>
                  <td>{actorLabel(e.actor)}</td>
                  <td>{e.ip ?? '—'}</td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>{e.target ?? '—'}</td>
                  <td>
                    <ul class="plain changes">
                      {changeLines(e.before, e.after).map((line) => (
                        <li key={line}>{line}</li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
    </div>
  );
}
