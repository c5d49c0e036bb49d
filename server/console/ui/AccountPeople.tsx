/**
 * The account page's People tab: the account's buying committee — the people of the catalog at its domain
 * by function × seniority, each with which contact details exist (never the values) — at a glance as a
 * matrix of counts, then a table per function. "Reveal" (shown only to those the server says may:
 * `people:reveal` and the customer's people add-on) asks People Enrichment's answer for one person,
 * charged 1 Enrichment credit (free again this month), and shows the details in the row; the Enrichment
 * balance above follows each reveal. "Export CSV" downloads the committee (no contact details).
 */
import type { ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { CommitteeGroup, CommitteePerson } from '../../committee/schema.ts';
import type { EnrichedPerson } from '../../people/schema.ts';
import { AdminApiError, type AdminClient } from '../admin-client.ts';
import {
  committeeMatrix,
  committeeSummary,
  contactsLine,
  enrichmentCredits,
  groupLabel,
  levelLabel,
  peopleCsvFileName,
  revealFailure,
  UNCLASSIFIED,
} from '../committee-view.ts';
import { formatCount } from '../format.ts';
import { Button, EmptyState, ErrorBox, Table } from './kit/index.ts';
import { saveTextFile } from './save-file.ts';
import { useLoad } from './use-load.ts';

export function AccountPeople({ api, customer, companyId }: { api: AdminClient; customer: CustomerRecord; companyId: string }) {
  const committee = useLoad(() => api.accountPeople(customer.id, companyId), [api, customer.id, companyId]);
  const credits = useLoad(() => api.credits(customer.id), [api, customer.id]);
  const [revealed, setRevealed] = useState<Readonly<Record<string, EnrichedPerson>>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);

  if (committee.error)
    return (
      <section aria-labelledby="account-people-title">
        <h3 id="account-people-title">Buying committee</h3>
        <ErrorBox testId="people-error">Could not load the people at this account: {committee.error}</ErrorBox>
      </section>
    );
  const data = committee.data;
  if (!data) return <p class="muted">Loading the people at this account…</p>;

  const reveal = async (p: CommitteePerson) => {
    const name = p.name ?? p.people_id;
    setBusy(p.people_id);
    setFailure(null);
    try {
      const answer = await api.revealPerson(customer.id, companyId, p.people_id);
      setRevealed((r) => ({ ...r, [p.people_id]: answer.person }));
    } catch (e) {
      setFailure(e instanceof AdminApiError ? revealFailure(name, e.status, e.message) : revealFailure(name, 0, (e as Error).message));
    } finally {
      setBusy(null);
      credits.reload();
    }
  };
  const download = async () => {
    setExportError(null);
    try {
      saveTextFile(await api.accountPeopleCsv(customer.id, companyId), peopleCsvFileName(customer.id, companyId));
    } catch (e) {
      setExportError((e as Error).message);
    }
  };
  const balance = credits.data ? enrichmentCredits(credits.data) : null;
  const matrix = committeeMatrix(data.groups, data.levels);
  const anyUnclassified = matrix.some((r) => r.unclassified > 0);

  return (
    <section aria-labelledby="account-people-title" data-testid="account-people">
      <div class="section-head">
        <h3 id="account-people-title">Buying committee</h3>
        <Button variant="quiet" onClick={download} disabled={data.shown === 0}>
          Export CSV
        </Button>
      </div>
      <p data-testid="people-summary">{committeeSummary(data)}</p>
      {data.reveal.allowed ? (
        <p class="muted" data-testid="people-credits" role="status">
          {balance ? (
            <>
              <strong data-testid="people-credits-remaining">{formatCount(balance.remaining)}</strong> of {formatCount(balance.quota)} Enrichment credits left
              this contract year. A reveal costs 1 credit; the same person is free again for the rest of the month.
            </>
          ) : credits.error ? (
            `Could not load the credits: ${credits.error}`
          ) : (
            'Loading the credits…'
          )}
        </p>
      ) : (
        <p class="muted" data-testid="people-reveal-refused">
          Contact details stay hidden: {data.reveal.reason}.
        </p>
      )}
      {failure && <ErrorBox testId="people-reveal-error">{failure}</ErrorBox>}
      {exportError && <ErrorBox>Could not export the committee: {exportError}</ErrorBox>}
      {data.shown === 0 ? (
        <EmptyState testId="people-empty">No people of the catalog at this account.</EmptyState>
      ) : (
        <>
          <Table
            label="People by function and seniority"
            caption="People by function and seniority"
            testId="people-matrix"
            columns={['Function', ...data.levels.map((l) => ({ title: l, num: true })), anyUnclassified && { title: UNCLASSIFIED, num: true }]}
          >
            {matrix.map((row) => (
              <tr key={row.fn}>
                <th scope="row">{row.fn}</th>
                {row.counts.map((n, i) => (
                  <td class="num" key={data.levels[i]}>
                    {n > 0 ? formatCount(n) : <span class="muted">–</span>}
                  </td>
                ))}
                {anyUnclassified && <td class="num">{row.unclassified > 0 ? formatCount(row.unclassified) : <span class="muted">–</span>}</td>}
              </tr>
            ))}
          </Table>
          {data.groups.map((g, i) => (
            <FunctionGroup
              key={g.function ?? UNCLASSIFIED}
              group={g}
              index={i}
              canReveal={data.reveal.allowed}
              revealed={revealed}
              busy={busy}
              onReveal={reveal}
            />
          ))}
        </>
      )}
    </section>
  );
}

