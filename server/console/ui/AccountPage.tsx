/**
 * Accounts: a search box over the catalog (company id, domain or name), and one account as the customer
 * knows it — firmographics, scores per product with the factors that made them, segments and lists, page
 * views per day, its sessions with their pages in order (the journey), top pages (query parameters
 * collapsed but the customer's kept ones), the webhooks it raised, its owner and stage in each connected
 * CRM (as the CRM sync read them back) — with a CSV download. The account is in
 * the URL fragment (`#customer=acme&page=accounts&account=900001`): the Visitors table links to it.
 */
import { useEffect, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { accountFromHash, hashForAccount } from '../../../core/console-links.ts';
import { accountCsvFileName, crmLine, intentFactors, listLabels, profileFactors, sessionSummary } from '../account-view.ts';
import type { AdminClient } from '../admin-client.ts';
import { formatCount } from '../format.ts';
import { defaultRange } from '../visits-view.ts';
import { formatDate, formatDateTime } from './datetime.ts';
import { ReportFilters } from './ReportFilters.tsx';
import { ScrollTable } from './ScrollTable.tsx';
import { StatList } from './StatList.tsx';
import { saveTextFile } from './save-file.ts';
import { TopPages } from './TopPages.tsx';
import { useLoad } from './use-load.ts';

export function AccountPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [account, setAccount] = useState(() => accountFromHash(location.hash));
  useEffect(() => {
    const onHash = () => setAccount(accountFromHash(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  return (
    <div class="customer" data-testid="accounts-page">
      <AccountSearch api={api} customer={customer} />
      {account ? (
        <AccountView key={account} api={api} customer={customer} companyId={account} />
      ) : (
        <p class="muted">Search for a company, or open one from the Visitors table.</p>
      )}
    </div>
  );
}

function AccountSearch({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const found = useLoad(() => (asked ? api.searchAccounts(customer.id, asked) : Promise.resolve({ accounts: [] })), [api, customer.id, asked]);
  const search = (e: Event) => {
    e.preventDefault();
    setAsked(q.trim() || null);
  };
  return (
    <section class="card" aria-labelledby="account-search-title">
      <h2 id="account-search-title">Find an account</h2>
      <form class="filters" aria-label="Account search" onSubmit={search}>
        <div class="field">
          <label for="account-search">Company name, domain or id</label>
          <input id="account-search" type="search" value={q} maxLength={200} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <div class="form-actions">
          <button type="submit" class="btn">
            Search
          </button>
        </div>
      </form>
      {found.error && (
        <p class="error" role="alert">
          Could not search: {found.error}
        </p>
      )}
      {asked && found.data && (
        <ul class="plain" data-testid="account-search-results" aria-label="Matching companies">
          {found.data.accounts.length === 0 && <li class="muted">No company starts with “{asked}”.</li>}
          {found.data.accounts.map((a) => (
            <li key={a.company_id}>
              <a href={hashForAccount(customer.id, a.company_id)}>{a.name ?? a.company_id}</a>{' '}
              <span class="muted">
                {a.domain ?? '—'} · {a.industry ?? '—'} · {a.country_iso_code ?? '—'} · <code>{a.company_id}</code>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function AccountView({ api, customer, companyId }: { api: AdminClient; customer: CustomerRecord; companyId: string }) {
  const [range, setRange] = useState(defaultRange);
  const page = useLoad(() => api.account(customer.id, companyId, range), [api, customer.id, companyId, range.from, range.to]);
  const download = async () =>
    saveTextFile(await api.accountCsv(customer.id, companyId, range), accountCsvFileName(customer.id, companyId, range.from, range.to));
  if (page.error) {
    return (
      <p class="error" role="alert">
        Could not load the account {companyId}: {page.error}
      </p>
    );
  }
  const data = page.data;
  if (!data) return <p class="muted">Loading the account…</p>;
  const c = data.company;
  const lists = listLabels(data.lists);
  const totals: [number, string][] = [
    [data.totals.page_views, 'page views'],
    [data.totals.sessions, 'sessions'],
    [data.totals.days_active, 'days active'],
  ];
  return (
    <div data-testid="account-view">
      <section class="customer-head" aria-labelledby="account-name">
        <h2 id="account-name">{c.name ?? data.company_id}</h2>
        <p class="muted">
          {c.domain ?? '—'} · <code>{data.company_id}</code>
        </p>
        {data.crm.length > 0 && (
          <ul class="plain" data-testid="account-crm" aria-label="In the CRM">
            {data.crm.map((crm) => (
              <li key={crm.provider}>
                {crmLine(crm)} <span class="muted">({crm.read_at ? `read back ${formatDateTime(crm.read_at)}` : 'not read back yet'})</span>
              </li>
            ))}
          </ul>
        )}
        <ul class="chips" aria-label="Segments and lists">
          {data.segments.map((s) => (
            <li key={`s${s.id}`}>{s.name}</li>
          ))}
          {lists.map((l) => (
            <li key={`l${l}`}>{l}</li>
          ))}
          {data.segments.length === 0 && lists.length === 0 && <li class="chip-empty">in no segment or list</li>}
        </ul>
      </section>

      <ReportFilters label="Account range" idPrefix="account" range={range} onApply={setRange} download={download} />

      <section aria-labelledby="account-firmographics-title">
        <h2 id="account-firmographics-title">Firmographics</h2>
        <dl class="card" data-testid="account-firmographics">
          {(
            [
              ['Industry', [c.industry, c.industry_v2[0]?.subindustry].filter(Boolean).join(' · ')],
              ['Employees', [c.employee_range, c.employee_count].filter(Boolean).join(' · ')],
              ['Revenue', [c.revenue_range, c.annual_revenue].filter(Boolean).join(' · ')],
              ['Location', [c.city, c.state, c.country, c.region].filter(Boolean).join(', ')],
              ['SIC', [c.sic, c.sic_description].filter(Boolean).join(' ')],
              ['NAICS', [c.naics, c.naics_description].filter(Boolean).join(' ')],
              ['Phone', c.phone],
            ] as const
          ).map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value || '—'}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section aria-labelledby="account-scores-title">
        <h2 id="account-scores-title">Scores</h2>
        {data.scores.length === 0 && <p class="muted">The customer has no products to score for.</p>}
        {data.scores.map((s) => (
          <div class="card" key={s.product} data-testid="account-score">
            <h3>
              {s.product_display_name} {s.is_svcqa && <span class="badge badge-ok">hot</span>}
            </h3>
            <p>
              Intent <strong>{s.intent_score}</strong> ({s.buying_stage}) · Profile <strong>{s.profile_score}</strong> ({s.profile_fit})
            </p>
            <details>
              <summary>
                Why: {formatCount(Math.round(s.factors.intent.points))} intent points, profile {s.factors.profile.points} of 100
              </summary>
              <ul>
                {intentFactors(s).map((line) => (
                  <li key={line}>{line}</li>
                ))}
                {profileFactors(s).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </details>
          </div>
        ))}
      </section>

      <section aria-labelledby="account-daily-title">
        <h2 id="account-daily-title">Page views per day</h2>
        <StatList testId="account-totals" stats={totals} />
        <ScrollTable labelledBy="account-daily-title">
          <table data-testid="account-daily">
            <caption class="sr-only">
              Days with page views from {formatDate(data.from)} to {formatDate(data.to)}
            </caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" class="num">
                  Page views
                </th>
              </tr>
            </thead>
            <tbody>
              {data.daily.filter((d) => d.page_views > 0).length === 0 && (
                <tr>
                  <td colSpan={2} class="muted">
                    No page views in this range.
                  </td>
                </tr>
              )}
              {data.daily
                .filter((d) => d.page_views > 0)
                .map((d) => (
                  <tr key={d.day}>
                    <td class="when">{formatDate(d.day)}</td>
                    <td class="num">{formatCount(d.page_views)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </ScrollTable>
      </section>

      <section aria-labelledby="account-journey-title">
        <h2 id="account-journey-title">Journey</h2>
        {data.sessions.length === 0 && <p class="muted">No sessions in this range.</p>}
        <ol class="plain" data-testid="account-journey">
          {data.sessions.map((s) => (
            <li key={s.session_id} class="card" data-testid="account-session">
              <p>
                <strong>{formatDateTime(s.first_seen)}</strong> <span class="muted">· {sessionSummary(s)}</span>
              </p>
              <ol>
                {s.pages.map((p, i) => (
                  <li key={`${i}-${p.at}`}>
                    <code>{p.path}</code> <span class="muted">{formatDateTime(p.at)}</span>
                  </li>
                ))}
                {s.page_views > s.pages.length && <li class="muted">… {s.page_views - s.pages.length} more</li>}
              </ol>
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby="account-pages-title">
        <h2 id="account-pages-title">Top pages</h2>
        <p class="muted">
          Query parameters are collapsed into the page
          {data.kept_query_params.length ? ` except ${data.kept_query_params.join(', ')}` : ' (UTM included)'}.
        </p>
        <TopPages pages={data.top_pages} testId="account-top-pages" />
      </section>

      <section aria-labelledby="account-webhooks-title">
        <h2 id="account-webhooks-title">Webhooks raised</h2>
        {data.webhooks.length === 0 ? (
          <p class="muted">No webhook deliveries about this account.</p>
        ) : (
          <ScrollTable labelledBy="account-webhooks-title">
            <table data-testid="account-webhooks">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">Endpoint</th>
                </tr>
              </thead>
              <tbody>
                {data.webhooks.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <code>{d.type}</code>
                    </td>
                    <td class="when">{formatDateTime(d.created_at)}</td>
                    <td>
                      {d.status}
                      {d.last_status !== null && <span class="muted"> (HTTP {d.last_status})</span>}
                    </td>
                    <td>
                      <code>{d.webhook_id}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
        )}
      </section>
    </div>
  );
}
