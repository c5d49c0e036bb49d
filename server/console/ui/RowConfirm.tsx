/** A table row's action awaiting confirmation (useRowAction): what it will do, its button (`children`), Cancel. */
import type { ComponentChildren } from 'preact';

export function RowConfirm(p: { label: string; message: ComponentChildren; busy: boolean; onCancel(): void; children: ComponentChildren }) {
  return (
    <fieldset class="confirm" aria-label={p.label}>
      <p>{p.message}</p>
      {p.children}{' '}
      <button type="button" class="btn btn-quiet" disabled={p.busy} onClick={p.onCancel}>
        Cancel
      </button>
    </fieldset>
  );
}
