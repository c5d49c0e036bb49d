/**
 * Visitors: which accounts visited the customer's site (from the tag's page views), with daily identified
 * vs anonymous page views as a chart, filters by date range and segment, and a CSV download of the table;
 * then its coverage — how many of the visitors svc sees (the match rate per day, as a chart) and why the
 * others were not identified (the split by reason, as a table; its days as CSV).
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { hashForAccount } from '../../../core/console-links.ts';
import type { AdminClient } from '../admin-client.ts';
import { formatCount } from '../format.ts';
import { formatRate } from '../home-view.ts';
import { csvFileName, daysCsvFileName, defaultRange, splitRows } from '../visits-view.ts';
import { DailyChart } from './DailyChart.tsx';
import { formatDate, formatDateTime } from './datetime.ts';
import { Button, ErrorBox, Select, Table } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { ReportFilters } from './ReportFilters.tsx';
import { StatList } from './StatList.tsx';
import { saveTextFile } from './save-file.ts';
import { TopPages } from './TopPages.tsx';
import { useLoad } from './use-load.ts';

export function VisitorsPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [range, setRange] = useState(() => ({ ...defaultRange(), segment: null as number | null }));
  const report = useLoad(() => api.visits(customer.id, range), [api, customer.id, range.from, range.to, range.segment]);
  const download = async () => saveTextFile(await api.visitsCsv(customer.id, range), csvFileName(customer.id, range.from, range.to, range.segment));
  const [daysError, setDaysError] = useState<string | null>(null);
  const downloadDays = async () => {
    setDaysError(null);
    try {
      saveTextFile(await api.visitsDaysCsv(customer.id, range), daysCsvFileName(customer.id, range.from, range.to, range.segment));
    } catch (err) {
      setDaysError((err as Error).message);
    }
  };
  const segmentName = (id: number) => customer.segments.find((s) => s.id === id)?.name ?? `#${id}`;

  const data = report.data;
  return (
    <div class="customer" data-testid="visitors-page">
      <ReportFilters label="Report filters" idPrefix="visits" range={range} onApply={setRange} download={download} canDownload={!!data}>
        {(draft, setDraft) => (
          <div class="field">
            <label for="visits-segment">Segment</label>
            <Select
              id="visits-segment"
              value={draft.segment === null ? '' : String(draft.segment)}
              options={[['', 'All accounts'], ...customer.segments.map((s) => [String(s.id), s.name] as const)]}
              onValue={(v) => setDraft({ ...draft, segment: v === '' ? null : Number(v) })}
            />
          </div>
        )}
      </ReportFilters>
      <LoadState load={report} what="the visitors" loading="Loading visitors…" />
      {data && (
        <>
          <section aria-labelledby="visits-daily-title">
            <h2 id="visits-daily-title">Page views per day</h2>
            <StatList
              testId="visits-totals"
              stats={[
                [data.totals.page_views, 'page views'],
                [data.totals.identified, 'identified'],
                [data.totals.anonymous, 'anonymous'],
                [data.totals.accounts, data.segment === null ? 'accounts' : `accounts in ${segmentName(data.segment)}`],
              ]}
            />
            <div class="card">
              <DailyChart daily={data.daily} />
            </div>
          </section>
          <section aria-labelledby="visits-coverage-title" data-testid="visits-coverage">
            <h2 id="visits-coverage-title">How many of your visitors you see</h2>
            <p data-testid="visits-match-rate">
              <strong>{formatRate(data.coverage.match_rate)}</strong> of the page views were identified as a company ({formatCount(data.totals.identified)} of{' '}
              {formatCount(data.totals.page_views)}).
            </p>
            <div class="card">
              <DailyChart daily={data.daily} measure="match-rate" />
            </div>
            <h3 id="visits-unidentified-title">Why the others were not identified</h3>
            <Table
              labelledBy="visits-unidentified-title"
              testId="visits-unidentified"
              caption={`Unidentified page views by reason, ${formatDate(data.from)} to ${formatDate(data.to)}: ${formatCount(data.totals.anonymous)} in all`}
              columns={['Reason', { title: 'Page views', num: true }, { title: 'Share', num: true }]}
            >
              {splitRows(data.coverage.unidentified, data.totals.anonymous).map((r) => (
                <tr key={r.key} data-reason={r.key}>
                  <th scope="row">{r.label}</th>
                  <td class="num">{formatCount(r.page_views)}</td>
                  <td class="num">{r.share}</td>
                </tr>
              ))}
              <tr class="total">
                <th scope="row">All unidentified</th>
                <td class="num">{formatCount(data.totals.anonymous)}</td>
                <td class="num">{formatRate(data.totals.anonymous === 0 ? null : 1)}</td>
              </tr>
            </Table>
            <p>
              <Button variant="quiet" onClick={() => void downloadDays()}>
                Download days CSV
              </Button>
            </p>
            {daysError && <ErrorBox>Could not download the days: {daysError}</ErrorBox>}
          </section>
          <section aria-labelledby="visits-accounts-title">
            <h2 id="visits-accounts-title">Accounts that visited</h2>
            <Table
              labelledBy="visits-accounts-title"
              scrollTestId="visits-scroll"
              testId="visits-table"
              caption={`Accounts from ${formatDate(data.from)} to ${formatDate(data.to)}, most page views first`}
              columns={[
                'Account',
                { title: 'Page views', num: true },
                { title: 'Sessions', num: true },
                'First seen',
                'Last seen',
                'Top pages',
                'Segments',
                'Flags',
              ]}
              empty="No identified accounts visited in this range."
              rowCount={data.accounts.length}
            >
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
                    <TopPages pages={a.top_pages} />
                  </td>
                  <td>{a.segment_ids.map(segmentName).join(', ') || '—'}</td>
                  <td>
                    {a.hot_account && <span class="badge badge-ok">hot</span>}
                    {a.excluded && <span class="badge badge-warn">excluded</span>}
                  </td>
                </tr>
              ))}
            </Table>
          </section>
        </>
      )}
    </div>
  );
}
