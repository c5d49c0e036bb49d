/** A table row's action awaiting confirmation (useRowAction): what it will do, its button (`children`), Cancel. */
import type { ComponentChildren } from 'preact';
import { Button } from './kit/index.ts';

export function RowConfirm(p: { label: string; message: ComponentChildren; busy: boolean; onCancel(): void; children: ComponentChildren }) {
  return (
    <fieldset class="confirm" aria-label={p.label}>
      <p>{p.message}</p>
      {p.children}{' '}
      <Button variant="quiet" disabled={p.busy} onClick={p.onCancel}>
        Cancel
      </Button>
    </fieldset>
  );
}
