import { Checkbox } from './kit/index.ts';

/** What a lookup's answers carry besides the firmographics (the token and web tag forms): scores, segment names. */
export function AnswersFields({
  value,
  onChange,
}: {
  value: { scores: boolean; segment_names: boolean };
  onChange(key: 'scores' | 'segment_names', on: boolean): void;
}) {
  return (
    <fieldset class="field checks">
      <legend>Answers include</legend>
      <Checkbox label="Scores" checked={value.scores} onChecked={(on) => onChange('scores', on)} />
      <Checkbox label="Segment names" checked={value.segment_names} onChecked={(on) => onChange('segment_names', on)} />
    </fieldset>
  );
}
