/**
 * Segments: the customer's segments (name, rule in words, size) and, with `segments:write`, a builder —
 * one condition per field (AND across conditions, OR among a condition's values: the server's rule model),
 * pickers for employee and revenue ranges, typed values elsewhere — with a live preview of the rule as it
 * changes (debounced POST …/segments/preview: how many catalog accounts match and the first 20), save
 * (create or change), rename and delete. The rule logic is segment-rule-view.ts; the server checks again.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Segment, SegmentMatch } from '../../../core/customer-records.ts';
import type { CustomerRecord } from '../../state/store.ts';
import type { AdminClient, SegmentPreview } from '../admin-client.ts';
import {
  addCondition,
  addValues,
  type BuilderField,
  FIELD_SPECS,
  freeFields,
  hasConditions,
  removeCondition,
  removeValue,
  ruleInWords,
  ruleKey,
  segmentBody,
  suggestions,
  toggleChoice,
  usedFields,
  valuesOf,
} from '../segment-rule-view.ts';
import { useLoad } from './use-load.ts';

/** How long the rule must stay unchanged before the preview is asked for. */
const PREVIEW_DELAY_MS = 300;

type Draft = { id: number | null; name: string; match: SegmentMatch };
const newDraft = (): Draft => ({ id: null, name: '', match: {} });

