import { Checkbox } from './kit/index.ts';

/**
 * What a lookup's answers carry besides the firmographics (the token and web tag forms): scores, segment
 * names, and (tokens only: given `onIntentTopics`) the account's followed intent topics.
 */
export function AnswersFields({
  value,
  onChange,
  onIntentTopics,
}: {
  value: { scores: boolean; segment_names: boolean; intent_topics?: boolean };
  onChange(key: 'scores' | 'segment_names', on: boolean): void;
  onIntentTopics?(on: boolean): void;
}) {
  return (
    <fieldset class="field checks">
      <legend>Answers include</legend>
      <Checkbox label="Scores" checked={value.scores} onChecked={(on) => onChange('scores', on)} />
      <Checkbox label="Segment names" checked={value.segment_names} onChecked={(on) => onChange('segment_names', on)} />
      {onIntentTopics && <Checkbox label="Intent topics (the ones you follow)" checked={value.intent_topics === true} onChecked={onIntentTopics} />}
    </fieldset>
  );
}
