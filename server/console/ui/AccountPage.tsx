/**
 * Accounts: a search box with suggestions as you type (an ARIA combobox over the catalog: company id,
 * domain or name), and one account as a profile — a header card (logo placeholder, name, domain,
 * firmographics, segments and lists as chips, its owner and stage in the connected CRM as the CRM sync read
 * them back, the hot flag), a score card per product with the factors that made it, then tabs: the journey
 * (page views per day, its sessions with their pages in order, its engaged time and custom events
 * (AccountEngagement.tsx), top pages with query parameters collapsed but
 * the customer's kept ones, a CSV download: the only part with a date range), its intent topics, the
 * webhooks it raised, and its people (the buying committee, AccountPeople.tsx). The account is in the URL
 * fragment (`#customer=acme&page=accounts&account=900001`): the Visitors table links to it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import { accountFromHash, hashForAccount } from '../../../core/console-links.ts';
import type { AccountPage as AccountData, FoundAccount } from '../../accounts/account.ts';
import {
  accountCsvFileName,
  accountOwner,
  accountTopics,
  crmLine,
  initials,
  intentFactors,
  listLabels,
  profileFactors,
  sessionSummary,
} from '../account-view.ts';
import type { AdminClient } from '../admin-client.ts';
import { formatCount } from '../format.ts';
import { defaultRange } from '../visits-view.ts';
import { AccountEngagement } from './AccountEngagement.tsx';
import { AccountPeople } from './AccountPeople.tsx';
import { AccountTopics } from './AccountTopics.tsx';
import { formatDate, formatDateTime } from './datetime.ts';
import { Button, Chips, EmptyState, ErrorBox, Table, TextInput } from './kit/index.ts';
import { ReportFilters } from './ReportFilters.tsx';
import { StatList } from './StatList.tsx';
import { saveTextFile } from './save-file.ts';
import { TopPages } from './TopPages.tsx';
import { useLoad } from './use-load.ts';
import { useLocationHash } from './use-location-hash.ts';

/** Suggestions are asked this long after the last keystroke (ms): one request per pause, not per key. */
const SUGGEST_DELAY_MS = 180;

