/**
 * The workspace's choice of third-party intent topics (GET|PUT /admin/api/customers/:id/topics): the topics
 * it follows as removable chips, and the dataset's topics to pick from (GET …/topics/names) — a filter box,
 * then checkboxes with each topic's accounts and those surging this week. Save sends the whole list. Without
 * `segments:write` (a viewer) it is read only.
 */
import { useState } from 'preact/hooks';
import type { CustomerRecord } from '../../../core/access-records.ts';
import type { AdminClient } from '../admin-client.ts';
import { formatCount } from '../format.ts';
import { choiceProblem, isChosen, PICKER_ROWS, sameTopics, toggleTopic, weekLabel } from '../topics-view.ts';
import { Button, Card, Checkbox, EmptyState, ErrorBox, Field, TextInput } from './kit/index.ts';
import { LoadState } from './LoadState.tsx';
import { useLoad } from './use-load.ts';

export function TopicsSettings({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  const saved = useLoad(() => api.topics(customer.id), [api, customer.id]);
  // Kept here: a save reloads the followed topics, and the form starts again from them.
  const [status, setStatus] = useState('');
  return (
    <Card title="Intent topics" titleId="topics-settings-title" testId="topics-settings">
      <p class="muted">
        The third-party topics your workspace follows: the account pages show the accounts surging on them (a score of 60 or more: far more research than the
        account usually does) with their trend by week, segments can use them, and API tokens with the “intent topics” setting get them in their answers.
      </p>
      <LoadState load={saved} what="the topics you follow" loading="Loading the topics you follow…" />
      {saved.data && (
        <TopicsForm
          key={saved.data.topics.join('\n')}
          api={api}
          customer={customer}
          initial={saved.data.topics}
          canWrite={canWrite}
          onSaved={(message) => {
            setStatus(message);
            saved.reload();
          }}
        />
      )}
      <p class="muted" role="status" data-testid="topics-status">
        {status}
      </p>
    </Card>
  );
}

function TopicsForm({
  api,
  customer,
  initial,
  canWrite,
  onSaved,
}: {
  api: AdminClient;
  customer: CustomerRecord;
  initial: string[];
  canWrite: boolean;
  onSaved(message: string): void;
}) {
  const [chosen, setChosen] = useState(initial);
  const [q, setQ] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const names = useLoad(() => api.topicNames(customer.id, q.trim()), [api, customer.id, q]);
  const unchanged = sameTopics(chosen, initial);
  const save = async (e: Event) => {
    e.preventDefault();
    const problem = choiceProblem(chosen);
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      const answer = await api.setTopics(customer.id, chosen);
      onSaved(`Saved: ${answer.topics.length === 0 ? 'no topics followed' : `${answer.topics.length} topics followed`}.`);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const list = names.data?.names ?? [];
  return (
    <form class="token-form" onSubmit={save} noValidate aria-label="Intent topics" data-testid="topics-form">
      <h3 id="topics-chosen-title">Followed ({chosen.length})</h3>
      {chosen.length === 0 ? (
        <EmptyState testId="topics-none">No topics followed yet.</EmptyState>
      ) : (
        <ul class="chips" aria-labelledby="topics-chosen-title" data-testid="topics-chosen">
          {chosen.map((t) => (
            <li key={t}>
              {t}
              {canWrite && (
                <Button variant="quiet" extraClass="chip-remove" aria-label={`Stop following ${t}`} onClick={() => setChosen(toggleTopic(chosen, t, false))}>
                  ×
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <>
          <Field
            id="topics-filter"
            label="Find a topic"
            hint={names.data?.latest_week ? `Scores of the week of ${weekLabel(names.data.latest_week)}.` : undefined}
          >
            <TextInput
              id="topics-filter"
              type="search"
              value={q}
              maxLength={200}
              onValue={setQ}
              describedBy={names.data?.latest_week ? 'topics-filter-hint' : undefined}
              testId="topics-filter"
            />
          </Field>
          <LoadState load={names} what="the dataset's topics" loading="Loading the dataset's topics…" />
          {names.data && names.data.total === 0 && (
            <EmptyState testId="topics-no-match">{q.trim() ? `No topic holds “${q.trim()}”.` : 'The dataset holds no third-party topics yet.'}</EmptyState>
          )}
          {list.length > 0 && (
            <fieldset class="topic-picker" data-testid="topics-picker">
              <legend>
                Topics of the dataset
                {names.data && names.data.total > PICKER_ROWS ? ` (the first ${PICKER_ROWS} of ${formatCount(names.data.total)}: type to narrow)` : ''}
              </legend>
              {list.slice(0, PICKER_ROWS).map((n) => (
                <Checkbox
                  key={n.name}
                  label={
                    <>
                      {n.name}{' '}
                      <span class="muted">
                        {formatCount(n.accounts)} accounts, {formatCount(n.surging)} surging
                      </span>
                    </>
                  }
                  checked={isChosen(chosen, n.name)}
                  onChecked={(on) => setChosen(toggleTopic(chosen, n.name, on))}
                />
              ))}
            </fieldset>
          )}
          {error && <ErrorBox testId="topics-error">{error}</ErrorBox>}
          <div class="form-actions">
            <Button type="submit" disabled={busy || unchanged} data-testid="topics-save">
              {busy ? 'Saving…' : 'Save topics'}
            </Button>
          </div>
        </>
      )}
    </form>
  );
}
