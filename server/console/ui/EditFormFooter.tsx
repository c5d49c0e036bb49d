/** The end of an edit form (useEditForm): the save button and the status line (saved, or why not). */
export function EditFormFooter(p: { busy: boolean; status: { ok: boolean; text: string } | null; label: string }) {
  return (
    <>
      <div class="form-actions">
        <button type="submit" class="btn btn-quiet" disabled={p.busy}>
          {p.busy ? 'Saving…' : p.label}
        </button>
      </div>
      <p role="status" class={p.status?.ok === false ? 'error' : 'ok'}>
        {p.status?.text ?? ''}
      </p>
    </>
  );
}
