/**
 * The audit log (owner, admin or the operator: `audit:read`): who did what, when, from which address, to
 * which record, and the fields before → after; a date range (the last 30 days by default) and a CSV
 * download of the same events (Accept: text/csv, so it works with the admin token as with the cookie).
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { AdminClient } from '../admin-client.ts';
import { actorLabel, auditCsvName, changeLines, defaultRange } from '../audit-view.ts';
import { formatDate, formatDateTime } from './datetime.ts';
import { Table } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { ReportFilters } from './ReportFilters.tsx';
import { saveTextFile } from './save-file.ts';
import { useLoad } from './use-load.ts';

/** The API's default number of events per answer. */
const AUDIT_PAGE = 1_000;

export function AuditPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [range, setRange] = useState(() => defaultRange());
  const log = useLoad(() => api.audit(customer.id, range), [api, customer.id, range.from, range.to]);
  const download = async () => saveTextFile(await api.auditCsv(customer.id, range), auditCsvName(customer.id, range.from, range.to));
  const events = log.data?.events ?? null;
  return (
    <div class="customer" data-testid="audit-page">
      <ReportFilters label="Audit range" idPrefix="audit" range={range} onApply={setRange} download={download} canDownload={!!events} />
      <LoadState load={log} what="the audit log" loading="Loading the audit log…" />
      {events && events.length >= AUDIT_PAGE && (
        <p class="warning" role="status">
          Showing the first {AUDIT_PAGE.toLocaleString('en-US')} events of the range: narrow it to see later ones.
        </p>
      )}
      {events && (
        <Table
          label="Audit events"
          testId="audit-table"
          caption={`Changes and sign-ins from ${formatDate(range.from)} to ${formatDate(range.to)}, oldest first`}
          columns={['When', 'Who', 'From where', 'What', 'Target', 'Before → after']}
          empty="Nothing was recorded in this range."
          rowCount={events.length}
        >
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
        </Table>
      )}
    </div>
  );
}
