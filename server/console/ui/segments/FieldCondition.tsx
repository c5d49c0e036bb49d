/** A catalog-field condition: its values (checkboxes for a closed list, chips and a text entry with suggestions otherwise). */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { addValues, type BuilderField, FIELD_SPECS, type LevelDraft, removeCondition, removeValue, toggleChoice, valuesOf } from '../../segment-rule-view.ts';
import { Button, Checkbox, TextInput } from '../kit/index.ts';
import { RemoveCondition } from './inputs.tsx';

export function FieldCondition({
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
          <Checkbox key={c} label={c} checked={values.includes(c)} onChecked={(on) => onChange(toggleChoice(level, field, c, on))} />
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
          <TextInput
            id={id}
            autoComplete="off"
            list={suggest.length ? `${id}-suggest` : undefined}
            placeholder={spec.hint}
            value={typed}
            invalid={!!problem}
            describedBy={problem ? `${id}-problem` : undefined}
            onValue={(v) => {
              setTyped(v);
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
          <Button variant="quiet" onClick={add}>
            Add {spec.label.toLowerCase()}
          </Button>
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
