/**
 * The lookalike condition's editor: accounts like a seed — an account list, a segment, or company ids —
 * whose score is at least a minimum, and a sample of the accounts most like the seed with their scores and
 * reasons (POST …/lookalikes/preview, asked again — debounced — only when the seed changes). The rule
 * logic is ../../lookalike-view.ts; the builder's preview below counts the segment's members.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Segment } from '../../../../core/customer-records.ts';
import type { ListsAnswer } from '../../../lists/schema.ts';
import type { LookalikePreview } from '../../../lookalikes/schema.ts';
import type { AdminClient } from '../../admin-client.ts';
import {
  type LookalikeDraft,
  minScoreOf,
  SEED_SOURCE_LABELS,
  SEED_SOURCES,
  type SeedSource,
  scoreText,
  seedInWords,
  seedKey,
  seedOf,
} from '../../lookalike-view.ts';
import { type LevelDraft, type RuleProblem, removeCondition } from '../../segment-rule-view.ts';
import { Radio, Select, Table, TextArea, TextInput } from '../kit/index.ts';
import { useLoad } from '../use-load.ts';
import { RemoveCondition } from './inputs.tsx';

/** What the editor needs beyond its level: the API, the customer, its segments, the segment being edited. */
export interface LookalikeScopeValue {
  api: AdminClient;
  customerId: string;
  segments: readonly Pick<Segment, 'id' | 'name'>[];
  editing: number | null;
}

/** Accounts the sample shows. */
const SAMPLE = 10;
const PREVIEW_DELAY_MS = 300;

export function LookalikeConditionEditor({
  level,
  idp,
  problem,
  scope,
  onChange,
}: {
  level: LevelDraft;
  idp: string;
  problem: RuleProblem | null;
  scope: LookalikeScopeValue | undefined;
  onChange(level: LevelDraft): void;
}) {
  const draft = level.lookalike!;
  const set = (next: Partial<LookalikeDraft>) => onChange({ ...level, lookalike: { ...draft, ...next } });
  const lists = useLoad<ListsAnswer | null>(() => (scope ? scope.api.lists(scope.customerId) : Promise.resolve(null)), [scope?.api, scope?.customerId]);
  const problemId = `${idp}-lookalike-problem`;
  const invalidIf = (part: RuleProblem['part']) => (problem?.part === part ? { 'aria-invalid': true, 'aria-describedby': problemId } : {});
  const seedId = `${idp}-lookalike-seed`;
  const segments = (scope?.segments ?? []).filter((s) => s.id !== scope?.editing);
  const listOptions = (lists.data?.lists ?? []).map((l) => [l.id, `${l.name} (${l.size.toLocaleString('en-US')})`] as const);
  return (
    <li class="condition" data-testid="condition-lookalike">
      <div class="section-head">
        <strong>Lookalike</strong>
        <RemoveCondition label="Lookalike" onRemove={() => onChange(removeCondition(level, 'lookalike'))} />
      </div>
      <fieldset class="checks choice-grid">
        <legend class="seg-legend">Accounts like</legend>
        {SEED_SOURCES.map((source: SeedSource) => (
          <Radio
            key={source}
            name={`${idp}-lookalike-source`}
            value={source}
            checked={draft.source === source}
            onChosen={() => set({ source })}
            label={SEED_SOURCE_LABELS[source]}
          />
        ))}
      </fieldset>
      <div class="seg-inline">
        {draft.source === 'list' && (
          <>
            <label for={seedId}>List</label>
            <Select
              id={seedId}
              value={draft.list}
              options={[['', lists.data ? 'Pick a list…' : 'Loading lists…'], ...listOptions]}
              onValue={(list) => set({ list })}
              {...invalidIf('seed')}
            />
          </>
        )}
        {draft.source === 'segment' && (
          <>
            <label for={seedId}>Segment</label>
            <Select
              id={seedId}
              value={draft.segment}
              options={[['', segments.length > 0 ? 'Pick a segment…' : 'No other segment yet'], ...segments.map((s) => [String(s.id), s.name] as const)]}
              onValue={(segment) => set({ segment })}
              {...invalidIf('seed')}
            />
          </>
        )}
        {draft.source === 'companies' && (
          <>
            <label for={seedId}>Company ids</label>
            <TextArea
              id={seedId}
              rows={3}
              value={draft.companies}
              placeholder="100001, 100002 …"
              onValue={(companies) => set({ companies })}
              {...invalidIf('seed')}
            />
          </>
        )}
      </div>
      <div class="seg-inline">
        <label for={`${idp}-lookalike-min_score`}>Minimum score (0–1)</label>
        <TextInput
          id={`${idp}-lookalike-min_score`}
          extraClass="seg-num"
          type="number"
          min={0}
          max={1}
          step={0.05}
          inputMode="decimal"
          value={draft.min_score}
          onValue={(min_score) => set({ min_score })}
          {...invalidIf('min_score')}
        />
      </div>
      <p class="hint">
        Scored on industry, sub-industry, NAICS and SIC codes, employee and revenue bands, country and region; 1 is the seed’s typical account. The seed’s own
        accounts are never in the segment.
      </p>
      {problem && (
        <p class="error" id={problemId} data-testid="condition-problem">
          {problem.message}
        </p>
      )}
      {scope && <LookalikeSample scope={scope} draft={draft} listNames={new Map((lists.data?.lists ?? []).map((l) => [l.id, l.name]))} />}
    </li>
  );
}

