/**
 * The segment builder's intent-topic condition: a topic of the dataset (typed, with the dataset's names as
 * suggestions, the customer's followed ones first), the minimum score (60 = a surge) and the weeks looked
 * back. The rule it stands for: ../../topic-rule-view.ts.
 */
import type { LevelDraft, RuleProblem } from '../../segment-rule-view.ts';
import { removeCondition } from '../../segment-rule-view.ts';
import type { TopicDraft } from '../../topic-rule-view.ts';
import { MAX_TOPIC_WEEKS } from '../../topic-rule-view.ts';
import { TextInput } from '../kit/index.ts';
import { useLoad } from '../use-load.ts';
import { RemoveCondition } from './inputs.tsx';
import type { LookalikeScopeValue } from './LookalikeCondition.tsx';

export function TopicConditionEditor({
  level,
  idp,
  problem,
  scope,
  onChange,
}: {
  level: LevelDraft;
  idp: string;
  problem: RuleProblem | null;
  /** The API and the customer: the dataset's topic names to suggest (absent: typed only). */
  scope: Pick<LookalikeScopeValue, 'api' | 'customerId'> | undefined;
  onChange(level: LevelDraft): void;
}) {
  const draft = level.topic!;
  const set = (next: Partial<TopicDraft>) => onChange({ ...level, topic: { ...draft, ...next } });
  const names = useLoad(() => (scope ? scope.api.topicNames(scope.customerId) : Promise.resolve(null)), [scope?.api, scope?.customerId]);
  const problemId = `${idp}-topic-problem`;
  const invalidIf = (part: RuleProblem['part']) => (problem?.part === part ? { 'aria-invalid': true, 'aria-describedby': problemId } : {});
  const suggestions = [...(names.data?.names ?? [])].sort((a, b) => Number(b.followed) - Number(a.followed));
  const listId = `${idp}-topic-names`;
  return (
    <li class="condition" data-testid="condition-topic">
      <div class="section-head">
        <strong>Intent topic</strong>
        <RemoveCondition label="Intent topic" onRemove={() => onChange(removeCondition(level, 'topic'))} />
      </div>
      <div class="seg-inline">
        <label for={`${idp}-topic-name`}>Topic</label>
        <TextInput
          id={`${idp}-topic-name`}
          autoComplete="off"
          list={listId}
          placeholder="e.g. customer data platform"
          value={draft.name}
          maxLength={200}
          onValue={(name) => set({ name })}
          {...invalidIf('name')}
        />
        <datalist id={listId}>
          {suggestions.map((n) => (
            <option key={n.name} value={n.name}>
              {n.followed ? 'followed · ' : ''}
              {n.surging.toLocaleString('en-US')} surging
            </option>
          ))}
        </datalist>
      </div>
      <div class="seg-inline">
        <label for={`${idp}-topic-min_score`}>Score at least</label>
        <TextInput
          id={`${idp}-topic-min_score`}
          extraClass="seg-num"
          type="number"
          min={0}
          max={100}
          step={1}
          inputMode="numeric"
          value={draft.min_score}
          onValue={(min_score) => set({ min_score })}
          {...invalidIf('min_score')}
        />
        <span aria-hidden="true">in one of the last</span>
        <label for={`${idp}-topic-weeks`} class="sr-only">
          Weeks looked back
        </label>
        <TextInput
          id={`${idp}-topic-weeks`}
          extraClass="seg-num"
          type="number"
          min={1}
          max={MAX_TOPIC_WEEKS}
          step={1}
          inputMode="numeric"
          value={draft.weeks}
          onValue={(weeks) => set({ weeks })}
          {...invalidIf('weeks')}
        />
        <span aria-hidden="true">weeks</span>
      </div>
      <p class="hint">
        Third-party research on the topic: 60 or more is a surge. The weeks end on the latest week the data holds
        {names.data?.latest_week ? ` (${names.data.latest_week})` : ''}.
      </p>
      {problem && (
        <p class="error" id={problemId} data-testid="condition-problem">
          {problem.message}
        </p>
      )}
    </li>
  );
}
