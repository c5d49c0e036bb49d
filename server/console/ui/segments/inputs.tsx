/** Small inputs the condition editors share: a condition's Remove button and "in the last [N] days". */
import { Button, TextInput } from '../kit/index.ts';

export function RemoveCondition({ label, onRemove }: { label: string; onRemove(): void }) {
  return (
    <Button variant="danger-quiet" onClick={onRemove} aria-label={`Remove the ${label} condition`}>
      Remove
    </Button>
  );
}

/** "in the last [N] days". */
export function DaysInput({ id, label, value, onInput, invalid }: { id: string; label: string; value: string; onInput(v: string): void; invalid: object }) {
  return (
    <>
      <span aria-hidden="true">in the last</span>
      <label for={id} class="sr-only">
        {label}
      </label>
      <TextInput id={id} extraClass="seg-num" type="number" min={1} max={400} step={1} inputMode="numeric" value={value} onValue={onInput} {...invalid} />
      <span aria-hidden="true">days</span>
    </>
  );
}