/** The accounts most like the seed, with their scores and reasons, as the server ranks them. */
function LookalikeSample({ scope, draft, listNames }: { scope: LookalikeScopeValue; draft: LookalikeDraft; listNames: ReadonlyMap<string, string> }) {
  const seed = seedOf(draft);
  const key = seed.ok ? seedKey(seed.seed) : '';
  const [state, setState] = useState<{ preview: LookalikePreview | null; error: string | null; busy: boolean }>({ preview: null, error: null, busy: false });
  const asked = useRef(0);
  useEffect(() => {
    const n = ++asked.current;
    if (!seed.ok) {
      setState({ preview: null, error: null, busy: false });
      return;
    }
    setState((s) => ({ ...s, busy: true }));
    const timer = setTimeout(() => {
      scope.api.previewLookalikes(scope.customerId, { seed: seed.seed, limit: SAMPLE }).then(
        (preview) => n === asked.current && setState({ preview, error: null, busy: false }),
        (e: Error) => n === asked.current && setState({ preview: null, error: e.message, busy: false }),
      );
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
    // The key stands for the seed: a new draft object with the same seed asks nothing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [scope.api, scope.customerId, key]);
  if (!seed.ok) return null;
  const min = minScoreOf(draft.min_score);
  const segmentNames = new Map(scope.segments.map((s) => [s.id, s.name]));
  const words = seedInWords(seed.seed, { lists: listNames, segments: segmentNames });
  return (
    <div class="lookalike-sample" data-testid="lookalike-sample" aria-busy={state.busy}>
      {state.error ? (
        <p class="error" role="alert">
          Could not score the seed: {state.error}
        </p>
      ) : state.preview ? (
        <Table
          label={`Accounts most like ${words}`}
          testId="lookalike-preview"
          caption={`The ${state.preview.accounts.length} accounts most like ${words} (${state.preview.seed.accounts.toLocaleString('en-US')} seed accounts)${
            min !== undefined ? `; those scoring at least ${min} are in the segment` : ''
          }${state.busy ? ' (updating…)' : ''}`}
          captionVisible
          columns={['Company', 'Domain', { title: 'Score', num: true }, 'Why']}
          rowCount={state.preview.accounts.length}
          empty="No account of the catalog is like the seed."
        >
          {state.preview.accounts.map((a) => (
            <tr key={a.company_id} data-testid="lookalike-row">
              <th scope="row">
                {a.name ?? a.company_id}
                {a.excluded && <span class="muted"> (excluded account)</span>}
              </th>
              <td>{a.domain ?? '—'}</td>
              <td class="num">
                {scoreText(a.score)}
                {min !== undefined && a.score < min && <span class="muted"> below the minimum</span>}
              </td>
              <td>{a.reasons.join('; ') || '—'}</td>
            </tr>
          ))}
        </Table>
      ) : (
        <p class="muted" role="status">
          Scoring the catalog against {words}…
        </p>
      )}
    </div>
  );
}
