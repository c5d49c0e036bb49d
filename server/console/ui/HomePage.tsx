/**
 * Home: what changed with the customer's accounts this week against last week (GET …/home), the accounts
 * to act on now, each a link to its account page, and identified vs anonymous page views per day (the
 * Visitors page's chart). The landing once the onboarding checklist is done (guide-view.ts).
 */
import type { CustomerRecord } from '../../../core/access-records.ts';
import { hashForAccount, hashForCustomer } from '../../../core/console-links.ts';
import type { AdminClient } from '../admin-client.ts';
import { figureRows, periodLabel, reasonText } from '../home-view.ts';
import { DailyChart } from './DailyChart.tsx';
import { formatDate } from './datetime.ts';
import { Card, EmptyState, Table } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { useLoad } from './use-load.ts';

const ARROWS = { up: '▲', down: '▼', flat: '=', none: '' } as const;

export function HomePage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const home = useLoad(() => api.home(customer.id), [api, customer.id]);
  const data = home.data;
  return (
    <div class="customer" data-testid="home-page">
      <LoadState load={home} what="the home page" loading="Loading this week…" />
      {data && (
        <>
          <section aria-labelledby="home-figures-title">
            <h2 id="home-figures-title">This week against last week</h2>
            <p class="muted">
              {periodLabel(data.current)} against {periodLabel(data.previous)} (UTC days)
            </p>
            <Table
              labelledBy="home-figures-title"
              scrollTestId="home-figures-scroll"
              testId="home-figures"
              columns={['Figure', { title: 'This week', num: true }, { title: 'Last week', num: true }, { title: 'Change', num: true }]}
            >
              {figureRows(data.current, data.previous).map((r) => (
                <tr key={r.key} data-testid={`figure-${r.key}`}>
                  <th scope="row">{r.label}</th>
                  <td class="num" data-testid="figure-value">
                    {r.value}
                  </td>
                  <td class="num">{r.previous}</td>
                  <td class="num">
                    {ARROWS[r.trend] && <span aria-hidden="true">{ARROWS[r.trend]} </span>}
                    {r.change}
                  </td>
                </tr>
              ))}
            </Table>
            {data.current.segment_entries === null && (
              <p class="muted">
                Segment entries are counted while a webhook or Slack endpoint needs segment facts:{' '}
                <a href={hashForCustomer(customer.id, 'webhooks')}>add one</a>.
              </p>
            )}
          </section>
          <Card title="Accounts to act on now" titleId="home-accounts-title" testId="home-accounts">
            {data.accounts.length === 0 ? (
              <EmptyState>No identified account visited this week yet.</EmptyState>
            ) : (
              <ol class="home-accounts" aria-labelledby="home-accounts-title">
                {data.accounts.map((a) => (
                  <li key={a.company_id} data-testid="home-account">
                    <a href={hashForAccount(customer.id, a.company_id)}>{a.name ?? a.company_id}</a>{' '}
                    <span class="muted">
                      {a.domain ?? '—'} · <code>{a.company_id}</code>
                    </span>
                    {a.hot && <span class="badge badge-hot">hot</span>}
                    <div>{reasonText(a)}</div>
                  </li>
                ))}
              </ol>
            )}
          </Card>
          <section aria-labelledby="home-daily-title">
            <h2 id="home-daily-title">Identified vs anonymous page views</h2>
            <p class="muted">
              {formatDate(data.current.from)} to {formatDate(data.current.to)}: {data.current.identified_page_views} identified,{' '}
              {data.current.anonymous_page_views} anonymous
            </p>
            <div class="card">
              <DailyChart daily={data.daily} />
            </div>
          </section>
        </>
      )}
    </div>
  );
}