export function AccountPage({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const account = accountFromHash(useLocationHash()[0]);
  return (
    <div class="customer" data-testid="accounts-page">
      <AccountSearch api={api} customer={customer} />
      {account ? (
        <AccountView key={account} api={api} customer={customer} companyId={account} />
      ) : (
        <EmptyState>Search for a company, or open one from the Visitors table.</EmptyState>
      )}
    </div>
  );
}

const foundLine = (a: FoundAccount) => [a.domain, a.industry, a.country_iso_code].filter(Boolean).join(' · ');

/**
 * The search box: an ARIA combobox (the WAI-ARIA 1.2 "list autocomplete" pattern). Typing asks the search
 * route after a pause and lists the matches; ↓/↑ move through them (aria-activedescendant: the focus stays in
 * the box), Enter opens the one chosen, Escape closes the list. Enter with none chosen (or the Search button)
 * lists the matches below the form as links.
 */
function AccountSearch({ api, customer }: { api: AdminClient; customer: CustomerRecord }) {
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const [suggestions, setSuggestions] = useState<FoundAccount[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const typed = useRef(false);
  const found = useLoad(() => (asked ? api.searchAccounts(customer.id, asked) : Promise.resolve({ accounts: [] })), [api, customer.id, asked]);

  useEffect(() => {
    const term = q.trim();
    if (!typed.current || !term) {
      setSuggestions([]);
      setOpen(false);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      api.searchAccounts(customer.id, term).then(
        (r) => {
          if (!live) return;
          setSuggestions(r.accounts);
          setActive(-1);
          setOpen(true);
        },
        // A failed suggestion is no error to show: the Search button still says why.
        () => live && setSuggestions([]),
      );
    }, SUGGEST_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, customer.id, q]);

  const shown = open && suggestions.length > 0;
  const choose = (a: FoundAccount) => {
    setOpen(false);
    location.hash = hashForAccount(customer.id, a.company_id);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' && suggestions.length > 0) {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (i + 1) % suggestions.length);
    } else if (e.key === 'ArrowUp' && suggestions.length > 0) {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (i <= 0 ? suggestions.length - 1 : i - 1));
    } else if (e.key === 'Enter' && shown && active >= 0) {
      e.preventDefault();
      choose(suggestions[active]!);
    } else if (e.key === 'Escape' && shown) {
      e.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  };
  const search = (e: Event) => {
    e.preventDefault();
    setOpen(false);
    setAsked(q.trim() || null);
  };
  const optionId = (i: number) => `account-suggestion-${i}`;
  return (
    <section class="card" aria-labelledby="account-search-title">
      <h2 id="account-search-title">Find an account</h2>
      <form class="account-search" aria-label="Account search" onSubmit={search}>
        <div class="field combobox">
          <label for="account-search">Company name, domain or id</label>
          <TextInput
            id="account-search"
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={shown}
            aria-controls="account-suggestions"
            aria-activedescendant={shown && active >= 0 ? optionId(active) : undefined}
            describedBy="account-search-hint"
            autoComplete="off"
            spellcheck={false}
            value={q}
            maxLength={200}
            onValue={(v) => {
              typed.current = true;
              setQ(v);
            }}
            onKeyDown={onKey}
            onBlur={() => setOpen(false)}
            onFocus={() => suggestions.length > 0 && setOpen(true)}
          />
          <p class="hint" id="account-search-hint">
            Suggestions appear as you type: ↓ and ↑ to choose, Enter to open.
          </p>
          <div id="account-suggestions" role="listbox" aria-label="Suggested accounts" class="suggestions" hidden={!shown} data-testid="account-suggestions">
            {suggestions.map((a, i) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard chooses through the combobox (aria-activedescendant), as the pattern says.
              <div
                key={a.company_id}
                id={optionId(i)}
                role="option"
                tabIndex={-1}
                aria-selected={i === active}
                class={i === active ? 'suggestion suggestion-active' : 'suggestion'}
                // The box keeps the focus: a press on a suggestion must not blur it (which closes the list) before the click.
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => choose(a)}
              >
                <span class="suggestion-name">{a.name ?? a.company_id}</span> <span class="muted">{foundLine(a)}</span>
              </div>
            ))}
          </div>
          <p class="sr-only" role="status">
            {open ? (suggestions.length === 0 ? 'No suggestions.' : `${suggestions.length} suggestions.`) : ''}
          </p>
        </div>
        <div class="form-actions">
          <Button type="submit">Search</Button>
        </div>
      </form>
      {found.error && <ErrorBox>Could not search: {found.error}</ErrorBox>}
      {asked && found.data && (
        <ul class="plain search-results" data-testid="account-search-results" aria-label="Matching companies">
          {found.data.accounts.length === 0 && <li class="muted">No company starts with “{asked}”.</li>}
          {found.data.accounts.map((a) => (
            <li key={a.company_id}>
              <a href={hashForAccount(customer.id, a.company_id)}>{a.name ?? a.company_id}</a>{' '}
              <span class="muted">
                {foundLine(a) || '—'} · <code>{a.company_id}</code>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const TABS = [
  ['journey', 'Journey'],
  ['topics', 'Topics'],
  ['deliveries', 'Deliveries'],
  ['people', 'People'],
] as const;
type Tab = (typeof TABS)[number][0];

function AccountView({ api, customer, companyId }: { api: AdminClient; customer: CustomerRecord; companyId: string }) {
  const [range, setRange] = useState(defaultRange);
  const [tab, setTab] = useState<Tab>('journey');
  const page = useLoad(() => api.account(customer.id, companyId, range), [api, customer.id, companyId, range.from, range.to]);
  const download = async () =>
    saveTextFile(await api.accountCsv(customer.id, companyId, range), accountCsvFileName(customer.id, companyId, range.from, range.to));
  if (page.error)
    return (
      <ErrorBox>
        Could not load the account {companyId}: {page.error}
      </ErrorBox>
    );
  const data = page.data;
  if (!data) return <p class="muted">Loading the account…</p>;
  // The tabs follow the WAI-ARIA tabs pattern: ←/→ move between them (and show the one reached).
  const onTabKey = (e: KeyboardEvent) => {
    const at = TABS.findIndex(([id]) => id === tab);
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = TABS[(at + step + TABS.length) % TABS.length]![0];
    setTab(next);
    document.getElementById(`account-tab-${next}`)?.focus();
  };
  return (
    <div class="account" data-testid="account-view">
      <ProfileCard data={data} />
      <ScoreCards data={data} />
      <div class="account-tabs">
        <div class="tablist" role="tablist" aria-label="About this account">
          {TABS.map(([id, title]) => (
            <button
              key={id}
              type="button"
              role="tab"
              id={`account-tab-${id}`}
              aria-selected={tab === id}
              aria-controls={`account-panel-${id}`}
              tabIndex={tab === id ? 0 : -1}
              onClick={() => setTab(id)}
              onKeyDown={onTabKey}
            >
              {title}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`account-panel-${tab}`} aria-labelledby={`account-tab-${tab}`} class="tabpanel">
          {tab === 'journey' && <Journey data={data} range={range} onRange={setRange} download={download} />}
          {tab === 'topics' && (
            <>
              <AccountTopics data={data} customerId={customer.id} />
              <Topics data={data} />
            </>
          )}
          {tab === 'deliveries' && <Deliveries data={data} />}
          {tab === 'people' && <AccountPeople api={api} customer={customer} companyId={companyId} />}
        </div>
      </div>
    </div>
  );
}

/** The header card: who the account is, where it stands (segments, lists, CRM owner and stage), whether it is hot. */
function ProfileCard({ data }: { data: AccountData }) {
  const c = data.company;
  const owner = accountOwner(data.crm);
  // Hot is a flag of its own beside the name; the other lists are chips with the segments.
  const lists = listLabels({ ...data.lists, hot: false });
  const chips = [...data.segments.map((s) => ({ key: `s${s.id}`, label: s.name })), ...lists.map((l) => ({ key: `l${l}`, label: l, tone: 'quiet' as const }))];
  const size = [c.employee_range, c.employee_count ? `${c.employee_count} employees` : null].filter(Boolean).join(' · ');
  return (
    <section class="card profile" aria-labelledby="account-name" data-testid="account-profile">
      <div class="profile-head">
        <div class="profile-logo" aria-hidden="true">
          {initials(c.name, c.domain)}
        </div>
        <div class="profile-title">
          <h2 id="account-name">{c.name ?? data.company_id}</h2>
          <p class="muted">
            {c.domain ?? 'no domain'} · <code>{data.company_id}</code>
          </p>
        </div>
        {data.lists.hot && (
          <span class="badge badge-hot" data-testid="account-hot">
            Hot account{data.lists.hot_products.length ? ` (${data.lists.hot_products.join(', ')})` : ''}
          </span>
        )}
      </div>
      <dl class="profile-facts" data-testid="account-firmographics">
        {(
          [
            ['Industry', [c.industry, c.industry_v2[0]?.subindustry].filter(Boolean).join(' · ')],
            ['Size', size],
            ['Country', c.country],
            ['Owner', owner ? owner.owner : 'No owner in a connected CRM'],
            ['Stage', owner?.stage ?? ''],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value || '—'}</dd>
          </div>
        ))}
      </dl>
      <Chips label="Segments and lists" items={chips} empty="in no segment or list" testId="account-chips" />
      <details class="profile-more">
        <summary>More about the company</summary>
        <dl class="facts">
          {(
            [
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
        {data.crm.length > 0 && (
          <ul class="plain" data-testid="account-crm" aria-label="In the CRM">
            {data.crm.map((crm) => (
              <li key={crm.provider}>
                {crmLine(crm)} <span class="muted">({crm.read_at ? `read back ${formatDateTime(crm.read_at)}` : 'not read back yet'})</span>
              </li>
            ))}
          </ul>
        )}
      </details>
    </section>
  );
}

/** How many intent factors a score card lists before "all of them". */
const SHOWN_FACTORS = 3;

/** A card per product: intent and profile with their stage and fit, and why (the score's factors). */
function ScoreCards({ data }: { data: AccountData }) {
  return (
    <section aria-labelledby="account-scores-title">
      <h2 id="account-scores-title">Scores</h2>
      {data.scores.length === 0 && <EmptyState>The customer has no products to score for.</EmptyState>}
      <div class="score-cards">
        {data.scores.map((s) => {
          const intent = intentFactors(s);
          return (
            <section class="card score-card" key={s.product} data-testid="account-score" aria-labelledby={`score-${s.product}`}>
              <h3 id={`score-${s.product}`}>
                {s.product_display_name} {s.is_svcqa && <span class="badge badge-hot">hot</span>}
              </h3>
              <div class="score-figures">
                <p>
                  <span class="score-number">{s.intent_score}</span> intent <span class="muted">· {s.buying_stage}</span>
                </p>
                <p>
                  <span class="score-number">{s.profile_score}</span> profile <span class="muted">· {s.profile_fit}</span>
                </p>
              </div>
              <p class="score-why">
                <strong>Why:</strong> {formatCount(Math.round(s.factors.intent.points))} intent points, profile {s.factors.profile.points} of 100
              </p>
              <ul class="score-factors">
                {profileFactors(s).map((line) => (
                  <li key={line}>{line}</li>
                ))}
                {intent.slice(0, SHOWN_FACTORS).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              {intent.length > SHOWN_FACTORS && (
                <details>
                  <summary>All {intent.length} intent factors</summary>
                  <ul class="score-factors">
                    {intent.slice(SHOWN_FACTORS).map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                </details>
              )}
            </section>
          );
        })}
      </div>
    </section>
  );
}

function Journey({
  data,
  range,
  onRange,
  download,
}: {
  data: AccountData;
  range: { from: string; to: string };
  onRange(r: { from: string; to: string }): void;
  download(): Promise<void>;
}) {
  const totals: [number, string][] = [
    [data.totals.page_views, 'page views'],
    [data.totals.sessions, 'sessions'],
    [data.totals.days_active, 'days active'],
  ];
  const days = data.daily.filter((d) => d.page_views > 0);
  return (
    <>
      <ReportFilters label="Account range" idPrefix="account" range={range} onApply={onRange} download={download} />
      <section aria-labelledby="account-daily-title">
        <h3 id="account-daily-title">Page views per day</h3>
        <StatList testId="account-totals" stats={totals} />
        <Table
          labelledBy="account-daily-title"
          testId="account-daily"
          caption={`Days with page views from ${formatDate(data.from)} to ${formatDate(data.to)}`}
          columns={['Day', { title: 'Page views', num: true }]}
          empty="No page views in this range."
          rowCount={days.length}
        >
          {days.map((d) => (
            <tr key={d.day}>
              <td class="when">{formatDate(d.day)}</td>
              <td class="num">{formatCount(d.page_views)}</td>
            </tr>
          ))}
        </Table>
      </section>

      <section aria-labelledby="account-journey-title">
        <h3 id="account-journey-title">Sessions</h3>
        {data.sessions.length === 0 && <EmptyState>No sessions in this range.</EmptyState>}
        <ol class="plain journey" data-testid="account-journey">
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

      <AccountEngagement engagement={data.engagement} />

      <section aria-labelledby="account-pages-title">
        <h3 id="account-pages-title">Top pages</h3>
        <p class="muted">
          Query parameters are collapsed into the page
          {data.kept_query_params.length ? ` except ${data.kept_query_params.join(', ')}` : ' (UTM included)'}.
        </p>
        <TopPages pages={data.top_pages} testId="account-top-pages" />
      </section>
    </>
  );
}

/** The research the account shows: its intent topics, as its scores read them (no date range: signals have their own age). */
function Topics({ data }: { data: AccountData }) {
  const topics = accountTopics(data.scores);
  return (
    <section aria-labelledby="account-topics-title">
      <h3 id="account-topics-title">Intent topics</h3>
      <Table
        labelledBy="account-topics-title"
        testId="account-topics"
        columns={['Topic', { title: 'Strength', num: true }, { title: 'Age (days)', num: true }, 'Counts for']}
        empty="No intent signals about this account."
        rowCount={topics.length}
      >
        {topics.map((t) => (
          <tr key={t.topic}>
            <th scope="row">{t.topic}</th>
            <td class="num">{formatCount(Math.round(t.strength))}</td>
            <td class="num">{formatCount(Math.round(t.age_days))}</td>
            <td>{t.products.join(', ')}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

function Deliveries({ data }: { data: AccountData }) {
  return (
    <section aria-labelledby="account-webhooks-title">
      <h3 id="account-webhooks-title">Webhooks raised</h3>
      <Table
        labelledBy="account-webhooks-title"
        testId="account-webhooks"
        columns={['Event', 'Created', 'Status', 'Endpoint']}
        empty="No webhook deliveries about this account."
        rowCount={data.webhooks.length}
      >
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
      </Table>
    </section>
  );
}
