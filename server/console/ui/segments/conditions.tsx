/** One level's conditions (the top level's or a group's) and the editors of intent, visited-page and page-view conditions. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { SegmentMatch } from '../../../../core/customer-records.ts';
import { BUYING_STAGES, type BuyingStage } from '../../../../core/vocabulary.ts';
import {
  addCondition,
  type BuilderField,
  type ConditionKind,
  conditionsOf,
  freeKinds,
  KIND_LABELS,
  type LevelDraft,
  type LevelRef,
  type NewKind,
  type ProductChoice,
  type RuleProblem,
  removeCondition,
  stageSuggestions,
  suggestions,
  toggleStage,
  valuesOf,
} from '../../segment-rule-view.ts';
import { Button, Checkbox, Select, TextInput } from '../kit/index.ts';
import { CrmOwnerCondition, CrmStageCondition, crmFirstInput } from './CrmCondition.tsx';
import { EngagementCondition, engagementFirstInput } from './EngagementCondition.tsx';
import { FieldCondition } from './FieldCondition.tsx';
import { DaysInput, RemoveCondition } from './inputs.tsx';
import { LookalikeConditionEditor, type LookalikeScopeValue } from './LookalikeCondition.tsx';
import { TopicConditionEditor } from './TopicCondition.tsx';

/** The id prefix of a level's inputs: unique on the page, so labels and problems point at the right input. */
export const idPrefix = (where: LevelRef) => (where === 'top' ? 'segment' : `segment-g${where}`);
/** The input a rule problem is about. */
export const problemInput = (p: RuleProblem) => `${idPrefix(p.level)}-${p.kind}-${p.part}`;

/** One level's conditions and its "Add a condition on" picker (the top level's or a group's). */
export function LevelEditor({
  level,
  where,
  products,
  others,
  problems,
  addLabel,
  empty,
  scope,
  onChange,
}: {
  level: LevelDraft;
  where: LevelRef;
  products: readonly ProductChoice[];
  others: readonly SegmentMatch[];
  problems: readonly RuleProblem[];
  addLabel: string;
  empty: string | null;
  /** What the lookalike condition's editor reads (the API, the customer's segments); absent: it offers no sample. */
  scope?: LookalikeScopeValue;
  onChange(level: LevelDraft): void;
}) {
  const [adding, setAdding] = useState<NewKind | ''>('');
  const idp = idPrefix(where);
  const used = conditionsOf(level);
  const free = freeKinds(level, products.length > 0);
  const firstInput = (kind: NewKind) =>
    kind === 'intent'
      ? `${idp}-intent-product`
      : kind === 'visited'
        ? `${idp}-visited-path`
        : kind === 'page_views'
          ? `${idp}-page_views-min`
          : kind === 'engaged' || kind === 'event'
            ? engagementFirstInput(idp, kind)
            : kind === 'crm_owner' || kind === 'crm_stage'
              ? crmFirstInput(idp, kind)
              : kind === 'lookalike'
                ? `${idp}-lookalike-seed`
                : kind === 'topic'
                  ? `${idp}-topic-name`
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
              scope={scope}
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
          <Select
            id={`${idp}-add-field`}
            value={adding}
            options={[['', `${addLabel}…`], ...free.map((f) => [f, KIND_LABELS[f]] as const)]}
            onValue={(v) => setAdding(v as NewKind | '')}
          />
          <Button
            variant="quiet"
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
          </Button>
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
  scope,
  onChange,
}: {
  kind: ConditionKind;
  level: LevelDraft;
  idp: string;
  products: readonly ProductChoice[];
  others: readonly SegmentMatch[];
  problem: RuleProblem | null;
  scope: LookalikeScopeValue | undefined;
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
          <Select
            id={`${idp}-intent-product`}
            value={intent.product}
            options={[
              ...(known ? [] : [[intent.product, intent.product === '' ? 'Pick a product…' : `${intent.product} (not a product of this customer)`] as const]),
              ...products.map((p) => [p.name, p.display_name] as const),
            ]}
            onValue={(product) => set({ ...intent, product })}
            {...invalidIf('product')}
          />
        </div>
        <fieldset class="checks choice-grid">
          <legend class="seg-legend">Buying stage is any of</legend>
          {BUYING_STAGES.map((s: BuyingStage) => (
            <Checkbox key={s} label={s} checked={intent.stages.includes(s)} onChecked={(on) => set(toggleStage(intent, s, on))} />
          ))}
        </fieldset>
        <div class="seg-inline">
          <label for={`${idp}-intent-min_score`}>Minimum intent score</label>
          <TextInput
            id={`${idp}-intent-min_score`}
            extraClass="seg-num"
            type="number"
            min={0}
            max={100}
            step={1}
            inputMode="numeric"
            placeholder="0–100"
            value={intent.min_score}
            onValue={(min_score) => set({ ...intent, min_score })}
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
        <TextInput
          id={`${idp}-visited-path`}
          autoComplete="off"
          placeholder="/pricing* or /blog/*"
          value={visited.path}
          onValue={(path) => onChange({ ...level, visited: { ...visited, path } })}
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
        <TextInput
          id={`${idp}-page_views-min`}
          extraClass="seg-num"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={views.min}
          onValue={(min) => onChange({ ...level, page_views: { ...views, min } })}
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
  } else if (kind === 'engaged' || kind === 'event') {
    return <EngagementCondition kind={kind} level={level} idp={idp} problem={problem} onChange={onChange} />;
  } else if (kind === 'crm_owner') {
    return <CrmOwnerCondition level={level} idp={idp} onChange={onChange} />;
  } else if (kind === 'crm_stage') {
    return <CrmStageCondition level={level} idp={idp} suggest={stageSuggestions(others)} onChange={onChange} />;
  } else if (kind === 'lookalike') {
    return <LookalikeConditionEditor level={level} idp={idp} problem={problem} scope={scope} onChange={onChange} />;
  } else if (kind === 'topic') {
    return <TopicConditionEditor level={level} idp={idp} problem={problem} scope={scope} onChange={onChange} />;
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
