/** The segment builder: the name, the top level's ALL / ANY switch and conditions, groups, the preview, save and cancel. */
import { useState } from 'preact/hooks';
import type { Segment, SegmentMatch } from '../../../../core/customer-records.ts';
import type { AdminClient } from '../../admin-client.ts';
import {
  addGroup,
  draftOf,
  editLevel,
  type LevelDraft,
  type LevelRef,
  MAX_GROUPS,
  OPS,
  type Op,
  type ProductChoice,
  type RuleDraft,
  removeGroup,
  ruleOf,
  segmentBody,
  setOp,
} from '../../segment-rule-view.ts';
import { Button, Radio, TextInput } from '../kit/index.ts';
import { LevelEditor, problemInput } from './conditions.tsx';
import type { LookalikeScopeValue } from './LookalikeCondition.tsx';
import { PreviewPanel, usePreview } from './Preview.tsx';

export type Draft = { id: number | null; name: string; match: SegmentMatch };
export const newDraft = (): Draft => ({ id: null, name: '', match: {} });

export function Builder({
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
  const scope: LookalikeScopeValue = { api, customerId, segments, editing };

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
        <TextInput
          id="segment-name"
          autoComplete="off"
          value={name}
          maxLength={200}
          placeholder="e.g. Enterprise software in North America"
          onValue={(v) => {
            setName(v);
            if (invalid?.field === 'name') setInvalid(null);
          }}
          invalid={invalid?.field === 'name'}
          describedBy={invalid?.field === 'name' ? 'segment-invalid' : undefined}
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
          scope={scope}
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
              <Button variant="danger-quiet" onClick={() => change(removeGroup(draft, g.key))} aria-label={`Remove group ${i + 1}`}>
                Remove group
              </Button>
            </div>
            <LevelEditor
              level={g}
              where={g.key}
              products={products}
              others={others}
              problems={problems.filter((p) => p.level === g.key)}
              scope={scope}
              addLabel={`Add a condition to group ${i + 1} on`}
              empty="No conditions in this group yet: an empty group is left out of the rule."
              onChange={changeLevel(g.key)}
            />
          </fieldset>
        ))}
        <div class="seg-add-group">
          <Button
            variant="quiet"
            disabled={draft.groups.length >= MAX_GROUPS}
            onClick={() => {
              const next = addGroup(draft);
              change(next);
              const key = next.groups[next.groups.length - 1].key;
              setTimeout(() => document.getElementById(`segment-g${key}-add-field`)?.focus(), 0);
            }}
          >
            Add a group
          </Button>{' '}
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
        <Button type="submit" disabled={busy}>
          {busy ? 'Saving…' : editing === null ? 'Save segment' : 'Save changes'}
        </Button>{' '}
        {editing !== null && (
          <Button variant="quiet" onClick={onCancel}>
            Cancel
          </Button>
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
        <Radio
          key={o}
          extraClass="seg-op-choice"
          name={name}
          value={o}
          checked={op === o}
          aria-label={label(o)}
          onChosen={() => onChange(o)}
          label={<span aria-hidden="true">{o.toUpperCase()}</span>}
        />
      ))}
      <span aria-hidden="true">{tail}</span>
    </div>
  );
}
