/**
 * Visitors: which accounts visited the customer's site (from the tag's page views), with daily identified
 * vs anonymous page views as a chart, filters by date range and segment, and a CSV download of the table.
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../state/store.ts';
import type { AdminClient } from '../admin-client.ts';
import { hashForAccount } from '../customer-link.ts';
import { formatCount } from '../format.ts';
import { csvFileName, defaultRange } from '../visits-view.ts';
import { DailyChart } from './DailyChart.tsx';
import { DateRangeFields } from './DateRangeFields.tsx';
import { formatDate, formatDateTime } from './datetime.ts';
import { ScrollTable } from './ScrollTable.tsx';
import { useLoad } from './use-load.ts';

export function VisitorsPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [range, setRange] = useState(() => ({ ...defaultRange(), segment: null as number | null }));
  const [draft, setDraft] = useState(range);
  const [csvError, setCsvError] = useState<string | null>(null);
  const report = useLoad(() => api.visits(customer.id, range), [api, customer.id, range.from, range.to, range.segment]);
  const segmentName = (id: number) => customer.segments.find((s) => s.id === id)?.name ?? `#${id}`;

  const apply = (e: Event) => {
    e.preventDefault();
    setRange(draft);
  };
  const download = async () => {
    setCsvError(null);
    try {
      const csv = await api.visitsCsv(customer.id, range);
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = csvFileName(customer.id, range.from, range.to, range.segment);
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setCsvError((err as Error).message);
    }
  };

  const data = report.data;
  return (
    <div class="customer" data-testid="visitors-page">
      <form class="card filters" onSubmit={apply} aria-label="Report filters">
        <DateRangeFields idPrefix="visits" draft={draft} onChange={setDraft} />
        <div class="field">
          <label for="visits-segment">Segment</label>
          <select
            id="visits-segment"
            value={draft.segment === null ? '' : String(draft.segment)}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              setDraft({ ...draft, segment: v === '' ? null : Number(v) });
            }}
          >
            <option value="">All accounts</option>
            {customer.segments.map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div class="form-actions">
          <button type="submit" class="btn">
            Show
          </button>
          <button type="button" class="btn btn-quiet" onClick={download} disabled={!data}>
            Download CSV
          </button>
        </div>
      </form>
      {csvError && (
        <p class="error" role="alert">
          Could not download the CSV: {csvError}
        </p>
      )}
      {report.error && (
        <p class="error" role="alert">
          Could not load the visitors: {report.error}
        </p>
      )}
      {!data && !report.error && <p class="muted">Loading visitors…</p>}
      {data && (
        <>
          <section aria-labelledby="visits-daily-title">
            <h2 id="visits-daily-title">Page views per day</h2>
            <ul class="stats" data-testid="visits-totals">
              <li>
                <strong>{formatCount(data.totals.page_views)}</strong> page views
              </li>
              <li>
                <strong>{formatCount(data.totals.identified)}</strong> identified
              </li>
              <li>
                <strong>{formatCount(data.totals.anonymous)}</strong> anonymous
              </li>
              <li>
                <strong>{formatCount(data.totals.accounts)}</strong> accounts{data.segment !== null && ` in ${segmentName(data.segment)}`}
              </li>
            </ul>
            <div class="card">
              <DailyChart daily={data.daily} />
            </div>
          </section>
          <section aria-labelledby="visits-accounts-title">
            <h2 id="visits-accounts-title">Accounts that visited</h2>
            <ScrollTable labelledBy="visits-accounts-title" testId="visits-scroll">
              <table data-testid="visits-table">
                <caption class="sr-only">
                  Accounts from {formatDate(data.from)} to {formatDate(data.to)}, most page views first
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col" class="num">
                      Page views
                    </th>
                    <th scope="col" class="num">
                      Sessions
                    </th>
                    <th scope="col">First seen</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">Top pages</th>
                    <th scope="col">Segments</th>
                    <th scope="col">Flags</th>
                  </tr>
                </thead>
                <tbody>
                  {data.accounts.length === 0 && (
                    <tr>
                      <td colSpan={8} class="muted">
                        No identified accounts visited in this range.
                      </td>
                    </tr>
                  )}
                  {data.accounts.map((a) => (
                    <tr key={a.company_id}>
                      <th scope="row">
                        <a href={hashForAccount(customer.id, a.company_id)}>{a.name ?? a.company_id}</a>
                        <div class="muted">
                          {a.domain ?? '—'} · <code>{a.company_id}</code>
                        </div>
                      </th>
                      <td class="num">{formatCount(a.page_views)}</td>
                      <td class="num">{formatCount(a.sessions)}</td>
                      <td class="when">{formatDateTime(a.first_seen)}</td>
                      <td class="when">{formatDateTime(a.last_seen)}</td>
                      <td>
                        <ul class="plain">
                          {a.top_pages.map((p) => (
                            <li key={p.path}>
                              <code>{p.path}</code> <span class="muted">({formatCount(p.page_views)})</span>
                            </li>
                          ))}
                        </ul>
                      </td>
                      <td>{a.segment_ids.map(segmentName).join(', ') || '—'}</td>
                      <td>
                        {a.hot_account && <span class="badge badge-ok">hot</span>}
                        {a.excluded && <span class="badge badge-warn">excluded</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
          </section>
        </>
      )}
    </div>
  );
}
