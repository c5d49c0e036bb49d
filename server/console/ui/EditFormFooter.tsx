/** The end of an edit form (useEditForm): the save button and the status line (saved, or why not). */
import { Button } from './kit/index.ts';
export function EditFormFooter(p: { busy: boolean; status: { ok: boolean; text: string } | null; label: string }) {
  return (
    <>
      <div class="form-actions">
        <Button type="submit" variant="quiet" disabled={p.busy}>
          {p.busy ? 'Saving…' : p.label}
        </Button>
      </div>
      <p role="status" class={p.status?.ok === false ? 'error' : 'ok'}>
        {p.status?.text ?? ''}
      </p>
    </>
  );
}