export function SegmentsPage({ api, customer, canWrite }: { api: AdminClient; customer: CustomerRecord; canWrite: boolean }) {
  const segments = useLoad(() => api.segments(customer.id), [api, customer.id]);
  const [draft, setDraft] = useState<Draft | null>(null);
  // A new builder (empty form) after each save or cancel.
  const [round, setRound] = useState(0);
  const [notice, setNotice] = useState('');
  const startOver = () => {
    setDraft(null);
    setRound((r) => r + 1);
  };
  const list = segments.data ?? [];
  return (
    <div class="customer" data-testid="segments-page">
      {canWrite && (
        <section aria-labelledby="builder-title">
          <div class="section-head">
            <h2 id="builder-title">{draft?.id != null ? `Edit segment ${draft.id}` : 'Build a segment'}</h2>
            {draft && draft.id !== null && (
              <button type="button" class="btn btn-quiet" onClick={startOver}>
                New segment instead
              </button>
            )}
          </div>
          <Builder
            key={`${draft?.id ?? 'new'}-${round}`}
            api={api}
            customerId={customer.id}
            initial={draft ?? newDraft()}
            segments={list}
            onSaved={(s, created) => {
              setNotice(`Segment “${s.name}” ${created ? 'created' : 'saved'} (id ${s.id}): identification answers carry it now.`);
              startOver();
              segments.reload();
            }}
            onCancel={startOver}
          />
        </section>
      )}
      <section aria-labelledby="segments-title">
        <div class="section-head">
          <h2 id="segments-title">Segments</h2>
          <button type="button" class="btn btn-quiet" onClick={segments.reload}>
            Reload segments
          </button>
        </div>
        <p class="ok" role="status" data-testid="segments-notice">
          {notice}
        </p>
        {segments.error && (
          <p class="error" role="alert">
            Could not load the segments: {segments.error}
          </p>
        )}
        {!segments.data && !segments.error && <p class="muted">Loading segments…</p>}
        {segments.data && list.length === 0 && <p class="muted">No segments yet{canWrite ? ': build one above' : ''}.</p>}
        {list.length > 0 && (
          <div class="table-wrap">
            <table class="segments" data-testid="segments-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Rule</th>
                  <th scope="col" class="num">
                    Accounts
                  </th>
                  {canWrite && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {list.map((s) => (
                  <SegmentRow
                    key={s.id}
                    api={api}
                    customerId={customer.id}
                    segment={s}
                    canWrite={canWrite}
                    onEdit={() => {
                      setNotice('');
                      setDraft({ id: s.id, name: s.name, match: s.match });
                      document.getElementById('builder-title')?.scrollIntoView();
                    }}
                    onDeleted={() => {
                      setNotice(`Segment “${s.name}” deleted; its id ${s.id} is never given again.`);
                      if (draft?.id === s.id) startOver();
                      segments.reload();
                    }}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

function SegmentRow({
  api,
  customerId,
  segment,
  canWrite,
  onEdit,
  onDeleted,
}: {
  api: AdminClient;
  customerId: string;
  segment: Segment;
  canWrite: boolean;
  onEdit(): void;
  onDeleted(): void;
}) {
  // The size comes from the preview route (segments:write); a read-only viewer sees the rule without it.
  const size = useLoad(
    () => (canWrite ? api.previewSegment(customerId, segment.match).then((p) => p.size) : Promise.resolve(null)),
    [api, customerId, ruleKey(segment.match), canWrite],
  );
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setError(null);
    try {
      await api.deleteSegment(customerId, segment.id);
      onDeleted();
    } catch (e) {
      setError((e as Error).message);
      setConfirming(false);
    }
  };
  return (
    <tr data-testid={`segment-${segment.id}`}>
      <th scope="row">
        {segment.name} <span class="muted">#{segment.id}</span>
      </th>
      <td data-testid="segment-rule">{ruleInWords(segment.match)}</td>
      <td class="num" data-testid="segment-size">
        {size.data != null ? size.data.toLocaleString('en-US') : size.error ? '?' : canWrite ? '…' : '—'}
      </td>
      {canWrite && (
        <td class="actions">
          <div class="row-actions">
            <button type="button" class="btn btn-quiet" onClick={onEdit} aria-label={`Edit ${segment.name}`}>
              Edit
            </button>
            {confirming ? (
              <>
                <button type="button" class="btn btn-danger" onClick={remove}>
                  Delete “{segment.name}”
                </button>
                <button type="button" class="btn btn-quiet" onClick={() => setConfirming(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button type="button" class="btn btn-quiet btn-danger-quiet" onClick={() => setConfirming(true)} aria-label={`Delete ${segment.name}`}>
                Delete
              </button>
            )}
          </div>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}

/** The live preview of a rule: asked again only when the rule itself changes, the latest answer wins. */
function usePreview(api: AdminClient, customerId: string, match: SegmentMatch) {
  const key = ruleKey(match);
  const [state, setState] = useState<{ key: string; preview: SegmentPreview | null; error: string | null; busy: boolean }>({
    key: '',
    preview: null,
    error: null,
    busy: false,
  });
  const asked = useRef(0);
  useEffect(() => {
    if (!hasConditions(match)) {
      setState({ key, preview: null, error: null, busy: false });
      return;
    }
    setState((s) => ({ ...s, busy: true }));
    const n = ++asked.current;
    const timer = setTimeout(() => {
      api.previewSegment(customerId, JSON.parse(JSON.stringify(match))).then(
        (preview) => n === asked.current && setState({ key, preview, error: null, busy: false }),
        (e: Error) => n === asked.current && setState({ key, preview: null, error: e.message, busy: false }),
      );
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
    // The key stands for the rule: a new object with the same conditions asks nothing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, customerId, key]);
  return state;
}

function Builder({
  api,
  customerId,
  initial,
  segments,
  onSaved,
  onCancel,
}: {
  api: AdminClient;
  customerId: string;
  initial: Draft;
  segments: Segment[];
  onSaved(s: Segment, created: boolean): void;
  onCancel(): void;
}) {
  const [name, setName] = useState(initial.name);
  const [match, setMatch] = useState<SegmentMatch>(initial.match);
  const [invalid, setInvalid] = useState<{ field: 'name' | 'rule'; message: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [adding, setAdding] = useState<BuilderField | ''>('');
  const preview = usePreview(api, customerId, match);
  const free = freeFields(match);
  const editing = initial.id;

  const change = (next: SegmentMatch) => {
    setMatch(next);
    if (invalid?.field === 'rule') setInvalid(null);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const result = segmentBody(name, match, segments, editing);
    if (!result.ok) {
      setInvalid({ field: result.field, message: result.message });
      document.getElementById(result.field === 'name' ? 'segment-name' : 'segment-add-field')?.focus();
      return;
    }
    setBusy(true);
    try {
      const saved = editing === null ? await api.createSegment(customerId, result.body) : await api.updateSegment(customerId, editing, result.body);
      onSaved(saved, editing === null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card builder" onSubmit={save} noValidate data-testid="segment-builder" aria-label="Segment builder">
      <div class="field">
        <label for="segment-name">Name</label>
        <input
          id="segment-name"
          type="text"
          autoComplete="off"
          value={name}
          maxLength={200}
          placeholder="e.g. Enterprise software in North America"
          onInput={(e) => {
            setName((e.currentTarget as HTMLInputElement).value);
            if (invalid?.field === 'name') setInvalid(null);
          }}
          aria-invalid={invalid?.field === 'name' ? true : undefined}
          aria-describedby={invalid?.field === 'name' ? 'segment-invalid' : undefined}
        />
      </div>

      <fieldset class="conditions" aria-describedby="segment-rule-hint">
        <legend>Accounts that match all of these conditions</legend>
        <p class="hint" id="segment-rule-hint">
          Each condition matches any of its values; an account is in the segment when every condition matches.
        </p>
        {usedFields(match).length === 0 && <p class="muted">No conditions yet: add one below.</p>}
        <ul class="plain condition-list">
          {usedFields(match).map((field) => (
            <Condition
              key={field}
              field={field}
              match={match}
              suggest={suggestions(
                segments.map((s) => s.match),
                field,
              )}
              onChange={change}
            />
          ))}
        </ul>
        {free.length > 0 && (
          <div class="add-condition">
            <label for="segment-add-field" class="sr-only">
              Add a condition on
            </label>
            <select id="segment-add-field" value={adding} onChange={(e) => setAdding((e.currentTarget as HTMLSelectElement).value as BuilderField | '')}>
              <option value="">Add a condition on…</option>
              {free.map((f) => (
                <option key={f} value={f}>
                  {FIELD_SPECS[f].label}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="btn btn-quiet"
              disabled={adding === ''}
              onClick={() => {
                if (adding === '') return;
                change(addCondition(match, adding));
                setAdding('');
                // The new condition's value input (typed fields) takes the focus.
                setTimeout(() => document.getElementById(`segment-value-${adding}`)?.focus(), 0);
              }}
            >
              Add condition
            </button>
          </div>
        )}
      </fieldset>

      <PreviewPanel state={preview} match={match} />

      {invalid && (
        <p class="error" role="alert" id="segment-invalid" data-testid="segment-invalid">
          {invalid.message}
        </p>
      )}
      {error && (
        <p class="error" role="alert" data-testid="segment-error">
          Not saved: {error}
        </p>
      )}
      <div class="form-actions">
        <button type="submit" class="btn" disabled={busy}>
          {busy ? 'Saving…' : editing === null ? 'Save segment' : 'Save changes'}
        </button>{' '}
        {editing !== null && (
          <button type="button" class="btn btn-quiet" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function Condition({ field, match, suggest, onChange }: { field: BuilderField; match: SegmentMatch; suggest: string[]; onChange(m: SegmentMatch): void }) {
  const spec = FIELD_SPECS[field];
  const values = valuesOf(match, field);
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = `segment-value-${field}`;
  const add = () => {
    const r = addValues(match, field, typed);
    if (!r.ok) return setProblem(r.message);
    setProblem(null);
    setTyped('');
    onChange(r.match);
  };
  let editor: ComponentChildren;
  if (spec.choices) {
    editor = (
      <fieldset class="checks choice-grid" aria-label={`${spec.label}: chosen`}>
        {spec.choices.map((c) => (
          <label key={c}>
            <input
              type="checkbox"
              checked={values.includes(c)}
              onChange={(e) => onChange(toggleChoice(match, field, c, (e.currentTarget as HTMLInputElement).checked))}
            />{' '}
            {c}
          </label>
        ))}
      </fieldset>
    );
  } else {
    editor = (
      <>
        <ul class="chips value-chips" aria-label={`${spec.label}: chosen`}>
          {values.map((v) => (
            <li key={v}>
              {v}{' '}
              <button type="button" class="chip-remove" aria-label={`Remove ${v}`} onClick={() => onChange(removeValue(match, field, v))}>
                ×
              </button>
            </li>
          ))}
        </ul>
        <div class="value-entry">
          <label for={id} class="sr-only">
            {spec.label} value
          </label>
          <input
            id={id}
            type="text"
            autoComplete="off"
            list={suggest.length ? `${id}-suggest` : undefined}
            placeholder={spec.hint}
            value={typed}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            onInput={(e) => {
              setTyped((e.currentTarget as HTMLInputElement).value);
              setProblem(null);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
          {suggest.length > 0 && (
            <datalist id={`${id}-suggest`}>
              {suggest.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
          )}
          <button type="button" class="btn btn-quiet" onClick={add}>
            Add {spec.label.toLowerCase()}
          </button>
        </div>
        {problem && (
          <p class="error" role="alert" id={`${id}-problem`}>
            {problem}
          </p>
        )}
      </>
    );
  }
  return (
    <li class="condition" data-testid={`condition-${field}`}>
      <div class="section-head">
        <strong>
          {spec.label} {spec.prefix ? 'starts with any of' : 'is any of'}
        </strong>
        <button
          type="button"
          class="btn btn-quiet btn-danger-quiet"
          onClick={() => onChange(removeCondition(match, field))}
          aria-label={`Remove the ${spec.label} condition`}
        >
          Remove
        </button>
      </div>
      {editor}
    </li>
  );
}

function PreviewPanel({ state, match }: { state: ReturnType<typeof usePreview>; match: SegmentMatch }) {
  const ready = hasConditions(match);
  return (
    <section class="preview" aria-labelledby="preview-title" data-testid="segment-preview" aria-busy={state.busy}>
      <h3 id="preview-title">Preview</h3>
      <p class="muted" data-testid="segment-rule-words">
        {ruleInWords(match)}
      </p>
      {!ready ? (
        <p class="muted">Add a condition with a value to see which accounts match.</p>
      ) : state.error ? (
        <p class="error" role="alert">
          Could not preview: {state.error}
        </p>
      ) : state.preview ? (
        <>
          <p role="status" data-testid="preview-size">
            <strong>{state.preview.size.toLocaleString('en-US')}</strong> {state.preview.size === 1 ? 'account matches' : 'accounts match'}
            {state.busy ? ' (updating…)' : ''}
          </p>
          {state.preview.accounts.length > 0 && (
            <div class="table-wrap">
              <table data-testid="preview-accounts">
                <caption>{state.preview.size > state.preview.accounts.length ? `The first ${state.preview.accounts.length}` : 'All of them'}</caption>
                <thead>
                  <tr>
                    <th scope="col">Company</th>
                    <th scope="col">Domain</th>
                    <th scope="col">Company id</th>
                  </tr>
                </thead>
                <tbody>
                  {state.preview.accounts.map((a) => (
                    <tr key={a.companyId}>
                      <th scope="row">{a.name ?? '—'}</th>
                      <td>{a.domain ?? '—'}</td>
                      <td>
                        <code>{a.companyId}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      ) : (
        <p class="muted" role="status">
          Counting…
        </p>
      )}
    </section>
  );
}
