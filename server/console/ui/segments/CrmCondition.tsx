/**
 * The CRM conditions (what a connected CRM says of the account, as the CRM sync read it back): its owner —
 * emails typed, "has a CRM owner", "has no CRM owner" — and its stage or type: is one of / is not one of.
 */
import { useState } from 'preact/hooks';
import {
  addOwners,
  addStages,
  type CrmStageDraft,
  KIND_LABELS,
  type LevelDraft,
  OWNER_SPECIAL,
  removeCondition,
  removeStage,
  type StageSide,
  toggleOwnerSpecial,
} from '../../segment-rule-view.ts';
import { Button, Checkbox, TextInput } from '../kit/index.ts';
import { RemoveCondition } from './inputs.tsx';

/** The id of a CRM condition's first input (focused when it is added). */
export const crmFirstInput = (idp: string, kind: 'crm_owner' | 'crm_stage') => (kind === 'crm_owner' ? `${idp}-crm_owner-email` : `${idp}-crm_stage-in`);

export function CrmOwnerCondition({ level, idp, onChange }: { level: LevelDraft; idp: string; onChange(l: LevelDraft): void }) {
  const owners = level.crm_owner ?? [];
  const emails = owners.filter((v) => !OWNER_SPECIAL.some((s) => s === v.toLowerCase()));
  const set = (next: string[]) => onChange({ ...level, crm_owner: next });
  const id = crmFirstInput(idp, 'crm_owner');
  return (
    <li class="condition" data-testid="condition-crm_owner">
      <div class="section-head">
        <strong>{KIND_LABELS.crm_owner} is any of</strong>
        <RemoveCondition label={KIND_LABELS.crm_owner} onRemove={() => onChange(removeCondition(level, 'crm_owner'))} />
      </div>
      <ValueEntry
        id={id}
        label="CRM owner email"
        values={emails}
        hint="owner email, e.g. jane@example.com"
        button="Add owner"
        add={(typed) => {
          const r = addOwners(owners, typed);
          if (!r.ok) return r.message;
          set(r.owners);
          return null;
        }}
        remove={(v) => set(owners.filter((o) => o !== v))}
      />
      <fieldset class="checks" aria-label="CRM owner: any or none">
        {OWNER_SPECIAL.map((s) => (
          <Checkbox
            key={s}
            label={s === 'any' ? 'Any owner (the account has a CRM owner)' : 'No owner (no CRM record, or one without an owner)'}
            checked={owners.some((v) => v.toLowerCase() === s)}
            onChecked={(on) => set(toggleOwnerSpecial(owners, s, on))}
          />
        ))}
      </fieldset>
      <p class="hint">
        The account’s owner in a connected CRM (HubSpot, Salesforce), as the CRM sync last read it; emails compared ignoring case. The condition holds when any
        of the chosen does.
      </p>
    </li>
  );
}

const SIDES: readonly { side: StageSide; label: string }[] = [
  { side: 'in', label: 'is one of' },
  { side: 'not_in', label: 'is not one of' },
];

export function CrmStageCondition({
  level,
  idp,
  suggest,
  onChange,
}: {
  level: LevelDraft;
  idp: string;
  suggest: readonly string[];
  onChange(l: LevelDraft): void;
}) {
  const stage: CrmStageDraft = level.crm_stage ?? { in: [], not_in: [] };
  const listId = `${idp}-crm_stage-suggest`;
  return (
    <li class="condition" data-testid="condition-crm_stage">
      <div class="section-head">
        <strong>{KIND_LABELS.crm_stage}</strong>
        <RemoveCondition label={KIND_LABELS.crm_stage} onRemove={() => onChange(removeCondition(level, 'crm_stage'))} />
      </div>
      {SIDES.map(({ side, label }) => (
        <div key={side}>
          <div class="seg-legend">{label}</div>
          <ValueEntry
            id={`${idp}-crm_stage-${side}`}
            label={`CRM stage ${label}`}
            values={stage[side]}
            hint="e.g. customer, opportunity"
            button={side === 'in' ? 'Add stage' : 'Add excluded stage'}
            list={suggest.length > 0 ? listId : undefined}
            add={(typed) => {
              const r = addStages(stage, side, typed);
              if (!r.ok) return r.message;
              onChange({ ...level, crm_stage: r.stage });
              return null;
            }}
            remove={(v) => onChange({ ...level, crm_stage: removeStage(stage, side, v) })}
          />
        </div>
      ))}
      {suggest.length > 0 && (
        <datalist id={listId}>
          {suggest.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
      <p class="hint">
        The account’s HubSpot lifecycle stage or type, or its Salesforce type, compared whole and ignoring case. An account no CRM record matched has no stage:
        “is one of” leaves it out, “is not one of” keeps it (so “is not one of customer” targets everyone but customers).
      </p>
    </li>
  );
}

/** Values as chips with a text entry that adds typed ones (`add` answers a problem or null). */
function ValueEntry({
  id,
  label,
  values,
  hint,
  button,
  list,
  add,
  remove,
}: {
  id: string;
  label: string;
  values: readonly string[];
  hint: string;
  button: string;
  list?: string;
  add(typed: string): string | null;
  remove(value: string): void;
}) {
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    const message = add(typed);
    setProblem(message);
    if (message === null) setTyped('');
  };
  return (
    <>
      {values.length > 0 && (
        <ul class="chips value-chips" aria-label={`${label}: chosen`}>
          {values.map((v) => (
            <li key={v}>
              {v}{' '}
              <button type="button" class="chip-remove" aria-label={`Remove ${v}`} onClick={() => remove(v)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="value-entry">
        <label for={id} class="sr-only">
          {label}
        </label>
        <TextInput
          id={id}
          autoComplete="off"
          list={list}
          placeholder={hint}
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
              submit();
            }
          }}
        />
        <Button variant="quiet" onClick={submit}>
          {button}
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
