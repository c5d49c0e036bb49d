/**
 * Segments: the customer's segments (name, rule in words, size) and, with `segments:write`, a builder — a
 * "Match ALL / ANY of" switch over conditions (catalog fields, one condition per field with its values
 * ORed; a product's intent; a visited path pattern; a page-view count) and groups of conditions, each with
 * its own switch (one level of nesting) — with a live preview of the rule as it changes (debounced POST
 * …/segments/preview: how many catalog accounts match and the first 20), save (create or change), rename
 * and delete. The rule logic is segment-rule-view.ts; the server checks again.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Segment, SegmentMatch } from '../../../core/customer-records.ts';
import { BUYING_STAGES, type BuyingStage } from '../../../core/vocabulary.ts';
import type { CustomerRecord } from '../../state/store.ts';
import type { AdminClient, SegmentPreview } from '../admin-client.ts';
import {
  addCondition,
  addGroup,
  addValues,
  type BehaviourKind,
  type BuilderField,
  type ConditionKind,
  conditionsOf,
  draftOf,
  editLevel,
  FIELD_SPECS,
  freeKinds,
  hasConditions,
  KIND_LABELS,
  type LevelDraft,
  type LevelRef,
  MAX_GROUPS,
  OPS,
  type Op,
  type ProductChoice,
  type RuleDraft,
  type RuleProblem,
  removeCondition,
  removeGroup,
  removeValue,
  ruleInWords,
  ruleKey,
  ruleOf,
  segmentBody,
  setOp,
  suggestions,
  toggleChoice,
  toggleStage,
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
  const products: ProductChoice[] = customer.products;
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
            products={products}
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
                    products={products}
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
  products,
  canWrite,
  onEdit,
  onDeleted,
}: {
  api: AdminClient;
  customerId: string;
  segment: Segment;
  products: readonly ProductChoice[];
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
      <td data-testid="segment-rule">{ruleInWords(segment.match, products)}</td>
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

/** The live preview of a rule: asked again only when the rule itself changes, the latest answer wins; none for a rule with problems. */
function usePreview(api: AdminClient, customerId: string, match: SegmentMatch | null) {
  const key = match ? ruleKey(match) : 'invalid';
  const [state, setState] = useState<{ key: string; preview: SegmentPreview | null; error: string | null; busy: boolean }>({
    key: '',
    preview: null,
    error: null,
    busy: false,
  });
  const asked = useRef(0);
  useEffect(() => {
    if (!match || !hasConditions(match)) {
      ++asked.current;
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

/** The id prefix of a level's inputs: unique on the page, so labels and problems point at the right input. */
const idPrefix = (where: LevelRef) => (where === 'top' ? 'segment' : `segment-g${where}`);
/** The input a rule problem is about. */
const problemInput = (p: RuleProblem) => `${idPrefix(p.level)}-${p.kind}-${p.part}`;

function Builder({
  api,
  customerId,
  initial,
  segments,
  products,
  onSaved,
  onCancel,
}: {
  api: AdminClient;
  customerId: string;
  initial: Draft;
  segments: Segment[];
  products: readonly ProductChoice[];
  onSaved(s: Segment, created: boolean): void;
  onCancel(): void;
}) {
  const [name, setName] = useState(initial.name);
  const [draft, setDraft] = useState<RuleDraft>(() => draftOf(initial.match));
  const [invalid, setInvalid] = useState<{ field: 'name' | 'rule'; message: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rule = ruleOf(draft);
  const preview = usePreview(api, customerId, rule.ok ? rule.match : null);
  const problems = rule.ok ? [] : rule.problems;
  const editing = initial.id;
  const others = segments.filter((s) => s.id !== editing).map((s) => s.match);

  const change = (next: RuleDraft) => {
    setDraft(next);
    if (invalid?.field === 'rule') setInvalid(null);
  };
  const changeLevel = (where: LevelRef) => (level: LevelDraft) => change(editLevel(draft, where, () => level));
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const result = segmentBody(name, draft, segments, editing);
    if (!result.ok) {
      setInvalid({ field: result.field, message: result.message });
      const target = result.field === 'name' ? 'segment-name' : result.problem ? problemInput(result.problem) : 'segment-add-field';
      document.getElementById(target)?.focus();
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
        <legend>Rule</legend>
        <OpSwitch
          name="segment-op"
          op={draft.op}
          onChange={(op) => change(setOp(draft, 'top', op))}
          groupLabel="How the conditions combine"
          label={(o) => `Match ${o.toUpperCase()} of these conditions`}
          tail="of these conditions"
        />
        <p class="hint" id="segment-rule-hint">
          A condition matches any of its values. ALL: an account is in the segment when every condition and group holds; ANY: when at least one does. A group is
          one condition made of others, with its own ALL / ANY.
        </p>
        <LevelEditor
          level={draft}
          where="top"
          products={products}
          others={others}
          problems={problems.filter((p) => p.level === 'top')}
          addLabel="Add a condition on"
          empty={draft.groups.length === 0 ? 'No conditions yet: add one below.' : null}
          onChange={changeLevel('top')}
        />
        {draft.groups.map((g, i) => (
          <fieldset key={g.key} class="seg-group" data-testid={`segment-group-${i + 1}`}>
            <legend>Group {i + 1}</legend>
            <div class="seg-group-head">
              <OpSwitch
                name={`segment-g${g.key}-op`}
                op={g.op}
                onChange={(op) => change(setOp(draft, g.key, op))}
                groupLabel={`How group ${i + 1}'s conditions combine`}
                label={(o) => `Group ${i + 1}: match ${o.toUpperCase()} of its conditions`}
                tail="of its conditions"
              />
              <button
                type="button"
                class="btn btn-quiet btn-danger-quiet"
                onClick={() => change(removeGroup(draft, g.key))}
                aria-label={`Remove group ${i + 1}`}
              >
                Remove group
              </button>
            </div>
            <LevelEditor
              level={g}
              where={g.key}
              products={products}
              others={others}
              problems={problems.filter((p) => p.level === g.key)}
              addLabel={`Add a condition to group ${i + 1} on`}
              empty="No conditions in this group yet: an empty group is left out of the rule."
              onChange={changeLevel(g.key)}
            />
          </fieldset>
        ))}
        <div class="seg-add-group">
          <button
            type="button"
            class="btn btn-quiet"
            disabled={draft.groups.length >= MAX_GROUPS}
            onClick={() => {
              const next = addGroup(draft);
              change(next);
              const key = next.groups[next.groups.length - 1].key;
              setTimeout(() => document.getElementById(`segment-g${key}-add-field`)?.focus(), 0);
            }}
          >
            Add a group
          </button>{' '}
          <span class="hint">{draft.groups.length >= MAX_GROUPS ? `At most ${MAX_GROUPS} groups.` : 'Groups hold conditions, not other groups.'}</span>
        </div>
      </fieldset>

      <PreviewPanel state={preview} rule={rule.ok ? rule.match : null} products={products} />

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

/** "Match (ALL) (ANY) of …": how a level's conditions combine. */
function OpSwitch({
  name,
  op,
  onChange,
  groupLabel,
  label,
  tail,
}: {
  name: string;
  op: Op;
  onChange(op: Op): void;
  groupLabel: string;
  label(op: Op): string;
  tail: string;
}) {
  return (
    <div class="seg-op" role="radiogroup" aria-label={groupLabel}>
      <span aria-hidden="true">Match</span>
      {OPS.map((o) => (
        <label key={o} class="seg-op-choice">
          <input type="radio" name={name} value={o} checked={op === o} aria-label={label(o)} onChange={() => onChange(o)} />
          <span aria-hidden="true">{o.toUpperCase()}</span>
        </label>
      ))}
      <span aria-hidden="true">{tail}</span>
    </div>
  );
}

/** One level's conditions and its "Add a condition on" picker (the top level's or a group's). */
function LevelEditor({
  level,
  where,
  products,
  others,
  problems,
  addLabel,
  empty,
  onChange,
}: {
  level: LevelDraft;
  where: LevelRef;
  products: readonly ProductChoice[];
  others: readonly SegmentMatch[];
  problems: readonly RuleProblem[];
  addLabel: string;
  empty: string | null;
  onChange(level: LevelDraft): void;
}) {
  const [adding, setAdding] = useState<BuilderField | BehaviourKind | ''>('');
  const idp = idPrefix(where);
  const used = conditionsOf(level);
  const free = freeKinds(level, products.length > 0);
  const firstInput = (kind: BuilderField | BehaviourKind) =>
    kind === 'intent'
      ? `${idp}-intent-product`
      : kind === 'visited'
        ? `${idp}-visited-path`
        : kind === 'page_views'
          ? `${idp}-page_views-min`
          : `${idp}-value-${kind}`;
  return (
    <>
      {used.length === 0 && empty && <p class="muted">{empty}</p>}
      {used.length > 0 && (
        <ul class="plain condition-list">
          {used.map((kind) => (
            <ConditionItem
              key={kind}
              kind={kind}
              level={level}
              idp={idp}
              products={products}
              others={others}
              problem={problems.find((p) => p.kind === kind) ?? null}
              onChange={onChange}
            />
          ))}
        </ul>
      )}
      {free.length > 0 && (
        <div class="add-condition">
          <label for={`${idp}-add-field`} class="sr-only">
            {addLabel}
          </label>
          <select
            id={`${idp}-add-field`}
            value={adding}
            onChange={(e) => setAdding((e.currentTarget as HTMLSelectElement).value as BuilderField | BehaviourKind | '')}
          >
            <option value="">{addLabel}…</option>
            {free.map((f) => (
              <option key={f} value={f}>
                {KIND_LABELS[f]}
              </option>
            ))}
          </select>
          <button
            type="button"
            class="btn btn-quiet"
            disabled={adding === ''}
            aria-label={where === 'top' ? undefined : `${addLabel.replace(/ on$/, '')}`}
            onClick={() => {
              if (adding === '') return;
              onChange(addCondition(level, adding, products));
              setAdding('');
              // The new condition's first input takes the focus.
              const target = firstInput(adding);
              setTimeout(() => document.getElementById(target)?.focus(), 0);
            }}
          >
            Add condition
          </button>
        </div>
      )}
    </>
  );
}

function ConditionItem({
  kind,
  level,
  idp,
  products,
  others,
  problem,
  onChange,
}: {
  kind: ConditionKind;
  level: LevelDraft;
  idp: string;
  products: readonly ProductChoice[];
  others: readonly SegmentMatch[];
  problem: RuleProblem | null;
  onChange(level: LevelDraft): void;
}) {
  let title: string;
  let editor: ComponentChildren;
  const problemId = `${idp}-${kind}-problem`;
  const invalidIf = (part: RuleProblem['part']) => (problem?.part === part ? { 'aria-invalid': true, 'aria-describedby': problemId } : {});
  if (kind === 'intent' && level.intent) {
    const intent = level.intent;
    const set = (next: typeof intent) => onChange({ ...level, intent: next });
    const known = products.some((p) => p.name === intent.product);
    title = 'Intent';
    editor = (
      <div class="seg-intent">
        <div class="seg-inline">
          <label for={`${idp}-intent-product`}>Product</label>
          <select
            id={`${idp}-intent-product`}
            value={intent.product}
            onChange={(e) => set({ ...intent, product: (e.currentTarget as HTMLSelectElement).value })}
            {...invalidIf('product')}
          >
            {!known && (
              <option value={intent.product}>{intent.product === '' ? 'Pick a product…' : `${intent.product} (not a product of this customer)`}</option>
            )}
            {products.map((p) => (
              <option key={p.name} value={p.name}>
                {p.display_name}
              </option>
            ))}
          </select>
        </div>
        <fieldset class="checks choice-grid">
          <legend class="seg-legend">Buying stage is any of</legend>
          {BUYING_STAGES.map((s: BuyingStage) => (
            <label key={s}>
              <input
                type="checkbox"
                checked={intent.stages.includes(s)}
                onChange={(e) => set(toggleStage(intent, s, (e.currentTarget as HTMLInputElement).checked))}
              />{' '}
              {s}
            </label>
          ))}
        </fieldset>
        <div class="seg-inline">
          <label for={`${idp}-intent-min_score`}>Minimum intent score</label>
          <input
            id={`${idp}-intent-min_score`}
            class="seg-num"
            type="number"
            min={0}
            max={100}
            step={1}
            inputMode="numeric"
            placeholder="0–100"
            value={intent.min_score}
            onInput={(e) => set({ ...intent, min_score: (e.currentTarget as HTMLInputElement).value })}
            {...invalidIf('min_score')}
          />
        </div>
        <p class="hint">Check stages, give a minimum score, or both (then both must hold). Nothing of either: the condition is left out.</p>
      </div>
    );
  } else if (kind === 'visited' && level.visited) {
    const visited = level.visited;
    title = 'Visited a page';
    editor = (
      <div class="seg-inline">
        <label for={`${idp}-visited-path`}>Page path</label>
        <input
          id={`${idp}-visited-path`}
          type="text"
          autoComplete="off"
          placeholder="/pricing* or /blog/*"
          value={visited.path}
          onInput={(e) => onChange({ ...level, visited: { ...visited, path: (e.currentTarget as HTMLInputElement).value } })}
          {...invalidIf('path')}
        />
        <DaysInput
          id={`${idp}-visited-days`}
          label="Visited within days"
          value={visited.days}
          onInput={(days) => onChange({ ...level, visited: { ...visited, days } })}
          invalid={invalidIf('days')}
        />
      </div>
    );
  } else if (kind === 'page_views' && level.page_views) {
    const views = level.page_views;
    title = 'Page views';
    editor = (
      <div class="seg-inline">
        <span aria-hidden="true">At least</span>
        <label for={`${idp}-page_views-min`} class="sr-only">
          Minimum page views
        </label>
        <input
          id={`${idp}-page_views-min`}
          class="seg-num"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={views.min}
          onInput={(e) => onChange({ ...level, page_views: { ...views, min: (e.currentTarget as HTMLInputElement).value } })}
          {...invalidIf('min')}
        />
        <span aria-hidden="true">page views</span>
        <DaysInput
          id={`${idp}-page_views-days`}
          label="Page views within days"
          value={views.days}
          onInput={(days) => onChange({ ...level, page_views: { ...views, days } })}
          invalid={invalidIf('days')}
        />
      </div>
    );
  } else if (kind === 'company_id' || kind === 'in_list') {
    title = KIND_LABELS[kind];
    const values = valuesOf(level, kind);
    editor = (
      <p class="muted">
        {values.length > 5 ? `One of ${values.length.toLocaleString('en-US')} values` : values.join(', ')} (set through the API; kept as it is)
      </p>
    );
  } else {
    return <FieldCondition field={kind as BuilderField} level={level} idp={idp} suggest={suggestions(others, kind as BuilderField)} onChange={onChange} />;
  }
  return (
    <li class="condition" data-testid={`condition-${kind}`}>
      <div class="section-head">
        <strong>{title}</strong>
        <RemoveCondition label={title} onRemove={() => onChange(removeCondition(level, kind))} />
      </div>
      {editor}
      {problem && (
        <p class="error" id={problemId} data-testid="condition-problem">
          {problem.message}
        </p>
      )}
    </li>
  );
}

function RemoveCondition({ label, onRemove }: { label: string; onRemove(): void }) {
  return (
    <button type="button" class="btn btn-quiet btn-danger-quiet" onClick={onRemove} aria-label={`Remove the ${label} condition`}>
      Remove
    </button>
  );
}

/** "in the last [N] days". */
function DaysInput({ id, label, value, onInput, invalid }: { id: string; label: string; value: string; onInput(v: string): void; invalid: object }) {
  return (
    <>
      <span aria-hidden="true">in the last</span>
      <label for={id} class="sr-only">
        {label}
      </label>
      <input
        id={id}
        class="seg-num"
        type="number"
        min={1}
        max={400}
        step={1}
        inputMode="numeric"
        value={value}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
        {...invalid}
      />
      <span aria-hidden="true">days</span>
    </>
  );
}

function FieldCondition({
  field,
  level,
  idp,
  suggest,
  onChange,
}: {
  field: BuilderField;
  level: LevelDraft;
  idp: string;
  suggest: string[];
  onChange(l: LevelDraft): void;
}) {
  const spec = FIELD_SPECS[field];
  const values = valuesOf(level, field);
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const id = `${idp}-value-${field}`;
  const add = () => {
    const r = addValues(level, field, typed);
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
              onChange={(e) => onChange(toggleChoice(level, field, c, (e.currentTarget as HTMLInputElement).checked))}
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
              <button type="button" class="chip-remove" aria-label={`Remove ${v}`} onClick={() => onChange(removeValue(level, field, v))}>
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
        <RemoveCondition label={spec.label} onRemove={() => onChange(removeCondition(level, field))} />
      </div>
      {editor}
    </li>
  );
}

function PreviewPanel({ state, rule, products }: { state: ReturnType<typeof usePreview>; rule: SegmentMatch | null; products: readonly ProductChoice[] }) {
  const ready = rule !== null && hasConditions(rule);
  return (
    <section class="preview" aria-labelledby="preview-title" data-testid="segment-preview" aria-busy={state.busy}>
      <h3 id="preview-title">Preview</h3>
      <p class="muted" data-testid="segment-rule-words">
        {rule ? ruleInWords(rule, products) : 'The rule has a problem: see the marked condition.'}
      </p>
      {!rule ? (
        <p class="muted">Fix the marked condition to see which accounts match.</p>
      ) : !ready ? (
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
