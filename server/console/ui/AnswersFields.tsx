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
      <label>
        <input type="checkbox" checked={value.scores} onChange={(e) => onChange('scores', (e.currentTarget as HTMLInputElement).checked)} /> Scores
      </label>
      <label>
        <input type="checkbox" checked={value.segment_names} onChange={(e) => onChange('segment_names', (e.currentTarget as HTMLInputElement).checked)} />{' '}
        Segment names
      </label>
    </fieldset>
  );
}