/** One function's people, most senior first: who, their title and place, which details exist, and Reveal. */
function FunctionGroup({
  group,
  index,
  canReveal,
  revealed,
  busy,
  onReveal,
}: {
  group: CommitteeGroup;
  index: number;
  canReveal: boolean;
  revealed: Readonly<Record<string, EnrichedPerson>>;
  busy: string | null;
  onReveal(p: CommitteePerson): void;
}) {
  const titleId = `people-group-${index}`;
  const label = groupLabel(group.function);
  return (
    <section aria-labelledby={titleId} data-testid="people-group">
      <h4 id={titleId}>
        {label} <span class="muted">· {formatCount(group.count)}</span>
      </h4>
      <Table
        labelledBy={titleId}
        caption={`${label}: people by seniority`}
        columns={['Seniority', 'Name', 'Title', 'Location', 'Contact details', canReveal && { title: 'Reveal', actions: true }]}
      >
        {group.levels.flatMap((cell) =>
          cell.people.map((p) => {
            const shown = revealed[p.people_id];
            const name = p.name ?? p.people_id;
            return (
              <tr key={p.people_id} data-testid="people-row" data-person={p.people_id}>
                <td>{levelLabel(cell.level)}</td>
                <th scope="row">{name}</th>
                <td>{p.title ?? '—'}</td>
                <td>{[p.location.city, p.location.country].filter(Boolean).join(', ') || '—'}</td>
                <td>{shown ? <Revealed person={shown} /> : contactsLine(p)}</td>
                {canReveal && (
                  <td class="actions">
                    {shown ? (
                      <span class="badge badge-ok">Revealed</span>
                    ) : (
                      <Button variant="quiet" aria-label={`Reveal ${name}`} disabled={busy !== null} onClick={() => onReveal(p)}>
                        {busy === p.people_id ? 'Revealing…' : 'Reveal'}
                      </Button>
                    )}
                  </td>
                )}
              </tr>
            );
          }),
        )}
      </Table>
    </section>
  );
}

/** The details a reveal answered (what exists of them). */
function Revealed({ person }: { person: EnrichedPerson }) {
  const lines: [string, ComponentChild][] = [];
  if (person.email) lines.push(['Email', <a href={`mailto:${person.email}`}>{person.email}</a>]);
  if (person.phone) lines.push(['Phone', <a href={`tel:${person.phone.replace(/[^\d+]/g, '')}`}>{person.phone}</a>]);
  if (person.mobile) lines.push(['Mobile', <a href={`tel:${person.mobile.replace(/[^\d+]/g, '')}`}>{person.mobile}</a>]);
  // A profile URL of the data is linked only when it is one (never a javascript: link).
  if (person.linkedin_url && /^https?:\/\//i.test(person.linkedin_url))
    lines.push([
      'LinkedIn',
      <a href={person.linkedin_url} rel="noopener noreferrer" target="_blank">
        {person.linkedin_url}
      </a>,
    ]);
  if (lines.length === 0) return <span class="muted">No contact details</span>;
  return (
    <ul class="plain" data-testid="people-revealed">
      {lines.map(([label, value]) => (
        <li key={label}>
          <span class="muted">{label}:</span> {value}
        </li>
      ))}
    </ul>
  );
}
