/**
 * The editors of the engagement conditions (../../engagement-rule-view.ts): "Engaged at least [N] seconds on
 * [path pattern] in the last [D] days" and "Sent the custom event [name] at least [N] times in the last [D]
 * days", as the web tag measures them on the customer's pages.
 */
import type { EngagementKind } from '../../engagement-rule-view.ts';
import { ENGAGEMENT_LABELS } from '../../engagement-rule-view.ts';
import { type LevelDraft, type RuleProblem, removeCondition } from '../../segment-rule-view.ts';
import { TextInput } from '../kit/index.ts';
import { DaysInput, RemoveCondition } from './inputs.tsx';

/** The input a new condition of `kind` focuses first. */
export const engagementFirstInput = (idp: string, kind: EngagementKind) => (kind === 'engaged' ? `${idp}-engaged-path` : `${idp}-event-name`);

export function EngagementCondition({
  kind,
  level,
  idp,
  problem,
  onChange,
}: {
  kind: EngagementKind;
  level: LevelDraft;
  idp: string;
  problem: RuleProblem | null;
  onChange(level: LevelDraft): void;
}) {
  const title = ENGAGEMENT_LABELS[kind];
  const problemId = `${idp}-${kind}-problem`;
  const invalidIf = (part: RuleProblem['part']) => (problem?.part === part ? { 'aria-invalid': true, 'aria-describedby': problemId } : {});
  let editor = null;
  if (kind === 'engaged' && level.engaged) {
    const e = level.engaged;
    const set = (next: Partial<typeof e>) => onChange({ ...level, engaged: { ...e, ...next } });
    editor = (
      <div class="seg-inline">
        <span aria-hidden="true">At least</span>
        <label for={`${idp}-engaged-min_seconds`} class="sr-only">
          Minimum engaged seconds
        </label>
        <TextInput
          id={`${idp}-engaged-min_seconds`}
          extraClass="seg-num"
          type="number"
          min={1}
          max={86400}
          step={1}
          inputMode="numeric"
          value={e.min_seconds}
          onValue={(min_seconds) => set({ min_seconds })}
          {...invalidIf('min_seconds')}
        />
        <span aria-hidden="true">seconds on</span>
        <label for={`${idp}-engaged-path`} class="sr-only">
          Page path pattern
        </label>
        <TextInput
          id={`${idp}-engaged-path`}
          autoComplete="off"
          placeholder="/pricing* or /docs/*"
          value={e.path}
          onValue={(path) => set({ path })}
          {...invalidIf('path')}
        />
        <DaysInput id={`${idp}-engaged-days`} label="Engaged within days" value={e.days} onInput={(days) => set({ days })} invalid={invalidIf('days')} />
      </div>
    );
  } else if (kind === 'event' && level.event) {
    const v = level.event;
    const set = (next: Partial<typeof v>) => onChange({ ...level, event: { ...v, ...next } });
    editor = (
      <div class="seg-inline">
        <label for={`${idp}-event-name`}>Event name</label>
        <TextInput
          id={`${idp}-event-name`}
          autoComplete="off"
          placeholder="demo_requested"
          value={v.name}
          onValue={(name) => set({ name })}
          {...invalidIf('name')}
        />
        <span aria-hidden="true">at least</span>
        <label for={`${idp}-event-min_count`} class="sr-only">
          Minimum count
        </label>
        <TextInput
          id={`${idp}-event-min_count`}
          extraClass="seg-num"
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={v.min_count}
          onValue={(min_count) => set({ min_count })}
          {...invalidIf('min_count')}
        />
        <span aria-hidden="true">times</span>
        <DaysInput id={`${idp}-event-days`} label="Sent within days" value={v.days} onInput={(days) => set({ days })} invalid={invalidIf('days')} />
      </div>
    );
  }
  return (
    <li class="condition" data-testid={`condition-${kind}`}>
      <div class="section-head">
        <strong>{title}</strong>
        <RemoveCondition label={title} onRemove={() => onChange(removeCondition(level, kind))} />
      </div>
      {editor}
      {kind === 'engaged' && (
        <p class="hint">The seconds the account’s visitors had matching pages visible (the web tag measures it); * matches any run of characters.</p>
      )}
      {kind === 'event' && <p class="hint">A custom event the site’s pages send with svc('track', name, properties).</p>}
      {problem && (
        <p class="error" id={problemId} data-testid="condition-problem">
          {problem.message}
        </p>
      )}
    </li>
  );
}
